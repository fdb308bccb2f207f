"""The store's one policy for keeping its file open across many short transactions.

Each `Store.transaction()` opens the DuckDB file and closes it after, so other processes (the
app) can use it in between: 30-50 ms of CPU per open and close (DuckDB's start-up, and the
checkpoint of what was written), whatever the write rate. A writer that commits many small
transactions in a row (a scaled-out run's driver writing each unit as it returns) holds the
file instead:

    with HeldFile(store) as held:
        for outcome in outcomes:
            held.hold()
            with store.transaction() as cursor:
                ...
            held.release_if_due()

Inside, the transactions reuse one connection; once it has been held `hold_s` seconds it is
let go after a write and taken again only at the next `hold()`, so another process gets the
file while the writer waits for its next unit (taking it again at once left a waiting reader a
window of a few milliseconds a second).
"""

from __future__ import annotations

import time

# How long a writer keeps the file open at a time. Each open and close costs ~50 ms of CPU:
# 0.05 of a core at one a second, a quarter of a 0.2-core driver budget at 500 calls/s. Every
# 2 s halves it; another process waits at most that long plus one write for the file.
HOLD_S = 2.0


class HeldFile:
    """Keeps `store`'s file open across transactions, up to `hold_s` seconds at a time."""

    def __init__(self, store, hold_s: float = HOLD_S) -> None:
        self.store, self.hold_s = store, hold_s
        self._session = None
        self._since = 0.0

    def __enter__(self) -> HeldFile:
        self.hold()
        return self

    def __exit__(self, *exc) -> None:
        self._release()

    def hold(self) -> None:
        """Hold the file (again, if `release_if_due` let it go)."""
        if self._session is None:
            self._session = self.store.session()
            self._session.__enter__()
            self._since = time.monotonic()

    def _release(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            session.__exit__(None, None, None)

    def release_if_due(self) -> None:
        """Let other processes in if the file was held `hold_s` (until the next `hold`)."""
        if time.monotonic() - self._since >= self.hold_s:
            self._release()
