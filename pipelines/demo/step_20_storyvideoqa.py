"""Demo step 20: the StoryVideoQA release in ../shared/data/storyvideoqa (only with --data-dir;
the questions, scripts and subtitles are research data and never ship with StoryScope).

Imports the golden questions (StoryVideoQA-G, Table 6: 6,927 MCQs) and the aligned scripts
through the importer a user runs (`storyscope import storyvideoqa DIR`).
"""

from __future__ import annotations

from pathlib import Path

from data_access.importers import import_storyvideoqa_dir
from data_access.queries.overview_view import datasets_overview
from data_access.store import Store

RELEASE_DIR = "storyvideoqa"
DATASET_ID = "storyvideoqa"


def run(store: Store, data_dir: Path | None, echo) -> None:
    """Import data_dir/storyvideoqa unless it is absent or already in the store.

    Args:
        store: the demo store.
        data_dir: the real data folder (../shared/data), or None without --data-dir.
        echo: progress printer.
    """
    if data_dir is None or not (data_dir / RELEASE_DIR).is_dir():
        echo("  no --data-dir with storyvideoqa/; skipped")
        return
    if DATASET_ID in set(datasets_overview(store)["dataset_id"]):
        echo(f"  {DATASET_ID}: already in the store, skipped")
        return
    report = import_storyvideoqa_dir(store, data_dir / RELEASE_DIR)
    sizes = ", ".join(f"{n:,} {table}" for table, n in report.rows.items())
    echo(f"  StoryVideoQA release: {sizes}")
