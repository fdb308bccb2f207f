"""What every page shares: the store chosen in the sidebar and cached query calls.

Query results are cached with `st.cache_data` keyed on the store path and the store's version
token (`data_access.stats.store_version`), so a run finished by another process (CLI, job)
shows on the next rerun without restarting the app, and an unchanged store costs no query.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import streamlit as st

from data_access.stats import store_version
from data_access.store import Store, default_store_path

# A page render runs a burst of queries: keep the file open for a moment after the last one
# (data_access.store, "linger") instead of reopening it for each. Kept short so a CLI writer
# still gets the file between the app's polls.
APP_LINGER_S = 0.25


@st.cache_resource
def _store_for(path: str) -> Store:
    return Store(Path(path), linger_s=APP_LINGER_S)


def current_store() -> Store:
    """The store selected in the sidebar (default: STORYSCOPE_STORE or data/storyscope.duckdb)."""
    path = (
        st.session_state.get("store_path")
        or os.environ.get("STORYSCOPE_STORE")
        or str(default_store_path())
    )
    return _store_for(str(Path(path).resolve()))


@st.cache_data(ttl=2, show_spinner=False)
def _version(path: str) -> str:
    return store_version(_store_for(path))


@st.cache_data(show_spinner=False, max_entries=512)
def _cached_call(
    path: str, version: str, fn_name: str, module: str, args: tuple, kwargs: tuple
) -> Any:
    import importlib

    fn = getattr(importlib.import_module(module), fn_name)
    return fn(_store_for(path), *args, **dict(kwargs))


def query(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call a `data_access` query function on the current store, cached until the store changes."""
    store = current_store()
    path = str(store.path)
    return _cached_call(
        path, _version(path), fn.__name__, fn.__module__, args, tuple(sorted(kwargs.items()))
    )


@st.cache_data(show_spinner=False, max_entries=64)
def _cached_derived(
    path: str, version: str, compute: tuple[str, str], source: tuple[str, str], args: tuple
) -> Any:
    import importlib

    fn = getattr(importlib.import_module(compute[1]), compute[0])
    return fn(_cached_call(path, version, source[0], source[1], args, ()))


def derived(compute: Callable[[Any], Any], fn: Callable[..., Any], *args: Any) -> Any:
    """`compute(query(fn, *args))`, cached like the query: for work on a query's result that
    costs more than the query (the Verdicts metrics' bootstrap intervals: ~1.3 s at paper scale),
    so widget changes that do not touch the slice do not redo it."""
    path = str(current_store().path)
    return _cached_derived(
        path,
        _version(path),
        (compute.__name__, compute.__module__),
        (fn.__name__, fn.__module__),
        args,
    )


def store_sidebar() -> None:
    """The store selector shown on every page."""
    default = os.environ.get("STORYSCOPE_STORE") or str(default_store_path())
    st.sidebar.text_input(
        "Store (DuckDB file)",
        value=default,
        key="store_path",
        help="Any StoryScope store; set STORYSCOPE_STORE to change the default.",
    )
    store = current_store()
    if not store.path.exists():
        st.sidebar.warning(f"No store at {store.path}. Build one with `storyscope demo`.")
