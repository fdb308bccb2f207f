"""The scaled-out LLM commands from the CLI on the local executor (no Ray needed):
`generate-many` and `beliefs annotate-many --backend openai`, a run stopped by its budget
reporting why and the same command resuming it."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from pipelines.cli import app, load_commands
from tests.support.belief_llm_replies import route
from tests.support.qgen_film import build_film
from tests.support.scale_rows import write_rules_film

load_commands()
RUNNER = CliRunner()


def test_generate_many_writes_one_run_per_film_in_batches(store, store_path):
    film = build_film(store)
    args = ["generate-many", "--films", film, "--n", "6", "--batch-size", "4", "--json"]
    result = RUNNER.invoke(app, [*args, "--store", str(store_path)])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert (summary["units"], summary["done"], summary["failed"]) == (2, 2, 0)
    run = store.df("SELECT step, status, n_items FROM runs WHERE run_id = ?", [summary["run_id"]])
    assert run.iloc[0].tolist() == ["qgen.generate", "finished", 6]
    assert store.scalar(
        "SELECT count(*) FROM question_clusters WHERE run_id = ?", [summary["run_id"]]
    ) == store.scalar(
        "SELECT count(*) FROM questions WHERE run_id = ? AND text <> ''", [summary["run_id"]]
    )


def test_annotate_many_openai_stops_at_its_budget_and_the_same_command_resumes(
    store, store_path, fake_llm, monkeypatch
):
    for film in ("cli-a", "cli-b"):
        write_rules_film(store, film)
    server = fake_llm(route)
    monkeypatch.setenv("STORYSCOPE_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("STORYSCOPE_LLM_MODEL", "fake-model")
    monkeypatch.setenv("STORYSCOPE_LLM_STRUCTURED", "none")
    command = ["beliefs", "annotate-many", "--films", "cli-a,cli-b", "--backend", "openai"]
    command += ["--scenes-per-unit", "1", "--store", str(store_path), "--json"]
    stopped = RUNNER.invoke(app, [*command, "--budget-tokens", "3000"])
    assert stopped.exit_code != 0
    assert "LLM budget spent" in stopped.output and "run the same command again" in stopped.output
    first = json.loads(next(line for line in stopped.stdout.splitlines() if line.startswith("{")))
    assert first["failed"] > 0 and first["budget"]["spent_tokens"] >= 3000
    resumed = RUNNER.invoke(app, command)
    assert resumed.exit_code == 0, resumed.output
    second = json.loads(resumed.stdout.strip().splitlines()[-1])
    assert second["batch_id"] == first["batch_id"] and second["resumed_from"] == first["done"]
    assert second["done"] == second["units"] == 6
