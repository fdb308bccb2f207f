"""Store files for tests: a byte copy of a closed template store."""

from __future__ import annotations

import shutil
from pathlib import Path

from data_access.store import Store


def store_copy(template: Path, path: Path) -> Store:
    """A store at `path` holding a byte copy of the closed store file `template` (opening it
    checks that every migration is there, as opening any store does)."""
    shutil.copyfile(template, path)
    handle = Store(path, lock_timeout=10)
    with handle.session():
        pass
    return handle
