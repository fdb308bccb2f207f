"""Every importer reads JSON through one reader (data_access/importers/json_files.py) with one
rule set: deep nesting, a key given twice, NaN, bad UTF-8, an empty file and a line split inside
a string are each one `error:` line naming the file, exit 2, and the store as it was (no
traceback, nothing accepted silently, a message that names what is wrong)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from data_access.importers import import_lfvqa_dir
from data_access.importers.json_files import (
    MAX_DEPTH,
    JsonFileError,
    loads_json,
    read_json_file,
    read_json_lines,
)
from pipelines.cli import app, load_commands
from tests.support.lfvqa_dataset import MANIFEST, tiny_tables, write_dataset
from tests.support.store_snapshots import store_dump

DEEP = "[" * 100_000 + "]" * 100_000  # far past Python's recursion limit
runner = CliRunner()


def _problem(text: str, record: str | None = None):
    with pytest.raises(JsonFileError) as caught:
        loads_json(text, "f.json", record)
    return caught.value.problem


# -- the reader's rules --------------------------------------------------------------------
def test_deep_nesting_is_refused_with_its_line_and_column():
    problem = _problem('{"a": 1,\n "b": ' + DEEP + "}")
    assert problem.file == "f.json" and problem.record == "line 2"
    assert f"nested more than {MAX_DEPTH} levels deep (at line 2, column {6 + MAX_DEPTH})" in (
        problem.message
    )
    assert "nested more than" in _problem('{"a":' * 5000 + "1" + "}" * 5000).message


def test_nesting_up_to_the_limit_and_brackets_inside_strings_are_fine():
    at_limit = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert loads_json(at_limit, "f.json") == json.loads(at_limit)
    text = json.dumps({"quote": "[" * 500 + '\\"{' * 300, "n": [[1]]})
    assert loads_json(text, "f.json")["n"] == [[1]]


def test_a_key_given_twice_is_refused_naming_the_key_and_its_line():
    problem = _problem('{\n "b": {"a": 1},\n "c": {"a": 1, "a": 3}\n}')
    assert (problem.record, problem.field) == ("line 3", "a")
    assert "appears twice" in problem.message
    assert loads_json('{"a": {"a": 1}}', "f.json") == {"a": {"a": 1}}  # nested: not a repeat


def test_non_finite_numbers_empty_files_and_a_cut_file():
    assert "NaN is not a JSON value" in _problem('{"x": NaN}').message
    empty = _problem("  \n")
    assert (empty.record, empty.message) == ("(file)", "empty: no JSON value")
    cut = _problem("[1,\n2,\n")  # no line 3 to name: the file ends too early
    assert cut.record == "end of file" and "ends before the value does" in cut.message
    assert _problem('{"a" 1}').record == "line 1"


def test_a_file_that_is_not_utf8_is_named_with_its_line(tmp_path):
    path = tmp_path / "meta.json"
    path.write_bytes(b'{"a": "ok",\n "b": "caf\xe9"}')
    with pytest.raises(JsonFileError) as caught:
        read_json_file(path)
    assert str(caught.value).startswith("meta.json, line 2, field '-': text is not UTF-8 (byte")
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}')  # a BOM is tolerated
    assert read_json_file(path) == {"a": 1}


def test_json_lines_split_on_newlines_only(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"t": "a\u2028b"}\n\n{"t": "c"}\n{"t": ', encoding="utf-8")
    rows = read_json_lines(path)
    assert next(rows) == (1, {"t": "a\u2028b"})
    assert next(rows) == (3, {"t": "c"})
    with pytest.raises(JsonFileError) as caught:
        next(rows)
    assert caught.value.problem.record == "line 4"  # the file's real last line


# -- every importer, through the CLI ---------------------------------------------------------
@pytest.fixture
def seeded(store, tmp_path):
    import_lfvqa_dir(store, write_dataset(tmp_path / "seed", tiny_tables()))
    return store


def _refused(store, args: list[str], *names: str) -> str:
    """Run the CLI; it must exit 2 with one `error:` line naming `names`, store unchanged."""
    load_commands()
    before = store_dump(store)
    result = runner.invoke(app, [*args, "--store", str(store.path)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "RecursionError" not in result.output
    assert result.output.startswith("error:"), result.output
    for name in names:
        assert name in result.output.splitlines()[0] + result.output, (name, result.output)
    assert store_dump(store) == before
    return result.output


def _dataset_with_manifest(tmp_path, text: str):
    folder = write_dataset(tmp_path / "ds", tiny_tables())
    (folder / "manifest.json").write_text(text, encoding="utf-8")
    return folder


def test_import_lfvqa_refuses_a_deep_or_doubled_manifest(seeded, tmp_path):
    deep = _dataset_with_manifest(tmp_path / "a", '{"dataset_id": ' + DEEP + "}")
    _refused(seeded, ["import", "lfvqa", str(deep)], "manifest.json", "nested more than")
    doubled = json.dumps(MANIFEST)[:-1] + ', "dataset_id": "other"}'
    folder = _dataset_with_manifest(tmp_path / "b", doubled)
    output = _refused(seeded, ["import", "lfvqa", str(folder)], "manifest.json")
    assert "field 'dataset_id'" in output and "appears twice" in output


def test_import_lfvqa_refuses_a_deep_value_in_a_table_file(seeded, tmp_path):
    tables = tiny_tables()
    folder = write_dataset(tmp_path / "ds", tables)
    first = {**tables["films"][0], "title": "DEEP"}
    line = json.dumps(first).replace('"DEEP"', DEEP)
    (folder / "films.jsonl").write_text(line + "\n", encoding="utf-8")
    _refused(seeded, ["import", "lfvqa", str(folder)], "films.jsonl", "line 1")


def test_import_storyvideoqa_refuses_a_deep_golden_file(seeded, tmp_path):
    golden = tmp_path / "svqa" / "golden_questions"
    golden.mkdir(parents=True)
    (golden / "Friends_golden.json").write_text(DEEP, encoding="utf-8")
    _refused(seeded, ["import", "storyvideoqa", str(tmp_path / "svqa")], "Friends_golden.json")


def test_import_fables_and_storysumm_refuse_deep_files(seeded, tmp_path):
    fables = tmp_path / "FABLES.json"
    fables.write_text('{"FABLES": ' + DEEP + "}", encoding="utf-8")
    _refused(seeded, ["import", "fables", str(fables)], "FABLES.json", "nested more than")
    summ = tmp_path / "storysumm"
    summ.mkdir()
    (summ / "storysumm.json").write_bytes(b'{"s1": {"label": "caf\xe9"}}')
    _refused(seeded, ["import", "storysumm", str(summ)], "storysumm.json", "not UTF-8")


def test_beliefs_import_refuses_deep_tom_files(seeded, tmp_path):
    hitom = tmp_path / "Hi-ToM_data.json"
    hitom.write_text('{"data": ' + DEEP + "}", encoding="utf-8")
    _refused(seeded, ["beliefs", "import", "hitom", str(hitom)], "Hi-ToM_data.json")
    opentom = tmp_path / "opentom"
    opentom.mkdir()
    (opentom / "meta_data.json").write_text('{"a": 1, "a": 2}', encoding="utf-8")
    _refused(seeded, ["beliefs", "import", "opentom", str(opentom)], "meta_data.json", "twice")


def test_mcq_predictions_refuse_deep_json_and_name_the_real_line(seeded, tmp_path):
    deep = tmp_path / "predictions.json"
    deep.write_text(DEEP, encoding="utf-8")
    _refused(seeded, ["mcq", "import-predictions", str(deep)], "predictions.json")
    lines = tmp_path / "predictions.jsonl"
    lines.write_text('{"mcq_id": "a\u2028b", "method": "m"}\n{"mcq_id": \n', encoding="utf-8")
    output = _refused(seeded, ["mcq", "import-predictions", str(lines)], "predictions.jsonl")
    assert "line 2" in output
