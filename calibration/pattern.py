"""The printable chessboard pattern used to measure the camera's lens (intrinsics).

The pattern is ``cols x rows`` squares (what you count on paper); OpenCV looks for the
``(cols-1) x (rows-1)`` inner corners. One odd and one even count make the pattern look different when
turned half-way round, so every view numbers its corners the same way. The PDF is drawn with vector
rectangles on a page whose size is given in points, so printed at "actual size" each square measures
exactly ``square_mm``; the PNG carries its resolution (pHYs chunk) for the same reason.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

MM_PER_INCH = 25.4
PT_PER_MM = 72.0 / MM_PER_INCH
A4_MM = (210.0, 297.0)


@dataclass(frozen=True)
class PatternSpec:
    """Squares across and down, and the printed size of one square."""

    cols: int = 9
    rows: int = 6
    square_mm: float = 25.0

    def __post_init__(self) -> None:
        if self.cols < 3 or self.rows < 3:
            raise ValueError("the pattern needs at least 3x3 squares")
        if self.cols % 2 == self.rows % 2:
            raise ValueError(f"{self.cols}x{self.rows}: use one odd and one even count of squares "
                             "(e.g. 9x6) so the pattern's orientation is unambiguous")
        if not 1.0 <= self.square_mm <= 200.0:
            raise ValueError(f"square size {self.square_mm} mm is not between 1 and 200 mm")

    @property
    def inner(self) -> tuple[int, int]:
        """OpenCV's ``patternSize``: inner corners per row and per column."""
        return self.cols - 1, self.rows - 1

    @property
    def size_mm(self) -> tuple[float, float]:
        return self.cols * self.square_mm, self.rows * self.square_mm

    def object_points(self) -> np.ndarray:
        """Inner corners in millimetres on the pattern plane (z = 0), in OpenCV's row-major order."""
        nx, ny = self.inner
        grid = np.zeros((nx * ny, 3), np.float32)
        grid[:, :2] = np.mgrid[1:nx + 1, 1:ny + 1].T.reshape(-1, 2) * self.square_mm
        return grid


def parse_squares(text: str) -> tuple[int, int]:
    """``"9x6"`` → ``(9, 6)``; ValueError with the expected form otherwise."""
    parts = text.lower().replace("×", "x").split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"--squares {text!r}: expected COLSxROWS, e.g. 9x6")
    return int(parts[0]), int(parts[1])


def pattern_image(spec: PatternSpec, px_per_square: int = 40, margin_squares: float = 1.0) -> np.ndarray:
    """Grey image of the pattern with a white quiet zone around it (the detector needs the border)."""
    margin = int(round(margin_squares * px_per_square))
    h = spec.rows * px_per_square + 2 * margin
    w = spec.cols * px_per_square + 2 * margin
    img = np.full((h, w), 255, np.uint8)
    for r in range(spec.rows):
        for c in range(spec.cols):
            if (r + c) % 2 == 0:
                y, x = margin + r * px_per_square, margin + c * px_per_square
                img[y:y + px_per_square, x:x + px_per_square] = 0
    return img


def texture_mm_size(spec: PatternSpec, margin_squares: float = 1.0) -> tuple[float, float]:
    """Physical size (width, height) in mm of :func:`pattern_image` including its margin."""
    w, h = spec.size_mm
    return w + 2 * margin_squares * spec.square_mm, h + 2 * margin_squares * spec.square_mm


def texture_object_points(spec: PatternSpec, margin_squares: float = 1.0) -> np.ndarray:
    """Inner corners in mm measured from the top-left of the texture (for rendering tests)."""
    pts = spec.object_points().copy()
    pts[:, :2] += margin_squares * spec.square_mm
    return pts


def _page_mm(spec: PatternSpec) -> tuple[float, float]:
    """A4 portrait or landscape when the pattern and a 15 mm margin fit, else a page just big enough."""
    need_w, need_h = spec.size_mm[0] + 30.0, spec.size_mm[1] + 40.0
    for w, h in (A4_MM, A4_MM[::-1]):
        if need_w <= w and need_h <= h:
            return w, h
    return need_w, need_h


def pattern_pdf(spec: PatternSpec) -> bytes:
    """A one-page PDF: vector squares at exact physical size and a line of printing instructions."""
    page_w, page_h = (v * PT_PER_MM for v in _page_mm(spec))
    sq = spec.square_mm * PT_PER_MM
    x0 = (page_w - spec.cols * sq) / 2
    y0 = (page_h - spec.rows * sq) / 2
    ops = ["0 g"]
    for r in range(spec.rows):
        for c in range(spec.cols):
            if (r + c) % 2 == 0:  # top-left square black, as in the PNG
                y = y0 + (spec.rows - 1 - r) * sq
                ops.append(f"{x0 + c * sq:.3f} {y:.3f} {sq:.3f} {sq:.3f} re f")
    note = (f"dama calibration pattern: {spec.cols}x{spec.rows} squares of {spec.square_mm:g} mm. "
            "Print at 100% (actual size), check one square with a ruler, keep the sheet flat.")
    note = note.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    ops.append(f"BT /F1 9 Tf {x0:.3f} {max(y0 - 20, 10):.3f} Td ({note}) Tj ET")
    content = "\n".join(ops).encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {page_w:.3f} {page_h:.3f}] "
         "/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>").encode(),
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def pattern_png(spec: PatternSpec, dpi: int = 300) -> bytes:
    """PNG at ``dpi`` with the resolution recorded, so image viewers print it at the right size."""
    px = max(8, int(round(spec.square_mm / MM_PER_INCH * dpi)))
    ok, buf = cv2.imencode(".png", pattern_image(spec, px))
    if not ok:
        raise RuntimeError("OpenCV could not encode the PNG")
    data = buf.tobytes()
    ppm = int(round(dpi / 0.0254))
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    ihdr_end = 8 + 8 + 13 + 4  # signature, IHDR length+type, IHDR data, CRC
    return data[:ihdr_end] + chunk + data[ihdr_end:]


def write_pattern(spec: PatternSpec, out: str | Path, dpi: int = 300) -> Path:
    """Write ``.pdf`` or ``.png`` according to the file name; ValueError for any other suffix."""
    path = Path(out)
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        data = pattern_pdf(spec)
    elif suffix == ".png":
        data = pattern_png(spec, dpi)
    else:
        raise ValueError(f"{out}: the pattern can be written as .pdf or .png")
    path.write_bytes(data)
    return path
