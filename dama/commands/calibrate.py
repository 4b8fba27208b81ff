"""Calibrate a camera and board: lens, corners, orientation, colours, check (guided; subcommands too).

    dama calibrate --source 0                       guided flow, profile saved as camera0
    dama calibrate --source game.mp4 --profile p.json --yes
    dama calibrate pattern --out pattern.pdf [--squares 9x6 --square-mm 25]
    dama calibrate intrinsics --source 0 [--profile NAME]
    dama calibrate colours --source 0 --profile NAME    re-learn the colours only
    dama calibrate check --source 0 --profile NAME      the pre-game check only
    dama calibrate show --profile NAME                  print a saved profile's summary
    (NAME: a profile in ~/.config/dama/profiles, e.g. camera0-club1, or a path to a .json file)
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from calibration.pattern import PatternSpec


def _pattern_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--squares", default="9x6", help="squares across x down on the printed pattern (default 9x6)")
    p.add_argument("--square-mm", type=float, default=25.0, help="printed size of one square (default 25)")


def _source_args(p: argparse.ArgumentParser, required: bool) -> None:
    p.add_argument("--source", required=required, help="camera index (0), video file, image folder or URL")
    p.add_argument("--profile", help="profile name (saved in ~/.config/dama/profiles) or a .json path; "
                                     "default: named after the camera and --board")
    p.add_argument("--board", dest="board_name", help="name of the board, for one profile per camera and board "
                                                      "(default profile name: camera0-NAME)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    _source_args(parser, required=False)
    _pattern_args(parser)
    parser.add_argument("--no-lens", action="store_true", help="skip the lens (pattern) step")
    parser.add_argument("--corners", help="board corners by hand, \"x,y x,y x,y x,y\" in any order "
                                          "(pixels of the undistorted picture)")
    parser.add_argument("--white-side", choices=["bottom", "right", "top", "left"],
                        help="side of the picture White sits on (default: read from the start position)")
    parser.add_argument("--yes", action="store_true", help="accept the corners found without asking")
    parser.add_argument("--json", action="store_true", help="print the final result as JSON")
    parser.add_argument("--max-frames", type=int, default=3000, help="give up after this many frames")
    sub = parser.add_subparsers(dest="step", metavar="STEP")
    p = sub.add_parser("pattern", help="write the printable pattern (.pdf at exact size, or .png)")
    p.add_argument("--out", required=True, help="pattern.pdf or pattern.png")
    p.add_argument("--dpi", type=int, default=300, help="PNG resolution (default 300)")
    _pattern_args(p)
    p = sub.add_parser("intrinsics", help="lens calibration only, from views of the printed pattern")
    _source_args(p, required=True)
    _pattern_args(p)
    p.add_argument("--max-frames", type=int, default=3000)
    for name, text in (("colours", "re-learn the colours from the start position (board corners kept)"),
                       ("check", "check that all 32 squares of the start position read correctly")):
        p = sub.add_parser(name, help=text)
        _source_args(p, required=True)
        p.add_argument("--max-frames", type=int, default=300)
    p = sub.add_parser("show", help="summary of a saved profile")
    p.add_argument("--profile", required=True)


def _fail(message: str) -> int:
    print(f"dama calibrate: {message}", file=sys.stderr)
    return 2


def _frames(spec: str, max_frames: int) -> Iterator[np.ndarray]:
    """Frames from ``--source`` via board_io (fast for recorded material); opens it at once so a bad
    source is reported before the flow starts talking."""
    from board_io.sources import open_source

    source = open_source(spec, fast=True)

    def images() -> Iterator[np.ndarray]:
        try:
            for i, frame in enumerate(source):
                if i >= max_frames:
                    break
                yield frame.image
        finally:
            source.close()

    return images()


def _default_name(source: str) -> str:
    if source.strip().isdigit():
        return f"camera{source.strip()}"
    if "://" in source:
        return "stream"
    return Path(source.rstrip("/")).stem or "default"


def _spec(args: argparse.Namespace) -> PatternSpec:
    from calibration.pattern import PatternSpec, parse_squares

    cols, rows = parse_squares(args.squares)
    return PatternSpec(cols, rows, args.square_mm)


def _confirm(question: str) -> bool:
    try:
        answer = input(question + " [Y/n] ").strip().lower()
    except EOFError:
        return True
    return answer in ("", "y", "yes", "a", "ano")


def run(args: argparse.Namespace) -> int:
    from board_io.sources import SourceError
    from calibration.board import CornerError
    from calibration.profile import ProfileError

    try:
        if args.step == "pattern":
            return _pattern(args)
        if args.step == "show":
            return _show(args)
        if args.source is None:
            return _fail("--source is needed (a camera index such as 0, or a video file); "
                         "see dama calibrate --help")
        if args.step == "intrinsics":
            return _intrinsics(args)
        if args.step in ("colours", "check"):
            return _colours(args, relearn=args.step == "colours")
        return _guided(args)
    except (ValueError, CornerError, ProfileError, SourceError) as exc:
        return _fail(str(exc))
    except OSError as exc:  # a file to write in a folder that does not exist, a disk full, no permission
        return _fail(f"{exc.filename}: {exc.strerror}" if exc.filename and exc.strerror else str(exc))


def _pattern(args: argparse.Namespace) -> int:
    from calibration.pattern import write_pattern

    spec = _spec(args)
    path = write_pattern(spec, args.out, args.dpi)
    w, h = spec.size_mm
    print(f"wrote {path}: {spec.cols}x{spec.rows} squares of {spec.square_mm:g} mm ({w:g} x {h:g} mm); "
          "print at 100% / actual size and check one square with a ruler")
    return 0


def _profile_target(args: argparse.Namespace) -> str:
    if args.profile:
        return args.profile
    name = _default_name(args.source)
    board = getattr(args, "board_name", None)
    if board:
        name = f"{name}-{''.join(c if c.isalnum() or c in '-_' else '_' for c in board)}"
    return name


def _intrinsics(args: argparse.Namespace) -> int:
    from calibration.flow import CalibrationFlow, Options
    from calibration.profile import Profile, ProfileError, load_profile, save_profile

    opt = Options(pattern=_spec(args), pattern_wait=10**9, pattern_gone=10**9)
    lens = CalibrationFlow(_profile_target(args), opt).lens(_frames(args.source, args.max_frames))
    if lens is None:
        return _fail("no lens calibration: too few different views of the pattern")
    target = _profile_target(args)
    try:
        profile = load_profile(target)
    except ProfileError:
        profile = Profile(name=Path(target).stem)
    profile.camera = lens.camera
    print(f"saved {save_profile(profile, target)}")
    return 0


def _guided(args: argparse.Namespace) -> int:
    from calibration.board import parse_corners
    from calibration.flow import CalibrationFlow, Options
    from calibration.profile import save_profile

    live = args.source.strip().isdigit() or "://" in args.source
    opt = Options(pattern=None if args.no_lens else _spec(args), white_side=args.white_side,
                  corners=parse_corners(args.corners) if args.corners else None, max_frames=args.max_frames,
                  # a person needs a few seconds to pick up the sheet; a recorded video shows it at once
                  pattern_wait=150 if live else 12, pattern_gone=60 if live else 15)
    interactive = sys.stdin.isatty() and not args.yes and not args.json
    say = (lambda line: None) if args.json else print
    flow = CalibrationFlow(_profile_target(args), opt, say=say,
                           confirm=_confirm if interactive else (lambda q: True))
    result = flow.run(_frames(args.source, args.max_frames))
    saved = None
    if result.profile.board is not None:
        saved = save_profile(result.profile, _profile_target(args))
        say(f"profile saved to {saved}")
        if not result.ok:
            say("fix what is unticked above and run dama calibrate again (or dama calibrate check)")
    if args.json:
        data = result.to_json()
        data["saved"] = str(saved) if saved else None
        print(json.dumps(data, ensure_ascii=False))
    return 0 if result.ok else 1


def _colours(args: argparse.Namespace, relearn: bool) -> int:
    from calibration import vision_adapter
    from calibration.colours import START, check_start, classify, dark_square_samples, learn, lighting, square_vectors
    from calibration.flow import still_board_frames
    from calibration.profile import load_profile, save_profile
    from calibration.undistort import undistort

    target = _profile_target(args)
    profile = load_profile(target)
    if profile.board is None:
        return _fail(f"profile {target} has no board corners yet: run dama calibrate --source ... first")
    corners = profile.board.corners
    pts = np.array([corners[k] for k in ("a1", "h1", "h8", "a8")])
    stream = (undistort(f, profile.camera) for f in _frames(args.source, args.max_frames))
    frames = still_board_frames(stream, pts)
    if not frames:
        return _fail(f"--source {args.source}: no still view of the board at the profile's corners "
                     "(has the camera or the board moved? then run dama calibrate again)")
    frame = np.median(np.stack(frames), axis=0).astype(np.uint8)
    dark, light = dark_square_samples(frame, corners)
    vec = square_vectors(frame, corners)
    if relearn or vision_adapter.colour_model(profile) is None:
        profile.colours = {}
        learned, reason = vision_adapter.learn_with_pipeline(frame, profile)
        if learned is not None:
            profile.colours["vision"] = learned
        if vision_adapter.colour_model(profile) is None:  # one model: vision's, learned at the saved corners
            vision_adapter.set_colour_model(profile, learn(vec))
        print("colours learned from the start position" if reason is None else
              f"the recognizer could not find the board ({reason}): colours learned at the saved corners; "
              "clear the board of hands and objects")
    model = vision_adapter.colour_model(profile)
    assert model is not None
    result = vision_adapter.pipeline_result(frame, profile)
    reading = result.board if result is not None else classify(model, vec)[0]
    problems = check_start(reading, dark, START)
    for p in problems:
        print(p.message)
    print(f"{32 - len(problems)}/32 squares read correctly")
    light_report = lighting(frame, corners, model, light, dark, vec)
    print(light_report.message())
    kings = vision_adapter.crown_verdict(result)
    if kings is not None:
        print(kings[1])
    if relearn:
        print(f"profile saved to {save_profile(profile, target)}")
    return 0 if not problems and light_report.ok else 1


def _show(args: argparse.Namespace) -> int:
    from calibration.profile import load_profile, profile_path

    p = load_profile(args.profile)
    print(f"profile {profile_path(args.profile)} (updated {p.updated or 'unknown'})")
    if p.camera:
        fx, fy = p.camera.focal
        rms = f"{p.camera.rms:.2f} px" if p.camera.rms is not None else "unknown"
        print(f"  lens: {p.camera.size[0]}x{p.camera.size[1]}, focal {fx:.1f} x {fy:.1f} px, "
              f"distortion {', '.join(f'{d:.3f}' for d in p.camera.dist)}, RMS {rms}")
    else:
        print("  lens: not calibrated (frames used as they come)")
    if p.board:
        c = p.board.corners
        print(f"  board ({p.board.source}): " + "  ".join(f"{k} ({c[k][0]:.1f}, {c[k][1]:.1f})" for k in c)
              + f"; White at the {p.board.white_side}"
              + ("; fixed (the recognizer uses these corners as its grid)" if p.board.fixed else ""))
    else:
        print("  board: not calibrated")
    learned = (p.colours.get("vision") or {}).get("colour_model")
    print("  colours: " + ("learned from the start position" if learned else "not learned")
          + (" (an old calibration model is ignored: run dama calibrate colours)"
             if p.colours.get("model") and not learned else ""))
    return 0
