"""`storyscope answer --executor`: the questions in units on an executor (pipelines.scale) write
what the local path writes, a unit whose calls failed is retried by the same command and
nothing answered is sent again, and an embedded Ray writes what a local executor writes."""

from __future__ import annotations

import pytest

from tests.support.fake_llm import PATIENT_TIMEOUT_S, FakeReply
from tests.support.gold_film import with_gold_film

FILM = "the-keepers-ledger"


def _reply(body: dict, number: int) -> str:
    question = body["messages"][-1]["content"].rsplit("Question: ", 1)[-1]
    return f"About: {question[:40]}"


class FlakyOnce:
    """Fails the first `n` calls with a 500 (after retries: failed items), then answers."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __call__(self, body: dict, number: int):
        return FakeReply(status=500, content="down") if number < self.n else _reply(body, number)


def _options(server, fake_llm, **changes):
    from pipelines.answer import AnswerOptions

    llm = fake_llm.config(server, timeout_s=PATIENT_TIMEOUT_S, max_retries=0).public_dict()
    base = dict(setting="subtitles", context={"context_tokens": 3000}, llm=llm)
    return AnswerOptions(**{**base, **changes})


def _answers(store, setting_id):
    return store.df(
        "SELECT question_id, text FROM answers WHERE setting_id = ? ORDER BY question_id",
        [setting_id],
    )


def test_units_on_a_local_executor_write_what_the_plain_path_writes(store, fake_llm):
    from pipelines.answer import answer_questions
    from pipelines.answer.scaled import answer_on_executor
    from pipelines.scale import LocalExecutor

    with_gold_film(store)
    server = fake_llm(_reply)
    plain = answer_questions(store, _options(server, fake_llm, setting_name="plain"))
    scaled = answer_on_executor(
        store, _options(server, fake_llm, setting_name="scaled"), LocalExecutor()
    )
    assert scaled["answered"] == plain["answered"] == 25 and scaled["units"] == 2
    assert _answers(store, "plain").text.tolist() == _answers(store, "scaled").text.tolist()
    given = store.df(
        "SELECT count(*) AS n, count(answer_id) AS answered FROM answer_inputs"
        " WHERE setting_id = ?",
        ["scaled"],
    ).iloc[0]
    assert given.n == given.answered == 25


def test_a_failed_unit_is_retried_by_the_same_command_and_nothing_is_sent_twice(store, fake_llm):
    from pipelines.answer.scaled import answer_on_executor
    from pipelines.scale import LocalExecutor

    with_gold_film(store)
    server = fake_llm(FlakyOnce(3))
    options = _options(server, fake_llm, setting_name="flaky")
    first = answer_on_executor(store, options, LocalExecutor())
    assert first["failed"] == 3 and first["answered"] == 22 and first["units_failed"] >= 1
    sent = len(server.log.bodies)
    again = answer_on_executor(store, options, LocalExecutor())
    assert again["resumed_from"] is not None and again["answered"] == 3
    assert len(server.log.bodies) == sent + 3  # only the three that failed
    assert len(_answers(store, "flaky")) == 25
    run = store.df("SELECT status FROM runs WHERE run_id = ?", [again["run_id"]]).iloc[0]
    assert again["run_id"] == first["run_id"] and run.status == "finished"


@pytest.mark.slow
def test_ray_writes_what_a_local_executor_writes(
    tmp_path, migrated_template, fake_llm, ray_executor
):
    from pipelines.answer.scaled import answer_on_executor
    from pipelines.scale import LocalExecutor
    from tests.support.store_files import store_copy

    server = fake_llm(_reply)
    texts = {}
    for name, executor in (("local", LocalExecutor()), ("ray", ray_executor)):
        (tmp_path / name).mkdir()
        store = with_gold_film(store_copy(migrated_template, tmp_path / name / "store.duckdb"))
        summary = answer_on_executor(store, _options(server, fake_llm, limit=6), executor)
        assert summary["answered"] == 6, summary
        texts[name] = _answers(store, summary["setting_id"]).text.tolist()
    assert texts["local"] == texts["ray"]
