"""What every scaled-out LLM step learns from the endpoint, as the local gateway does: a
refused key ends the batch after one request (the refused unit written and left failed with
the reason, nothing more dispatched, the command failing with `EndpointRefused`) and the same
command resumes once the key is accepted, writing each unit once; a structured-output
step-down on a worker is remembered for the endpoint, so the next run starts in it.

Answers, scene summaries, captions, LLM belief annotation and question generation, each on
the local executor with units pickled as Ray pickles them (the judge's units:
tests/pipelines/judge/test_judge_scaled_units.py), against the scripted server.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from data_access.queries.runs_view import unit_failures
from data_access.tables import unit_ledger
from data_access.tables.llm_modes import remembered_mode
from pipelines.llm.calls import EndpointRefused
from tests.support.fake_llm import PATIENT_TIMEOUT_S, TEST_KEY, FakeReply
from tests.support.fake_server import Dialect
from tests.support.pickling_executor import PicklingExecutor


@dataclass
class Step:
    """One scaled LLM step: how to build its inputs, run it on an executor (returning the
    batch id and whether it completed), and a handler that answers it."""

    setup: Callable
    run: Callable  # (store, executor, config, part) -> (batch_id, complete); part: see below
    reply: Callable
    run_per_unit: bool = False  # the step opens a run per unit (else one for the batch)


def _answer_setup(store, tmp_path, monkeypatch):
    from tests.support.gold_film import with_gold_film

    with_gold_film(store)


def _answer_run(store, executor, config, part=None):
    from pipelines.answer import AnswerOptions
    from pipelines.answer.scaled import answer_on_executor

    options = AnswerOptions(
        setting="subtitles", context={"context_tokens": 3000}, llm=config.public_dict()
    )
    summary = answer_on_executor(store, options, executor)
    return summary["run_id"], summary["units_done"] == summary["units"]


def _films_setup(store, tmp_path, monkeypatch):
    from tests.support.scale_llm_films import FILMS
    from tests.support.scale_rows import write_rules_film

    for film in FILMS:
        write_rules_film(store, film)


def _summaries_run(store, executor, config, part=None):
    from pipelines.preprocess.summaries_scaled import summarise_films
    from tests.support.scale_llm_films import FILMS

    films = FILMS if part is None else FILMS[part : part + 1]
    batch = summarise_films(store, films, executor, "openai", config.public_dict())
    return batch.batch_id, batch.complete


def _summary_reply(body, number):
    return json.dumps({"summary": f"A scene of {len(body['messages'][-1]['content'])} chars."})


def _beliefs_run(store, executor, config, part=None):
    from pipelines.beliefs.llm.scaled import annotate_films_llm
    from tests.support.scale_llm_films import FILMS

    batch = annotate_films_llm(store, FILMS, executor, config, scenes_per_unit=2)
    return batch.batch_id, batch.complete


def _belief_reply(body, number):
    from tests.support.belief_llm_replies import route

    return route(body, number)


def _captions_setup(store, tmp_path, monkeypatch):
    from pipelines.demo import step_47_sample_animatic
    from tests.support.video_fixtures import ingest_sample_film

    monkeypatch.setenv("STORYSCOPE_FRAME_CACHE", str(tmp_path / "frame-cache"))
    ingest_sample_film(store)
    step_47_sample_animatic.run(store, None, lambda _: None)


def _captions_run(store, executor, config, part=None):
    from pipelines.video.captions import caption_film
    from tests.support.video_fixtures import SAMPLE_FILM_ID

    # 20-s chunks of the 660.5-s animatic: 34 chunks, in two units of 30
    report = caption_film(store, SAMPLE_FILM_ID, executor, config=config, chunk_s=20)
    return report.batch.batch_id, report.batch.complete


def _qgen_setup(store, tmp_path, monkeypatch):
    from tests.support.qgen_film import build_film

    build_film(store)


def _qgen_run(store, executor, config, part=None):
    from pipelines.qgen.generate import GenerateOptions
    from pipelines.qgen.scaled import generate_on_executor
    from tests.support.qgen_film import FILM

    n = 8 if part is None else 4 + part  # (another n: another batch)
    options = GenerateOptions(
        FILM, qtypes=["Q2", "Q3", "Q5"], n=n, backend="openai", with_analytics=False
    )
    batch = generate_on_executor(store, options, executor, batch_size=4, llm_config=config)
    return batch.batch_id, batch.complete


def _qgen_reply(body, number):
    from tests.support.qgen_llm_replies import handler

    return handler(body, number)


STEPS = {
    "answer": Step(_answer_setup, _answer_run, lambda body, n: "She knows the ledger is hidden."),
    "summaries": Step(_films_setup, _summaries_run, _summary_reply, run_per_unit=True),
    "captions": Step(_captions_setup, _captions_run, lambda body, n: "A keeper at his desk."),
    "beliefs": Step(_films_setup, _beliefs_run, _belief_reply, run_per_unit=True),
    "qgen": Step(_qgen_setup, _qgen_run, _qgen_reply),
}


def _config(fake_llm, server, **changes):
    # The key stays out of the config, as a user's does: driver and worker read it from the
    # environment.
    return fake_llm.config(
        server, api_key=None, concurrency=2, timeout_s=PATIENT_TIMEOUT_S, **changes
    )


@pytest.mark.parametrize("name", list(STEPS))
def test_a_refused_key_ends_the_batch_after_one_request_and_the_same_command_resumes(
    store, tmp_path, fake_llm, monkeypatch, name
):
    step = STEPS[name]
    step.setup(store, tmp_path, monkeypatch)
    monkeypatch.setenv("STORYSCOPE_LLM_API_KEY", TEST_KEY)
    refusing = {"on": True}

    def handler(body, n):
        return (
            FakeReply(status=401, content="invalid key") if refusing["on"] else step.reply(body, n)
        )

    server = fake_llm(handler)
    config = _config(fake_llm, server, structured="none" if name == "beliefs" else "auto")
    executor = PicklingExecutor()
    with pytest.raises(EndpointRefused, match=r"refused the API key \(HTTP 401\)"):
        step.run(store, executor, config)

    assert len(server.log.bodies) == 1  # the unit's first call went alone and was refused
    assert len(executor.sent) == 1  # no later unit was dispatched
    calls = store.df("SELECT status, reason FROM llm_calls WHERE NOT cached")
    assert calls.status.tolist() == ["failed"] and calls.reason.tolist() == ["key refused"]
    [batch_id] = store.df("SELECT batch_id FROM scale_batches").batch_id.tolist()
    failed = unit_failures(store, batch_id)
    assert len(failed) == 1 and "refused the API key" in failed.error.iloc[0]
    assert TEST_KEY not in failed.error.iloc[0]
    runs = store.df("SELECT status FROM runs WHERE step <> 'preprocess.film'").status.tolist()
    if step.run_per_unit:  # the refused unit's run stopped, the undispatched ones' closed
        assert sorted(set(runs)) == ["failed", "stopped"]
    else:  # the batch's one run stays open for the resume, as the judge's does
        assert runs.count("running") == 1

    refusing["on"] = False  # the key is fixed: the same command resumes the batch
    again, complete = step.run(store, PicklingExecutor(), config)
    assert complete and again == batch_id
    assert set(unit_ledger.unit_write_counts(store, batch_id).values()) == {1}


@pytest.mark.parametrize("name", ["summaries", "qgen"])
def test_a_workers_step_down_is_remembered_and_the_next_run_starts_in_it(
    store, tmp_path, fake_llm, monkeypatch, name
):
    step = STEPS[name]
    step.setup(store, tmp_path, monkeypatch)
    monkeypatch.setenv("STORYSCOPE_LLM_API_KEY", TEST_KEY)
    server = fake_llm(Dialect("llama_cpp_python", step.reply))
    config = _config(fake_llm, server)
    executor = PicklingExecutor()
    _, complete = step.run(store, executor, config, part=0)

    assert complete
    formats = [(b.get("response_format") or {}).get("type") for b in server.log.bodies]
    assert formats[0] == "json_schema" and "json_object" in formats
    assert remembered_mode(store, server.base_url, "fake-model") == "json_object"
    first = executor.payload(0)
    assert first["mode"] == "json_schema" and first["remembered"] is None
    assert first["config"].api_key is None  # the key never travels with a unit

    # The next run (another batch; the cache emptied, as the two test films share their
    # text) starts in the remembered mode: no rejected call.
    server.log.bodies.clear()
    with store.transaction() as cursor:
        cursor.execute("DELETE FROM llm_cache")
    executor = PicklingExecutor()
    _, complete = step.run(store, executor, config, part=1)
    assert complete and server.log.bodies
    assert executor.payload(0)["mode"] == executor.payload(0)["remembered"] == "json_object"
    sent = {(b.get("response_format") or {}).get("type") for b in server.log.bodies}
    assert sent == {"json_object"}
