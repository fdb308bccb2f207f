"""Generation runs end to end: the template backend, the CLI, and a dry run."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from pipelines.cli import app, load_commands
from pipelines.qgen.generate import GenerateOptions, GenerationError, generate
from tests.support.qgen_film import build_film

load_commands()
RUNNER = CliRunner()


def test_template_run_stores_context_sets_stages_questions_claims_and_checks(store):
    film = build_film(store)
    report = generate(store, GenerateOptions(film, n=12, with_analytics=False))
    run_id = report.run_id
    assert report.discards["total"] == 27 and report.discards["kept"] == 20
    assert store.scalar("SELECT count(*) FROM context_sets WHERE run_id = ?", [run_id]) == 27
    assert store.df("SELECT backend, status, n_items FROM runs WHERE run_id = ?", [run_id]).iloc[
        0
    ].tolist() == ["template", "finished", 12]
    questions = store.df("SELECT * FROM questions WHERE run_id = ?", [run_id])
    assert len(questions) == 12 and set(questions["source"]) == {"generated"}
    assert set(questions["status"]) <= {"candidate", "retired"}
    # every written question passed its checks or was retired by them, with the reason kept
    checks = store.df("SELECT * FROM question_check_results WHERE run_id = ?", [run_id])
    assert len(checks) == 12 and checks["leak_score"].notna().all()
    outcomes = store.df("SELECT * FROM qgen_outcomes WHERE run_id = ?", [run_id])
    retired = outcomes[outcomes["final_status"] == "retired"]
    assert retired["retire_reason"].notna().all()
    assert (outcomes["final_status"] == "candidate").sum() == (checks["passed"]).sum() - len(
        retired[retired["retire_rule"] != "checks"]
    )
    # four stages per candidate, each labelled with the backend
    stages = store.df(
        "SELECT stage, count(*) AS n, any_value(backend) AS b FROM qgen_stage_outputs"
        " WHERE run_id = ? GROUP BY stage ORDER BY stage",
        [run_id],
    )
    assert stages["stage"].tolist() == [1, 2, 3, 4] and set(stages["b"]) == {"template"}
    claims = store.df(
        "SELECT c.* FROM rubric_claims c JOIN questions q USING (question_id)"
        " WHERE q.run_id = ? AND q.status = 'candidate'",
        [run_id],
    )
    per_question = claims.groupby("question_id")["role"].apply(lambda r: (r == "core").sum())
    assert (per_question >= 2).all()
    assert not claims["text"].str.contains(r"\b[A-Z]{4,}\b").any()  # no screenplay capitals
    # every written question has evidence points: its carried scenes, in film order, one anchor
    evidence = store.df(
        "SELECT e.*, q.anchor_scene, q.anchor_time_s FROM question_evidence e"
        " JOIN questions q USING (question_id) WHERE q.run_id = ?",
        [run_id],
    )
    written = store.scalar("SELECT count(*) FROM questions WHERE run_id = ?", [run_id])
    assert evidence["question_id"].nunique() == written
    for _, points in evidence.groupby("question_id"):
        assert points["scene_index"].is_monotonic_increasing and points["ord"].tolist() == list(
            range(1, len(points) + 1)
        )
        anchor = points[points["is_anchor"]]
        assert len(anchor) == 1 and anchor["scene_index"].iloc[0] == anchor["anchor_scene"].iloc[0]
        assert anchor["time_s"].iloc[0] == anchor["anchor_time_s"].iloc[0]
    ords = claims.groupby("question_id")["ord"].apply(sorted).to_dict()
    candidate = evidence[evidence["question_id"].isin(list(ords))]
    assert all(list(row.claim_ords) == ords[row.question_id] for row in candidate.itertuples())


def test_template_questions_use_no_forbidden_name_and_no_annotation_vocabulary(store):
    report = generate(store, GenerateOptions(build_film(store), n=20, with_analytics=False))
    for draft in report.drafts:
        assert "Line Judge" not in draft.question
        assert "e_0" not in draft.question and "scene" not in draft.question.lower()


def test_dry_run_writes_nothing(store):
    film = build_film(store)
    before = store.scalar("SELECT count(*) FROM runs")
    report = generate(store, GenerateOptions(film, qtypes=["Q4"], n=3), dry_run=True)
    assert report.run_id is None and report.sampled == 3
    assert store.scalar("SELECT count(*) FROM runs") == before
    assert store.scalar("SELECT count(*) FROM context_sets") == 0


def test_user_errors_name_the_problem(store):
    film = build_film(store)
    with pytest.raises(GenerationError, match="not in the store"):
        generate(store, GenerateOptions("no-such-film"))
    with pytest.raises(GenerationError, match="unknown question type"):
        generate(store, GenerateOptions(film, qtypes=["Q9"]))
    with pytest.raises(GenerationError, match="holders with belief records: Ivy, Line Judge, Mara"):
        generate(store, GenerateOptions(film, centers=["Nobody"]))
    only_ivy = generate(store, GenerateOptions(film, centers=["ivy"], n=50, with_analytics=False))
    assert {d.context_set.center for d in only_ivy.drafts} <= {
        "Ivy",
        "Ivy + Mara",
        "Ivy + Mara + Tom",
        "Ivy + Tom",
    }


def test_cli_generate_json_and_errors(store, store_path):
    film = build_film(store)
    result = RUNNER.invoke(
        app,
        [
            "generate",
            "--film",
            film,
            "--types",
            "Q4,Q7",
            "--n",
            "4",
            "--json",
            "--no-analytics",
            "--store",
            str(store_path),
        ],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["backend"] == "template" and summary["sampled"] == 4
    assert sum(summary["statuses"].values()) == 4
    assert summary["context_sets"]["center_never_named"] == 1  # Line Judge's Q4
    bad = RUNNER.invoke(app, ["generate", "--film", "nope", "--store", str(store_path)])
    assert bad.exit_code != 0 and "not in the store" in bad.output and "Traceback" not in bad.output
    bad = RUNNER.invoke(
        app, ["generate", "--film", film, "--backend", "magic", "--store", str(store_path)]
    )
    assert bad.exit_code != 0 and "unknown backend" in bad.output
