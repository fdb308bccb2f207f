"""Demo step 55: PlotTrees for every aligned StoryVideoQA video (StoryVideoQA §5; --data-dir only).

The StoryVideoQA import (step 20) holds 58 videos with human-aligned scripts: 7 films and 51
episodes (Friends, The Big Bang Theory, Game of Thrones), about 41 hours at 1 fps. Node vectors
are segment-pooled MiniLM (`pipelines.plottree.segment_embed`), which makes a 2-hour film cost
about 30 s of CPU instead of 75 s (Chinatown), so the demo builds all of them, films first
(docs/STORYVIDEOQA.md has the measured total). Summaries are extractive offline (labelled
`extractive-centroid`). Each video's golden MCQs are then answered by PlotTree QA offline
(`mcq answer --method plottree --backend offline`: the `minilm-option-match` backend, named as
such), so Distributions shows a StoryScope method beside the imported ones and each choice's
retrieval. Already-built videos are
skipped, so an interrupted demo resumes; `storyscope plottree build --all --skip-built` does
the same from the command line.
"""

from __future__ import annotations

import time
from pathlib import Path

from data_access.store import Store
from data_access.tables.plottree_records import films_with_timeline
from pipelines.progress import report

DATASET_ID = "storyvideoqa"


def videos_to_build(store: Store) -> list[str]:
    """The dataset's videos with a timeline, films before episodes (then by id)."""
    frame = films_with_timeline(store, DATASET_ID)
    frame = frame.assign(is_episode=frame["kind"].eq("episode"))
    return frame.sort_values(["is_episode", "film_id"])["film_id"].tolist()


def run(store: Store, data_dir: Path | None, echo) -> None:
    """Build every aligned video's tree (skipping ones already built) and store MCQ retrievals."""
    if data_dir is None:
        echo("  no --data-dir; skipped")
        return
    from data_access.queries.plottree_view import films_with_tree
    from pipelines.mcq.methods import AnswerOptions, answer_mcqs
    from pipelines.plottree.build import build_film_tree

    videos = videos_to_build(store)
    if not videos:
        echo(f"  no {DATASET_ID} videos with subtitles in the store (import step 20); skipped")
        return
    built = set(films_with_tree(store)["film_id"])
    cpu, wall, count = time.process_time(), time.perf_counter(), 0
    for number, film_id in enumerate(videos):
        report("PlotTrees", number, len(videos))
        if film_id in built:
            echo(f"  {film_id}: tree already built, skipped")
            continue
        build_film_tree(store, film_id, echo=lambda m: echo(f"  {m}"))
        count += 1
        try:
            answered = answer_mcqs(store, AnswerOptions("plottree", where={"vid": [film_id]}))
        except ValueError:  # the video has no MCQs
            continue
        echo(
            f"  {film_id}: {answered['questions']} MCQs answered by {answered['method']}"
            " (retrievals stored)"
        )
    report("PlotTrees", len(videos), len(videos))
    echo(
        f"  {count} PlotTrees built in {time.perf_counter() - wall:.0f}s wall, "
        f"{time.process_time() - cpu:.0f}s CPU"
    )
