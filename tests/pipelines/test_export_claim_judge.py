"""The exported inspect task's claim-judge scorer (LF-VideoQA §3.3, Eq. 1) under inspect_ai's
own eval loop, with inspect's `mockllm` as answerer and judge: the scores are exactly Eq. 1 of
the labels the judge returned, the judge saw StoryScope's judge prompt with the question's
rubric, an unreadable judge reply scores nothing (`judged` 0) rather than a guess, and a video
setting's frames reach the model as image content."""

from __future__ import annotations

import json

import pytest

from tests.support.app_fixtures import build_app_fixture

pytest.importorskip("inspect_ai", reason="inspect_ai is in the test extra (make test)")


def _output(content: str):
    from inspect_ai.model import ModelOutput, ModelUsage

    output = ModelOutput.from_content(model="mockllm", content=content)
    output.usage = ModelUsage(input_tokens=40, output_tokens=3, total_tokens=43)
    return output


class ScriptedModel:
    """Answers, then judges: the judge labels claim 1 asserted, claim 2 contradicted and the rest
    omitted; with `garbled`, the judge's reply is not JSON."""

    def __init__(self, garbled: bool = False) -> None:
        self.garbled, self.inputs = garbled, []

    def __call__(self, messages, *args, **kwargs):
        text = messages[-1].text if messages else ""
        self.inputs.append(messages)
        if "RUBRIC CLAIMS:" not in text:
            return _output("Mara believes Tomas hid the log.")
        if self.garbled:
            return _output("I think it is mostly right.")
        claims = text.split("RUBRIC CLAIMS:")[1].split("CANDIDATE ANSWER:")[0].strip().splitlines()
        labels = ["asserted", "contradicted"] + ["omitted"] * (len(claims) - 2)
        verdicts = [{"claim": i + 1, "label": label} for i, label in enumerate(labels)]
        return _output(json.dumps({"verdicts": verdicts}))


def _run(store, tmp_path, monkeypatch, model, **export):
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    from pipelines.export_task import export_task

    task = tmp_path / "task"
    export_task(store, "inspect", "lfvqa", task, **export)
    monkeypatch.chdir(task)  # inspect resolves a task file relative to the working folder
    (log,) = inspect_eval(
        "task.py",
        model=get_model("mockllm/model", custom_outputs=model),  # answers and judges
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    return log


def _rubric(store, question_id):
    return store.df(
        "SELECT ord, role FROM rubric_claims WHERE question_id = ? ORDER BY ord", [question_id]
    )


def test_scores_are_eq1_of_the_judges_labels(store, tmp_path, monkeypatch):
    build_app_fixture(store)
    model = ScriptedModel()
    log = _run(store, tmp_path, monkeypatch, model, limit=2)
    assert log.status == "success", log.error
    for sample in log.samples:
        (score,) = sample.scores.values()
        rubric = _rubric(store, sample.id)
        core = list(rubric.loc[rubric.role == "core", "ord"])
        # labels: 1 asserted, 2 contradicted, others omitted
        recall = sum(o == 1 for o in core) / len(core)
        assert score.value["recall"] == pytest.approx(recall)
        assert score.value["precision"] == pytest.approx(0.5)
        f1 = 2 * 0.5 * recall / (0.5 + recall) if recall else 0.0
        assert score.value["f1"] == pytest.approx(f1)
        assert score.value["contradiction"] == pytest.approx(1 / len(rubric))
        assert score.value["judged"] == 1.0
    judge_prompts = [m for m in model.inputs if "RUBRIC CLAIMS:" in m[-1].text]
    assert len(judge_prompts) == 2
    assert "asserted" in judge_prompts[0][0].text  # StoryScope's judge instructions
    metrics = {
        score.name: {name: metric.value for name, metric in score.metrics.items()}
        for score in log.results.scores
    }
    assert set(metrics) == {"recall", "precision", "f1", "contradiction", "judged"}
    assert metrics["judged"]["mean_of_defined"] == 1.0


def test_an_unreadable_judge_reply_scores_nothing(store, tmp_path, monkeypatch):
    build_app_fixture(store)
    log = _run(store, tmp_path, monkeypatch, ScriptedModel(garbled=True), limit=1)
    (sample,) = log.samples
    (score,) = sample.scores.values()
    assert score.value["judged"] == 0.0 and score.value["recall"] is None
    assert "unreadable" in score.explanation
