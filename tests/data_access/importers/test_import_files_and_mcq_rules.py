"""Every fault gets a message, on the importers: wrong-shaped StoryVideoQA inputs are
messages, no data file is skipped in silence, non-regular files are refused unread, a
mistyped --store is not created, and both MCQ import paths apply one model's rules."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from data_access.formats.mcq_records import MCQ_RULES, McqQuestion
from data_access.importers import ImportFailure, import_lfvqa_dir, import_storyvideoqa_dir
from pipelines.cli import app, load_commands
from tests.support.lfvqa_dataset import tiny_tables, write_dataset

load_commands()

ITEM = {
    "id": 7,
    "vid": "Friends-S01E01",
    "question": "Who pays for the coffee?",
    "choices": ["Ross", "Rachel", "Monica", "Joey"],
    "GT": "Monica",
    "option": "C",
    "question_type": "P",
    "story_element": "C",
    "times": ["00:01:00-00:01:10"],
}
CUE = {"Unnamed: 0": "1", "start_time": "00:00:01,000", "end_time": "00:00:02,000", "dialog": "Hi"}
SCRIPT_ROW = {
    "index": "1",
    "record_type": "scene",
    "scene_index": "1",
    "location": "Central Perk",
    "content": "They sit.",
}


def release(root: Path, items: list | None = None, sheets: dict | None = None) -> Path:
    """A one-episode release: a golden file and (optionally) an aligned script."""
    (root / "golden_questions").mkdir(parents=True)
    (root / "golden_questions" / "Friends_golden.json").write_text(json.dumps(items or [ITEM]))
    if sheets is not None:
        (root / "aligned_script" / "Friends").mkdir(parents=True)
        (root / "aligned_script" / "Friends" / "Friends-S01E01.json").write_text(json.dumps(sheets))
    return root


def sheets(**changes) -> dict:
    base = {"subtitle_S01E01": [dict(CUE)], "script_S01E01": [dict(SCRIPT_ROW)]}
    base.update(changes)
    return base


def svqa_rejected(store, folder) -> ImportFailure:
    with pytest.raises(ImportFailure) as caught:
        import_storyvideoqa_dir(store, folder)
    assert store.scalar("SELECT count(*) FROM runs") == 0
    return caught.value


# -- group 1: StoryVideoQA inputs of the wrong shape --------------------------------------
@pytest.mark.parametrize(
    "changes, record, field",
    [
        ({"script_S01E01": [["1", "scene", "1"]]}, "sheet script_S01E01 row 2", "-"),
        (
            {"subtitle_S01E01": [{**CUE, "start_time": 1.5}]},
            "sheet subtitle_S01E01 row 2",
            "start_time",
        ),
        ({"subtitle_S01E01": [{**CUE, "dialog": ["Hi"]}]}, "sheet subtitle_S01E01 row 2", "dialog"),
        ({"script_S01E01": {"index": "1"}}, "sheet script_S01E01", "-"),
        (
            {"script_S01E01": [{**SCRIPT_ROW, "scene_index": 1}]},
            "sheet script_S01E01 row 2",
            "scene_index",
        ),
    ],
)
def test_sheet_cells_of_the_wrong_shape_name_sheet_row_and_field(
    store, tmp_path, changes, record, field
):
    failure = svqa_rejected(store, release(tmp_path / "r", sheets=sheets(**changes)))
    assert (failure.first.file, failure.first.record, failure.first.field) == (
        "Friends-S01E01.json",
        record,
        field,
    )


@pytest.mark.parametrize(
    "meta, value",
    [
        ("video_length", "long"),
        ("video_length", [1320.0]),
        ("video_length", -5.0),
        ("video_length", 0),
        ("videofps", True),
        ("videofps", None),
        ("name2imdbid", 42),
    ],
)
def test_meta_values_of_the_wrong_kind_are_refused(store, tmp_path, meta, value):
    root = release(tmp_path / "r")
    (root / "meta").mkdir()
    (root / "meta" / f"{meta}.json").write_text(json.dumps({"Friends-S01E01": value}))
    failure = svqa_rejected(store, root)
    assert failure.first.file == f"{meta}.json"
    assert failure.first.record == "key 'Friends-S01E01'"


def test_meta_with_nan_is_invalid_json(store, tmp_path):
    root = release(tmp_path / "r")
    (root / "meta").mkdir()
    (root / "meta" / "video_length.json").write_text('{"Friends-S01E01": NaN}')
    failure = svqa_rejected(store, root)
    assert failure.first.file == "video_length.json" and "NaN" in failure.first.message


# -- group 3: files that used to be skipped -----------------------------------------------
@pytest.mark.parametrize(
    "name",
    ["films.json", "films.JSONL", "films.ndjson", "films.jsonl.gz", "Films.jsonl", "extra.csv"],
)
def test_a_near_miss_table_name_is_refused(store, tmp_path, name):
    tables = tiny_tables()
    folder = write_dataset(tmp_path / "ds", {k: v for k, v in tables.items() if k != "films"})
    (folder / name).write_text("".join(json.dumps(r) + "\n" for r in tables["films"]))
    with pytest.raises(ImportFailure) as caught:
        import_lfvqa_dir(store, folder)
    assert caught.value.first.file == name
    assert "not" in caught.value.first.message
    assert store.scalar("SELECT count(*) FROM runs") == 0


def test_files_that_are_not_data_are_ignored(store, tmp_path):
    folder = write_dataset(tmp_path / "ds", tiny_tables())
    (folder / "README.md").write_text("# notes")
    (folder / ".DS_Store").write_bytes(b"\x00")
    (folder / "notes").mkdir()
    assert import_lfvqa_dir(store, folder).rows["films"] == 2


@pytest.mark.parametrize(
    "name", ["Friends_gold.json", "Friends_golden.JSON", "Friends.json", "Friends_golden.json.gz"]
)
def test_a_golden_file_not_named_golden_json_is_refused(store, tmp_path, name):
    root = release(tmp_path / "r")
    (root / "golden_questions" / "Friends_golden.json").rename(root / "golden_questions" / name)
    failure = svqa_rejected(store, root)
    assert failure.first.file == f"golden_questions/{name}"
    assert "_golden.json" in failure.first.message


@pytest.mark.parametrize("name", ["Friends-S01E01.XLSX", "Friends-S01E01.csv", "x.json.gz"])
def test_a_misnamed_aligned_script_is_refused(store, tmp_path, name):
    root = release(tmp_path / "r", sheets=sheets())
    source = root / "aligned_script" / "Friends"
    (source / "Friends-S01E01.json").rename(source / name)
    failure = svqa_rejected(store, root)
    assert failure.first.file == f"aligned_script/Friends/{name}"


def test_a_video_id_with_dots_is_not_a_near_miss(store, tmp_path):
    root = release(tmp_path / "r", sheets=sheets())
    source = root / "aligned_script" / "Friends"
    (source / "Friends-S01E01.json").rename(source / "IMDB-207-Mr. & Mrs. Smith.json")
    report = import_storyvideoqa_dir(store, root)
    assert "IMDB-207-Mr. & Mrs. Smith" in store.df("SELECT film_id FROM films")["film_id"].tolist()
    assert report.rows["scenes"] == 1


def test_an_empty_release_is_refused(store, tmp_path):
    root = tmp_path / "r"
    (root / "golden_questions").mkdir(parents=True)
    (root / "aligned_script").mkdir()
    failure = svqa_rejected(store, root)
    assert "empty release" in failure.first.message


@pytest.mark.parametrize("where", ["golden_questions/Friends_golden.json", "meta/videofps.json"])
def test_a_fifo_in_a_release_is_refused_unread(store, tmp_path, where):
    root = release(tmp_path / "r")
    path = root / where
    path.parent.mkdir(exist_ok=True)
    if path.exists():
        path.unlink()
    os.mkfifo(path)
    failure = svqa_rejected(store, root)
    assert "FIFO" in failure.first.message


@pytest.mark.parametrize(
    "command",
    [["stats"], ["metrics"], ["check-questions"], ["topics"], ["jobs", "list"], ["store", "check"]],
)
def test_a_mistyped_store_is_not_created_by_a_reading_command(tmp_path, command):
    typo = tmp_path / "stroe.duckdb"
    result = CliRunner().invoke(app, [*command, "--store", str(typo)])
    assert result.exit_code == 2, result.output
    assert "no store at" in result.output and "Traceback" not in result.output
    assert not typo.exists()


def test_a_writing_command_creates_the_store_and_says_so(tmp_path):
    new = tmp_path / "new.duckdb"
    folder = write_dataset(tmp_path / "ds", tiny_tables())
    result = CliRunner().invoke(app, ["import", "lfvqa", str(folder), "--store", str(new)])
    assert result.exit_code == 0, result.output
    assert f"creating a new store at {new}" in result.output
    again = CliRunner().invoke(app, ["stats", "--store", str(new)])
    assert again.exit_code == 0 and "creating" not in again.output


def test_each_command_declares_how_it_opens_the_store():
    """The mode each command passes to `open_store` where it opens the store: only the commands
    that bring data in may create a store, and only the reading commands fall back to read-only
    (the same commands as when the two lists were kept apart from the commands)."""
    from tests.support.cli_commands import store_modes

    modes = store_modes()
    creating = {path for path, declared in modes.items() if "create" in declared}
    reading = {path for path, declared in modes.items() if declared == {"read"}}
    assert creating == {
        "demo",
        "migrate",
        "import lfvqa",
        "import storyvideoqa",
        "import storysumm",
        "import fables",
        "import tom",
        "beliefs import",
        "film ingest",
    }
    assert reading == {
        "stats",
        "export",
        "export-task",
        "jobs list",
        "jobs status",
        "store check",
        "store backup",
        "metrics",
        "compare",
        "agreement",
        "topics",
        "reviewers",
    }
    # every other command that opens the store declares "write", and none relies on a default
    # (`film ingest` creates the store, then its summaries step opens the film it stored)
    assert all(declared <= {"create", "write", "read"} for declared in modes.values()), modes
    assert all(len(declared) == 1 for path, declared in modes.items() if path != "film ingest")
    assert {"judge", "import results", "import mcq-predictions", "mcq import-predictions"} <= {
        path for path, declared in modes.items() if declared == {"write"}
    }


# -- group 4: one model of MCQ validity ---------------------------------------------------
def interchange_row(**changes) -> dict:
    row = {
        "mcq_id": "Friends:Friends-S01E01:7",
        "source": "Friends",
        "vid": "Friends-S01E01",
        "qid": 7,
        "question": ITEM["question"],
        "choices": ITEM["choices"],
        "gt": ITEM["GT"],
        "option": ITEM["option"],
    }
    row.update(changes)
    return row


# (interchange changes, release changes, field in the interchange, field in the release)
MCQ_CASES = [
    ({"option": "E"}, {"option": "E"}, "option", "option"),
    ({"gt": "Phoebe"}, {"GT": "Phoebe"}, "gt", "GT"),
    ({"gt": "Ross"}, {"GT": "Ross"}, "gt", "GT"),  # among the choices, but not option's
    ({"choices": ["Monica"]}, {"choices": ["Monica"]}, "choices", "choices"),
    ({"qid": "7"}, {"id": "7"}, "qid", "id"),
]


@pytest.mark.parametrize("interchange, item, field, release_field", MCQ_CASES)
def test_both_mcq_paths_refuse_the_same_questions(
    store, tmp_path, interchange, item, field, release_field
):
    folder = write_dataset(tmp_path / "ds", {"mcq_questions": [interchange_row(**interchange)]})
    with pytest.raises(ImportFailure) as caught:
        import_lfvqa_dir(store, folder)
    assert caught.value.first.field == field
    failure = svqa_rejected(store, release(tmp_path / "r", items=[{**ITEM, **item}]))
    assert failure.first.field == release_field


def test_both_paths_accept_the_same_valid_question(store, tmp_path):
    folder = write_dataset(tmp_path / "ds", {"mcq_questions": [interchange_row()]})
    assert import_lfvqa_dir(store, folder).rows == {"mcq_questions": 1}
    other = other_store(tmp_path / "other.duckdb")
    assert import_storyvideoqa_dir(other, release(tmp_path / "r")).rows["mcq_questions"] == 1


def other_store(path: Path):
    from data_access.store import Store

    return Store(path)


@pytest.mark.parametrize("missing", [None, "absent"])
def test_a_release_item_needs_an_integer_id(store, tmp_path, missing):
    item = copy.deepcopy(ITEM)
    if missing == "absent":
        del item["id"]
    else:
        item["id"] = None
    failure = svqa_rejected(store, release(tmp_path / "r", items=[item]))
    assert failure.first.field == "id" and "missing" in failure.first.message


def test_a_negative_runtime_in_the_release_meta_is_refused(store, tmp_path):
    root = release(tmp_path / "r")
    (root / "meta").mkdir()
    (root / "meta" / "video_length.json").write_text(json.dumps({"Friends-S01E01": -1320.0}))
    assert svqa_rejected(store, root).first.file == "video_length.json"


@pytest.mark.parametrize("rule", MCQ_RULES, ids=lambda rule: rule.field)
def test_each_rule_says_the_same_in_python_and_sql(rule):
    """The SQL form of a rule is violated exactly where the Python form does not hold."""
    variants = [
        interchange_row(option=option, gt=gt, choices=choices)
        for option in "ABCDE"
        for gt in ("Ross", "Monica", "Nobody")
        for choices in (["Ross", "Rachel"], ITEM["choices"], ["Monica"] * 5)
        if len(choices) >= 2
    ]
    connection = duckdb.connect()
    for row in variants:
        question = McqQuestion.model_construct(**row)
        violated = connection.execute(
            f"SELECT {rule.violated_sql} FROM (SELECT ?::VARCHAR AS option,"
            " ?::VARCHAR[] AS choices, ?::VARCHAR AS gt)",
            [row["option"], row["choices"], row["gt"]],
        ).fetchone()[0]
        assert bool(violated) is not rule.holds(question), row
