"""The store a results dry run reads: never the one it reports on written, not even upgraded.

A dry run runs the import's own checks (stage, link, setting rules) in a transaction it rolls
back, so it predicts the real outcome; the store it does that in is

- the store itself, when this process has already brought it to this code's schema (the app:
  a read-only connection beside its own would turn the app's store read-only), or else the
  store opened read-only when its schema is this code's (temp tables, which the stage and link
  use, live in memory even on a read-only connection); or
- an upgraded copy in a temporary folder, when the store's schema is older: the real import
  upgrades it first, the dry run says so and upgrades only the copy.

A store the real import would refuse (missing, read-only on disk, written by a newer
StoryScope) is refused the same way, so the dry run's exit code is the import's.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from data_access.store import Store, StoreReadOnly
from data_access.store.connection import _unwritable_reason, schema_checked
from data_access.store.migrations import NewerStore, newer_store_message, schema_status


def _copy(store: Store, folder: Path) -> Path:
    """The store file (and its write-ahead log, when it has one) copied into `folder`."""
    target = folder / store.path.name
    shutil.copyfile(store.path, target)
    wal = Path(f"{store.path}.wal")
    if wal.exists():
        shutil.copyfile(wal, Path(f"{target}.wal"))
    return target


@contextmanager
def dry_run_store(store: Store) -> Iterator[tuple[Store, str | None]]:
    """(the store to dry-run on, a note for the report or None); see the module docstring.

    Raises:
        StoreProblem: the real import would refuse the store (missing, read-only on disk,
            newer); nothing is written.
    """
    if store.read_only:
        raise StoreReadOnly(store.read_only_reason or f"store {store.path} is read-only")
    reason = _unwritable_reason(store.path)
    if reason is not None:
        raise StoreReadOnly(reason)
    if schema_checked(store.path):  # its transaction is rolled back: nothing reaches the file
        yield store, None
        return
    reader = Store(store.path, lock_timeout=store.lock_timeout, create=False, read_only=True)
    with tempfile.TemporaryDirectory(prefix="storyscope-dry-run-") as folder:
        with reader.session() as cursor:  # held while copying: no writer changes it meanwhile
            status = schema_status(cursor)
            if status.unknown:
                raise NewerStore(newer_store_message(store.path, status.unknown))
            copy = _copy(store, Path(folder)) if status.pending else None
        if copy is None:
            yield reader, None
            return
        note = (
            f"the store's schema is older than this StoryScope ({len(status.pending)} migrations"
            " to apply): the import upgrades it first; this dry run upgraded a copy and left the"
            " store as it was"
        )
        yield Store(copy, lock_timeout=store.lock_timeout, create=False), note
