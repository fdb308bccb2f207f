"""Where the repository and the real data are."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


SHARED_DATA = Path(os.environ.get("STORYSCOPE_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))
