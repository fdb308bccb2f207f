"""Accuracy by topic and by difficulty bin, for imported and StoryScope methods alike, equals a
pandas computation over the same prediction rows (per question and method, the latest finished
run's prediction)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from data_access import rollups
from data_access.queries import distributions_view
from data_access.queries.mcq_methods import prediction_methods, question_predictions
from data_access.tables.mcq import insert_difficulty
from data_access.tables.runs import RunSpec, finish_run, insert_run
from pipelines.mcq.methods import AnswerOptions, answer_mcqs
from pipelines.mcq.topics import TOPICS
from tests.support.mcq_records import load_records, make_mcq
from tests.support.plottree_film import FILM, write_fixture_film

N = 28  # two questions per topic


def _setup(store, tmp_path) -> None:
    write_fixture_film(store)
    records = [
        make_mcq(
            "Movie",
            FILM,
            i,
            t.split("-")[0],
            t.split("-")[1],
            option="ABCDE"[i % 5],
            question=f"Question {i} about the lighthouse?",
        )
        for i, t in enumerate(TOPICS * 2)
    ]
    load_records(store, records)
    with store.transaction() as cursor:
        run = insert_run(cursor, RunSpec(step="mcq.difficulty", backend="fixture"))
        insert_difficulty(
            cursor,
            pd.DataFrame(
                {
                    "mcq_id": [r["mcq_id"] for r in records],
                    "d_q": 0.1,
                    "d_a": 0.2,
                    "d_qa": 0.3,
                    "d": [i / N for i in range(N)],
                    "bin": [i * 9 // N for i in range(N)],
                }
            ),
            run,
        )
        finish_run(cursor, run)
    # an imported method: right on even ids; a superseded older import of it is ignored
    for stale, letter_of in ((True, lambda r: "A"), (False, None)):
        path = tmp_path / f"pred{stale}.json"
        path.write_text(
            json.dumps(
                [
                    {
                        "mcq_id": r["mcq_id"],
                        "method": "VideoLLaMA3",
                        "predicted_option": letter_of(r)
                        if stale
                        else (
                            r["option"] if r["qid"] % 2 == 0 else "E" if r["option"] != "E" else "D"
                        ),
                    }
                    for r in records
                ]
            )
        )
        from pipelines.mcq.predictions import import_predictions

        import_predictions(store, path)


def _pandas_rows(store) -> pd.DataFrame:
    """Per question and method the latest finished run's prediction, with topic and bin."""
    predictions = store.df(
        "SELECT p.*, r.started_at, r.status FROM mcq_predictions p JOIN runs r USING (run_id)"
    )
    finished = predictions[predictions["status"] == "finished"]
    newest = finished.groupby(["mcq_id", "method"])["started_at"].idxmax()
    rows = finished.loc[newest].drop(columns=["started_at", "status"])
    questions = store.df("SELECT mcq_id, question_type, story_element FROM mcq_questions")
    bins = store.df("SELECT mcq_id, bin FROM current_mcq_difficulty")
    return rows.merge(questions, on="mcq_id").merge(bins, on="mcq_id")


def test_accuracy_by_topic_and_bin_equal_pandas_over_the_same_rows(store, fake_llm, tmp_path):
    _setup(store, tmp_path)

    def varied(body, n):  # a letter that depends on the question, so accuracy varies by topic
        prompt = body["messages"][-1]["content"]
        number = int(prompt.split("Question: Question ", 1)[1].split(" ", 1)[0])
        return json.dumps({"option": "ABCDE"[number * 7 % 5 if number % 3 else number % 5]})

    config = fake_llm.config(fake_llm(varied))
    answer_mcqs(store, AnswerOptions("subtitles", budget=200, llm_config=config))

    rows = _pandas_rows(store)
    assert set(rows["method"]) == {"VideoLLaMA3", "subtitles@200:fake-model"}
    assert len(rows) == 2 * N
    _check_views_against(store, rows)
    # the same figures from the rollups (read while they are fresh)
    rollups.refresh(store)
    assert rollups.rollups_fresh(store)
    _check_views_against(store, rows)

    methods = prediction_methods(store).set_index("method")
    assert methods.loc["VideoLLaMA3", "origin"] == "imported"
    assert methods.loc["subtitles@200:fake-model", "origin"] == "StoryScope"
    for method, part in rows.groupby("method"):
        assert methods.loc[method, "accuracy"] == pytest.approx(100 * part["correct"].mean())
        assert methods.loc[method, "n"] == len(part)

    wrong = question_predictions(store, "VideoLLaMA3", wrong_only=True)
    assert len(wrong) == N // 2 and not wrong["correct"].any()
    assert set(wrong["qid"] % 2) == {1}


def test_a_method_answered_in_parts_counts_every_part(store, fake_llm, tmp_path):
    """A method answered one slice per run (as the demo answers video by video) is seen over
    every slice; a later run supersedes only the questions it answers."""
    _setup(store, tmp_path)
    config = fake_llm.config(fake_llm(lambda body, n: json.dumps({"option": "A"})))
    ids = store.df("SELECT mcq_id FROM mcq_questions ORDER BY mcq_id").mcq_id.tolist()
    for part in (ids[: N // 2], ids[N // 2 :]):
        options = AnswerOptions("subtitles", where={"mcq_id": part}, llm_config=config)
        answer_mcqs(store, options)
    rows = _pandas_rows(store)
    method = rows.method[rows.method != "VideoLLaMA3"].iloc[0]
    assert (rows.method == method).sum() == N  # both halves, not the last run's half
    _check_views_against(store, rows)
    rollups.refresh(store)
    _check_views_against(store, rows)
    listed = prediction_methods(store).set_index("method")
    assert listed.loc[method, "n"] == N and listed.loc[method, "runs"] == 2
    assert len(question_predictions(store, method)) == N


def _check_views_against(store, rows: pd.DataFrame) -> None:
    by_topic = distributions_view.accuracy_by_topic(store).set_index(
        ["method", "question_type", "story_element"]
    )
    expected = rows.groupby(["method", "question_type", "story_element"])["correct"].agg(
        ["mean", "size"]
    )
    assert len(by_topic) == len(expected) == 2 * 14
    for key, row in expected.iterrows():
        assert by_topic.loc[key, "accuracy"] == pytest.approx(100 * row["mean"])
        assert by_topic.loc[key, "n"] == row["size"]

    by_bin = distributions_view.accuracy_by_bin(store).set_index(["method", "bin"])
    expected = rows.groupby(["method", "bin"])["correct"].mean().mul(100)
    assert len(by_bin) == len(expected) == 2 * 9
    for key, value in expected.items():
        assert by_bin.loc[key, "accuracy"] == pytest.approx(value)
