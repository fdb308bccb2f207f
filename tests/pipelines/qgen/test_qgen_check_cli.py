"""`storyscope check-questions`: the JSON shape of the issue, filters, and stored check runs."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from data_access.importers import import_lfvqa_dir
from data_access.store import append_rows
from data_access.tables import qgen_records
from pipelines.cli import app, load_commands
from tests.support.paths import REPO_ROOT

load_commands()
RUNNER = CliRunner()
SAMPLE = REPO_ROOT / "samples" / "lfvqa_paper"


def _add_broken_question(store) -> None:
    with store.transaction() as cursor:
        append_rows(
            cursor,
            "questions",
            [
                {
                    "question_id": "bad-1",
                    "film_id": "the-holdovers-2023",
                    "qtype": "Q7",
                    "center": "Angus Tully",
                    "status": "candidate",
                    "source": "generated",
                    "text": "At the Winning Ticket, does Angus believe Paul or Miss Crane?",
                    "gold": "Angus trusts Paul over the others.",
                    "run_id": "test",
                }
            ],
            qgen_records.COLUMNS["questions"],
        )


def test_paper_questions_pass_and_a_broken_one_fails_with_reasons(store, store_path):
    import_lfvqa_dir(store, SAMPLE)
    _add_broken_question(store)
    result = RUNNER.invoke(app, ["check-questions", "--json", "--store", str(store_path)])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    by_id = {item["id"]: item for item in payload["questions"]}
    paper = [item for item in payload["questions"] if item["source"] == "paper"]
    assert len(paper) >= 11 and all(item["passed"] for item in paper)
    assert all(0 <= item["leak_score"] <= 0.25 for item in paper)
    bad = by_id["bad-1"]
    assert bad["passed"] is False and bad["source"] == "generated"
    assert {f["check"] for f in bad["failures"]} == {
        "single_interrogative",
        "not_yes_no",
        "no_alternatives",
    }
    assert set(bad) == {"id", "source", "passed", "failures", "leak_score"}
    # the check run is recorded with one failure row per failed check
    failures = store.df(
        "SELECT check_name FROM question_check_failures WHERE question_id = 'bad-1'"
    )
    assert sorted(failures["check_name"]) == [
        "no_alternatives",
        "not_yes_no",
        "single_interrogative",
    ]
    assert store.scalar("SELECT status FROM runs WHERE step = 'qgen.check'") == "finished"


def test_where_filters_select_and_bad_filters_fail_cleanly(store, store_path):
    import_lfvqa_dir(store, SAMPLE)
    _add_broken_question(store)
    result = RUNNER.invoke(
        app,
        [
            "check-questions",
            "--json",
            "--no-save",
            "--where",
            "qtype=Q1,Q7",
            "--where",
            "source=paper",
            "--store",
            str(store_path),
        ],
    )
    ids = [item["id"] for item in json.loads(result.output)["questions"]]
    assert ids and all(i.endswith(("Q1", "Q7")) for i in ids)
    assert store.scalar("SELECT count(*) FROM runs WHERE step = 'qgen.check'") == 0
    bad = RUNNER.invoke(
        app, ["check-questions", "--where", "colour=red", "--store", str(store_path)]
    )
    assert bad.exit_code != 0 and "unknown field 'colour'" in bad.output
    assert "Traceback" not in bad.output
