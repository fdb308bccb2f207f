"""A setting's bootstrap interval depends on its own answers only: the same on the Verdicts page
whatever the Settings filter shows beside it, and from `storyscope metrics` (one random stream
per set of questions, pipelines.metrics.tables)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pipelines import verdict_metrics
from pipelines.metrics.tables import interval_rows


def _counts() -> pd.DataFrame:
    """Three settings over eight questions of two types; `wide` answered questions the others
    did not, so one pool of questions shared by all draws differently from each alone."""
    rng = np.random.default_rng(5)
    rows = []
    answered = {"narrow": range(0, 5), "same": range(0, 5), "wide": range(0, 8)}
    for setting, questions in answered.items():
        for q in questions:
            n_core = 2 + q % 2
            n_claims = n_core + 2
            core = int(rng.integers(0, n_core + 1))
            asserted = core + int(rng.integers(0, 3))
            rows.append(
                {
                    "answer_id": f"q{q}:{setting}",
                    "question_id": f"q{q}",
                    "setting_id": setting,
                    "setting_label": setting.title(),
                    "qtype": "Q1" if q % 3 else "Q3",
                    "film_id": "f",
                    "n_claims": n_claims,
                    "n_core": n_core,
                    "n_judged": n_claims,
                    "n_asserted": asserted,
                    "n_contradicted": int(rng.integers(0, n_claims - asserted + 1)),
                    "n_core_asserted": core,
                }
            )
    return pd.DataFrame(rows)


def _intervals(frame: pd.DataFrame, setting: str) -> dict:
    row = frame.set_index(["setting_id", "qtype"]).sort_index().loc[setting]
    return row.filter(regex="_(lo|hi)$").round(9).to_dict("index")


def test_an_interval_does_not_change_with_the_settings_shown_beside_it():
    counts = _counts()
    for by_type in (False, True):
        every = verdict_metrics.slice_metrics(counts, by_type=by_type)
        for setting in ("narrow", "wide"):
            alone = verdict_metrics.slice_metrics(
                counts[counts["setting_id"] == setting], by_type=by_type
            )
            assert _intervals(alone, setting) == _intervals(every, setting)
        pair = verdict_metrics.slice_metrics(
            counts[counts["setting_id"] != "wide"], by_type=by_type
        )
        assert _intervals(pair, "narrow") == _intervals(every, "narrow")


def test_settings_that_answered_the_same_questions_share_their_draws():
    """Paired as before: two settings with identical scores get identical intervals, and the
    interval is a real one (not a point)."""
    counts = _counts()
    twin = counts[counts["setting_id"] == "narrow"].assign(
        setting_id="twin", setting_label="Twin", answer_id=lambda f: f["answer_id"] + "-twin"
    )
    frame = verdict_metrics.slice_metrics(pd.concat([counts, twin]))
    narrow, copy = _intervals(frame, "narrow"), _intervals(frame, "twin")
    assert narrow == copy
    (row,) = narrow.values()
    assert row["f1_lo"] < row["f1_hi"]


def test_the_order_of_rows_does_not_change_an_interval():
    counts = _counts()
    per_question, _ = verdict_metrics.per_question_scores(counts)
    shuffled = per_question.sample(frac=1.0, random_state=3)
    a = interval_rows(per_question, ["setting_id"], 500, seed=0)
    b = interval_rows(shuffled, ["setting_id"], 500, seed=0)
    assert a == b
    assert interval_rows(per_question, ["setting_id"], 500, seed=1) != a  # the seed is used
