"""Make the helper modules of this folder importable (pytest runs with --import-mode=importlib)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
