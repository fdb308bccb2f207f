"""Demo step 40: the shipped Hi-ToM and BigToM subsets (samples/tom), imported as stories with
belief records from the symbolic tracker, so a fresh machine shows belief timelines.
Needs no real data; reruns are no-ops."""

from __future__ import annotations

from pathlib import Path

from data_access.store import Store
from data_access.tables.films import film_exists
from pipelines.beliefs.tom.importers import build_records, import_tom

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "samples" / "tom"
SAMPLES = {"hitom": SAMPLE_DIR / "hitom_subset.json", "bigtom": SAMPLE_DIR / "bigtom_subset.csv"}


def run(store: Store, data_dir: Path | None, echo) -> None:
    """Import each shipped ToM subset unless its stories are already in the store.

    Args:
        store: the demo store.
        data_dir: unused; the subsets ship with the repository.
        echo: progress printer.
    """
    for name, path in SAMPLES.items():
        first = build_records(name, path, limit=1)[0].film["film_id"]
        if film_exists(store, first):
            echo(f"  {name}: already in the store, skipped")
            continue
        summary = import_tom(store, name, path)
        echo(
            f"  {name}: {summary.stories} stories, {summary.rows['beliefs']} beliefs,"
            f" {summary.rows['meta_beliefs']} meta-beliefs (backend symbolic-tracker)"
        )
