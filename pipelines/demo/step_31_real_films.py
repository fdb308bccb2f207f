"""Demo step 31: the real screenplay + subtitle pairs of ../shared/data/screenplays (only with
--data-dir; the films are copyrighted research data and never ship with StoryScope).

Each pair goes through `storyscope film ingest`'s pipeline; a pair whose alignment fails is
reported and skipped, never half-written.
"""

from __future__ import annotations

from pathlib import Path

from data_access.store import Store
from data_access.tables.films import film_exists
from pipelines.preprocess.ingest import ingest_film
from pipelines.preprocess.timing import AlignmentFailed

PAIRS_DIR = Path("screenplays") / "srt-pairs-robertjvt" / "scripts_subtitles"


def run(store: Store, data_dir: Path | None, echo) -> None:
    """Ingest every `<name>.txt` + `<name>.srt` pair not yet in the store."""
    if data_dir is None or not (data_dir / PAIRS_DIR).is_dir():
        echo("  no --data-dir with screenplays/srt-pairs-robertjvt; skipped")
        return
    for screenplay in sorted((data_dir / PAIRS_DIR).glob("*.txt")):
        subtitles = screenplay.with_suffix(".srt")
        film_id = screenplay.stem.replace("_", "-")
        if not subtitles.is_file() or film_exists(store, film_id):
            continue
        try:
            report = ingest_film(
                store,
                screenplay,
                subtitles,
                film_id=film_id,
                dataset_id="screenplay_pairs",
                dataset_name="Screenplay + subtitle pairs (robertjvt, research only)",
            )
        except AlignmentFailed as exc:
            echo(f"  {film_id}: alignment failed, skipped ({exc})")
            continue
        echo(
            f"  {film_id}: {report.scenes} scenes, {report.dialogue_lines} dialogue lines,"
            f" {report.share_lines_matched:.0%} matched (backend rules)"
        )
