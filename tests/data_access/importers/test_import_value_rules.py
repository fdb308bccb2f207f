"""Values that are not values are refused with the field named, and the
store is left exactly as it was (docs/FORMAT.md, "Values" and "Subtitle times")."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from data_access.importers import ImportFailure, import_lfvqa_dir
from data_access.importers.svqa_scripts import cue_seconds
from pipelines.preprocess.srt_reader import SubtitleError, parse_srt
from tests.support.lfvqa_dataset import MANIFEST, tiny_tables, write_dataset


def write_lines(folder, name: str, lines: list[str]) -> None:
    (folder / f"{name}.jsonl").write_text("".join(line + "\n" for line in lines))


def rejected(store, folder) -> ImportFailure:
    before = store.scalar("SELECT count(*) FROM runs")
    with pytest.raises(ImportFailure) as caught:
        import_lfvqa_dir(store, folder)
    assert store.scalar("SELECT count(*) FROM runs") == before  # nothing written
    return caught.value


# -- NaN, Infinity, trailing commas -------------------------------------------------------
@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
@pytest.mark.parametrize(
    "table, field",
    [("films", "runtime_s"), ("films", "fps"), ("scenes", "start_s"), ("subtitles", "end_s")],
)
def test_non_finite_numbers_in_jsonl_name_the_field(store, tmp_path, constant, table, field):
    folder = write_dataset(tmp_path / "ds", tiny_tables())
    rows = [json.dumps(row) for row in tiny_tables()[table]]
    rows[0] = rows[0][:-1] + f', "{field}": {constant}}}' if field not in rows[0] else rows[0]
    record = tiny_tables()[table][0]
    record[field] = "__CONSTANT__"
    rows[0] = json.dumps(record).replace('"__CONSTANT__"', constant)
    write_lines(folder, table, rows)
    failure = rejected(store, folder)
    assert failure.first.file == f"{table}.jsonl"
    assert failure.first.record == "line 1"
    assert failure.first.field == field
    assert "finite" in failure.first.message


def test_non_finite_numbers_in_parquet_name_the_row(store, tmp_path):
    folder = write_dataset(tmp_path / "ds", {})
    films = tiny_tables()["films"]
    films[1]["runtime_s"] = float("inf")
    films[0]["runtime_s"] = 10.0
    table = pa.Table.from_pylist(films)
    pq.write_table(table, folder / "films.parquet")
    failure = rejected(store, folder)
    assert (failure.first.file, failure.first.record, failure.first.field) == (
        "films.parquet",
        "row 2",
        "runtime_s",
    )


@pytest.mark.parametrize(
    "line",
    [
        '{"film_id": "f1", "title": "One",}',
        '{"film_id": "f1", "title": "One" , }',
        '{"film_id": "f1", "title": "One", "kind": "film",\t}',
    ],
)
def test_a_trailing_comma_is_invalid_json(store, tmp_path, line):
    folder = write_dataset(tmp_path / "ds", {})
    write_lines(folder, "films", ['{"film_id": "f0", "title": "Zero"}', line])
    failure = rejected(store, folder)
    assert failure.first.record == "line 2"
    assert "trailing comma" in failure.first.message


def test_a_trailing_comma_inside_a_list_is_invalid(store, tmp_path):
    tables = tiny_tables()
    folder = write_dataset(tmp_path / "ds", tables)
    rows = [json.dumps(row) for row in tables["rubric_claims"]]
    rows[0] = rows[0].replace("[1, 2]", "[1, 2,]")
    write_lines(folder, "rubric_claims", rows)
    failure = rejected(store, folder)
    assert (failure.first.file, failure.first.record) == ("rubric_claims.jsonl", "line 1")


def test_a_comma_before_a_brace_inside_a_string_is_text(store, tmp_path):
    tables = tiny_tables()
    tables["films"][0]["title"] = 'Odd, } title ,] with "quotes,}"'
    report = import_lfvqa_dir(store, write_dataset(tmp_path / "ds", tables))
    assert report.rows["films"] == 2
    title = store.scalar("SELECT title FROM films WHERE film_id = 'f1'")
    assert title == 'Odd, } title ,] with "quotes,}"'


# -- integers that do not fit the store column ---------------------------------------------
def test_an_integer_too_big_for_a_32_bit_store_column(store, tmp_path):
    tables = tiny_tables()
    tables["rubric_claims"][1]["ord"] = 2**32
    failure = rejected(store, write_dataset(tmp_path / "ds", tables))
    assert (failure.first.record, failure.first.field) == ("line 2", "ord")
    assert "2147483647" in failure.first.message


def test_list_items_too_big_for_the_store_column(store, tmp_path):
    tables = tiny_tables()
    tables["rubric_claims"][0]["evidence_scenes"] = [1, 2**40]
    failure = rejected(store, write_dataset(tmp_path / "ds", tables))
    assert failure.first.field == "evidence_scenes"


# -- manifest ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "field, value",
    [
        ("version", True),
        ("version", 1.0),
        ("version", "1"),
        ("version", 2),
        ("reported_by_paper", "yes"),
        ("reported_by_paper", 1),
    ],
)
def test_manifest_values_are_read_strictly(store, tmp_path, field, value):
    manifest = {**MANIFEST, field: value}
    failure = rejected(store, write_dataset(tmp_path / "ds", tiny_tables(), manifest))
    assert (failure.first.file, failure.first.field) == ("manifest.json", field)


def test_manifest_with_nan_is_invalid_json(store, tmp_path):
    folder = write_dataset(tmp_path / "ds", tiny_tables())
    (folder / "manifest.json").write_text(json.dumps(MANIFEST)[:-1] + ', "licence": NaN}')
    failure = rejected(store, folder)
    assert failure.first.file == "manifest.json" and "NaN" in failure.first.message


# -- claim ords ----------------------------------------------------------------------------
def evidence(claim_ords: list[int]) -> dict:
    return {"question_id": "q1", "ord": 0, "time_s": 12.0, "claim_ords": claim_ords}


@pytest.mark.parametrize("claim_ords", [[3], [0], [1, 7], [-1]])
def test_claim_ords_must_name_claims_of_the_question(store, tmp_path, claim_ords):
    tables = {**tiny_tables(), "question_evidence": [evidence(claim_ords)]}
    failure = rejected(store, write_dataset(tmp_path / "ds", tables))
    assert (failure.first.file, failure.first.field) == ("question_evidence.jsonl", "claim_ords")


def test_claim_ords_name_each_claim_once(store, tmp_path):
    tables = {**tiny_tables(), "question_evidence": [evidence([1, 2, 1])]}
    failure = rejected(store, write_dataset(tmp_path / "ds", tables))
    assert failure.first.field == "claim_ords" and "twice" in failure.first.message


def test_claim_ords_may_name_claims_already_in_the_store(store, tmp_path):
    import_lfvqa_dir(store, write_dataset(tmp_path / "first", tiny_tables()))
    second = write_dataset(tmp_path / "second", {"question_evidence": [evidence([2, 1])]})
    report = import_lfvqa_dir(store, second)
    assert report.rows == {"question_evidence": 1}


def test_duplicate_claim_ords_in_one_question_are_refused(store, tmp_path):
    tables = tiny_tables()
    tables["rubric_claims"][1]["ord"] = 1
    failure = rejected(store, write_dataset(tmp_path / "ds", tables))
    assert (failure.first.record, failure.first.field) == ("line 2", "question_id+ord")


def test_a_claim_ord_already_used_in_the_store_is_refused(store, tmp_path):
    import_lfvqa_dir(store, write_dataset(tmp_path / "first", tiny_tables()))
    claim = {**tiny_tables()["rubric_claims"][0], "claim_id": "q1.c9"}
    failure = rejected(store, write_dataset(tmp_path / "second", {"rubric_claims": [claim]}))
    assert failure.first.field == "question_id+ord" and "already" in failure.first.message


# -- subtitle times ------------------------------------------------------------------------
def srt(*times: tuple[str, str]) -> str:
    return "\n".join(
        f"{n}\n{start} --> {end}\nLine {n}.\n" for n, (start, end) in enumerate(times, start=1)
    )


@pytest.mark.parametrize("bad", ["99:99:99,999", "00:60:00,000", "00:00:60,000", "01:75:10,500"])
def test_a_clock_time_out_of_range_is_a_bad_cue(bad):
    text = srt(("00:00:01,000", "00:00:02,000"), (bad, bad), ("00:00:05,000", "00:00:06,000"))
    with pytest.raises(SubtitleError, match="line 6"):
        parse_srt(text, "film.srt")
    lenient = parse_srt(text, "film.srt", lenient=True)
    assert [cue.start_s for cue in lenient.cues] == [1.0, 5.0]
    assert lenient.skipped[0].startswith("line 6: unreadable timing")


def test_a_cue_that_jumps_back_is_a_bad_cue():
    text = srt(
        ("00:10:00,000", "00:10:02,000"),
        ("00:10:03,000", "00:10:04,000"),
        ("00:00:00,500", "00:00:01,000"),  # jumps back to the start
        ("00:10:05,000", "00:10:06,000"),
    )
    with pytest.raises(SubtitleError, match="line 10: cue jumps back"):
        parse_srt(text, "film.srt")
    lenient = parse_srt(text, "film.srt", lenient=True)
    assert [cue.start_s for cue in lenient.cues] == [600.0, 603.0, 605.0]
    assert [cue.index for cue in lenient.cues] == [0, 1, 2]


def test_small_overlaps_and_reorderings_are_kept():
    text = srt(
        ("00:00:10,000", "00:00:12,000"),
        ("00:00:09,500", "00:00:11,000"),  # 0.5 s earlier: a reordering, kept
        ("00:00:13,000", "00:00:14,000"),
    )
    assert len(parse_srt(text, "film.srt").cues) == 3


def test_a_reversed_file_is_reported_as_reversed_in_either_mode():
    forward = [(f"00:0{m}:00,000", f"00:0{m}:01,000") for m in range(6)]
    text = srt(*reversed(forward))
    for lenient in (False, True):
        with pytest.raises(SubtitleError, match="reversed"):
            parse_srt(text, "film.srt", lenient=lenient)


@pytest.mark.parametrize("text", ["99:99:99,999", "00:61:00,000", "00:00:75,100"])
def test_storyvideoqa_cue_times_follow_the_same_rule(text):
    assert cue_seconds(text) is None
    assert cue_seconds("01:59:59,999") == pytest.approx(7199.999)
