"""`film ingest --min-match`: a draft that matches few lines is accepted only deliberately, the
low match is recorded for the Film page, and every scene without a matched line is flagged
interpolated."""

from __future__ import annotations

import re

import pytest

from data_access.queries.ingest_view import ingest_match
from pipelines.preprocess.ingest import ingest_film
from pipelines.preprocess.timing import AlignmentFailed
from tests.support.paths import REPO_ROOT

SAMPLE = REPO_ROOT / "samples" / "films"
SCREENPLAY, SUBTITLES = SAMPLE / "the_keepers_ledger.fountain", SAMPLE / "the_keepers_ledger.srt"


@pytest.fixture()
def draft_subtitles(tmp_path):
    """The sample's first 8 cues only: a pair that matches well under 15% of the lines."""
    blocks = re.split(r"\n\s*\n", SUBTITLES.read_text(encoding="utf-8").strip())
    path = tmp_path / "draft.srt"
    path.write_text("\n\n".join(blocks[:8]) + "\n", encoding="utf-8")
    return path


def test_low_match_fails_by_default_and_is_accepted_with_min_match(store, draft_subtitles):
    with pytest.raises(AlignmentFailed, match="need 15%"):
        ingest_film(store, SCREENPLAY, draft_subtitles)
    report = ingest_film(store, SCREENPLAY, draft_subtitles, film_id="draft", min_match=0.02)
    assert 0.02 <= report.share_lines_matched < 0.15
    match = ingest_match(store, "draft")
    assert match == {
        "share_lines_matched": report.share_lines_matched,
        "min_match": 0.02,
        "low": True,
    }
    scenes = store.df(
        "SELECT s.scene_index, s.time_source,"
        " (SELECT count(*) FROM current_script_lines l WHERE l.film_id = s.film_id"
        "  AND l.scene_index = s.scene_index AND l.start_s IS NOT NULL) AS timed_lines"
        " FROM current_scenes s WHERE s.film_id = 'draft'"
    )
    # Every scene with no matched line is interpolated; only scenes with one are matched.
    assert set(scenes[scenes.timed_lines == 0].time_source) == {"interpolated"}
    assert set(scenes[scenes.timed_lines > 0].time_source) == {"matched"}
    assert (scenes.time_source == "interpolated").sum() > len(scenes) / 2


def test_a_good_pair_is_not_flagged_low(store):
    ingest_film(store, SCREENPLAY, SUBTITLES, film_id="good")
    match = ingest_match(store, "good")
    assert match["low"] is False and match["min_match"] == 0.15
    assert ingest_match(store, "no-such-film") is None


def test_min_match_must_be_a_fraction(store):
    with pytest.raises(ValueError, match="between 0 and 1"):
        ingest_film(store, SCREENPLAY, SUBTITLES, min_match=4)


def test_cli_min_match(store_path, draft_subtitles):
    from typer.testing import CliRunner

    from pipelines.cli import app, load_commands

    load_commands()
    args = ["film", "ingest", "--screenplay", str(SCREENPLAY), "--subtitles", str(draft_subtitles)]
    args += ["--store", str(store_path)]
    refused = CliRunner().invoke(app, args)
    assert refused.exit_code != 0 and "--min-match" in refused.output
    accepted = CliRunner().invoke(app, [*args, "--min-match", "0.02", "--film-id", "draft"])
    assert accepted.exit_code == 0, accepted.output
