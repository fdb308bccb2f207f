"""Demo step 10: the LF-VideoQA paper sample (samples/lfvqa_paper).

The paper's released examples (Appendix H, Tables 9–14) and the result tables it reports
(Tables 1, 3, 4, 8), imported through the same importer a user runs
(`storyscope import lfvqa samples/lfvqa_paper`). Needs no real data, so it runs without
--data-dir too. Every row is marked as reported by the paper (manifest + run).
"""

from __future__ import annotations

from pathlib import Path

from data_access.importers import import_lfvqa_dir, read_manifest
from data_access.queries.overview_view import datasets_overview
from data_access.store import Store

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "samples" / "lfvqa_paper"


def run(store: Store, data_dir: Path | None, echo) -> None:
    """Import the paper sample unless the store already holds it (demo reruns are no-ops).

    Args:
        store: the demo store.
        data_dir: unused; the sample ships with the repository.
        echo: progress printer.
    """
    dataset_id = read_manifest(SAMPLE_DIR).dataset_id
    if dataset_id in set(datasets_overview(store)["dataset_id"]):
        echo(f"  {dataset_id}: already in the store, skipped")
        return
    report = import_lfvqa_dir(store, SAMPLE_DIR)
    sizes = ", ".join(f"{n} {table}" for table, n in report.rows.items())
    echo(f"  {dataset_id} (reported by the LF-VideoQA paper): {sizes}")
