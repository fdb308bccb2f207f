"""Judge + metrics end to end on the paper sample (samples/lfvqa_paper): openai backend against
the local scripted server, and the demo step (lexical judge, offline)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from data_access.importers import import_lfvqa_dir
from pipelines.cli import app, load_commands
from pipelines.judge import JudgeOptions, run_judge
from pipelines.metrics import metrics_table
from tests.support.lfvqa_rows import scripted_judge
from tests.support.paths import REPO_ROOT

SAMPLE = REPO_ROOT / "samples" / "lfvqa_paper"


def test_openai_judge_and_metrics_on_paper_sample(store, fake_llm, store_path, monkeypatch):
    import_lfvqa_dir(store, SAMPLE)
    server = fake_llm(scripted_judge)
    monkeypatch.setenv("STORYSCOPE_LLM_API_KEY", "sk-test-sample-000000")
    load_commands()
    args = [
        "judge",
        "--store",
        str(store_path),
        "--backend",
        "openai",
        "--model",
        "fake-model",
        "--base-url",
        server.base_url,
        "--json",
    ]
    dry = CliRunner().invoke(app, [*args, "--dry-run"])
    assert dry.exit_code == 0, dry.output
    plan = json.loads(dry.output)
    assert plan["answers"] == 12 and plan["cache_hits"] == 0 and not server.log.bodies
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    status = json.loads(result.output)
    assert status["state"] == "finished" and status["done"] == 12
    assert len(server.log.bodies) == 12
    table = metrics_table(store, "fake-model@judge-claims-v2")
    assert len(table.rows) == 4 and all(r["n"] == 3 for r in table.rows)
    # Replaying with the endpoint down: every call comes from the cache.
    server.stop()
    again = run_judge(
        store,
        JudgeOptions(backend="openai", llm={"base_url": server.base_url, "model": "fake-model"}),
    )
    assert again["done"] == 12 and again["failed"] == 0


def test_demo_step_runs_lexical_judge_once(store):
    from pipelines.demo import step_70_judge_lexical as step

    import_lfvqa_dir(store, SAMPLE)
    lines: list[str] = []
    step.run(store, None, lines.append)
    assert any("12 answers graded" in line for line in lines)
    assert sum("(judge: lexical)" in line for line in lines) == 4
    lines.clear()
    step.run(store, None, lines.append)
    assert any("already graded" in line for line in lines)
