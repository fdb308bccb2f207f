"""10-second chunk captions (`pipelines.video.captions`, `storyscope film caption`) against the
scripted OpenAI-compatible server, which checks what it received: per chunk one request whose
user message carries the chunk's frames as image parts, in time order, each after its time,
the very JPEGs `sample_frames` gives for those times; the names the store knows for the
chunk's span (App. I); rows with provenance; a killed run and a run with a failed chunk resume
with what was done kept, sending only what is missing. On the sample film's animatic and on a
real H.264 file."""

from __future__ import annotations

import base64
import json
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from data_access.queries.video import film_captions
from data_access.tables.films import set_film_video
from pipelines.demo import step_47_sample_animatic
from pipelines.scale import LocalExecutor
from pipelines.video.captions import CHUNKS_PER_UNIT, caption_film
from pipelines.video.sampling import sample_frames
from tests.support.fake_llm import PATIENT_TIMEOUT_S, TEST_KEY, FakeReply
from tests.support.video_fixtures import h264_video, ingest_sample_film, stamp_of

CLIP = re.compile(r"CLIP: (\d+):(\d\d):(\d\d\.\d) to")
TIME = re.compile(r"^\[(\d+):(\d\d):(\d\d\.\d)\]$")
DATA_URL = "data:image/jpeg;base64,"


def _seconds(match) -> float:
    hours, minutes, seconds = match.groups()
    return int(hours) * 3600 + int(minutes) * 60 + float(seconds)


def clip_start(body: dict) -> float:
    return _seconds(CLIP.search(body["messages"][1]["content"][0]["text"]))


def caption_of(body: dict, number: int) -> str:
    """The scripted captioner: names the clip it was shown."""
    return f"A clip from {clip_start(body):.0f} s."


def shown(body: dict) -> list[tuple[float, bytes]]:
    """(time, JPEG bytes) of each frame of a request, in the order sent, checking the shape:
    one text part, then (time text, image part) pairs."""
    parts = body["messages"][1]["content"]
    assert parts[0]["type"] == "text" and len(parts) % 2 == 1
    frames = []
    for label, image in zip(parts[1::2], parts[2::2]):
        assert label["type"] == "text" and image["type"] == "image_url"
        url = image["image_url"]["url"]
        assert url.startswith(DATA_URL)
        frames.append((_seconds(TIME.match(label["text"])), base64.b64decode(url[len(DATA_URL) :])))
    return frames


@pytest.fixture
def animatic_film(store, tmp_path, monkeypatch):
    monkeypatch.setenv("STORYSCOPE_FRAME_CACHE", str(tmp_path / "frame-cache"))
    film = ingest_sample_film(store)
    step_47_sample_animatic.run(store, None, lambda _: None)
    return film


def _caption(store, film, server, fake_llm, progress=None, **options):
    config = fake_llm.config(server, timeout_s=PATIENT_TIMEOUT_S)
    return caption_film(store, film, LocalExecutor(), config=config, progress=progress, **options)


def test_each_chunk_is_sent_its_frames_as_image_parts_in_order_with_its_names(
    store, animatic_film, fake_llm
):
    server = fake_llm(caption_of)
    report = _caption(store, animatic_film, server, fake_llm)
    assert report.batch.complete and report.chunks == 66  # 660.5 s: the last 0.5 s has no frame
    bodies = sorted(server.log.bodies, key=clip_start)
    assert [clip_start(b) for b in bodies] == [10.0 * k for k in range(66)]
    for body in bodies[::7]:
        start = clip_start(body)
        frames = shown(body)
        assert [t for t, _ in frames] == [start + 1, start + 3, start + 5, start + 7, start + 9]
        expected = sample_frames(store, animatic_film, 0.5, start, start + 10, width=384)
        assert [jpeg for _, jpeg in frames] == [f.jpeg_bytes() for f in expected]
        assert body["messages"][0]["role"] == "system"
        assert "caption one 10-second clip" in body["messages"][0]["content"]
    captions = film_captions(store, animatic_film)
    assert list(captions.chunk_index) == list(range(66))
    assert list(captions.caption) == [f"A clip from {10 * k} s." for k in range(66)]
    assert list(captions.frame_times.iloc[3]) == [31.0, 33.0, 35.0, 37.0, 39.0]
    assert set(captions.captioner) == {"fake-model"}
    assert set(captions.backend) == {"fake-model@chunk-caption-v1"}
    run = store.rows(
        "SELECT status, step, model, prompt_version, source, n_items FROM runs WHERE run_id = ?",
        [report.run_id],
    )
    assert run == [("finished", "video.captions", "fake-model", "chunk-caption-v1", animatic_film,
                    66)]  # fmt: skip
    # names (App. I): the speaker of a line is given with the chunk it is spoken in
    cue = store.rows(
        "SELECT s.start_s, l.character FROM current_subtitles s JOIN current_script_lines l"
        " ON l.film_id = s.film_id AND l.line_index = s.matched_line"
        " WHERE s.film_id = ? AND l.kind = 'dialogue' ORDER BY s.start_s LIMIT 1 OFFSET 40",
        [animatic_film],
    )[0]
    chunk = captions.iloc[int(cue[0] // 10)]
    assert cue[1] in list(chunk.characters)
    names_text = bodies[int(cue[0] // 10)]["messages"][1]["content"][0]["text"]
    assert cue[1] in names_text


def test_a_killed_run_resumes_keeping_what_was_written_and_sends_only_the_rest(
    store, animatic_film, fake_llm
):
    server = fake_llm(caption_of)

    def killed(progress) -> None:
        if progress.done == 1:
            raise KeyboardInterrupt  # the driver dies after writing its first unit

    with pytest.raises(KeyboardInterrupt):
        _caption(store, animatic_film, server, fake_llm, progress=killed)
    assert len(server.log.bodies) == CHUNKS_PER_UNIT
    written = store.rows("SELECT run_id, count(*) FROM video_captions GROUP BY 1")
    assert [count for _, count in written] == [CHUNKS_PER_UNIT]
    assert film_captions(store, animatic_film).empty  # not current until the run finishes
    report = _caption(store, animatic_film, server, fake_llm)
    assert report.batch.resumed_from == 1 and report.batch.complete
    assert report.run_id == written[0][0]
    assert len(server.log.bodies) == 66  # each chunk sent once over both attempts
    assert len(film_captions(store, animatic_film)) == 66
    assert store.rows("SELECT count(*) FROM video_captions")[0][0] == 66


def test_a_failed_chunk_fails_its_unit_and_the_rerun_sends_only_that_chunk(
    store, animatic_film, fake_llm
):
    def broken_at_100s(body, number):
        return FakeReply(status=500) if clip_start(body) == 100 else caption_of(body, number)

    first = fake_llm(broken_at_100s)
    report = _caption(store, animatic_film, first, fake_llm)
    assert report.batch.failed == 1 and report.batch.done == 2
    [(unit, why)] = report.batch.failures
    assert "1 chunk(s) failed" in why and "same command" in why
    assert store.rows("SELECT count(*) FROM video_captions")[0][0] == 65
    second = fake_llm(caption_of)
    again = _caption(store, animatic_film, second, fake_llm)
    assert again.batch.complete and again.run_id == report.run_id
    assert [clip_start(b) for b in second.log.bodies] == [100.0]  # the rest replayed from cache
    captions = film_captions(store, animatic_film)
    assert len(captions) == 66 and captions.caption.iloc[10] == "A clip from 100 s."


def test_captions_of_a_real_h264_file_through_the_command(
    store, store_path, tmp_path, fake_llm, monkeypatch
):
    pytest.importorskip("av", reason="PyAV is installed by the test extra")
    monkeypatch.setenv("STORYSCOPE_FRAME_CACHE", str(tmp_path / "frame-cache"))
    film = ingest_sample_film(store)
    video = h264_video(tmp_path / "ledger.mp4", seconds=30, fps=24, size=(144, 80))
    set_film_video(store, film, str(video), 24.0)
    server = fake_llm(caption_of)
    monkeypatch.setenv("STORYSCOPE_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("STORYSCOPE_LLM_API_KEY", TEST_KEY)
    from pipelines.cli import app, load_commands

    load_commands()
    args = ["film", "caption", "--film", film, "--model", "fake-vlm", "--width", "144"]
    result = CliRunner().invoke(app, [*args, "--store", str(store_path), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output.strip().splitlines()[-1])
    assert summary["chunks"] == 3 and summary["frames"] == 15 and summary["done"] == 1
    for body in server.log.bodies:
        assert body["model"] == "fake-vlm"
        for time_s, jpeg in shown(body):
            import cv2

            image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
            assert stamp_of(image) == int(time_s * 24)  # the frame on screen at that time
    assert len(film_captions(store, film, "fake-vlm")) == 3
    assert TEST_KEY not in json.dumps(store.df("SELECT params FROM runs").params.tolist())


@pytest.mark.slow
def test_captions_on_ray_write_the_rows_a_local_run_writes(
    tmp_path, migrated_template, fake_llm, ray_executor, monkeypatch
):
    from tests.support.store_files import store_copy

    monkeypatch.setenv("STORYSCOPE_FRAME_CACHE", str(tmp_path / "frame-cache"))
    server = fake_llm(caption_of)
    config = fake_llm.config(server, api_key=None, timeout_s=PATIENT_TIMEOUT_S)
    rows = {}
    for name, executor in (("local", LocalExecutor()), ("ray", ray_executor)):
        (tmp_path / name).mkdir()
        store = store_copy(migrated_template, tmp_path / name / "store.duckdb")
        film = ingest_sample_film(store)
        step_47_sample_animatic.run(store, None, lambda _: None)
        report = caption_film(store, film, executor, config=config, chunk_s=60)
        assert report.batch.executor == name and report.batch.complete
        rows[name] = store.df(
            "SELECT chunk_index, start_s, caption, frame_times, characters FROM video_captions"
            " ORDER BY chunk_index"
        )
    assert len(rows["local"]) == 11  # 660.5 s in 60-s chunks; the last 0.5 s has no frame
    assert rows["local"].astype(str).equals(rows["ray"].astype(str))


def test_a_film_without_a_video_is_refused_with_the_store_left_as_it_was(store, store_path):
    from pipelines.cli import app, load_commands

    film = ingest_sample_film(store)
    runs_before = store.rows("SELECT count(*) FROM runs")[0][0]
    load_commands()
    args = ["film", "caption", "--film", film, "--model", "m", "--store", str(store_path)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert f"film {film!r} has no registered video" in result.output
    assert store.rows("SELECT count(*) FROM runs")[0][0] == runs_before
    assert store.rows("SELECT count(*) FROM scale_batches")[0][0] == 0
