"""What counts as a Ctrl-C (data_access/store/interrupts.py): kept apart from the store, so the
store's own modules (the migrations) can ask without importing the store package."""

from __future__ import annotations

import duckdb

_INTERRUPTS = (KeyboardInterrupt,) + (
    (duckdb.InterruptException,) if hasattr(duckdb, "InterruptException") else ()
)


def is_interrupt(exc: BaseException | None) -> bool:
    """True when `exc` (or an exception it wraps) is a Ctrl-C."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, _INTERRUPTS):
            return True
        if type(exc) is RuntimeError and str(exc).strip() == "Query interrupted":
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False
