"""The gold-eval line a page shows beside an offline backend's output: how that
backend scored against the hand-made gold annotation, read from the stored `gold.eval` run.

A gold score belongs to the film whose gold it was scored on: a page showing another film (a
Hi-ToM story, a real film) shows none."""

from __future__ import annotations

import streamlit as st

from data_access.queries.gold_eval_inputs import latest_gold_eval
from pipelines.goldeval import describe
from ui.common import query

SHOWCASE_FILM = "the-keepers-ledger"
SHOWCASE_TITLE = "The Keeper's Ledger"


def gold_eval_caption(part: str, film_id: str | None = SHOWCASE_FILM) -> None:
    """A caption with the stored gold-eval line for `part` (beliefs | questions | judge).

    Args:
        part: which backend's line (beliefs | questions | judge).
        film_id: the film the page shows; None for a page over all films, where the showcase
            film's score is shown under its name.
    """
    scored = film_id or SHOWCASE_FILM
    result = query(latest_gold_eval, scored)
    line = describe(part, result) if result else None
    if line:
        whose = f"{SHOWCASE_TITLE}'s gold" if scored == SHOWCASE_FILM else "this film's gold"
        st.caption(
            f"Scored on {whose} (hand-annotated by the StoryScope authors,"
            f" `storyscope gold-eval`): {line}"
        )
