"""Who wrote the belief records on screen, how good that backend is, and how to get LLM records:
the block every belief view opens with, so records never pass for more than their method."""

from __future__ import annotations

import re

import streamlit as st

from data_access.queries import film_view
from data_access.queries.belief_sources import belief_sources
from data_access.queries.gold_eval_inputs import latest_gold_eval
from pipelines.beliefs.backend_notes import OFFLINE, llm_calls, scope
from pipelines.goldeval import describe
from ui.common import query
from ui.gold_note import SHOWCASE_FILM, SHOWCASE_TITLE
from ui.safe_text import inert, plain


def _name(backend: object) -> str:
    """A backend name as it may stand in our own markdown: its word characters only (names
    come from run rows, which an import may have written)."""
    return re.sub(r"[^\w.:@+-]", "", str(backend))


def _scored(film_id: str) -> dict[str, str]:
    """backend -> its gold-eval line on `film_id` (empty when the film was never scored)."""
    result = query(latest_gold_eval, film_id) or {}
    by_backend = dict(result.get("beliefs_by_backend") or {})
    if result.get("beliefs"):
        by_backend.setdefault(result["beliefs"]["backend"], result["beliefs"])
    lines = {
        name: describe("beliefs", {"beliefs": {**scores, "backend": _name(name)}})
        for name, scores in by_backend.items()
    }
    return {name: line for name, line in lines.items() if line}


def _quality(backend: str, film_id: str) -> list[str]:
    """Captions on `backend`'s quality: its gold-eval score on this film where there is one,
    else what it can and cannot see (and its score on the showcase film's gold, named)."""
    here = _scored(film_id)
    lines = []
    if here:
        lines.append(
            "Scored on this film's gold (hand-annotated by the StoryScope authors, storyscope"
            " gold-eval): " + "; ".join(here.values()) + "."
        )
    if backend == "gold":
        return [f"The gold is {scope('gold')}", *lines]
    if backend in here:
        return lines
    showcase = _scored(SHOWCASE_FILM).get(backend) if backend in OFFLINE else None
    elsewhere = (
        f" On {SHOWCASE_TITLE}'s hand-made gold (another film) it measured: {showcase}."
        if showcase and film_id != SHOWCASE_FILM
        else ""
    )
    unscored = "not scored on this film's gold" if here else "no gold annotation of this film/story"
    return [f"The {_name(backend)} backend is {scope(backend)} ({unscored}){elsewhere}", *lines]


def belief_source_note(film_id: str) -> None:
    """Name the backend(s) behind the film's belief records, their measured quality, and the
    command (with its cost) that gives LLM-annotated records instead."""
    sources = query(belief_sources, film_id)
    if sources.empty:
        return
    with st.container(border=True, key="belief_source"):
        for row in sources.itertuples():
            model = f", model {inert(row.model)}" if isinstance(row.model, str) else ""
            st.markdown(
                f"**Records by the `{_name(row.backend)}` backend**{model} —"
                f" {row.beliefs:,} beliefs, run `{plain(row.run_id).replace('`', '')}`"
            )
            for line in _quality(row.backend, film_id):
                st.caption(line)  # our own sentences; backend names pass through _name
        if "openai" not in set(sources["backend"]):
            header = query(film_view.film_header, film_id) or {}
            scenes, characters = int(header.get("scenes") or 0), int(header.get("characters") or 0)
            calls = llm_calls(scenes, characters)
            cost = (
                f": here {scenes} scenes × {characters} characters = at least {calls:,} calls"
                if calls
                else ""
            )
            st.caption(
                "LLM-annotated records: point STORYSCOPE_LLM_BASE_URL and STORYSCOPE_LLM_MODEL at"
                " your own OpenAI-compatible endpoint and run `storyscope beliefs annotate --film"
                f" {plain(film_id).replace('`', '')} --backend openai` (add `--dry-run` first to"
                " count the calls). The paper's pipeline costs one call per character per scene"
                f" (LF-VideoQA App. D){cost}."
            )
