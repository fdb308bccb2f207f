"""docs/FORMAT.md is generated from the interchange models and must be current."""

from __future__ import annotations

from typer.testing import CliRunner

from data_access.formats.table_files import TABLE_FILES
from data_access.importers.format_doc import format_doc
from pipelines.cli import app, load_commands
from tests.support.paths import REPO_ROOT

load_commands()

DOC = REPO_ROOT / "docs" / "FORMAT.md"


def test_committed_format_doc_equals_the_generated_text():
    assert DOC.read_text(encoding="utf-8") == format_doc(), (
        "docs/FORMAT.md is stale: run `storyscope format-doc`"
    )


def test_doc_lists_every_table_and_field_with_its_constraints():
    text = format_doc()
    for table in TABLE_FILES:
        assert f"### `{table.name}.jsonl` / `{table.name}.parquet`" in text
        for name in table.model.model_fields:
            assert f"| `{name}` |" in text
    assert "| `year` | an integer or null | null | ≥ 1880, ≤ 2100 |" in text
    assert "| `choices` | a list of strings | **required** | at least 2 items |" in text
    assert "`claim_id` → `rubric_claims.claim_id`" in text


def test_cli_check_fails_on_a_stale_file_and_write_fixes_it(tmp_path):
    runner = CliRunner()
    stale = tmp_path / "FORMAT.md"
    stale.write_text("# old\n")
    result = runner.invoke(app, ["format-doc", "--check", "--out", str(stale)])
    assert result.exit_code == 1
    assert "out of date" in result.output
    assert runner.invoke(app, ["format-doc", "--out", str(stale)]).exit_code == 0
    assert runner.invoke(app, ["format-doc", "--check", "--out", str(stale)]).exit_code == 0
    assert stale.read_text(encoding="utf-8") == format_doc()
