"""Demo step 56: the sample film's PlotTree (StoryVideoQA §5), so a samples-only store has one.

Built from the film's subtitles like every tree (step 55 builds the real videos'); summaries are
extractive offline and labelled so (`extractive-centroid`). The film's gold MCQs (step 46) then
get stored retrievals, as step 55 does for the release's videos. Reruns skip a built tree.
"""

from __future__ import annotations

from pathlib import Path

from data_access.store import Store
from data_access.tables.films import film_exists

SAMPLE_FILM_ID = "the-keepers-ledger"


def run(store: Store, data_dir: Path | None, echo) -> None:
    """Build the sample film's tree and its MCQ retrievals unless already built."""
    from data_access.queries.plottree_view import films_with_tree
    from pipelines.plottree.ask import ask, film_questions
    from pipelines.plottree.build import build_film_tree

    if not film_exists(store, SAMPLE_FILM_ID):
        echo(f"  {SAMPLE_FILM_ID}: not in the store (step 30); skipped")
        return
    if SAMPLE_FILM_ID in set(films_with_tree(store)["film_id"]):
        echo(f"  {SAMPLE_FILM_ID}: tree already built, skipped")
        return
    build_film_tree(store, SAMPLE_FILM_ID, echo=lambda m: echo(f"  {m}"))
    questions = film_questions(store, SAMPLE_FILM_ID)
    if questions:
        ask(store, SAMPLE_FILM_ID, questions)
        echo(f"  {SAMPLE_FILM_ID}: {len(questions)} MCQ retrievals stored (offline: no answers)")
