"""The JSONL fast path (data_access/importers/staging_jsonl.py): files read on all cores, records
numbered from the stage table's rowids, JSON types told by the value's first character. Each
shortcut must name the same records and flag the same values as the slow, numbered path."""

from __future__ import annotations

import json

import duckdb
import pytest

from data_access.formats.lfvqa_records import Belief, QuestionEvidence, Subtitle
from data_access.importers import ImportFailure, import_lfvqa_dir
from data_access.importers.fields import field_specs
from data_access.importers.staging_jsonl import _fast_type_fault, _type_faults
from tests.support.lfvqa_dataset import tiny_tables, write_dataset

# enough records (38 MB) that DuckDB splits the file between its threads (measured: a 19 MB
# file already used both cores of the CI machine)
N_CUES = 400_000
CUE = '{"film_id": "f1", "cue_index": %d, "start_s": %d.5, "end_s": %d.75, "text": "line %d"}\n'


def test_a_fault_deep_in_a_file_read_in_parallel_names_its_line(store, tmp_path):
    folder = write_dataset(tmp_path / "big", tiny_tables())
    bad = 345_678  # the record whose end comes before its start
    lines = []
    for n in range(N_CUES):
        if n == 3:
            lines.append("\n")  # a blank line: records and lines part ways here
        end = n - 1 if n == bad else n
        lines.append(CUE % (n, n, end, n))
    (folder / "subtitles.jsonl").write_text("".join(lines))
    with duckdb.connect() as check:
        cpu = check.execute("SELECT current_setting('threads')").fetchone()[0]
    assert cpu >= 2, "the file must be read by more than one thread for this test to mean much"
    with pytest.raises(ImportFailure) as caught:
        import_lfvqa_dir(store, folder)
    problem = caught.value.first
    # record `bad` is line bad + 2: lines count from 1, and the blank line comes before it
    assert (problem.file, problem.record, problem.field) == (
        "subtitles.jsonl",
        f"line {bad + 2}",
        "end_s",
    ), str(problem)


def test_a_large_clean_file_imports_every_record_in_order(store, tmp_path):
    tables = tiny_tables()
    tables["subtitles"] = [
        {"film_id": "f1", "cue_index": n, "start_s": n + 0.5, "end_s": n + 0.75, "text": f"l{n}"}
        for n in range(300_000)
    ]
    report = import_lfvqa_dir(store, write_dataset(tmp_path / "clean", tables))
    assert report.rows["subtitles"] == 300_000
    with store.session() as cursor:
        wrong = cursor.execute(
            "SELECT count(*) FROM subtitles WHERE text <> 'l' || cue_index"
        ).fetchone()[0]
    assert wrong == 0


# every JSON type, written with the spacing a hand-edited file may have
VALUES = [
    '"text"',
    '"t\\u00e9\\"x"',
    "5",
    "-0",
    "1.5",
    "1e3",
    "true",
    "false",
    "null",
    "[]",
    "[1, 2]",
    '[ "a" , "b" ]',
    '["a", 2]',
    "{}",
    '{"k": 1}',
    "18446744073709551615",
]


@pytest.mark.parametrize("model", [Subtitle, QuestionEvidence, Belief])
def test_the_fast_type_test_flags_exactly_what_the_worded_checks_flag(model, tmp_path):
    specs = field_specs(model)
    path = tmp_path / "values.jsonl"
    records = []
    for spec in specs:
        for value in VALUES:
            others = ", ".join(f'"{s.name}": null' for s in specs if s is not spec)
            records.append(f'{{ "{spec.name}" :  {value} , {others} }}')
    path.write_text("\n".join(records) + "\n")
    columns = {spec.name: "JSON" for spec in specs}
    fast, fast_params = _fast_type_fault(specs)
    worded = _type_faults(specs)
    slow = " OR ".join(f"coalesce({fault.condition}, false)" for fault in worded)
    slow_params = [p for fault in worded for p in fault.params]
    with duckdb.connect() as con:
        rows = con.execute(
            f"SELECT {fast}, {slow} FROM read_json(?, format='newline_delimited', columns=?)",
            fast_params + slow_params + [str(path), columns],
        ).fetchall()
    assert len(rows) == len(records)
    differ = [(records[i], f, s) for i, (f, s) in enumerate(rows) if f != s]
    assert not differ, differ
    assert any(f for f, _ in rows) and not all(f for f, _ in rows)


def test_json_values_reach_the_stage_unescaped(store, tmp_path):
    tables = tiny_tables()
    tables["subtitles"][0]["text"] = 'Say "hi"\tthen é / \\ done'
    folder = write_dataset(tmp_path / "escapes", tables)
    import_lfvqa_dir(store, folder)
    with store.session() as cursor:
        text = cursor.execute("SELECT text FROM subtitles").fetchone()[0]
    assert text == tables["subtitles"][0]["text"]
    assert json.loads(json.dumps(text)) == text


def test_without_insertion_order_the_stage_numbers_records_as_it_reads(tmp_path):
    from data_access.importers.staging import StagedFile, drop_stage
    from data_access.importers.staging_jsonl import stage_jsonl

    path = tmp_path / "subtitles.jsonl"
    path.write_text(
        "\n".join(CUE.strip() % (n, n, n, n) for n in range(5)).replace("\n", "\n\n", 1)
    )
    staged = StagedFile("subtitles", path, "jsonl", "_stage_subtitles")
    with duckdb.connect() as con:
        con.execute("SET preserve_insertion_order = false")
        stage_jsonl(con, staged, field_specs(Subtitle))
        rows = con.execute(f"SELECT _row, cue_index FROM {staged.stage} ORDER BY _row").fetchall()
        assert staged.record_labels([r for r, _ in rows]) == {
            1: "line 1",
            2: "line 3",
            3: "line 4",
            4: "line 5",
            5: "line 6",
        }
        assert [cue for _, cue in rows] == [0, 1, 2, 3, 4]
        drop_stage(con, staged)
        assert not con.execute("SELECT * FROM duckdb_tables() WHERE temporary").fetchall()
