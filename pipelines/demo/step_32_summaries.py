"""Demo step 32: scene summaries (LF-VideoQA App. C) for every film with script lines and no
summary yet, by the offline `extractive` backend (labelled as such on every row; the LLM path
is `storyscope film summarise --backend openai`). Runs after the films are ingested (steps 30
and 31) and before questions are generated (step 60), whose scene cards read the summaries."""

from __future__ import annotations

from pathlib import Path

from data_access.store import Store
from data_access.tables.scene_summaries import films_without_summaries
from pipelines.preprocess.summaries import EXTRACTIVE, summarise_film


def run(store: Store, data_dir: Path | None, echo) -> None:
    """Summarise each film that has script lines and no scene summary (reruns skip them)."""
    films = films_without_summaries(store)
    if not films:
        echo("  every film with script lines has scene summaries; skipped")
        return
    for film_id in films:
        report = summarise_film(store, film_id, EXTRACTIVE)
        echo(f"  {film_id}: {report.scenes} scene summaries (backend {EXTRACTIVE})")
