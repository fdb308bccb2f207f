"""Demo step 46: the hand-made gold annotation of the sample film (samples/gold).

Imported after the `rules` annotation of step 45, so the film's current belief records, scene
summaries, questions, answers (five hand-written settings with gold verdicts) and MCQs are the
gold ones — labelled backend `gold`, "hand-annotated by the StoryScope authors" — while the rules
run stays in the store for `storyscope gold-eval` to score. Needs the film (step 30); reruns skip.
"""

from __future__ import annotations

from pathlib import Path

from data_access.importers.gold import import_gold
from data_access.importers.lfvqa import read_manifest
from data_access.queries.overview_view import datasets_overview
from data_access.store import Store
from data_access.tables.films import film_exists

GOLD_DIR = Path(__file__).resolve().parents[2] / "samples" / "gold" / "the_keepers_ledger"
SAMPLE_FILM_ID = "the-keepers-ledger"


def run(store: Store, data_dir: Path | None, echo) -> None:
    """Import the gold folder unless its dataset is already in the store.

    Args:
        store: the demo store.
        data_dir: unused; the gold ships with the repository.
        echo: progress printer.
    """
    if not film_exists(store, SAMPLE_FILM_ID):
        echo(f"  {SAMPLE_FILM_ID}: not in the store (step 30); skipped")
        return
    dataset_id = read_manifest(GOLD_DIR / "lfvqa").dataset_id
    if dataset_id in set(datasets_overview(store)["dataset_id"]):
        echo(f"  {dataset_id}: already in the store, skipped")
        return
    report = import_gold(store, GOLD_DIR)
    sizes = ", ".join(f"{n} {table}" for table, n in report.rows.items())
    echo(f"  gold (hand-annotated by the StoryScope authors): {sizes}")
