"""The StoryVideoQA release importer: Table 6 counts on the real release, the .xlsx path, spans."""

from __future__ import annotations

import json

import pytest

from data_access.importers import ImportFailure, import_storyvideoqa_dir
from data_access.importers.svqa_golden import evidence_seconds, parse_vid, span_seconds
from data_access.importers.svqa_scripts import cue_seconds, sheet_role, split_location
from data_access.queries.stats import store_stats
from tests.support.storyvideoqa_release import one_episode_release


@pytest.mark.realdata
@pytest.mark.slow
def test_real_release_reproduces_table_6_storyvideoqa_g(store, shared_data):
    report = import_storyvideoqa_dir(store, shared_data / "storyvideoqa")
    stats = store_stats(store)
    # StoryVideoQA paper, Table 6, row StoryVideoQA-G: sitcom 3,346, drama 1,574, movie 2,007.
    assert stats["mcq_by_source"] == {"BigBang": 1664, "Friends": 1682, "GOT": 1574, "Movie": 2007}
    assert sum(stats["mcq_by_source"].values()) == 6927
    assert report.rows["mcq_questions"] == 6927
    # 24 Friends + 17 BigBang + 10 GOT episodes, 10 films (9 with questions, 7 aligned)
    assert stats["films_by_kind"] == {"episode": 51, "film": 10}
    assert store.scalar("SELECT count(DISTINCT film_id) FROM scenes") == 58
    # the human alignment resolves almost every cue to a script line
    matched = store.scalar("SELECT avg((matched_line IS NOT NULL)::INT) FROM subtitles")
    assert matched > 0.95
    assert store.scalar("SELECT count(*) FROM scenes WHERE end_s < start_s") == 0
    first = store.rows(
        "SELECT option, gt, choices[1], evidence_seconds, gpt_check FROM mcq_questions"
        " WHERE mcq_id = 'Friends:Friends-S01E01:1'"
    )
    assert first == [
        (
            "A",
            "Just some guy from work.",
            "Just some guy from work.",
            3.0,
            '["True", "Just some guy from work."]',
        )
    ]
    run = store.rows(
        "SELECT step, backend, status, params FROM runs WHERE run_id = ?", [report.run_id]
    )
    assert run[0][:3] == ("import.storyvideoqa", "import", "finished")
    assert "results_human" in json.loads(run[0][3])["alignment"]
    # a second import of the same release is refused and writes nothing
    with pytest.raises(ImportFailure) as caught:
        import_storyvideoqa_dir(store, shared_data / "storyvideoqa")
    assert caught.value.first.field == "film_id"
    assert store.scalar("SELECT count(*) FROM runs") == 1


def _dump(store, table):
    return store.rows(f"SELECT * EXCLUDE (run_id) FROM {table} ORDER BY ALL")


@pytest.mark.realdata
def test_xlsx_workbook_imports_exactly_like_its_json_conversion(store, shared_data, tmp_path):
    from data_access.store import Store

    json_store = Store(tmp_path / "json.duckdb", lock_timeout=10)
    import_storyvideoqa_dir(json_store, one_episode_release(shared_data, tmp_path / "j", False))
    report = import_storyvideoqa_dir(store, one_episode_release(shared_data, tmp_path / "x", True))
    assert report.rows["subtitles"] == 383
    assert report.rows["mcq_questions"] == 49
    for table in ("films", "scenes", "script_lines", "subtitles", "mcq_questions"):
        assert _dump(store, table) == _dump(json_store, table), table
    assert store.rows("SELECT location, time_source FROM scenes WHERE scene_index = 0") == [
        ("Central Perk", "matched")
    ]
    assert store.rows("SELECT kind, character, text FROM script_lines WHERE line_index = 1") == [
        ("dialogue", "Monica", "There's nothing to tell! He's just some guy I work with!")
    ]
    assert store.rows("SELECT start_s, end_s, matched_line FROM subtitles WHERE cue_index = 0") == [
        (pytest.approx(49.96), pytest.approx(52.76), 1)
    ]


def test_evidence_spans_follow_the_documented_choices():
    assert span_seconds("00:00:49-00:00:52") == 3.0
    assert span_seconds("0:05:59-0:07:27") == 88.0
    assert span_seconds("06:55-07:00") == 5.0  # MM:SS
    assert span_seconds("00:09:41-00:45") == 4.0  # abbreviated end: 00:09:45
    assert span_seconds("00:00:02-00:00:21:33") == 1291  # stray leading 00 group: 00:21:33
    assert span_seconds("00:08:25") == 0.0  # a single time point
    for bad in ("cross scene", "throughout", "", "00:00:09-00:00:08"):
        assert span_seconds(bad) is None
    assert evidence_seconds(["00:00:01-00:00:03", "cross scene"]) == (2.0, ["cross scene"])
    assert evidence_seconds(["throughout"]) == (None, ["throughout"])


def test_release_names_sheets_and_locations_are_read():
    assert sheet_role("subtitle_S01E01") == "subtitle"
    assert sheet_role("result_S01E15_") == "results"
    assert sheet_role("results_human") == "results_human"
    assert sheet_role("scripts") is None
    assert cue_seconds("291\n00:18:35,280") == pytest.approx(1115.28)
    assert split_location("INT. GITTES' OFFICE - DAY") == (
        "INT. GITTES' OFFICE - DAY",
        "GITTES' OFFICE",
        "DAY",
    )
    assert split_location(" Central Perk") == (None, "Central Perk", None)
    assert split_location("None") == (None, None, None)
    assert split_location("FULL SCREEN PHOTOGRAPH Grainy but unmistakably a man and woman") == (
        None,
        None,
        None,
    )
    assert parse_vid("GOT-S01E03")["title"] == "Game of Thrones S01E03"
    assert parse_vid("IMDB-001-The Shawshank Redemption")["title"] == "The Shawshank Redemption"


def test_bad_golden_item_names_file_item_and_field(store, tmp_path):
    golden = tmp_path / "golden_questions"
    golden.mkdir()
    item = {
        "id": 7,
        "vid": "Friends-S01E01",
        "question": "Who?",
        "choices": ["A", "B"],
        "GT": "A",
        "option": "C",
        "times": [],
    }
    (golden / "Friends_golden.json").write_text(json.dumps([item]))
    with pytest.raises(ImportFailure) as caught:
        import_storyvideoqa_dir(store, tmp_path)
    problem = caught.value.first
    assert (problem.file, problem.record, problem.field) == (
        "Friends_golden.json",
        "item 1 (id 7)",
        "option",
    )
    assert store.scalar("SELECT count(*) FROM runs") == 0


@pytest.mark.realdata
def test_demo_step_imports_the_release_once(store, shared_data, tmp_path):
    from pipelines.demo import step_20_storyvideoqa as step

    messages: list[str] = []
    step.run(store, None, messages.append)
    assert store.scalar("SELECT count(*) FROM runs") == 0
    data_dir = tmp_path / "data"
    one_episode_release(shared_data, data_dir / "storyvideoqa", as_xlsx=False)
    step.run(store, data_dir, messages.append)
    step.run(store, data_dir, messages.append)
    assert store.scalar("SELECT count(*) FROM mcq_questions") == 49
    assert store.scalar("SELECT count(*) FROM runs WHERE step = 'import.storyvideoqa'") == 1
    assert "skipped" in messages[0] and "already in the store" in messages[-1]


def test_bad_cue_time_in_an_aligned_script_names_sheet_row_and_field(store, tmp_path):
    aligned = tmp_path / "aligned_script" / "Friends"
    aligned.mkdir(parents=True)
    sheets = {
        "subtitle_S01E01": [
            {
                "Unnamed: 0": "1",
                "start_time": "00:00:01,000",
                "end_time": "00:00:02,000",
                "dialog": "Hi.",
            },
            {
                "Unnamed: 0": "2",
                "start_time": "later",
                "end_time": "00:00:04,000",
                "dialog": "Bye.",
            },
        ],
        "script_S01E01": [
            {
                "index": "1",
                "record_type": "scene",
                "scene_index": "1",
                "location": "Central Perk",
                "content": "They sit.",
            }
        ],
    }
    (aligned / "Friends-S01E01.json").write_text(json.dumps(sheets))
    with pytest.raises(ImportFailure) as caught:
        import_storyvideoqa_dir(store, tmp_path)
    problem = caught.value.first
    assert (problem.file, problem.record, problem.field) == (
        "Friends-S01E01.json",
        "sheet subtitle row 3",
        "start_time",
    )
    assert "'later'" in problem.message
    assert store.scalar("SELECT count(*) FROM films") == 0
