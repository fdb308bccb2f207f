"""Answering in the LF-VideoQA settings against a real OpenAI-compatible server (llama.cpp with
SmolLM2-135M, tests/support/llama_server.py): the gold film's questions in the question-only,
screenplay and subtitles settings within the server's real context window (the budget rule
exercised for real: a prompt over the window is a 400 from the server), then judged by the
same server; and an exported `--setting subtitles` inspect task run with `inspect eval`, scored
by the claim-judge scorer, its log imported back and linked.

A 135M model proves the plumbing, not quality: the figures written to
test-artifacts/answer_real_server.json are labelled so.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.support.gold_film import with_gold_film
from tests.support.llama_server import MODEL_NAME
from tests.support.llm_plumbing import check_plumbing, real_config
from tests.support.paths import REPO_ROOT

pytestmark = [pytest.mark.slow, pytest.mark.realserver]
FILM = "the-keepers-ledger"
SETTINGS = ("question-only", "screenplay", "subtitles")
ANSWER_TOKENS = 48
# The window the answers are built for: under the server's real one (CONTEXT_TOKENS), so the
# sample film's screenplay is cut by the budget rule and every prompt is still accepted.
WINDOW = 2048
SERVICE = "llamacpp"


@pytest.fixture
def gold_film(store):
    return with_gold_film(store)


def _answer(store, server, setting: str) -> dict:
    from pipelines.answer import AnswerOptions, answer_questions

    llm = real_config(server, max_tokens=ANSWER_TOKENS).public_dict()
    options = AnswerOptions(
        setting=setting,
        where={"film_id": [FILM]},
        limit=2,
        context={"context_tokens": WINDOW, "answer_tokens": ANSWER_TOKENS},
        llm=llm,
    )
    return answer_questions(store, options)


def test_gold_film_answered_in_three_settings_then_judged(gold_film, llama_server):
    from data_access.queries.answer_inputs import inputs_of_setting
    from pipelines.judge import JudgeOptions, run_judge
    from pipelines.metrics import metrics_table

    figures = {}
    settings = []
    for setting in SETTINGS:
        summary = _answer(gold_film, llama_server, setting)
        check_plumbing(gold_film, summary["run_id"])
        # every prompt fitted the server's real window: none was refused, all answered
        assert summary["answered"] == 2 and summary["failed"] == 0, summary
        given = inputs_of_setting(gold_film, summary["setting_id"])
        assert (given.est_tokens <= WINDOW - ANSWER_TOKENS).all()
        if setting == "screenplay":  # the film is longer than the window: the rule cut it
            assert (given.cut_rule == "even-thinning-v1").all()
        # the estimate errs towards fitting: the server's own count of each prompt is lower
        counted = gold_film.df(
            "SELECT item_id, prompt_tokens FROM llm_calls WHERE run_id = ?", [summary["run_id"]]
        )
        estimated = dict(zip(given.question_id, given.est_tokens))
        assert all(row.prompt_tokens <= estimated[row.item_id] for row in counted.itertuples())
        settings.append(summary["setting_id"])
        figures[setting] = {
            "est_prompt_tokens": int(given.est_tokens.max()),
            "server_prompt_tokens": int(counted.prompt_tokens.max()),
            "units_kept": int(given.units_kept.max()),
            "units_total": int(given.units_total.max()),
        }
    judged = run_judge(
        gold_film,
        JudgeOptions(
            backend="openai",
            where={"settings": settings},
            llm=real_config(llama_server, max_tokens=300).public_dict(),
        ),
    )
    check_plumbing(gold_film, judged["run_id"])
    assert judged["done"] + judged["failed"] == 6
    table = metrics_table(gold_film, judge=judged["judge"], by="setting")
    measured = [row for row in table.rows if row.get("setting") in settings]
    assert len(measured) == len(settings)
    artifacts = REPO_ROOT / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    (artifacts / "answer_real_server.json").write_text(
        json.dumps(
            {
                "label": "plumbing check of SmolLM2-135M, not a result",
                "settings": figures,
                "judged": judged["done"],
                "judge_failed": judged["failed"],
                "metrics": measured,
            },
            indent=2,
            default=str,
        )
    )


def test_exported_subtitles_task_runs_in_inspect_with_the_claim_judge(
    gold_film, llama_server, tmp_path
):
    pytest.importorskip("inspect_ai", reason="inspect_ai is in the test extra (make test)")
    from inspect_ai.log import read_eval_log

    from pipelines.export_task import export_task
    from pipelines.results import import_results
    from pipelines.settings import SettingOptions

    task = tmp_path / "task"
    report = export_task(
        gold_film,
        "inspect",
        "lfvqa",
        task,
        where={"film_id": [FILM]},
        limit=2,
        setting="subtitles",
        setting_options=SettingOptions(context_tokens=WINDOW, answer_tokens=ANSWER_TOKENS),
    )
    first = json.loads((task / "dataset.jsonl").read_text().splitlines()[0])
    assert "[00:" in first["input"] and first["metadata"]["setting"] == "subtitles"
    env = {
        **os.environ,
        f"{SERVICE.upper()}_BASE_URL": llama_server.base_url,
        f"{SERVICE.upper()}_API_KEY": "local-test-key",
        "NO_PROXY": "*",
    }
    model = f"openai-api/{SERVICE}/{MODEL_NAME}"
    command = [sys.executable, "-m", "inspect_ai", "eval", "task.py", "--model", model]
    command += ["--max-tokens", str(ANSWER_TOKENS), "--temperature", "0"]
    command += ["--log-dir", str(tmp_path / "logs"), "--display", "none"]
    command += ["-T", "judge_max_tokens=200"]
    ran = subprocess.run(command, cwd=task, env=env, capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0, ran.stderr[-3000:] + llama_server.log_tail()
    (log_file,) = sorted((tmp_path / "logs").glob("*.eval"))
    log = read_eval_log(str(log_file))
    assert log.status == "success"
    assert sorted(s.id for s in log.samples) == sorted(report.sample_ids)
    # the claim judge scored every sample with Eq. 1's measures (or said it could not read
    # the tiny judge's reply: `judged` 0)
    metrics = {m.name for score in log.results.scores for m in score.metrics.values()}
    names = {score.name for score in log.results.scores}
    assert {"recall", "precision", "f1", "contradiction", "judged"} <= names | metrics
    for sample in log.samples:
        (value,) = [score.value for score in sample.scores.values()]
        assert set(value) == {"recall", "precision", "f1", "contradiction", "judged"}
    imported = import_results(gold_film, log_file)
    assert imported.kind == "answers" and imported.n_matched == 2 and not imported.unmatched
