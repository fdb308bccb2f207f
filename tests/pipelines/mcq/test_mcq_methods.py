"""StoryScope's own MCQ methods (`storyscope mcq answer`): the scripted server answers, and the
tests read what it was sent (the subtitle budget rule, PlotTree QA's prompt and retrieval), the
predictions and their run provenance, and a rerun that replays from the cache."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from pipelines.cli import app
from pipelines.mcq.methods import AnswerOptions, answer_mcqs, provenance_summary
from tests.support.mcq_records import load_records, make_mcq
from tests.support.plottree_film import FILM, SCENES, write_fixture_film

CUES = [cue for scene in SCENES for cue in scene[4]]


def _mcqs(store) -> list[dict]:
    records = [
        make_mcq(
            "Movie",
            FILM,
            1,
            "P",
            "C",
            question="Who took the spare key?",
            option="B",
            times=["00:01:00-00:01:10"],
        ),
        make_mcq(
            "Movie",
            FILM,
            2,
            "I",
            "CA",
            question="Why does Ann shout?",
            option="A",
            times=["00:08:20-00:08:26"],
        ),
        make_mcq(
            "Movie",
            FILM,
            3,
            "P",
            "L",
            question="Where is the lamp?",
            option="C",
            times=["00:05:00-00:05:30"],
        ),
    ]
    load_records(store, records)
    return records


def _description(prompt: str) -> str:
    return prompt.split("Description: \n", 1)[1].split("\n\n\nQuestion:", 1)[0]


def _always(letter: str):
    return lambda body, n: json.dumps({"option": letter})


def test_subtitles_answer_within_the_budget_and_join_the_predictions(store, fake_llm):
    write_fixture_film(store)
    _mcqs(store)
    server = fake_llm(_always("B"))
    config = fake_llm.config(server)
    result = answer_mcqs(store, AnswerOptions("subtitles", budget=40, llm_config=config))
    assert result["method"] == "subtitles@40:fake-model" and result["questions"] == 3
    assert result["accuracy"] == pytest.approx(100 / 3, abs=0.01)  # only question 1 is B

    prompts = [body["messages"][-1]["content"] for body in server.log.bodies]
    assert len(prompts) == 3
    contexts = {_description(p) for p in prompts}
    # one context for every question of the video: the evidence times differ, the context not
    assert len(contexts) == 1
    [context] = contexts
    lines = context.splitlines()
    assert 0 < len(lines) < len(CUES) and len(context) / 4 <= 40
    all_lines = [f"[00:{int(s) // 60:02d}:{int(s) % 60:02d}] {text}" for _, text, s, _ in CUES]
    assert all(line in all_lines for line in lines)
    positions = [all_lines.index(line) for line in lines]
    assert positions == sorted(positions) and positions[-1] >= len(CUES) - len(CUES) / len(lines)
    assert "Question: Who took the spare key?" in prompts[0]
    assert "(A) answer 1 0\n(B) answer 1 1\n" in prompts[0] and prompts[0].endswith("Answer: (")

    rows = store.df("SELECT * FROM mcq_predictions ORDER BY mcq_id")
    assert rows["predicted_option"].tolist() == ["B", "B", "B"]
    assert rows["correct"].tolist() == [True, False, False]
    run = store.df("SELECT * FROM runs WHERE run_id = ?", [result["run_id"]]).iloc[0]
    assert (run.step, run.backend, run.model, run.status) == (
        "mcq.answer",
        "openai",
        "fake-model",
        "finished",
    )
    assert run.prompt_version == "mcq-subtitles-v1"
    params = json.loads(run.params)
    video = params["videos"][FILM]
    assert params["budget_tokens"] == 40 and video["rule"] == "evenly-spaced-cues"
    assert video["cues_kept"] == len(lines) and video["cues_cut"] == len(CUES) - len(lines)
    assert "api_key" not in json.dumps(params) and "SECRET" not in json.dumps(params)
    assert provenance_summary(run.params).startswith("budget 40 tokens; ")


def test_a_rerun_replays_from_the_cache(store, fake_llm):
    write_fixture_film(store)
    _mcqs(store)
    server = fake_llm(_always("A"))
    options = dict(budget=500, llm_config=fake_llm.config(server))
    first = answer_mcqs(store, AnswerOptions("subtitles", **options))
    again = answer_mcqs(store, AnswerOptions("subtitles", **options))
    assert len(server.log.bodies) == 3  # the second run sent nothing
    assert (first["accuracy"], again["accuracy"]) == (pytest.approx(100 / 3, abs=0.01),) * 2
    assert store.scalar("SELECT count(DISTINCT run_id) FROM mcq_predictions") == 2


def test_a_malformed_reply_is_no_answer_counted_wrong(store, fake_llm):
    write_fixture_film(store)
    _mcqs(store)

    def handler(body, n):
        prompt = body["messages"][-1]["content"]
        return "not json at all" if "Question: Who took" in prompt else json.dumps({"option": "A"})

    config = fake_llm.config(fake_llm(handler), structured="json_schema")
    result = answer_mcqs(store, AnswerOptions("subtitles", llm_config=config))
    assert (result["failed"], result["answered"]) == (1, 2)
    row = store.df("SELECT * FROM mcq_predictions WHERE mcq_id LIKE '%:1'").iloc[0]
    assert row.predicted_option is None and not row.correct
    assert result["method"] == "subtitles@16000:fake-model"  # the default budget


def test_videos_without_subtitles_are_skipped_and_said(store, fake_llm):
    _mcqs(store)  # no film rows: no subtitles
    config = fake_llm.config(fake_llm(_always("A")))
    with pytest.raises(ValueError, match="no MCQs match"):
        answer_mcqs(store, AnswerOptions("subtitles", where={"vid": ["nope"]}, llm_config=config))
    result = answer_mcqs(store, AnswerOptions("subtitles", llm_config=config))
    assert result["questions"] == 0 and result["skipped"] == {FILM: "no subtitles in the store"}


@pytest.mark.slow
def test_plottree_qa_sends_the_release_prompt_and_stores_its_retrieval(store, fake_llm):
    from data_access.queries.mcq_methods import prediction_retrieval, question_predictions
    from pipelines.plottree.build import build_film_tree

    write_fixture_film(store)
    _mcqs(store)
    build_film_tree(store, FILM)
    server = fake_llm(_always("B"))
    options = AnswerOptions("plottree", top_m=3, llm_config=fake_llm.config(server))
    result = answer_mcqs(store, options)
    assert result["method"] == "plottree:fake-model" and result["answered"] == 3
    prompt = server.log.bodies[0]["messages"][-1]["content"]
    assert prompt.startswith("You are presented with a textual description of a video clip,")
    context = _description(prompt).splitlines()
    assert len(context) == 3 and all(re.match(r"\(\d+\): ", line) for line in context)
    starts = [int(line[1 : line.index(")")]) for line in context]
    assert starts == sorted(starts)  # chronological, as §5.2 sorts them
    rows = question_predictions(store, "plottree:fake-model")
    assert rows["retrieved"].all() and rows["predicted_option"].tolist() == ["B"] * 3
    nodes = prediction_retrieval(store, rows.run_id[0], rows.mcq_id[0])
    assert len(nodes) == 3 and nodes["summary"].notna().all()
    assert [f"({int(s)}): {t}" for s, t in zip(nodes.start_s, nodes.summary)] == context
    run = store.df("SELECT * FROM runs WHERE run_id = ?", [result["run_id"]]).iloc[0]
    assert run.prompt_version == "plottree-qa-release-v1" and json.loads(run.params)["top_m"] == 3


@pytest.mark.slow
def test_plottree_offline_backend_is_named_and_budget_cuts_nodes(store):
    from pipelines.plottree.build import build_film_tree

    write_fixture_film(store)
    _mcqs(store)
    build_film_tree(store, FILM)
    result = answer_mcqs(store, AnswerOptions("plottree", budget=60, top_m=4))
    assert result["method"] == "plottree@60:minilm-option-match" and result["answered"] == 3
    run = store.df("SELECT backend, params FROM runs WHERE run_id = ?", [result["run_id"]])
    assert run.backend[0] == "minilm-option-match"
    assert json.loads(run.params[0])["videos"][FILM]["nodes_cut"] > 0
    contexts = store.df("SELECT context, answer_backend FROM plottree_retrievals")
    assert (contexts["context"].str.len() / 4 <= 60).all()
    assert (contexts["answer_backend"] == "minilm-option-match").all()
    # `plottree ask-mcqs` is the same method on one film's questions
    result = CliRunner().invoke(
        app, ["plottree", "ask-mcqs", "--film", FILM, "--json", "--store", str(store.path)]
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert (payload["method"], payload["questions"]) == ("plottree:minilm-option-match", 3)
    assert (
        store.scalar(
            "SELECT count(*) FROM mcq_predictions WHERE method = 'plottree:minilm-option-match'"
        )
        == 3
    )


def test_the_cli_answers_and_refuses_bad_options(store, fake_llm, monkeypatch):
    write_fixture_film(store)
    _mcqs(store)
    server = fake_llm(_always("C"))
    monkeypatch.setenv("STORYSCOPE_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("STORYSCOPE_LLM_API_KEY", "sk-test-SECRET-0123456789abcdef")
    runner = CliRunner()
    base = ["mcq", "answer", "--store", str(store.path)]
    result = runner.invoke(
        app,
        [
            *base,
            "--method",
            "subtitles",
            "--model",
            "fake-model",
            "--where",
            "type=P",
            "--limit",
            "1",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["questions"] == 1 and payload["accuracy"] == 0.0  # question 1: B, chose C
    bad = runner.invoke(app, [*base, "--method", "subtitles", "--backend", "offline"])
    assert bad.exit_code != 0 and "needs a model" in bad.output
    bad = runner.invoke(app, [*base, "--method", "oracle", "--backend", "offline"])
    assert bad.exit_code != 0 and "unknown method 'oracle'" in bad.output
    bad = runner.invoke(app, [*base, "--method", "subtitles", "--where", "film=x"])
    assert bad.exit_code != 0 and "unknown field 'film'" in bad.output


def test_a_run_the_llm_budget_stops_is_resumed_not_counted(store, fake_llm):
    from data_access.queries.mcq_methods import prediction_methods
    from tests.support.fake_llm import FakeReply

    write_fixture_film(store)
    _mcqs(store)
    server = fake_llm(
        lambda body, n: FakeReply(
            content=json.dumps({"option": "B"}), prompt_tokens=100, completion_tokens=100
        )
    )
    stopped = answer_mcqs(
        store,
        AnswerOptions(
            "subtitles", llm_config=fake_llm.config(server, concurrency=1, budget_tokens=250)
        ),
    )
    assert (stopped["status"], stopped["questions"]) == ("stopped", 2)
    assert prediction_methods(store).empty  # a stopped run is not the method's result
    resumed = answer_mcqs(store, AnswerOptions("subtitles", llm_config=fake_llm.config(server)))
    assert resumed["status"] == "finished" and resumed["questions"] == 3
    assert len(server.log.bodies) == 3  # the two answered before replayed from the cache
    assert prediction_methods(store)["n"].tolist() == [3]
