"""The round trip through a real harness: questions out
as an inspect_ai task (`storyscope export-task`), run by inspect_ai, its log back in
(`pipelines.results.import_results`), judged (`storyscope judge --backend lexical`), and the
answers, ids and model name checked on the Verdicts page.

Two runs: `inspect eval` (a subprocess, the harness's own command line) against the real
llama.cpp server the LLM tests start, on two questions with short replies; and inspect's
`mockllm/model` over the whole MCQ set, where only the plumbing is under test. The mock runs
through inspect's Python API with replies that carry their token usage: without usage,
inspect_ai 0.3.285's mockllm counts tokens with tiktoken, whose encoding is downloaded on first
use (no network here).

Each step's count is written to test-artifacts/inspect_round_trip.json for the note.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipelines.cli import app, load_commands
from tests.support.app_fixture_data import MCQS
from tests.support.apptest_pages import run_page
from tests.support.llama_server import MODEL_NAME
from tests.support.paths import REPO_ROOT
from ui.safe_text import inert

pytest.importorskip("inspect_ai", reason="inspect_ai is in the test extra (make test)")
load_commands()
ARTIFACTS = REPO_ROOT / "test-artifacts"
# inspect's OpenAI-compatible provider: `openai-api/<service>/<model>` reads <SERVICE>_BASE_URL
# and <SERVICE>_API_KEY (inspect_ai/model/_providers/openai_compatible.py, 0.3.285)
SERVICE = "llamacpp"
REAL_MODEL = f"openai-api/{SERVICE}/{MODEL_NAME}"


def _cli(*args) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def _export(store, out: Path, *args) -> list[str]:
    _cli("export-task", "--store", str(store.path), "--out", str(out), *args)
    return [json.loads(line)["id"] for line in (out / "dataset.jsonl").read_text().splitlines()]


def _only_log(log_dir: Path) -> Path:
    (log,) = sorted(log_dir.glob("*.eval"))
    return log


def _record(name: str, counts: dict) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / "inspect_round_trip.json"
    recorded = json.loads(path.read_text()) if path.exists() else {}
    path.write_text(json.dumps({**recorded, name: counts}, indent=2) + "\n")


def test_real_server_round_trip_reaches_the_verdicts_page(llama_server, fixture_store, tmp_path):
    from inspect_ai.log import read_eval_log

    from pipelines.results import import_results

    clock = _Clock()
    task = tmp_path / "task"
    exported = _export(fixture_store, task, "--where", "film=lighthouse", "--limit", "2")
    clock.lap("export")
    env = {
        **os.environ,
        f"{SERVICE.upper()}_BASE_URL": llama_server.base_url,
        f"{SERVICE.upper()}_API_KEY": "local-test-key",  # llama.cpp checks none
        "NO_PROXY": "*",
    }
    command = [sys.executable, "-m", "inspect_ai", "eval", "task.py", "--model", REAL_MODEL]
    command += ["--max-tokens", "32", "--temperature", "0", "--log-dir", str(tmp_path / "logs")]
    command += ["--display", "none"]
    ran = subprocess.run(command, cwd=task, env=env, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr[-3000:] + llama_server.log_tail()
    clock.lap("inspect_eval")
    log = read_eval_log(str(_only_log(tmp_path / "logs")))
    assert log.status == "success" and log.eval.model == REAL_MODEL
    run_ids = [sample.id for sample in log.samples]
    assert sorted(run_ids) == sorted(exported)

    report = import_results(fixture_store, _only_log(tmp_path / "logs"))
    clock.lap("import")
    assert report.kind == "answers" and report.n_matched == len(exported) == 2
    assert report.model == REAL_MODEL and not report.unmatched
    setting = report.setting_id
    answers = fixture_store.df(
        "SELECT question_id, text FROM answers WHERE setting_id = ? ORDER BY 1", [setting]
    )
    completions = {sample.id: sample.output.completion for sample in log.samples}
    assert dict(zip(answers["question_id"], answers["text"])) == completions

    _cli("judge", "--store", str(fixture_store.path), "--backend", "lexical",
         "--where", f"setting={setting}")  # fmt: skip
    clock.lap("judge")
    judged = fixture_store.df(
        "SELECT a.question_id, count(*) AS verdicts FROM claim_verdicts v"
        " JOIN answers a USING (answer_id) WHERE a.setting_id = ? GROUP BY 1 ORDER BY 1",
        [setting],
    )
    claims = fixture_store.df(
        "SELECT question_id, count(*) AS claims FROM rubric_claims GROUP BY 1 ORDER BY 1"
    ).set_index("question_id")["claims"]
    assert list(judged["question_id"]) == sorted(exported)
    assert all(judged["verdicts"] == [claims[q] for q in judged["question_id"]])

    question = sorted(exported)[0]
    page = run_page(REPO_ROOT, "verdicts_page", {"q": question, "setting": setting})
    clock.lap("verdicts_page")
    assert not page.exception
    assert page.selectbox(key="q").value == question  # the id came back to its question
    label = fixture_store.scalar("SELECT label FROM settings WHERE setting_id = ?", [setting])
    assert label.startswith(f"{REAL_MODEL} via inspect_ai")  # the model name, as shown
    shown = [block.value for block in page.markdown]
    # one block per answer: its setting in bold, its chips, its text
    assert any(
        block.startswith(f"**{inert(label)}**\n\n") and block.endswith(inert(completions[question]))
        for block in shown
    )
    _record(
        "real_server",
        {
            "model": REAL_MODEL,
            "questions_out": len(exported),
            "samples_run": len(log.samples),
            "imported": report.n_matched,
            "judged_verdicts": int(judged["verdicts"].sum()),
            "seconds": clock.laps,
            "load_1min": round(os.getloadavg()[0], 1),
        },
    )


class _Clock:
    """Seconds per step of the round trip, for the note (never asserted: the machine is shared)."""

    def __init__(self) -> None:
        self.laps: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, step: str) -> None:
        now = time.perf_counter()
        self.laps[step] = round(now - self._last, 2)
        self._last = now


def _letter_a(input, tools, tool_choice, config):
    """mockllm's reply to every question: option A, with the usage a real server reports."""
    from inspect_ai.model import ModelOutput, ModelUsage

    output = ModelOutput.from_content(model="mockllm", content="ANSWER: A")
    output.usage = ModelUsage(input_tokens=40, output_tokens=3, total_tokens=43)
    return output


def test_mockllm_mcq_round_trip_links_every_prediction(fixture_store, tmp_path, monkeypatch):
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    from pipelines.results import import_results

    task = tmp_path / "task"
    exported = _export(fixture_store, task, "--questions", "mcq")
    monkeypatch.chdir(task)  # inspect resolves a task file relative to the working folder
    (log,) = inspect_eval(
        "task.py",
        model=get_model("mockllm/model", custom_outputs=_letter_a),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success" and len(log.samples) == len(MCQS)
    report = import_results(fixture_store, log.location)
    assert report.kind == "predictions" and report.n_matched == len(exported) == len(MCQS)
    rows = fixture_store.df(
        "SELECT mcq_id, predicted_option, correct FROM mcq_predictions WHERE method = ?",
        [report.setting_id],
    )
    assert sorted(rows["mcq_id"]) == sorted(exported)
    assert set(rows["predicted_option"]) == {"A"}
    assert int(rows["correct"].sum()) == sum(1 for mcq in MCQS if mcq[3] == "A")
    again = import_results(fixture_store, log.location)
    assert again.already_imported  # the same log twice is one import
    _record(
        "mockllm_mcq",
        {
            "questions_out": len(exported),
            "samples_run": len(log.samples),
            "imported": report.n_matched,
            "correct": int(rows["correct"].sum()),
        },
    )
