"""The printable pattern: exact physical size in the PDF, resolution in the PNG, detectable image."""

from __future__ import annotations

import re
import struct

import cv2
import numpy as np
import pytest

from calibration.intrinsics import find_pattern
from calibration.pattern import PT_PER_MM, PatternSpec, parse_squares, pattern_image, write_pattern


def test_pdf_squares_have_the_printed_size(tmp_path):
    spec = PatternSpec(9, 6, 25.0)
    data = write_pattern(spec, tmp_path / "p.pdf").read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    rects = re.findall(rb"([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+) re f", data)
    assert len(rects) == (9 * 6 + 1) // 2
    for _, _, w, h in rects:
        assert float(w) / PT_PER_MM == pytest.approx(25.0, abs=0.01)
        assert float(h) / PT_PER_MM == pytest.approx(25.0, abs=0.01)
    xref = int(re.search(rb"startxref\n(\d+)", data).group(1))
    assert data[xref:xref + 4] == b"xref"  # offsets are right, so readers need no repair


def test_png_records_dpi_and_is_found(tmp_path):
    spec = PatternSpec(7, 4, 20.0)
    data = write_pattern(spec, tmp_path / "p.png", dpi=200).read_bytes()
    i = data.index(b"pHYs")
    ppm_x, ppm_y, unit = struct.unpack(">IIB", data[i + 4:i + 13])
    assert unit == 1 and ppm_x == ppm_y == round(200 / 0.0254)
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE)
    assert img is not None
    square_px = round(20.0 / 25.4 * 200)
    assert img.shape == ((4 + 2) * square_px, (7 + 2) * square_px)
    corners = find_pattern(img, spec)
    assert corners is not None and corners.shape == (6 * 3, 2)


def test_bad_pattern_requests():
    with pytest.raises(ValueError, match="one odd and one even"):
        PatternSpec(8, 6)
    with pytest.raises(ValueError, match="COLSxROWS"):
        parse_squares("9by6")
    assert parse_squares("9x6") == (9, 6)
    with pytest.raises(ValueError, match=".pdf or .png"):
        write_pattern(PatternSpec(), "pattern.jpg")


def test_image_is_a_chessboard():
    img = pattern_image(PatternSpec(5, 4), px_per_square=10, margin_squares=1)
    assert img[15, 15] == 0 and img[15, 25] == 255 and img[25, 15] == 255 and img[5, 5] == 255


def test_pdf_renders_at_exact_size_in_a_real_reader(tmp_path):
    """poppler (Debian package `poppler-utils`) rasterizes the PDF; squares come out 25 mm at 144 dpi."""
    import shutil
    import subprocess

    if shutil.which("pdftoppm") is None:
        pytest.skip("pdftoppm is not installed (Debian package `poppler-utils`)")
    spec = PatternSpec(9, 6, 25.0)
    write_pattern(spec, tmp_path / "p.pdf")
    subprocess.run(["pdftoppm", "-r", "144", "-png", "-singlefile", str(tmp_path / "p.pdf"), str(tmp_path / "p")],
                   check=True, capture_output=True, timeout=60)
    img = cv2.imread(str(tmp_path / "p.png"))
    corners = find_pattern(img, spec)
    assert corners is not None
    grid = corners.reshape(spec.inner[1], spec.inner[0], 2)
    step = np.median(np.linalg.norm(np.diff(grid, axis=1), axis=2))
    assert step == pytest.approx(25.0 / 25.4 * 144, rel=0.005)


def test_a_pattern_for_a_folder_that_does_not_exist_is_a_clear_error(tmp_path, capsys):
    from dama.cli import main

    out = tmp_path / "none" / "pattern.pdf"
    assert main(["calibrate", "pattern", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{out}: No such file or directory" in err and "Traceback" not in err
    assert main(["calibrate", "pattern", "--out", str(tmp_path / "pattern.pdf")]) == 0
    assert (tmp_path / "pattern.pdf").read_bytes().startswith(b"%PDF")
