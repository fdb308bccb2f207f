"""The video settings (§4.2) and the caption settings (§4.1) end to end: frames sampled from the
film's registered video go to the model as image parts, in film order, each after its time
stamp (and subtitles); the scripted server reads the frame index stamped into every image it
received and checks it is the frame of that time."""

from __future__ import annotations

import base64
import json

import cv2
import numpy as np
import pytest

from tests.support.video_fixtures import mp4v_video, stamp_of

FILM = "the-keepers-ledger"
VIDEO_FPS = 2.0


@pytest.fixture
def film_with_video(store, tmp_path):
    """The gold film with a stamped video as long as the film (frame i shows i, at 2 fps)."""
    from data_access.importers.gold import import_gold
    from data_access.queries.film_context import film_span
    from data_access.tables.films import set_film_video
    from pipelines.demo import step_30_sample_film, step_46_gold

    step_30_sample_film.run(store, None, lambda m: None)
    import_gold(store, step_46_gold.GOLD_DIR)
    runtime = film_span(store, FILM)["runtime_s"]
    video = mp4v_video(tmp_path / "film.mp4", runtime + 5, VIDEO_FPS)
    set_film_video(store, FILM, str(video), VIDEO_FPS)
    return store


def _decoded_stamps(content: list[dict]) -> list[tuple[str, int]]:
    """(the text part before each image, the index stamped in the image)."""
    pairs, text = [], ""
    for part in content:
        if part["type"] == "text":
            text = part["text"]
            continue
        url = part["image_url"]["url"]
        assert url.startswith("data:image/jpeg;base64,")
        data = np.frombuffer(base64.b64decode(url.split(",", 1)[1]), np.uint8)
        pairs.append((text, stamp_of(cv2.imdecode(data, cv2.IMREAD_COLOR))))
    return pairs


def _seconds(stamp_text: str) -> float:
    hours, minutes, seconds = stamp_text.split("]")[0].strip("[").split(":")
    return int(hours) * 3600 + int(minutes) * 60 + int(seconds)


@pytest.mark.parametrize("setting", ["video", "video+subtitles"])
def test_frames_go_as_image_parts_of_the_right_times_in_order(film_with_video, fake_llm, setting):
    from pipelines.answer import AnswerOptions, answer_questions

    server = fake_llm(lambda body, n: "She saw the ledger on the desk.")
    fps = 0.05  # one frame every 20 s: a short request for the scripted server
    summary = answer_questions(
        film_with_video,
        AnswerOptions(
            setting=setting,
            limit=1,
            context={"context_tokens": 200_000, "fps": fps, "frame_width": 144},
            llm=fake_llm.config(server, timeout_s=30.0).public_dict(),
        ),
    )
    assert summary["answered"] == 1, summary
    (body,) = server.log.bodies
    user = body["messages"][1]["content"]
    assert user[0]["text"].startswith("Film: The Keeper's Ledger")
    assert user[-1]["text"].startswith("Question: ")
    pairs = _decoded_stamps(user)
    assert len(pairs) >= 20
    expected = [(k + 0.5) / fps for k in range(len(pairs))]  # the middle of each interval
    for (text, stamp), time_s in zip(pairs, expected):
        # the image is the frame on screen at that time, and its text part says when
        assert stamp == int(time_s * VIDEO_FPS)
        assert abs(_seconds(text) - time_s) <= 1
    with_subtitles = sum("Subtitle:" in text for text, _ in pairs)
    assert (with_subtitles > 0) == (setting == "video+subtitles")
    given = film_with_video.df(
        "SELECT frame_times, units_kept FROM answer_inputs WHERE setting_id = ?",
        [summary["setting_id"]],
    ).iloc[0]
    assert list(given.frame_times) == pytest.approx(expected)
    cached = film_with_video.scalar("SELECT max(length(request::VARCHAR)) FROM llm_cache")
    assert cached < 20_000  # the cache keeps the frames' hashes, not their bytes


def test_a_small_window_samples_fewer_frames_evenly(film_with_video):
    from pipelines.settings import InputBuilder, SettingOptions, get_setting

    question = {"question_id": "q", "film_id": FILM, "text": "What does Mara know?"}
    options = SettingOptions(context_tokens=4000, answer_tokens=200, image_tokens=258, fps=0.2)
    given = InputBuilder(film_with_video, get_setting("video"), options).build(question)
    record = given.record
    assert record["cut_rule"] == "even-thinning-v1"
    assert 0 < record["units_kept"] < record["units_total"]
    assert record["est_tokens"] <= 4000 - 200
    times = [t for t, _ in given.frames]
    gaps = np.diff(times)
    assert gaps.max() - gaps.min() <= 5.0 + 1e-6  # evenly spaced, one 0.2-fps step apart at most
    last_frame = (record["units_total"] - 0.5) / 0.2
    assert times[0] <= gaps.max() + 2.5  # the film's start is there ...
    assert times[-1] >= last_frame - gaps.max()  # ... and its end


def test_caption_settings_interleave_captions_and_subtitles(film_with_video):
    from data_access.tables.runs import RunSpec, end_run, start_run
    from data_access.tables.video_captions import write_captions
    from pipelines.settings import InputBuilder, SettingOptions, get_setting

    run_id = start_run(film_with_video, RunSpec("video.caption", backend="test", model="cap"))
    rows = [
        {
            "film_id": FILM,
            "chunk_index": i,
            "start_s": 10.0 * i,
            "end_s": 10.0 * i + 10,
            "caption": f"Chunk {i}: a woman at a desk.",
            "frame_times": [10.0 * i + 1],
            "characters": ["Mara"],
            "captioner": "cap",
            "backend": "cap@chunk-caption-v1",
            "cache_key": None,
            "run_id": run_id,
        }
        for i in range(6)
    ]
    with film_with_video.transaction() as cursor:
        write_captions(cursor, rows)
    end_run(film_with_video, run_id, "finished", n_items=6)
    question = {"question_id": "q", "film_id": FILM, "text": "What does Mara know?"}
    options = SettingOptions(context_tokens=100_000)
    only = InputBuilder(film_with_video, get_setting("captions"), options).build(question)
    both = InputBuilder(film_with_video, get_setting("captions+subtitles"), options).build(question)
    assert only.film_text.count("Video: Chunk") == 6 and "Subtitle:" not in only.film_text
    assert both.film_text.count("Video: Chunk") == 6 and "Subtitle:" in both.film_text
    first = both.film_text.split("Video: Chunk 1")[0]
    assert "Video: Chunk 0" in first  # time order: chunk 0, its subtitles, then chunk 1
    assert json.dumps(both.record["covered"]) == "[[0.0, 60.0]]"


def _exported_utils(folder):
    import importlib.util

    spec = importlib.util.spec_from_file_location("exported_utils", folder / "utils.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_exported_tasks_carry_the_same_input_and_frames(film_with_video, tmp_path):
    from data_access.queries.task_questions import open_ended_questions
    from pipelines.export_task import export_task
    from pipelines.settings import InputBuilder, SettingOptions, get_setting

    options = SettingOptions(context_tokens=50_000, fps=0.05, frame_width=144)
    lmms = export_task(
        film_with_video, "lmms-eval", "lfvqa", tmp_path / "lmms", limit=1,
        setting="video+subtitles", setting_options=options,
    )  # fmt: skip
    (doc,) = [json.loads(line) for line in lmms.files["dataset"].read_text().splitlines()]
    row = open_ended_questions(film_with_video, {}, 1).to_dict("records")[0]
    built = InputBuilder(film_with_video, get_setting("video+subtitles"), options).build(row)
    assert doc["frame_times"] == pytest.approx([t for t, _ in built.frames])
    assert "Subtitle:" in doc["input"] and doc["input"].endswith(f"Question: {row['text']}")
    images = _exported_utils(tmp_path / "lmms").doc_to_visual(doc)
    assert len(images) == len(built.frames)
    stamps = [stamp_of(np.asarray(image)[:, :, ::-1]) for image in images]
    assert stamps == [int(t * VIDEO_FPS) for t, _ in built.frames]  # the same frames, in order

    inspect = export_task(
        film_with_video, "inspect", "lfvqa", tmp_path / "inspect", limit=1,
        setting="video", setting_options=options,
    )  # fmt: skip
    (record,) = [json.loads(line) for line in inspect.files["dataset"].read_text().splitlines()]
    (message,) = record["input"]
    images = [part["image"] for part in message["content"] if part["type"] == "image"]
    assert len(images) == len(built.frames)
    assert all((tmp_path / "inspect" / path).is_file() for path in images)
    assert record["metadata"]["setting"] == "video"
