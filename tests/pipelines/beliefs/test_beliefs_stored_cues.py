"""Belief annotation reads each spoken line's cue (V.O., O.S.) from the store, as ingested,
never from the screenplay file at the path typed at ingest (it may have moved or changed)."""

import shutil

from pipelines.beliefs.annotate import annotate
from pipelines.beliefs.backend_io import load_film
from pipelines.preprocess.ingest import ingest_film
from tests.support.paths import REPO_ROOT

SAMPLE = REPO_ROOT / "samples" / "films"
V_O_LINE = "October, nineteen ninety-eight."  # MARA (V.O.) reads her father's ledger


def _mode_of(loaded, start: str) -> str:
    lines = [line for scene in loaded.scenes.values() for line in scene]
    return next(line.mode for line in lines if line.text.startswith(start))


def test_voices_come_from_the_store_after_the_screenplay_file_is_gone(store, tmp_path):
    for name in ("the_keepers_ledger.fountain", "the_keepers_ledger.srt"):
        shutil.copy(SAMPLE / name, tmp_path / name)
    screenplay = tmp_path / "the_keepers_ledger.fountain"
    report = ingest_film(store, screenplay, tmp_path / "the_keepers_ledger.srt", film_id="ledger")
    stored = store.df(
        "SELECT c.cue, c.cue_extensions FROM current_script_lines l JOIN script_line_cues c"
        " USING (film_id, line_index, run_id)"
        " WHERE l.film_id = 'ledger' AND starts_with(l.text, ?)",
        [V_O_LINE],
    )
    assert stored.cue.tolist() == ["MARA"] and list(stored.cue_extensions[0]) == ["V.O."]
    kinds = store.df(
        "SELECT l.kind, count(*) AS n FROM script_line_cues c JOIN script_lines l"
        " USING (film_id, line_index, run_id) GROUP BY l.kind"
    )
    assert kinds.kind.tolist() == ["dialogue"]  # one cue row per spoken line, none else
    assert kinds.n[0] == store.scalar("SELECT count(*) FROM script_lines WHERE kind = 'dialogue'")
    with_file = load_film(store, report.film_id)

    screenplay.write_text("EXT. SOMEWHERE ELSE - DAY\n\nNothing of the film is here now.\n")
    changed = load_film(store, report.film_id)
    screenplay.unlink()
    gone = load_film(store, report.film_id)

    for loaded in (with_file, changed, gone):
        assert _mode_of(loaded, V_O_LINE) == "voice_over"
        assert loaded.voices_known is True  # voices known (from the store)
    result = annotate(store, "ledger", "rules", dry_run=True)
    assert result.params["voices_from_source"] is True


def test_lines_stored_without_cues_read_as_in_person_without_opening_any_file(store, tmp_path):
    screenplay = tmp_path / "the_keepers_ledger.fountain"
    shutil.copy(SAMPLE / "the_keepers_ledger.fountain", screenplay)
    ingest_film(store, screenplay, SAMPLE / "the_keepers_ledger.srt", film_id="ledger")
    # a store ingested before the cues were kept: NULL, "not recorded"
    with store.transaction() as cursor:
        cursor.execute("DELETE FROM script_line_cues")
    loaded = load_film(store, "ledger")  # the file is still there, and is not read
    assert _mode_of(loaded, V_O_LINE) == "in_person" and loaded.voices_known is False
