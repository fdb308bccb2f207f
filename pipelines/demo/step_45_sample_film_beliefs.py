"""Demo step 45: offline belief records for the ingested screenplays. The real screenplay
pairs of step 31 (with --data-dir) get the 'asymmetry' backend (false beliefs,
revisions, meta-beliefs); the original sample film of step 30 keeps the 'rules' backend as its
current records (the gold of step 46 then supersedes them on the pages), with an asymmetry run
written first so that `storyscope gold-eval` (step 75) scores both backends on it.
StoryVideoQA's hundreds of aligned episodes are left to `storyscope beliefs annotate`.
Skips with a message when no such film exists; reruns skip films already annotated."""

from __future__ import annotations

from pathlib import Path

from data_access.store import Store
from data_access.tables.belief_records import screenplay_films_without_beliefs
from pipelines.beliefs.annotate import annotate

SAMPLE_FILM_ID = "the-keepers-ledger"


def backends_for(film_id: str) -> tuple[str, ...]:
    """The backends a demo film is annotated with, in order (the last one is current)."""
    return ("asymmetry", "rules") if film_id == SAMPLE_FILM_ID else ("asymmetry",)


def run(store: Store, data_dir: Path | None, echo) -> None:
    """Annotate each stored film of kind 'film' that has script lines and no presence rows.

    Args:
        store: the demo store.
        data_dir: unused.
        echo: progress printer.
    """
    films = screenplay_films_without_beliefs(store)
    if not films:
        echo("  no ingested screenplay film without belief records; skipped")
        return
    for film_id in films:
        for backend in backends_for(film_id):
            result = annotate(store, film_id, backend)
            rows = result.tables.get("beliefs", [])
            false = sum(bool(r.get("is_false")) and r.get("believed") is not False for r in rows)
            revised = sum(bool(r.get("revises")) for r in rows)
            echo(
                f"  {film_id}: {result.counts['presence']} presence rows,"
                f" {result.counts['beliefs']} beliefs ({false} false, {revised} revisions),"
                f" {result.counts.get('meta_beliefs', 0)} meta-beliefs (backend {backend})"
            )
