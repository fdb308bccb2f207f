"""Demo step 30: the original sample film, "The Keeper's Ledger" (samples/films).

A short screenplay written for StoryScope (Fountain, 19 scenes, six characters with secrets,
lies and late discoveries) and subtitles written to match it (one scene's line cut from the
"film", a few cues paraphrased, split or merged, so the alignment has real work to do). It is
ingested through the same pipeline a user runs (`storyscope film ingest`), so the demo store
has a real, timed film to explore; needs no real data.
"""

from __future__ import annotations

from pathlib import Path

from data_access.store import Store
from data_access.tables.films import film_exists
from pipelines.preprocess.ingest import ingest_film

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "samples" / "films"
SAMPLE_FILM_ID = "the-keepers-ledger"


def run(store: Store, data_dir: Path | None, echo) -> None:
    """Ingest the sample film unless the store already has it (reruns are no-ops).

    Args:
        store: the demo store.
        data_dir: unused; the sample ships with the repository.
        echo: progress printer.
    """
    if film_exists(store, SAMPLE_FILM_ID):
        echo(f"  {SAMPLE_FILM_ID}: already in the store, skipped")
        return
    report = ingest_film(
        store,
        SAMPLE_DIR / "the_keepers_ledger.fountain",
        SAMPLE_DIR / "the_keepers_ledger.srt",
        title="The Keeper's Ledger",
        year=2026,
        film_id=SAMPLE_FILM_ID,
        dataset_id="storyscope_samples",
        dataset_name="StoryScope sample films",
        licence="CC BY 4.0 (original work written for StoryScope)",
    )
    echo(
        f"  {report.film_id}: {report.scenes} scenes, {report.dialogue_lines} dialogue lines,"
        f" {report.share_lines_matched:.0%} matched to subtitles (backend rules)"
    )
