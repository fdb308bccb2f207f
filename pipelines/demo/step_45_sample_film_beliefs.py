"""Demo step 45: belief records from the offline 'rules' backend for the ingested screenplays:
the original sample film of step 30 and, with --data-dir, the real screenplay pairs of step 31
(StoryVideoQA's hundreds of aligned episodes are left to `storyscope beliefs annotate`).
Skips with a message when no such film exists; reruns skip films already annotated."""

from __future__ import annotations

from pathlib import Path

from data_access.store import Store
from pipelines.beliefs.annotate import annotate


def run(store: Store, data_dir: Path | None, echo) -> None:
    """Annotate each stored film of kind 'film' that has script lines and no presence rows.

    Args:
        store: the demo store.
        data_dir: unused.
        echo: progress printer.
    """
    films = store.df(
        "SELECT f.film_id FROM films f WHERE f.kind = 'film'"
        " AND f.dataset_id IN ('storyscope_samples', 'screenplay_pairs')"
        " AND EXISTS (SELECT 1 FROM script_lines l WHERE l.film_id = f.film_id)"
        " AND NOT EXISTS (SELECT 1 FROM presence p WHERE p.film_id = f.film_id)"
        " ORDER BY f.film_id")
    if films.empty:
        echo("  no ingested screenplay film without belief records; skipped")
        return
    for film_id in films["film_id"]:
        result = annotate(store, film_id, "rules")
        echo(f"  {film_id}: {result.counts['presence']} presence rows,"
             f" {result.counts['beliefs']} told beliefs (backend rules)")
