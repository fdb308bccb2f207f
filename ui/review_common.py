"""What the review panels share: the reviewer's name (sidebar, default `STORYSCOPE_REVIEWER`) and
saving through `data_access.tables.review_labels` with a clear message instead of a traceback.

Writes happen only on a button or form submit, in one short transaction each, then the page's
cached queries see the new run on the rerun (the store's version token changes).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import streamlit as st

from data_access.tables.review_labels import ReviewError, clean_reviewer
from ui.common import (
    current_store,
    mark_store_written,
    read_only,
    read_only_note,
    refuse_if_read_only,
)

_NAME_KEY = "_reviewer_name"  # survives pages where the sidebar input is not drawn
REVIEWER_PARAM = "reviewer"  # carried in the URL, so a shared link opens as the same reviewer


def reviewer_sidebar() -> str | None:
    """Draw the reviewer input in the sidebar (once per page) and return the checked name, or
    None (with a hint) when it is empty or invalid. Not drawn in read-only mode (no review)."""
    if read_only():
        return None
    if _NAME_KEY not in st.session_state:
        # a shared link names its reviewer (?reviewer=): the review queue it points to is theirs
        linked = st.query_params.get(REVIEWER_PARAM)
        st.session_state[_NAME_KEY] = linked or os.environ.get("STORYSCOPE_REVIEWER", "")
    name = st.sidebar.text_input(
        "Reviewer",
        value=st.session_state[_NAME_KEY],
        key="reviewer_input",
        help="Your labels are stored as judge `human:<name>`; default STORYSCOPE_REVIEWER.",
    )
    st.session_state[_NAME_KEY] = name
    if name:
        st.query_params[REVIEWER_PARAM] = name
    else:
        st.query_params.pop(REVIEWER_PARAM, None)
    return current_reviewer()


def current_reviewer() -> str | None:
    """The reviewer's name if set and valid, else None (always None in read-only mode)."""
    if read_only():
        return None
    try:
        return clean_reviewer(st.session_state.get(_NAME_KEY) or None)
    except ReviewError:
        return None


def need_reviewer() -> str | None:
    """The reviewer, or None after telling the user to set one (or that review is off)."""
    if read_only():
        read_only_note("Reviewing (labels, tags, question decisions and edits)")
        return None
    reviewer = current_reviewer()
    if reviewer is None:
        st.info("Set your name under **Reviewer** in the sidebar to record reviews.")
    return reviewer


def save(write: Callable[[Any], Any], done: str) -> bool:
    """Run `write(store)` (a `tables.review_labels` call) on the current store; show `done` or
    the
    error message (which names the record and field). Refused in read-only mode."""
    if refuse_if_read_only("saving a review"):
        return False
    try:
        write(current_store())
    except ReviewError as exc:
        st.error(str(exc))
        return False
    # the page's queries are cached on a version token that is itself cached: move its key so
    # the rerun after a save shows the new label at once
    mark_store_written()
    st.toast(done)
    return True
