"""Whether the store picked in the sidebar can be opened, told to the visitor in one line.

A visitor may pick any store the operator offers, and one of them may be damaged, empty, cut
short, busy, read-only on disk or written by a newer StoryScope. Opening it must not show a
traceback with the server's paths: a store that cannot be opened stops the page with
one line naming the store as the sidebar does (its file name), and the full error goes to the
server log. A store that opens read-only (`Store.fall_back_to_read_only`) says so in the sidebar.
"""

from __future__ import annotations

import logging

import duckdb
import streamlit as st

from data_access.store import Store, StoreBusy
from data_access.store.health import StoreProblem

_log = logging.getLogger("storyscope.app")


def visitor_text(message: str, store: Store, label: str) -> str:
    """`message`'s first line with the store's server path (and folder) replaced by `label`."""
    line = message.strip().splitlines()[0] if message.strip() else "unknown error"
    line = line.replace(str(store.path), label)
    return line.replace(str(store.path.parent), "(the store folder)")


@st.cache_data(ttl=2, show_spinner=False)
def _open_problem(_store: Store, path: str, label: str) -> str | None:
    """What keeps the store at `path` from opening, for the visitor, or None when it opens.

    Cached for 2 s like the store list: every query of a page asks, and a store put right (or
    replaced) by the operator is seen on the next rerun.
    """
    try:
        with _store.session():
            pass
    except (StoreProblem, StoreBusy, duckdb.Error, OSError) as exc:
        _log.warning("store %s cannot be opened: %s", path, exc)
        if isinstance(exc, (StoreProblem, StoreBusy)):
            return visitor_text(str(exc), _store, label)
        return f"store {label} cannot be opened: {visitor_text(str(exc), _store, label)}"
    return None


def usable_store(store: Store, label: str, operator_read_only: bool = False) -> Store:
    """`store` when it opens and can be read as it is; otherwise one notice on the page saying
    why and what to do, and the run stops (every page asks for the store before its first
    query, so every page shows the same notice instead of a traceback)."""
    problem = _open_problem(store, str(store.path), label)
    if problem is None and store.read_only:
        problem = older_schema_notice(store, label, operator_read_only)
    if problem is not None:
        st.error(problem, icon=":material/error:")
        st.stop()
    return store


def older_schema_notice(store: Store, label: str, operator_read_only: bool) -> str | None:
    """The one notice for a store the app reads as it is although its schema is older than this
    code's (opened read-only, so never upgraded): its pages would ask for tables and columns it
    does not have. None when the store is current (or newer: a newer store holds every table
    this code reads, and is only kept from being written)."""
    pending, _ = _schema_gap(store, str(store.path))
    if not pending:
        return None
    why = (
        "this explorer opens stores read-only (STORYSCOPE_READ_ONLY=1)"
        if operator_read_only
        else "it could only be opened read-only"
    )
    return (
        f"Store {label} was written by an older StoryScope ({len(pending)} schema upgrades behind"
        f" this one) and is not upgraded here, as {why}: its pages cannot be read as it is. "
        "What to do: the operator backs it up (`storyscope store backup COPY`) and opens it once"
        " with a StoryScope that may write to it (the app without STORYSCOPE_READ_ONLY, on a"
        " writable file), which upgrades it in place; then reload this page."
    )


@st.cache_data(ttl=2, show_spinner=False)
def _schema_gap(_store: Store, path: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    from data_access.queries.store_schema import schema_gap

    return schema_gap(_store)


def read_only_store_warning(store: Store, label: str) -> None:
    """Say in the sidebar when the store was opened read-only, and why."""
    if store.read_only and store.read_only_reason:
        st.sidebar.warning(
            f"Read-only: {visitor_text(store.read_only_reason, store, label)}",
            icon=":material/lock:",
        )
