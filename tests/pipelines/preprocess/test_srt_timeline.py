"""Subtitles whose cues all start at one time carry no timeline: refused in either mode, naming
the file, and `film ingest` writes nothing (nothing invalid is accepted silently)."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from pipelines.cli import app, load_commands
from pipelines.preprocess.srt_reader import SubtitleError, parse_srt
from tests.support.ingest_texts import SCREENPLAY, SUBTITLES
from tests.support.store_snapshots import store_dump


def _one_time(text: str, stamp: str = "00:00:05,000 --> 00:00:05,000") -> str:
    return re.sub(r"^\d+:\d+:\d+,\d+ --> \d+:\d+:\d+,\d+$", stamp, text, flags=re.M)


def _cues(*stamps: str) -> str:
    return "\n".join(f"{n}\n{stamp}\nline {n}\n" for n, stamp in enumerate(stamps, 1))


@pytest.mark.parametrize("lenient", [False, True])
def test_cues_all_at_one_time_are_refused_in_either_mode(lenient):
    text = _cues(*["00:00:05,000 --> 00:00:05,000"] * 4)
    with pytest.raises(SubtitleError, match=r"one.srt: all 4 cues start at 5.000 s"):
        parse_srt(text, "one.srt", lenient=lenient)
    same_start = _cues("00:00:05,000 --> 00:00:06,000", "00:00:05,000 --> 00:00:09,000")
    with pytest.raises(SubtitleError, match="timings are lost"):
        parse_srt(same_start, "one.srt", lenient=lenient)


def test_a_real_timeline_with_shared_starts_is_kept():
    text = _cues(
        "00:00:05,000 --> 00:00:06,000",
        "00:00:05,000 --> 00:00:06,000",  # two speakers at once
        "00:00:07,000 --> 00:00:08,000",
    )
    assert [cue.start_s for cue in parse_srt(text, "ok.srt").cues] == [5.0, 5.0, 7.0]
    assert len(parse_srt(_cues("00:00:05,000 --> 00:00:06,000"), "one-cue.srt").cues) == 1


def test_film_ingest_refuses_them_and_writes_nothing(store, tmp_path):
    flat = tmp_path / "flat.srt"
    flat.write_text(_one_time(SUBTITLES.read_text(encoding="utf-8")), encoding="utf-8")
    before = store_dump(store)
    load_commands()
    args = ["film", "ingest", "--screenplay", str(SCREENPLAY), "--subtitles", str(flat)]
    result = CliRunner().invoke(app, [*args, "--store", str(store.path)])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error:") and "flat.srt: all " in result.output
    assert "Traceback" not in result.output
    assert store_dump(store) == before
