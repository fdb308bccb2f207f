"""The agents' five tools (LF-VideoQA §4.3) over the gold film, per tier: what they return is
checked against the store's rows; bad calls are `ToolError`s a model can act on; results are
bounded; an index survives its JSON round trip; vqa sends frames as image parts; and nothing
derived from the screenplay reaches the regular or fast tier."""

from __future__ import annotations

import base64
import json

import cv2
import numpy as np
import pytest

from tests.support.gold_film import GOLD_FILM_ID as FILM
from tests.support.gold_film import with_gold_film
from tests.support.store_files import store_copy
from tests.support.video_fixtures import mp4v_video, stamp_of

VIDEO_FPS = 2.0
LEDGER_CHUNK = 20  # 200-210 s: inside scene 4, where Mara finds the ledger
CAPTION_NAMES = ["MARA", "ELIAS", "TOMAS"]  # what the captioner was told; only MARA is written


def _caption(i: int) -> str:
    if i == LEDGER_CHUNK:
        return "Mara pulls a leather ledger from behind a loose panel by the lens."
    return f"Waves break below a grey sky ({i})."


def _seed(store, folder) -> None:
    """The gold film with 10-second captions written here (one run of a captioner 'cap')."""
    from data_access.queries.film_context import film_span
    from data_access.tables.runs import RunSpec, end_run, start_run
    from data_access.tables.video_captions import write_captions

    with_gold_film(store)
    runtime = film_span(store, FILM)["runtime_s"]
    run_id = start_run(store, RunSpec("video.caption", backend="test", model="cap"))
    rows = [
        {
            "film_id": FILM,
            "chunk_index": i,
            "start_s": 10.0 * i,
            "end_s": min(10.0 * i + 10, runtime),
            "caption": _caption(i),
            "frame_times": [10.0 * i + 1],
            "characters": CAPTION_NAMES,
            "captioner": "cap",
            "backend": "cap@chunk-caption-v1",
            "cache_key": None,
            "run_id": run_id,
        }
        for i in range(int(runtime // 10) + 1)
    ]
    with store.transaction() as cursor:
        write_captions(cursor, rows)
    end_run(store, run_id, "finished", n_items=len(rows))


@pytest.fixture
def film(seeded_template, tmp_path):
    return store_copy(seeded_template("agent-tools-gold", _seed), tmp_path / "store.duckdb")


@pytest.fixture
def film_with_video(film, tmp_path):
    from data_access.queries.film_context import film_span
    from data_access.tables.films import set_film_video

    runtime = film_span(film, FILM)["runtime_s"]
    video = mp4v_video(tmp_path / "film.mp4", runtime + 5, VIDEO_FPS)
    set_film_video(film, FILM, str(video), VIDEO_FPS)
    return film


class RecordingAsk:
    """A captioner stand-in that records the messages it was sent."""

    def __init__(self, reply: str = "She finds a ledger.") -> None:
        self.reply = reply
        self.sent: list[list[dict]] = []

    def __call__(self, messages: list[dict]) -> str:
        self.sent.append(messages)
        return self.reply


def _index(store, tier, ask=None):
    from pipelines.agents.tools import FilmIndex

    return FilmIndex.load(store, FILM, tier, ask=ask)


def _call(index, name, arguments):
    from pipelines.agents.tools import call_tool

    return call_tool(index, name, arguments)


def _cues(store):
    from data_access.queries.film_context import subtitle_track

    return subtitle_track(store, FILM)


def _scenes(store):
    from data_access.queries.video import scene_spans

    return scene_spans(store, FILM)


# -- the registry -----------------------------------------------------------------------------


def test_the_five_tools_are_registered_with_valid_schemas():
    from jsonschema import Draft202012Validator

    from pipelines.agents.tools import TOOLS

    assert list(TOOLS) == [
        "subtitle_search",
        "find_clips",
        "vqa",
        "browse_clip",
        "character_presence",
    ]
    for tool in TOOLS.values():
        Draft202012Validator.check_schema(tool.parameters)
        spec = tool.openai_spec()
        assert spec["function"]["name"] == tool.name
        assert spec["function"]["parameters"]["required"]


# -- retrieval --------------------------------------------------------------------------------


@pytest.mark.parametrize("tier", ["regular", "fast", "oracle"])
def test_subtitle_search_returns_the_stores_cues_best_first(film, tier):
    cues = _cues(film)
    result = _call(_index(film, tier), "subtitle_search", {"query": "boat log fortnight"})
    spans = {(row.start_s, row.end_s): row.text for row in cues.itertuples()}
    assert 1 <= len(result.intervals) <= 5
    for span in result.intervals:
        assert span in spans  # each is a cue of the store, with its times ...
        assert spans[span] in result.text  # ... and its text
        assert "log" in spans[span].lower() or "boat" in spans[span].lower()
    best = result.intervals[0]
    assert spans[best] == "I need to see the boat log for the last fortnight."
    assert "source: the film's subtitle track" in result.text


def test_find_clips_oracle_returns_the_screenplays_scenes(film):
    scenes = _scenes(film)
    result = _call(
        _index(film, "oracle"), "find_clips", {"query": "Mara lays the boat log beside the ledger"}
    )
    spans = {(row.start_s, row.end_s): row for row in scenes.itertuples()}
    assert len(result.intervals) == 5
    assert all(span in spans for span in result.intervals)
    assert spans[result.intervals[0]].scene_index == 13
    assert "source: the screenplay's scenes" in result.text
    assert "LIGHTHOUSE LAMP ROOM" in result.text


def test_find_clips_fast_returns_caption_chunks(film):
    result = _call(_index(film, "fast"), "find_clips", {"query": "a ledger behind a panel"})
    assert result.intervals[0] == (10.0 * LEDGER_CHUNK, 10.0 * LEDGER_CHUNK + 10)
    assert _caption(LEDGER_CHUNK) in result.text
    assert "source: the precomputed captions by cap" in result.text


def test_find_clips_regular_returns_minute_windows_of_dialogue_apart(film):
    from pipelines.agents.tools.search import HOP_S, WINDOW_S

    cues = _cues(film)
    result = _call(_index(film, "regular"), "find_clips", {"query": "the harbour master's log"})
    assert 1 <= len(result.intervals) <= 5
    for start, end in result.intervals:
        assert start % HOP_S == 0 and end - start <= WINDOW_S
        inside = cues[(cues.start_s >= start) & (cues.start_s < end)]
        assert not inside.empty  # a window of dialogue
    ordered = sorted(result.intervals)
    assert all(a[1] <= b[0] for a, b in zip(ordered, ordered[1:]))  # no two overlap
    assert "source: the film's subtitle track" in result.text


def test_retrieval_without_a_shared_word_says_so(film):
    result = _call(_index(film, "regular"), "subtitle_search", {"query": "zeppelin xylophone"})
    assert result.intervals == ()
    assert "no subtitle cue shares a word with the query" in result.text


def test_the_embedding_ranker_finds_the_scene_described(film):
    index = _index(film, "oracle")
    assert index.ranker("find_clips") == "embedding"  # the measured choice for scenes
    query = "the daughter discovers her father's secret account book in the lighthouse"
    result = _call(index, "find_clips", {"query": query})
    scenes = {(r.start_s, r.end_s): r.scene_index for r in _scenes(film).itertuples()}
    assert scenes[result.intervals[0]] in {4, 13}  # the two lamp-room scenes with the ledger
    assert "ranker: embedding" in result.text


# -- interval tools ---------------------------------------------------------------------------


def test_oracle_browse_and_presence_read_the_scenes_and_presence_records(film):
    index = _index(film, "oracle")
    browse = _call(index, "browse_clip", {"start": 190, "end": 230})
    assert browse.intervals == ((190.0, 230.0),)
    summaries = film.df(
        "SELECT scene_index, summary FROM current_scenes WHERE film_id = ?"
        " AND start_s < 230 AND end_s > 190 ORDER BY start_s",
        [FILM],
    )
    assert list(summaries.scene_index) == [4, 5, 6]
    for row in summaries.itertuples():
        assert f"scene {row.scene_index} " in browse.text
        assert row.summary[:60] in browse.text
    presence = _call(index, "character_presence", {"start": 190, "end": 230})
    on_screen = film.df(
        "SELECT scene_index, list(character ORDER BY character) AS names FROM current_presence"
        " WHERE film_id = ? AND status = 'on_screen' AND scene_index IN (4, 5, 6) GROUP BY 1",
        [FILM],
    )
    for row in on_screen.itertuples():
        line = next(x for x in presence.text.splitlines() if f"scene {row.scene_index} " in x)
        assert sorted(line.split(": ", 1)[1].split(", ")) == list(row.names)
    assert "source: the screenplay's presence records" in presence.text


def test_fast_browse_lists_the_captions_and_presence_names_only_what_they_mention(film):
    index = _index(film, "fast")
    start, end = 10.0 * LEDGER_CHUNK - 5, 10.0 * LEDGER_CHUNK + 15
    browse = _call(index, "browse_clip", {"start": start, "end": end})
    for chunk in (LEDGER_CHUNK - 1, LEDGER_CHUNK, LEDGER_CHUNK + 1):
        assert _caption(chunk) in browse.text
    assert browse.intervals == ((start, end),)
    presence = _call(index, "character_presence", {"start": start, "end": end})
    assert "MARA: named in 1 clip(s)" in presence.text
    # ELIAS and TOMAS were named to the captioner (from the presence records) but no caption
    # mentions them: the fast tier does not learn they were there
    assert "ELIAS" not in presence.text and "TOMAS" not in presence.text


def test_interval_tools_without_video_fall_back_to_the_subtitles_and_say_so(film):
    ask = RecordingAsk()
    index = _index(film, "regular", ask)
    browse = _call(index, "browse_clip", {"start": 24, "end": 40})
    assert "no video is registered for this film" in browse.text
    for row in _cues(film).query("start_s < 40 and end_s > 24").itertuples():
        assert row.text in browse.text
    answer = _call(index, "vqa", {"start": 24, "end": 40, "question": "Who is in the water?"})
    assert "subtitles only (no video is registered for this film)" in answer.text
    assert "She finds a ledger." in answer.text
    (messages,) = ask.sent
    parts = messages[1]["content"]
    assert not any(part["type"] == "image_url" for part in parts)
    assert any("Subtitle: Mara! Over here!" in part.get("text", "") for part in parts)


def test_oracle_vqa_asks_about_the_screenplay_of_the_interval(film):
    ask = RecordingAsk()
    result = _call(
        _index(film, "oracle", ask),
        "vqa",
        {"start": 199, "end": 210, "question": "What is in the ledger?"},
    )
    (messages,) = ask.sent
    lines = film.df(
        "SELECT text FROM current_script_lines WHERE film_id = ? AND scene_index = 4", [FILM]
    )
    prompt = messages[1]["content"]
    assert all(text in prompt for text in lines.text)
    assert prompt.endswith("Question: What is in the ledger?")
    assert "the model on the screenplay" in result.text and result.intervals == ((199.0, 210.0),)


@pytest.mark.parametrize("tier", ["regular", "fast"])
def test_vqa_sends_the_intervals_frames_as_image_parts(film_with_video, tier):
    from pipelines.agents.tools.interval import MAX_FRAMES

    ask = RecordingAsk()
    index = _index(film_with_video, tier, ask)
    result = _call(index, "vqa", {"start": 200, "end": 260, "question": "What does she hold?"})
    (messages,) = ask.sent
    parts = messages[1]["content"]
    images = [p for p in parts if p["type"] == "image_url"]
    assert 1 <= len(images) <= MAX_FRAMES
    shown, text = [], ""
    for part in parts:
        if part["type"] == "text":
            text = part["text"]
            continue
        url = part["image_url"]["url"]
        assert url.startswith("data:image/jpeg;base64,")
        pixels = np.frombuffer(base64.b64decode(url.split(",", 1)[1]), np.uint8)
        h, m, s = (int(x) for x in text.strip("[]").split(":"))
        shown.append((h * 3600 + m * 60 + s, stamp_of(cv2.imdecode(pixels, cv2.IMREAD_COLOR))))
    for second, stamp in shown:  # each frame is the film's frame at the time written before it
        assert 200 <= second < 260 and abs(stamp / VIDEO_FPS - second) <= 1
    assert parts[-1]["text"] == "Question: What does she hold?"
    assert f"{len(images)} frames of the interval" in result.text


@pytest.mark.parametrize("tool", ["browse_clip", "character_presence"])
def test_regular_tools_look_at_frames_and_a_short_interval_still_gets_one(film_with_video, tool):
    ask = RecordingAsk("A woman in a yellow coat.")
    index = _index(film_with_video, "regular", ask)
    result = _call(index, tool, {"start": 300.2, "end": 300.9})
    (messages,) = ask.sent
    assert sum(p["type"] == "image_url" for p in messages[1]["content"]) == 1
    assert "source: the model on 1 frame of the interval" in result.text
    assert result.text.endswith("A woman in a yellow coat.")


def test_a_failed_model_call_is_a_tool_error(film):
    from pipelines.agents.tools import ToolError

    def broken(messages):
        raise RuntimeError("server said 503")

    with pytest.raises(ToolError, match="the model call failed.*503") as caught:
        _call(_index(film, "oracle", broken), "vqa", {"start": 199, "end": 210, "question": "Q?"})
    assert isinstance(caught.value.__cause__, RuntimeError)
    with pytest.raises(ToolError, match="none is configured"):
        _call(_index(film, "regular"), "vqa", {"start": 1, "end": 30, "question": "Q?"})


# -- bad calls --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        (
            "search_everything",
            {"query": "x"},
            "unknown tool 'search_everything'; the tools are subtitle_search, find_clips",
        ),
        ("subtitle_search", '{"query": ', "not valid JSON"),
        ("subtitle_search", "[1, 2]", "expected a JSON object, got list"),
        ("subtitle_search", {}, "'query' is a required property"),
        ("subtitle_search", {"query": ""}, "query: '' should be non-empty"),
        ("subtitle_search", {"query": "x", "limit": 3}, "Additional properties are not allowed"),
        (
            "vqa",
            {"start": "0:10", "end": 20, "question": "Q"},
            "start: '0:10' is not of type 'number'",
        ),
        ("browse_clip", {"start": -5, "end": 20}, "start: -5 is less than the minimum of 0"),
        ("browse_clip", {"start": 30, "end": 20}, "end \\(20\\) must be after start \\(30\\)"),
        ("character_presence", {"start": 5000, "end": 5100}, "past the film's end: it is 658.3 s"),
    ],
)
def test_bad_calls_are_tool_errors_a_model_can_act_on(film, name, arguments, message):
    from pipelines.agents.tools import ToolError

    with pytest.raises(ToolError, match=message):
        _call(_index(film, "oracle"), name, arguments)


def test_a_number_that_is_not_finite_is_a_tool_error(film):
    from pipelines.agents.tools import ToolError

    for start, end in ((float("nan"), 20.0), (0.0, float("inf"))):
        with pytest.raises(ToolError, match="must be finite numbers of seconds"):
            _call(_index(film, "regular"), "vqa", {"start": start, "end": end, "question": "Q"})


def test_a_json_string_and_a_dict_give_the_same_result(film):
    index = _index(film, "fast")
    assert _call(index, "browse_clip", '{"start": 100, "end": 150}') == _call(
        index, "browse_clip", {"start": 100, "end": 150}
    )


def test_an_interval_past_the_end_is_clamped_to_the_film(film):
    result = _call(_index(film, "oracle"), "browse_clip", {"start": 640, "end": 9000})
    assert result.intervals == ((640.0, 658.3),)


def test_unknown_tier_or_film_at_load(film):
    from pipelines.agents.tools import FilmIndex, ToolError

    with pytest.raises(ToolError, match="unknown tier 'expert'"):
        FilmIndex.load(film, FILM, "expert")
    with pytest.raises(ToolError, match="no film 'nope'"):
        FilmIndex.load(film, "nope", "fast")


def test_fast_tools_without_captions_say_how_to_make_them(film):
    from pipelines.agents.tools import FilmIndex, ToolError

    data = _index(film, "fast").to_dict()
    data["tables"]["captions"]["rows"] = []
    index = FilmIndex.from_dict(data)
    with pytest.raises(ToolError, match="no 10-second captions.*storyscope film caption"):
        _call(index, "find_clips", {"query": "ledger"})


# -- bounds, intervals, round trip ------------------------------------------------------------


def test_results_are_bounded_and_report_only_the_items_shown(film):
    from pipelines.agents.tools import MAX_RESULT_CHARS, FilmIndex

    data = _index(film, "regular").to_dict()
    data["tables"]["subtitles"]["rows"] = [
        [i, 10.0 * i, 10.0 * i + 5, "ledger " + "word " * 400] for i in range(20)
    ]
    index = FilmIndex.from_dict(data)
    result = _call(index, "subtitle_search", {"query": "ledger"})
    assert len(result.text) <= MAX_RESULT_CHARS
    shown = [line for line in result.text.splitlines() if line.startswith("[")]
    assert len(result.intervals) == len(shown) >= 1
    whole_film = _call(_index(film, "fast"), "browse_clip", {"start": 0, "end": 658.3})
    assert len(whole_film.text) <= MAX_RESULT_CHARS
    assert "more left out: the result is bounded" in whole_film.text


CALLS = [
    ("subtitle_search", {"query": "where is the ledger"}),
    ("find_clips", {"query": "Tomas is arrested on the quay"}),
    ("vqa", {"start": 100, "end": 180, "question": "Who is speaking?"}),
    ("browse_clip", {"start": 100, "end": 180}),
    ("character_presence", {"start": 100, "end": 180}),
]


@pytest.mark.parametrize("tier", ["regular", "fast", "oracle"])
def test_an_index_gives_the_same_results_after_its_json_round_trip(film, tier):
    from pipelines.agents.tools import FilmIndex

    loaded = _index(film, tier, RecordingAsk())
    ask = RecordingAsk()
    copied = FilmIndex.from_dict(json.loads(json.dumps(loaded.to_dict())), ask=ask)
    for name, arguments in CALLS:
        assert _call(copied, name, arguments) == _call(loaded, name, arguments), name
    assert ask.sent == loaded.ask.sent  # the model was asked the very same things


def test_loading_is_one_query_per_table_and_the_tools_never_query(film, monkeypatch):
    from data_access.store import Store
    from pipelines.agents.tools.index import TIER_INDEX_TABLES

    counted = []
    real = Store.df
    monkeypatch.setattr(
        Store, "df", lambda self, *a, **k: counted.append(a[0]) or real(self, *a, **k)
    )
    for tier in ("regular", "fast", "oracle"):
        counted.clear()
        index = _index(film, tier, RecordingAsk())
        read = [name for name in TIER_INDEX_TABLES[tier] if name != "caption_names"]
        assert len(counted) == 1 + len(read)  # the film row, then one per table
        counted.clear()
        for name, arguments in CALLS:
            _call(index, name, arguments)
        assert counted == []


# -- what the regular and fast tiers never see ------------------------------------------------


@pytest.mark.parametrize("tier", ["regular", "fast"])
def test_no_screenplay_data_reaches_the_regular_or_fast_tier(film, tier):
    ask = RecordingAsk()
    index = _index(film, tier, ask)
    assert not {"scenes", "script_lines", "presence"} & set(index.tables)
    scenes = film.df("SELECT heading, summary FROM current_scenes WHERE film_id = ?", [FILM])
    directions = film.df(
        "SELECT text FROM current_script_lines WHERE film_id = ? AND kind = 'direction'", [FILM]
    )
    screenplay_only = (
        list(scenes.heading)
        + [summary[:50] for summary in scenes.summary]
        + [text[:50] for text in directions.text if len(text) > 30]
    )
    seen = [json.dumps(index.to_dict())]
    for name, arguments in CALLS + [("browse_clip", {"start": 0, "end": 658.3})]:
        seen.append(_call(index, name, arguments).text)
    seen += [json.dumps(messages) for messages in ask.sent]
    everything = "\n".join(seen)
    leaked = [text for text in screenplay_only if text in everything]
    assert leaked == []


@pytest.mark.parametrize("tier", ["regular", "fast", "oracle"])
def test_five_results_fit_in_a_retrieval_result(film, tier):
    from dataclasses import replace

    index = _index(film, tier)
    index = replace(index, rankers={key: "bm25" for key in index.rankers})
    questions = film.df("SELECT text FROM questions WHERE film_id = ?", [FILM])
    for tool in ("subtitle_search", "find_clips"):
        for text in list(questions.text) + ["Mara Tomas Ruth June Kit Elias ledger log"]:
            result = _call(index, tool, {"query": text})
            assert "left out" not in result.text, (tool, text)


def test_a_registered_video_that_is_missing_is_said_in_the_result(film, tmp_path):
    from data_access.tables.films import set_film_video

    set_film_video(film, FILM, str(tmp_path / "moved.mp4"), VIDEO_FPS)
    ask = RecordingAsk()
    index = _index(film, "regular", ask)
    assert index.video is None and "is missing" in index.video_problem
    result = _call(index, "vqa", {"start": 24, "end": 40, "question": "Who is in the water?"})
    assert "subtitles only" in result.text and "moved.mp4 is missing" in result.text
    assert not any(p["type"] == "image_url" for p in ask.sent[0][1]["content"])


def test_warming_an_index_builds_its_rankers_once(film, monkeypatch):
    from pipelines.agents.tools import warm_index
    from pipelines.agents.tools.ranking import RankedCorpus

    index = _index(film, "regular")
    warm_index(index)
    built = dict(index._corpora)
    assert {"subtitles", "windows"} <= set(built)
    assert all(c._bm25 is not None for c in built.values() if isinstance(c, RankedCorpus))
    _call(index, "find_clips", {"query": "the ledger"})
    assert all(index._corpora[key] is built[key] for key in built)  # not built again
