"""Demo step 45: belief records from the offline 'rules' backend for the ingested screenplays:
the original sample film of step 30 and, with --data-dir, the real screenplay pairs of step 31
(StoryVideoQA's hundreds of aligned episodes are left to `storyscope beliefs annotate`).
Skips with a message when no such film exists; reruns skip films already annotated."""

from __future__ import annotations

from pathlib import Path

from data_access.beliefs import screenplay_films_without_beliefs
from data_access.store import Store
from pipelines.beliefs.annotate import annotate


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
        result = annotate(store, film_id, "rules")
        echo(
            f"  {film_id}: {result.counts['presence']} presence rows,"
            f" {result.counts['beliefs']} told beliefs (backend rules)"
        )
