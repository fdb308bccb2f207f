"""What every page shares: the store chosen in the sidebar, cached query calls and cached charts.

The sidebar offers existing stores only (the operator's STORYSCOPE_STORE and `*.duckdb` files in
STORYSCOPE_STORE_DIR, default the project's `data/`): the app is shared on lab servers, so a
visitor can never make it create a file or open one elsewhere (DESIGN.md, "Data").

Read-only mode (`STORYSCOPE_READ_ONLY=1`, `make run READ_ONLY=1`) is for an explorer a lab shares:
every write a visitor could start (review labels, judge reruns, generation, imports, store
switching) is hidden by the page that offers it (`read_only()`, `read_only_note`) and refused
again where it would happen (`refuse_if_read_only`), and the store itself is opened with a
read-only DuckDB connection, so a write that slipped past both fails at the database.

Query results are cached with `st.cache_data` keyed on the store path and the store's version
token (`data_access.queries.stats.store_version`), so a run finished by another process (CLI, job)
shows on the next rerun without restarting the app, and an unchanged store costs no query.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import streamlit as st

from data_access.queries.stats import store_version
from data_access.store import Store, default_store_path
from ui.store_status import read_only_store_warning, usable_store

# A page render runs a burst of queries: keep the file open for a moment after the last one
# (data_access.store.connection, "linger") instead of reopening it for each. Kept short so a CLI
# writer
# still gets the file between the app's polls.
APP_LINGER_S = 0.25
# The project's data/ directory: where `make run` builds the demo store.
PROJECT_DATA_DIR = (Path(__file__).resolve().parent.parent / "data").resolve()
STORE_KEY = "store_choice"
READ_ONLY_ENV = "STORYSCOPE_READ_ONLY"


def operator_read_only() -> bool:
    """Whether the operator made this explorer read-only (`STORYSCOPE_READ_ONLY=1`)."""
    return os.environ.get(READ_ONLY_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def read_only() -> bool:
    """Whether writes are off: the operator's read-only mode, or a store that could only be
    opened for reading (read-only on disk, or written by a newer StoryScope), where a write
    would fail at DuckDB anyway, so its widgets are hidden the same way."""
    return operator_read_only() or current_store().read_only


def _why_read_only() -> str:
    if operator_read_only():
        return f"this explorer is read-only ({READ_ONLY_ENV}=1, set by the operator who shares it)"
    return f"this store was opened read-only ({current_store().read_only_reason or 'read-only'})"


READ_ONLY_BANNER = (
    "Read-only explorer. You can browse every page, filter, follow and share links, and"
    " download the rows a page shows. You cannot review, judge, generate questions, import"
    " results or switch stores here: the operator shares this store to be read, not changed."
    " To do those, run StoryScope on your own copy (`storyscope store backup`, then `make run`)."
)


def read_only_banner() -> None:
    """The one banner every page of a read-only explorer opens with (app.py draws it)."""
    if operator_read_only():
        st.info(READ_ONLY_BANNER, icon=":material/visibility:")


def read_only_note(what: str) -> None:
    """The line shown where a write was left out: what is off, and why."""
    st.caption(f"{what} is turned off: {_why_read_only()}. Run StoryScope locally to write.")


def refuse_if_read_only(what: str) -> bool:
    """The server-side refusal behind every write path: True (after an error line) in read-only
    mode, so a request that reaches a write without its widget still writes nothing."""
    if not read_only():
        return False
    st.error(f"Refused: {what} writes to the store; {_why_read_only()}.")
    return True


def _store_for(path: str) -> Store:
    return _opened_store(path, operator_read_only())


@st.cache_resource
def _opened_store(path: str, read_only_mode: bool) -> Store:
    # create=False too: even a path that slipped past offered_stores() is never created; in
    # read-only mode the DuckDB connection itself is read-only, so no write reaches the file
    # fall_back_to_read_only: a store read-only on disk or from a newer StoryScope still opens
    return Store(
        Path(path),
        linger_s=APP_LINGER_S,
        create=False,
        read_only=read_only_mode,
        fall_back_to_read_only=True,
    )


def allowed_store_dir() -> Path:
    """The directory whose stores visitors may open: STORYSCOPE_STORE_DIR, else the project's
    `data/` (the operator's choice; a visitor can only pick from what is already there)."""
    configured = os.environ.get("STORYSCOPE_STORE_DIR")
    return Path(configured).resolve() if configured else PROJECT_DATA_DIR


def _operator_store() -> Path:
    return Path(os.environ.get("STORYSCOPE_STORE") or default_store_path()).resolve()


def offered_stores() -> list[str]:
    """Existing store files a visitor may switch between: `*.duckdb` directly in the allowed
    directory (symlinks leading out of it are left out), plus the operator's STORYSCOPE_STORE."""
    return _offered_stores(str(allowed_store_dir()), str(_operator_store()))


@st.cache_data(ttl=2, show_spinner=False)
def _offered_stores(allowed_dir: str, operator_store: str) -> list[str]:
    allowed, operator = Path(allowed_dir), Path(operator_store)
    found = []
    if allowed.is_dir():
        for candidate in sorted(allowed.glob("*.duckdb")):
            real = candidate.resolve()
            if real.is_file() and real.parent == allowed:
                found.append(str(real))
    if operator.is_file() and str(operator) not in found:
        found.insert(0, str(operator))
    return found


def _store_label(path: str) -> str:
    """A store's name for the sidebar and for links: its file name, never its folder (the
    server's paths are not the visitor's business, and a link must work on another server that
    holds a store of that name)."""
    resolved = Path(path)
    return (
        resolved.name if resolved.parent == allowed_store_dir() else f"{resolved.name} (operator)"
    )


def _choices() -> dict[str, str]:
    """Sidebar label -> store path, the operator's store first."""
    return {_store_label(path): path for path in offered_stores()}


def current_store() -> Store:
    """The store picked in the sidebar (default: STORYSCOPE_STORE or data/storyscope.duckdb).

    Only a path from `offered_stores()` is ever opened, so the app never creates a file or
    opens one outside the allowed directory; with no store at all the page stops and says how
    to build one.
    """
    choices = _choices()
    operator = str(_operator_store())
    # read-only: the operator's store only, whatever the session asks for (no store switching)
    picked = None if operator_read_only() else choices.get(st.session_state.get(STORE_KEY) or "")
    # is_file again: the offered list is cached for 2 s, and opening a missing file creates it
    path = next(
        (
            p
            for p in (picked, operator, *choices.values())
            if p in choices.values() and Path(p).is_file()
        ),
        None,
    )
    if path is None:
        where = "" if operator_read_only() else f" ({operator})"  # paths for the operator only
        st.warning(
            f"No store at STORYSCOPE_STORE{where}. Build one with `storyscope demo` "
            "(or put a store in the operator's store folder, STORYSCOPE_STORE_DIR)."
        )
        st.stop()
    # or one notice saying why not (damaged, busy, older schema read as it is)
    return usable_store(_store_for(path), _store_label(path), operator_read_only())


# Writes this app process made, counted: part of the version cache key, so a version token read
# before a write can never be served after it. (Clearing the cache is not enough: a read that
# started before another session's write could land in the cache just after the clear.)
_local_writes = [0]
_local_writes_lock = threading.Lock()


def mark_store_written() -> None:
    """Call after this process wrote to the store: the next query sees the write at once instead
    of up to VERSION_TTL_S later."""
    with _local_writes_lock:  # two sessions saving at once must both move the key
        _local_writes[0] += 1


# How long a version token is reused: a write by another process shows within this long.
VERSION_TTL_S = 2.0


@st.cache_data(ttl=VERSION_TTL_S, show_spinner=False)
def _cached_version(path: str, local_writes: int) -> str:
    return store_version(_store_for(path))


def _version(path: str) -> str:
    return _cached_version(path, _local_writes[0])


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


@st.cache_resource(show_spinner=False, max_entries=128)
def _built_figure(build: tuple[str, str], args: tuple, kwargs: tuple) -> Any:
    import importlib

    from viz.theme import themed

    return themed(getattr(importlib.import_module(build[1]), build[0])(*args, **dict(kwargs)))


def chart(
    build: Callable[..., Any],
    *args: Any,
    key: str,
    into: Any = None,
    on_select: str = "ignore",
    **kwargs: Any,
) -> Any:
    """`(into or st).plotly_chart(build(*args, **kwargs), key=key)`, the figure built once per
    distinct input and shared by every session: building a figure costs plotly 0.1–0.7 s of
    validation, more than the query behind it, and a page switch reruns every builder on it.

    `build` must be a pure function of its arguments (the `viz/` figure builders are); the
    returned figure is shared, so nothing may change it after it is built. Figures carry their
    own look (`viz.theme`) and are drawn with `theme=None`: Streamlit's chart theme, applied in
    the browser on every draw, cost up to 0.35 s of a PlotTree page switch."""
    figure = _built_figure((build.__name__, build.__module__), args, tuple(sorted(kwargs.items())))
    if on_select == "ignore":
        return (into or st).plotly_chart(figure, key=key, theme=None)
    return (into or st).plotly_chart(
        figure, key=key, theme=None, on_select=on_select, selection_mode="points"
    )


STORE_PARAM = "store"  # ?store=<name>: a shared link opens the same store (by name, never path)


def store_sidebar() -> None:
    """The store selector shown on every page: a list of existing stores, never a free path.
    The choice is carried in the URL by name, so a shared link opens the same store."""
    choices = _choices()
    if not choices:
        return  # current_store() explains, on the page itself
    if operator_read_only():
        st.sidebar.caption(f"Store: {_store_label(str(_operator_store()))} (read-only explorer)")
        return
    labels = list(choices)
    if st.session_state.get(STORE_KEY) not in labels:
        operator = _store_label(str(_operator_store()))
        st.session_state[STORE_KEY] = operator if operator in labels else labels[0]
        _store_from_link(labels)
    st.sidebar.selectbox(
        "Store",
        labels,
        key=STORE_KEY,
        help="Existing stores in the operator's store folder (STORYSCOPE_STORE_DIR) and the"
        " operator's STORYSCOPE_STORE. The app opens these only; it never creates a store.",
    )
    st.query_params[STORE_PARAM] = st.session_state[STORE_KEY]
    read_only_store_warning(current_store(), st.session_state[STORE_KEY])


def _store_from_link(labels: list[str]) -> None:
    """A session's first store: the one a shared link names (`?store=`), when it is offered
    here; a name that is not is said, and the default store shown."""
    wanted = st.query_params.get(STORE_PARAM)
    if wanted is None:
        return
    if wanted in labels:
        st.session_state[STORE_KEY] = wanted
        return
    from ui.link_notices import unknown_url_value

    unknown_url_value("store", [wanted], st.session_state[STORE_KEY])
