"""Demo step 55: PlotTrees for real aligned films and episodes (StoryVideoQA §5; --data-dir only).

Building a 1-fps tree embeds every distinct leaf text with MiniLM on CPU, so the demo builds a
few videos: a sitcom episode, a drama episode and a film (DEMO_FILMS; about 20 s of CPU for a
23-minute episode, measured); `storyscope plottree build --all` builds the other 55. Summaries are extractive offline (labelled `extractive-centroid`). The
films' golden MCQs then get a stored retrieval each (`plottree ask-mcqs`, answer null offline)
so the PlotTree page can show them.
"""

from __future__ import annotations

from pathlib import Path

from data_access.plottree import films_with_timeline
from data_access.store import Store

DEMO_FILMS = ("Friends-S01E01", "GOT-S01E01", "IMDB-114-Chinatown")


def run(store: Store, data_dir: Path | None, echo) -> None:
    """Build the demo films' trees (skipping ones already built) and store MCQ retrievals."""
    if data_dir is None:
        echo("  no --data-dir; skipped")
        return
    from data_access.views_plottree import films_with_tree
    from pipelines.plottree.ask import ask, film_questions
    from pipelines.plottree.build import build_film_tree

    available = set(films_with_timeline(store)["film_id"])
    built = set(films_with_tree(store)["film_id"])
    for film_id in DEMO_FILMS:
        if film_id not in available:
            echo(f"  {film_id}: not in the store (import storyvideoqa first); skipped")
            continue
        if film_id in built:
            echo(f"  {film_id}: tree already built, skipped")
            continue
        build_film_tree(store, film_id, echo=lambda m: echo(f"  {m}"))
        questions = film_questions(store, film_id)
        if questions:
            ask(store, film_id, questions)
            echo(f"  {film_id}: {len(questions)} MCQ retrievals stored (offline: no answers)")
