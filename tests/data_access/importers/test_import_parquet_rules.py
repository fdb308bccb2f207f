"""Parquet table files obey the rules JSONL files do (no traceback, nothing invalid
accepted silently): a null item in a list and text that is not UTF-8 are refused naming
file, row and field, with the store unchanged (every table compared),
through the library and the CLI alike."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from data_access.importers import import_lfvqa_dir
from pipelines.cli import app, load_commands
from tests.support.lfvqa_dataset import tiny_tables, write_dataset
from tests.support.store_snapshots import assert_rejected, other_tables, store_dump


@pytest.fixture
def seeded(store, tmp_path):
    import_lfvqa_dir(store, write_dataset(tmp_path / "seed", tiny_tables()))
    return store


def _as_parquet(folder, name: str, table: pa.Table) -> None:
    (folder / f"{name}.jsonl").unlink()
    pq.write_table(table, folder / f"{name}.parquet")


@pytest.mark.parametrize("fmt, record", [("jsonl", "line 2"), ("parquet", "row 2")])
def test_a_null_list_item_is_refused_in_both_formats(seeded, tmp_path, fmt, record):
    tables = other_tables()
    tables["rubric_claims"][1]["evidence_scenes"] = [1, None]
    folder = write_dataset(tmp_path / "bad", tables)
    if fmt == "parquet":
        _as_parquet(folder, "rubric_claims", pa.Table.from_pylist(tables["rubric_claims"]))
    assert_rejected(
        seeded,
        folder,
        f"rubric_claims.{fmt}",
        record,
        "evidence_scenes",
        "must be a list of integers",
    )


def _films_with_bad_text(tmp_path, column: str = "title"):
    folder = write_dataset(tmp_path / "bad", other_tables())
    films = other_tables()["films"]
    table = pa.Table.from_pylist(films)
    values = [f[column].encode() for f in films]
    values[1] = b"caf\xe9 \xff"
    text = pa.array(values, pa.binary()).view(pa.string())  # no validation on the way out
    table = table.set_column(table.schema.get_field_index(column), column, text)
    _as_parquet(folder, "films", table)
    return folder


def test_text_that_is_not_utf8_is_named_by_row_and_field(seeded, tmp_path):
    folder = _films_with_bad_text(tmp_path)
    message = assert_rejected(
        seeded, folder, "films.parquet", "row 2", "title", "text is not UTF-8 (byte 0xE9"
    )
    assert "Invalid string encoding" not in message


def test_the_cli_says_it_in_one_error_line(seeded, tmp_path):
    folder = _films_with_bad_text(tmp_path)
    before = store_dump(seeded)
    load_commands()
    result = CliRunner().invoke(app, ["import", "lfvqa", str(folder), "--store", str(seeded.path)])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: import rejected") and "Traceback" not in result.output
    assert "films.parquet, row 2, field 'title': text is not UTF-8" in result.output
    assert store_dump(seeded) == before
