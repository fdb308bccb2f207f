"""The judge end to end on a slice built in code: lexical offline, openai against the fake
server."""

from __future__ import annotations

import pytest

from data_access.tables.judging import verdicts_of_run
from pipelines.judge import JudgeOptions, dry_run, run_judge
from pipelines.judge.prompt import JudgeReply, checked_labels, judge_messages
from tests.support.lfvqa_rows import build_slice, scripted_judge


def _llm_options(fake_llm, server, **kw) -> JudgeOptions:
    config = fake_llm.config(server)
    llm = {k: v for k, v in config.public_dict().items()}
    return JudgeOptions(backend="openai", llm=llm, **kw)


def test_openai_judge_writes_one_verdict_per_claim(store, fake_llm, monkeypatch):
    sizes = build_slice(store)
    server = fake_llm(scripted_judge)
    monkeypatch.setenv("STORYSCOPE_LLM_API_KEY", "sk-test-judge-key-000")
    summary = run_judge(store, _llm_options(fake_llm, server))
    assert summary["judge"] == "fake-model@judge-claims-v2"
    assert summary["done"] == sizes["answers"] and summary["failed"] == 0
    verdicts = verdicts_of_run(store, summary["run_id"]).set_index(["answer_id", "claim_id"])
    assert len(verdicts) == sizes["verdicts"]
    assert verdicts.loc[("q0-Q1-subtitles", "q0-Q1-c3"), "verdict"] == "contradicted"
    assert verdicts.loc[("q0-Q4-screenplay", "q0-Q4-c2"), "verdict"] == "asserted"
    assert verdicts.loc[("q0-Q4-screenplay", "q0-Q4-c1"), "verdict"] == "omitted"
    assert server.log.bodies[0]["temperature"] == 0
    assert server.log.bodies[0]["response_format"]["type"] == "json_schema"


def test_lexical_judge_labels_and_scores(store):
    build_slice(store)
    summary = run_judge(store, JudgeOptions(backend="lexical"))
    assert summary["judge"] == "lexical"
    verdicts = verdicts_of_run(store, summary["run_id"]).set_index(["answer_id", "claim_id"])
    got = verdicts.verdict.to_dict()
    # The gold-text answer asserts all its claims; the declining answer omits everything;
    # "Angus knows about the invitation" contradicts "Angus does not yet know ...".
    assert {got[("q0-Q1-screenplay", f"q0-Q1-c{i}")] for i in (1, 2, 3)} == {"asserted"}
    assert {got[("q0-Q4-subtitles", f"q0-Q4-c{i}")] for i in (1, 2)} == {"omitted"}
    assert got[("q0-Q1-subtitles", "q0-Q1-c3")] == "contradicted"
    scores = store.df("SELECT * FROM lexical_scores WHERE run_id = ?", [summary["run_id"]])
    gold_row = scores.set_index("answer_id").loc["q0-Q1-screenplay"]
    assert gold_row.rl == pytest.approx(1.0) and gold_row.cov50 == 1.0 and gold_row.hedge == 0


def test_minilm_support_judge_is_a_named_offline_backend(store):
    build_slice(store)
    summary = run_judge(store, JudgeOptions(backend="minilm-support"))
    assert summary["judge"] == "minilm-support" and summary["failed"] == 0
    verdicts = verdicts_of_run(store, summary["run_id"]).set_index(["answer_id", "claim_id"])
    got = verdicts.verdict.to_dict()
    # The gold-text answer states its claims; this method never claims a contradiction.
    assert {got[("q0-Q1-screenplay", f"q0-Q1-c{i}")] for i in (1, 2, 3)} == {"asserted"}
    assert set(got.values()) <= {"asserted", "omitted"} and "omitted" in set(got.values())
    assert verdicts.rationale.str.contains("best source sentence cosine").all()
    judge = store.df("SELECT * FROM judges WHERE judge_id = 'minilm-support'").iloc[0]
    assert judge.kind == "lexical" and judge.prompt_version == "minilm-support-v1"


def test_gold_self_check_reports_core_omissions(store):
    build_slice(store)
    summary = run_judge(store, JudgeOptions(backend="lexical", gold=True))
    assert summary["answers"] == 2 and summary["gold_failures"] == []


def test_filters_limit_and_dry_run_write_nothing(store, fake_llm):
    build_slice(store, n_copies=2)
    server = fake_llm(scripted_judge)
    options = _llm_options(fake_llm, server, where={"qtypes": ["Q4"], "settings": ["subtitles"]})
    before = store.scalar("SELECT count(*) FROM runs")
    plan = dry_run(store, options)
    assert plan["answers"] == 2 and plan["claims"] == 4 and plan["cache_hits"] == 0
    assert plan["est_prompt_tokens"] > 0
    assert store.scalar("SELECT count(*) FROM runs") == before and not server.log.bodies
    run_judge(store, options)
    assert dry_run(store, options)["cache_hits"] == 2
    limited = run_judge(store, JudgeOptions(backend="lexical", limit=3))
    assert limited["answers"] == 3


def test_reply_must_label_every_claim_once():
    check = checked_labels([1, 2])
    reply = JudgeReply.model_validate({"verdicts": [{"claim": 1, "label": "asserted"}]})
    with pytest.raises(ValueError, match="expected"):
        check(reply)
    messages = judge_messages("Q?", [{"ord": 1, "role": "core", "text": "C."}], "An {answer}")
    assert "An {answer}" in messages[1]["content"] and "declines" in messages[0]["content"]


def test_two_judges_compare_on_lfvqa_verdicts(store, fake_llm, monkeypatch):
    from pipelines.agreement import agreement_report

    sizes = build_slice(store)
    server = fake_llm(scripted_judge)
    monkeypatch.setenv("STORYSCOPE_LLM_API_KEY", "sk-test-judge-key-000")
    run_judge(store, _llm_options(fake_llm, server))
    run_judge(store, JudgeOptions(backend="lexical"))
    report = agreement_report(store, "lfvqa")
    assert report.judges == ["fake-model@judge-claims-v2", "lexical"]
    pair = report.pairs[0]
    assert pair["n"] == sizes["verdicts"] and 0 <= pair["agreement"] <= 1
    assert (
        report.confusions[("fake-model@judge-claims-v2", "lexical")].to_numpy().sum()
        == sizes["verdicts"]
    )


def test_progress_counts_a_batch_retried_after_a_conflict_once(store):
    """The writer counts answers in memory; a rolled-back attempt of a batch and its
    retry must count each answer once, and the count must equal the store's after commit."""
    from data_access.tables.judging import count_answers_in_run
    from pipelines.judge.verdicts import VerdictWriter

    build_slice(store)
    options = JudgeOptions(backend="lexical")
    first = run_judge(store, JudgeOptions(backend="lexical", limit=2))
    answers = store.df("SELECT answer_id, question_id FROM answers ORDER BY answer_id")
    claims = store.df("SELECT question_id, claim_id FROM rubric_claims")
    todo = answers[~answers.answer_id.isin(verdicts_of_run(store, first["run_id"]).answer_id)]
    rows = [
        (a.answer_id, c.claim_id, "omitted", None)
        for a in todo.itertuples()
        for c in claims[claims.question_id == a.question_id].itertuples()
    ]
    writer = VerdictWriter(store, first["run_id"], options.identity().judge_id, first["done"])
    with pytest.raises(RuntimeError), store.transaction() as cursor:
        writer.write(cursor, rows[:4])
        raise RuntimeError("write conflict")
    with store.transaction() as cursor:
        writer.write(cursor, rows[:4])
    with store.transaction() as cursor:
        writer.write(cursor, rows[4:])
        stored = count_answers_in_run(cursor, first["run_id"])
    assert writer.done == stored == len(answers)


def test_a_local_run_lets_other_processes_read_the_store_while_it_waits_on_the_endpoint(
    store, fake_llm
):
    """A local run's units wait on the endpoint in the job's process; meanwhile the store file
    is free, so the app (another process) can read the job's progress."""
    import threading
    import time

    from data_access.store import Store
    from pipelines.jobs import job_status, start_job, wait_for
    from tests.support.fake_llm import TEST_KEY

    build_slice(store)
    gate = threading.Event()

    def handler(body, n):
        if n >= 1:  # the first call answers; the rest of the first unit waits
            gate.wait(60)
        return scripted_judge(body, n)

    server = fake_llm(handler)
    config = fake_llm.config(server, concurrency=2, timeout_s=60.0)
    params = JudgeOptions(backend="openai", llm=config.public_dict()).params()
    store = Store(store.path, lock_timeout=120)
    env = {"STORYSCOPE_LLM_API_KEY": TEST_KEY}
    job_id = start_job(store, "judge", params, mode="subprocess", env=env)
    try:
        deadline = time.monotonic() + 120
        while len(server.log.bodies) < 3:  # the unit's calls are out, two of them held
            assert time.monotonic() < deadline, "the job sent nothing"
            time.sleep(0.05)
        reader = Store(store.path, lock_timeout=3)
        assert job_status(reader, job_id)["state"] == "running"  # read while the unit waits
    finally:
        gate.set()
    wait_for(job_id, timeout=120)
    assert job_status(store, job_id)["state"] == "finished"
