"""PDN games (Portable Draughts Notation) for Czech draughts, read and written.

What is read: tag pairs ``[Name "value"]`` (``GameType`` must be 29 when given; ``FEN`` sets the start, with
or without ``SetUp``), numbered move text (``1. c3-d4 b6-a5``, ``1... b6-a5`` when Black moves first), the
signs of čl. 9 attached to a move or standing after it (``!``, ``!!``, ``?``, ``??``, ``!?``, ``?!``, ``*``,
``+``, ``=``, ``+1``, ``-2``, ``a.l.``), NAGs ``$n``, comments ``{...}`` and ``; ...`` (a ``[%clk h:mm:ss]``
in a comment is the mover's clock, ``elapsed h:mm:ss`` the time since the game began), variations ``(...)``
(skipped), results ``1-0``, ``0-1``, ``1/2-1/2``, ``*`` and the draughts forms ``2-0``, ``0-2``, ``1-1``.
Several games per file. A comment carrying ``[%fen ...]`` after a move (or alone) records a position the
opponent accepted as it stands (čl. 5.7), the way :meth:`rules.game.Game.push_illegal` writes it.

Errors are :class:`PdnError`, naming the game number, the line and column and, for moves, the move number
and why the move is not legal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rules.fen import FenError, parse_fen
from rules.game import DrawRules, Game, GameMove
from rules.position import Color, Move, Position
from rules.squares import parse_square

GAME_TYPE = "29,W,8,8,A0,0"
ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
ANNOTATION_SIGNS = ("!!", "??", "!?", "?!", "!", "?", "*", "+", "=", "a.l.")
_RESULT_ALIASES = {"1-0": "1-0", "0-1": "0-1", "1/2-1/2": "1/2-1/2", "*": "*", "2-0": "1-0", "0-2": "0-1",
                   "1-1": "1/2-1/2"}


class PdnError(ValueError):
    """A PDN text that cannot be read or replayed; the message says which game, where, and why."""

    def __init__(self, reason: str, game: int | None = None, line: int | None = None, column: int | None = None,
                 move_number: int | None = None, side: Color | None = None, move: str | None = None) -> None:
        self.reason, self.game, self.line, self.column = reason, game, line, column
        self.move_number, self.side, self.move = move_number, side, move
        where = []
        if game is not None:
            where.append(f"game {game}")
        if line is not None:
            where.append(f"line {line}" + (f", column {column}" if column is not None else ""))
        if move_number is not None:
            dots = "." if side is Color.WHITE else "..."
            where.append(f"move {move_number}{dots}" + (f" {move}" if move else ""))
        super().__init__(f"{', '.join(where)}: {reason}" if where else reason)


# --- tokens ---------------------------------------------------------------------------------------


@dataclass
class Token:
    kind: str  # tag, comment, number, move, sign, nag, result, error
    text: str
    line: int
    column: int
    value: object = None


_SIGN = r"(?:!!|\?\?|!\?|\?!|!|\?|\*|\+\d*|=|-\d+|a\.l\.)"
_PATTERNS = [
    ("tag", re.compile(r'\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\\n]|\\.)*)"\s*\]')),
    ("number", re.compile(r"(\d+)\s*((?:\.\s*)+|…)")),  # "1.", "1...", "1. ...", "1…"
    ("result", re.compile(r"(1/2-1/2|1-0|0-1|2-0|0-2|1-1|\*)(?=\s|$|[\[{(;])")),
    ("move", re.compile(r"([a-zA-Z]\d+(?:\s*[-x:X]\s*[a-zA-Z]\d+)+)((?:" + _SIGN + r")*)")),
    ("nag", re.compile(r"\$(\d+)")),
    ("sign", re.compile(r"(" + _SIGN + r")+")),
]


def tokenize(text: str) -> list[Token]:
    """Split PDN text into tokens; what cannot be read becomes an ``error`` token (so other games survive)."""
    tokens: list[Token] = []
    i, n = 0, len(text)
    line_starts = [0] + [m.end() for m in re.finditer(r"\n", text)]

    def where(pos: int) -> tuple[int, int]:
        lo, hi = 0, len(line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if line_starts[mid] <= pos:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, pos - line_starts[lo] + 1

    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
            continue
        line, col = where(i)
        if c == "{":
            end = text.find("}", i)
            if end < 0:
                tokens.append(Token("error", text[i:i + 20], line, col, "comment '{' is never closed with '}'"))
                break
            tokens.append(Token("comment", text[i + 1:end].strip(), line, col))
            i = end + 1
            continue
        if c == ";":
            end = text.find("\n", i)
            end = n if end < 0 else end
            tokens.append(Token("comment", text[i + 1:end].strip(), line, col))
            i = end
            continue
        if c == "(":
            depth, j = 0, i
            while j < n:
                if text[j] == "(":
                    depth += 1
                elif text[j] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            if depth:
                tokens.append(Token("error", text[i:i + 20], line, col, "variation '(' is never closed with ')'"))
                break
            i = j + 1  # variations are skipped
            continue
        if c == "%" and col == 1:  # PDN escape line
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        kind, m = "", None
        for kind, pattern in _PATTERNS:  # noqa: B007 (kind is used after the loop)
            m = pattern.match(text, i)
            if m:
                break
        if m is None or (kind == "move" and m.end() < n and (text[m.end()].isalnum() and text[m.end():m.end() + 4]
                                                                != "a.l.")):
            end = i
            while end < n and not text[end].isspace():
                end += 1
            word = text[i:end]
            if c == "[":
                eol = text.find("\n", i)
                word = text[i:n if eol < 0 else eol]
                reason = f"broken tag {word!r} (write it like [Event \"Club championship\"])"
            else:
                reason = f"cannot read {word!r}"
            tokens.append(Token("error", word, line, col, reason))
            i = end if c != "[" else (n if text.find("\n", i) < 0 else text.find("\n", i))
            continue
        if kind == "tag":
            value = m.group(2).replace('\\"', '"').replace("\\\\", "\\")
            tokens.append(Token("tag", m.group(0), line, col, (m.group(1), value)))
        elif kind == "number":
            black = m.group(2) == "…" or m.group(2).count(".") > 1
            tokens.append(Token("number", m.group(0).strip(), line, col, (int(m.group(1)), black)))
        elif kind == "result":
            tokens.append(Token("result", m.group(1), line, col, _RESULT_ALIASES[m.group(1)]))
        elif kind == "move":
            tokens.append(Token("move", m.group(1), line, col, re.findall(_SIGN, m.group(2))))
        elif kind == "nag":
            tokens.append(Token("nag", m.group(0), line, col, int(m.group(1))))
        else:
            tokens.append(Token("sign", m.group(0), line, col, re.findall(_SIGN, m.group(0))))
        i = m.end()
    return tokens


@dataclass
class RawGame:
    """One game's tokens, before replaying: tags and move text."""

    number: int
    tags: dict[str, str] = field(default_factory=dict)
    tag_tokens: dict[str, Token] = field(default_factory=dict)
    body: list[Token] = field(default_factory=list)
    result: Token | None = None
    errors: list[Token] = field(default_factory=list)


def split_games(text: str) -> list[RawGame]:
    """Group tokens into games: a game ends with its result, or where a new tag section begins."""
    games: list[RawGame] = []
    current: RawGame | None = None
    for tok in tokenize(text):
        if current is None or current.result is not None or (tok.kind == "tag" and current.body):
            current = RawGame(len(games) + 1)
            games.append(current)
        if tok.kind == "tag":
            name, value = tok.value
            current.tags[name] = value
            current.tag_tokens[name] = tok
        elif tok.kind == "result":
            current.result = tok
        elif tok.kind == "error":
            current.errors.append(tok)
            current.body.append(tok)
        else:
            current.body.append(tok)
    return [g for g in games if g.tags or g.body or g.result]


# --- replaying ------------------------------------------------------------------------------------

_CLK = re.compile(r"\[%clk\s+([0-9:.]+)\]")
_ELAPSED = re.compile(r"\belapsed\s+([0-9:.]+)")
_FEN_CMD = re.compile(r"\[%fen\s+([^\]]+)\]")


def parse_time(text: str) -> float:
    """``h:mm:ss``, ``mm:ss`` or ``ss`` (seconds may have decimals) → seconds."""
    seconds = 0.0
    parts = text.split(":")
    if len(parts) > 3 or not all(re.fullmatch(r"\d+(\.\d+)?", p) for p in parts):
        raise ValueError(f"{text!r} is not a time (write h:mm:ss)")
    for part in parts:
        seconds = seconds * 60 + float(part)
    return seconds


def format_time(seconds: float) -> str:
    """Seconds → ``h:mm:ss`` (tenths kept when present)."""
    whole = int(seconds)
    frac = round(seconds - whole, 1)
    if frac >= 1.0:
        whole, frac = whole + 1, 0.0
    text = f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"
    return text + (f"{frac:.1f}"[1:] if frac else "")


def _start_position(raw: RawGame) -> Position:
    game_type = raw.tags.get("GameType")
    if game_type is not None and game_type.split(",")[0].strip() != "29":
        tok = raw.tag_tokens["GameType"]
        raise PdnError(f"GameType {game_type!r} is not Czech draughts (29)", raw.number, tok.line, tok.column)
    fen = raw.tags.get("FEN")
    if fen is None or raw.tags.get("SetUp", "1").strip() == "0":
        return Position.start()
    try:
        return parse_fen(fen)
    except (FenError, ValueError) as exc:
        tok = raw.tag_tokens["FEN"]
        raise PdnError(f"bad FEN tag: {exc}", raw.number, tok.line, tok.column) from None


def _loose_move(position: Position, text: str) -> Move | None:
    """A move as written, legal or not (for accepted illegal moves): path and the enemy pieces jumped."""
    try:
        squares = [parse_square(s) for s in re.findall(r"[a-hA-H][1-8]", text)]
    except ValueError:
        return None
    from rules.squares import RAYS

    captured = []
    for a, b in zip(squares, squares[1:], strict=False):
        for ray in RAYS[a]:
            if b in ray:
                captured += [s for s in ray[:ray.index(b)] if (position.opp >> s) & 1]
    return Move(tuple(squares), tuple(captured))


def explain_illegal(position: Position, text: str) -> str | None:
    """Why a written move is not legal, by the rule it breaks, or None when nothing specific is known."""
    names = re.findall(r"[a-hA-H][1-8]", text)
    if len(names) < 2:
        return None
    try:
        squares = [parse_square(n) for n in names]
    except ValueError:
        return None
    start, side = squares[0], position.turn
    piece = position.piece_at(start)
    if piece == ".":
        return f"there is no piece on {names[0]}"
    if (piece.lower() == "w") != (side is Color.WHITE):
        return f"{names[0]} holds a {side.opponent.value} piece and {side.value} is to move"
    captures = position.capture_sequences()
    if not captures:
        return None
    if any(m.path[:len(squares)] == tuple(squares) for m in captures):
        return "the capture is not complete: it must go on to the end (čl. 4.13)"
    if not (position.kings >> start) & 1 and any((position.kings >> m.start) & 1 for m in captures):
        return "a king can capture, so a king must capture (čl. 4.14)"
    if not any(m.start == start for m in captures):
        return "a capture is compulsory (čl. 4.1)"
    return None


def replay(raw: RawGame, draw_rules: DrawRules | None = None) -> Game:
    """Play a game's move text from its start position; PdnError at the first thing that is wrong."""
    start = _start_position(raw)  # a wrong GameType or FEN says more than what follows from it
    if raw.errors:
        tok = raw.errors[0]
        raise PdnError(str(tok.value), raw.number, tok.line, tok.column)
    tags = {k: v for k, v in raw.tags.items() if k not in ("GameType", "FEN", "SetUp")}
    game = Game(start, tags, draw_rules)
    pending: Token | None = None  # an illegal move waiting for a [%fen] comment that accepts it
    pending_error: PdnError | None = None

    def move_number() -> tuple[int, Color]:
        plies_before_white = 0 if start.turn is Color.WHITE else 1
        pos = game.position
        return (len(game.moves) + plies_before_white) // 2 + 1, pos.turn

    for tok in raw.body:
        if tok.kind == "comment":
            fen_cmd = _FEN_CMD.search(tok.text)
            text = tok.text
            if fen_cmd:
                try:
                    new_pos = parse_fen(fen_cmd.group(1))
                except (FenError, ValueError) as exc:
                    raise PdnError(f"bad [%fen] in a comment: {exc}", raw.number, tok.line, tok.column) from None
                move = _loose_move(game.position, pending.text) if pending else None
                text = _FEN_CMD.sub("", text).strip()
                game.push_illegal(move, new_pos, text or None)
                if pending:
                    game.moves[-1].annotations.extend(pending.value)
                pending = pending_error = None
                continue
            if pending_error:
                raise pending_error
            clk, elapsed = _CLK.search(text), _ELAPSED.search(text)
            text = _ELAPSED.sub("", _CLK.sub("", text)).strip()
            if game.moves:
                last = game.moves[-1]
                try:
                    if clk:
                        last.clock = parse_time(clk.group(1))
                    if elapsed:
                        last.t = parse_time(elapsed.group(1))
                except ValueError as exc:
                    raise PdnError(f"bad time in a comment: {exc}", raw.number, tok.line, tok.column) from None
            if text:
                game.add_comment(text)
            continue
        if pending_error:
            raise pending_error
        if tok.kind == "number":
            continue
        if tok.kind == "move":
            number, side = move_number()
            for name in re.findall(r"[a-zA-Z]\d+", tok.text):
                try:
                    parse_square(name)
                except ValueError as exc:
                    raise PdnError(str(exc), raw.number, tok.line, tok.column, number, side, tok.text) from None
            try:
                move = game.position.parse_move(tok.text)
            except ValueError as exc:
                pending = tok
                why = explain_illegal(game.position, tok.text)
                reason = f"illegal move: {why}; {exc}" if why else f"illegal move: {exc}"
                pending_error = PdnError(reason, raw.number, tok.line, tok.column, number, side,
                                         tok.text)
                continue
            entry = game.push(move)
            entry.annotations.extend(tok.value)
            continue
        if tok.kind in ("sign", "nag"):
            if not game.moves:
                raise PdnError(f"{tok.text!r} stands before any move", raw.number, tok.line, tok.column)
            if tok.kind == "sign":
                game.moves[-1].annotations.extend(tok.value)
            else:
                game.moves[-1].nags.append(tok.value)
    if pending_error:
        raise pending_error
    result = raw.result.value if raw.result else _RESULT_ALIASES.get(raw.tags.get("Result", "*"), "*")
    if result != "*":
        game.set_result(str(result), "as recorded")
    return game


def read_games(text: str, draw_rules: DrawRules | None = None) -> list[Game]:
    """Every game of a PDN text; PdnError at the first game that cannot be read."""
    return [replay(raw, draw_rules) for raw in split_games(text)]


# --- writing --------------------------------------------------------------------------------------


def _tag_line(name: str, value: str) -> str:
    escaped = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{escaped}"]'


def _comment(text: str) -> str:
    return "{" + text.replace("}", ")") + "}"


def _move_text(entry: GameMove) -> list[str]:
    """The tokens after the move number: move with its signs, NAGs, comments, times."""
    signs = "".join(a for a in entry.annotations if a != "a.l.")
    out: list[str] = []
    if entry.notation is not None:
        out.append(entry.notation + signs)
        if "a.l." in entry.annotations:
            out.append("a.l.")
    out += [f"${n}" for n in entry.nags]
    if entry.illegal:
        note = "; ".join(entry.comments) or "position accepted as it stands"
        out.append(_comment(f"{note} [%fen {entry.position.fen()}]"))
    else:
        out += [_comment(c) for c in entry.comments]
    if entry.clock is not None:
        out.append(_comment(f"[%clk {format_time(entry.clock)}]"))
    if entry.t is not None:
        out.append(_comment(f"elapsed {format_time(entry.t)}"))
    return out


def write_game(game: Game, tags: dict | None = None) -> str:
    """PDN text of one game: the roster tags, GameType, FEN/SetUp for a set-up start, the other tags, then the
    numbered move text wrapped at 80 columns and the result."""
    all_tags = {**game.tags, **(tags or {})}
    outcome = game.outcome()
    result = game.result or (outcome[0] if outcome else "*")
    all_tags["Result"] = result
    lines = []
    for name in ROSTER:
        if name in all_tags:
            lines.append(_tag_line(name, all_tags[name]))
    lines.append(_tag_line("GameType", GAME_TYPE))
    if game.start != Position.start():
        lines.append(_tag_line("SetUp", "1"))
        lines.append(_tag_line("FEN", game.start.fen()))
    for name, value in all_tags.items():
        if name not in ROSTER and name not in ("GameType", "SetUp", "FEN"):
            lines.append(_tag_line(name, value))

    words: list[str] = [_comment(c) for c in game.comments]
    number = 1
    need_number = True
    for entry in game.moves:
        if entry.notation is None:  # an accepted position without a move: only its comment
            words += _move_text(entry)
            number += entry.side is Color.BLACK
            need_number = True
            continue
        if entry.side is Color.WHITE:
            words.append(f"{number}.")
        elif need_number:
            words.append(f"{number}...")
        words += _move_text(entry)
        if entry.side is Color.BLACK:
            number += 1
        # Black's move after White's needs no "N..." even after a comment (PDN allows it, and readers such as
        # pydraughts trip over repeated move numbers)
        need_number = False
    words.append(result)

    text_lines, current = [], ""
    for word in words:
        if current and len(current) + 1 + len(word) > 80:
            text_lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    text_lines.append(current)
    return "\n".join(lines) + "\n\n" + "\n".join(text_lines) + "\n"


def write_games(games: list[Game]) -> str:
    """Several games, separated by blank lines."""
    return "\n".join(g.to_pdn() for g in games)
