"""Runs → Import results: an uploaded results file gets its dry-run report first
(nothing written), then "Import" writes it in one transaction; an oversized or malformed file
gets one error line and the store stays exactly as it was."""

from __future__ import annotations

import pytest

from tests.support.apptest_pages import run_page
from tests.support.harness_fixtures import inspect_sample, write_inspect_log
from tests.support.paths import REPO_ROOT
from tests.support.store_snapshots import store_dump

pytest.importorskip("inspect_ai", reason="inspect_ai is in the test extra (make test)")
MODEL = "openai/smollm2"


@pytest.fixture
def inspect_log(tmp_path) -> bytes:
    """An inspect_ai log answering q1 and q2 of the fixture film, and one unknown id."""
    samples = [
        inspect_sample("q1", "Ann believes the boat comes on Friday."),
        inspect_sample("q2", "Ben thinks Ann fixed the lamp."),
        inspect_sample("nope", "An answer to no question."),
    ]
    return write_inspect_log(tmp_path / "run.eval", samples, model=MODEL).read_bytes()


def _upload(at, name: str, data: bytes):
    at.file_uploader(key="import_upload").set_value((name, data, "application/octet-stream"))
    return at.run()


def _texts(at) -> str:
    return "\n".join(element.value for element in at.text)


def test_dry_run_report_first_then_import(fixture_store, inspect_log):
    before = store_dump(fixture_store)
    at = _upload(run_page(REPO_ROOT, "runs_page"), "run.eval", inspect_log)
    assert not at.exception
    report = _texts(at)
    assert "would import 2 of 3 samples as answers" in report
    assert "not imported, unknown id: 1 (first: nope)" in report
    assert f"model       {MODEL}" in report
    assert store_dump(fixture_store) == before  # the dry run wrote nothing
    assert not at.button(key="import_commit").disabled

    at = at.button(key="import_commit").click().run()
    assert not at.exception
    assert [s.value for s in at.success] == [at.success[0].value]
    assert at.success[0].value.startswith("Imported 2 samples as run import-results-")
    setting = fixture_store.scalar("SELECT setting_id FROM settings WHERE answerer = ?", [MODEL])
    answers = fixture_store.df(
        "SELECT question_id, text FROM answers WHERE setting_id = ? ORDER BY 1", [setting]
    )
    assert list(answers["question_id"]) == ["q1", "q2"]
    assert answers["text"][0] == "Ann believes the boat comes on Friday."
    runs = at.dataframe[1].value  # the runs table now lists the import
    assert runs["run_id"].str.startswith("import-results-").any()


def test_oversized_and_malformed_files_are_refused(fixture_store, monkeypatch):
    before = store_dump(fixture_store)
    monkeypatch.setenv("STORYSCOPE_UPLOAD_LIMIT_MB", "1")
    at = _upload(run_page(REPO_ROOT, "runs_page"), "big.jsonl", b"{}\n" * 400_000)
    assert not at.exception
    assert "over the panel's 1 MB limit" in at.error[0].value
    assert not [button for button in at.button if button.key == "import_commit"]

    at = _upload(run_page(REPO_ROOT, "runs_page"), "x_samples_t.jsonl", b'{"doc_id": 0,\n')
    assert not at.exception
    assert at.error[0].value == "The file cannot be imported; nothing was written."
    assert "x_samples_t.jsonl" in _texts(at) and "line 1" in _texts(at)
    assert at.button(key="import_commit").disabled
    assert store_dump(fixture_store) == before


def test_a_dry_run_the_import_would_refuse_disables_import(fixture_store, tmp_path):
    """Two samples naming one question: the dry run reports them with the fix (link on the
    sample id) and the Import button stays off, as the real import would be refused."""
    samples = [
        inspect_sample("s1", "Ann believes the boat comes on Friday.", {"question_id": "q1"}),
        inspect_sample("s2", "Ann believes it comes on Monday.", {"question_id": "q1"}),
    ]
    data = write_inspect_log(tmp_path / "twice.eval", samples, model=MODEL).read_bytes()
    at = _upload(run_page(REPO_ROOT, "runs_page"), "twice.eval", data)
    assert not at.exception
    report = _texts(at)
    assert "the import would be refused:" in report
    assert "a second sample for question 'q1'" in report
    assert "--map question_id=id" in report
    assert at.button(key="import_commit").disabled
