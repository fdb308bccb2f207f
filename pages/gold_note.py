"""The gold-eval line a page shows beside an offline backend's output (issue 13): how that
backend scored against the hand-made gold annotation, read from the stored `gold.eval` run."""

from __future__ import annotations

import streamlit as st

from data_access.gold_eval import latest_gold_eval
from pages.common import query
from pipelines.goldeval import describe

SHOWCASE_FILM = "the-keepers-ledger"


def gold_eval_caption(part: str, film_id: str | None = SHOWCASE_FILM) -> None:
    """A caption with the stored gold-eval line for `part` (beliefs | questions | judge)."""
    result = query(latest_gold_eval, film_id or SHOWCASE_FILM)
    line = describe(part, result) if result else None
    if line:
        st.caption(
            f"Scored on The Keeper's Ledger's gold (hand-annotated by the StoryScope authors,"
            f" `storyscope gold-eval`): {line}"
        )
