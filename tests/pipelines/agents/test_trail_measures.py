"""The evidence trail's measures on hand-made intervals (golden values worked out by hand in the
comments): interval unions, the touched-scene rule, CG-Bench's clue-grounding IoU, the claim
readings and the per-setting rows."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from pipelines.metrics.trail import (
    answer_measures,
    merge_intervals,
    temporal_iou,
    touched_scene_flags,
    touched_share,
)
from pipelines.metrics.trail_table import (
    READINGS,
    claims_against_trail,
    evidence_touched,
    trail_setting_rows,
)

# the gold film's evidence scenes 1, 6 and 16 (question keepers-gold-N2-a)
N2A_SPANS = [[64.84, 101.58], [228.66, 262.43], [580.70, 612.29]]


def test_unions_sort_join_and_drop_what_is_not_an_interval():
    given = [[5, 3], [1, 2], [2, 2.5], [10, 11], ["x", 1], [math.nan, 2], [7]]
    assert merge_intervals(given) == [(1.0, 2.5), (3.0, 5.0), (10.0, 11.0)]
    assert merge_intervals(None) == [] and merge_intervals([]) == []


def test_temporal_iou_golden_values():
    # one against one: overlap 5 s of a 15 s union
    assert temporal_iou([[0, 10]], [[5, 15]]) == pytest.approx(1 / 3)
    # overlapping touched intervals are one union first (CG-Bench merges): not 6 + 6 = 12 s
    assert temporal_iou([[0, 6], [4, 10]], [[5, 15]]) == pytest.approx(1 / 3)
    # N2-a: touched 40 + 11.34 s, evidence 36.74 + 33.77 + 31.59 = 102.10 s, shared
    # 35.16 + 11.34 = 46.50 s; union 51.34 + 102.10 - 46.50 = 106.94 s
    touched = [[60.0, 100.0], [228.66, 240.0]]
    assert temporal_iou(touched, N2A_SPANS) == pytest.approx(46.50 / 106.94)
    assert temporal_iou(N2A_SPANS, N2A_SPANS) == pytest.approx(1.0)
    assert temporal_iou([], N2A_SPANS) == 0.0  # looked nowhere
    assert math.isnan(temporal_iou(touched, []))  # no evidence: no IoU
    assert temporal_iou([[5, 5]], [[5, 5]]) == 0.0  # a union of no length scores 0, as CG-Bench


def test_the_touched_rule():
    scene = [211.17, 228.66]
    # meeting end to start is not looking at the scene (scenes are contiguous)
    assert touched_scene_flags([[200.0, 211.17]], [scene]) == [False]
    assert touched_scene_flags([[228.66, 240.0]], [scene]) == [False]
    assert touched_scene_flags([[200.0, 211.2]], [scene]) == [True]
    # a single time inside a scene, or on its edge, touches it; a reversed pair is put in order
    assert touched_scene_flags([[220, 220]], [scene]) == [True]
    assert touched_scene_flags([[211.17, 211.17]], [scene]) == [True]
    assert touched_scene_flags([[240, 215]], [scene]) == [True]
    # an evidence time without a scene (zero length) is touched by an interval holding it
    assert touched_scene_flags([[290, 310]], [[300, 300], [320, 320]]) == [True, False]
    assert touched_share([[60.0, 100.0], [228.66, 240.0]], N2A_SPANS) == pytest.approx(2 / 3)
    assert math.isnan(touched_share([[0, 1]], []))


def test_answer_measures():
    measures = answer_measures([[60.0, 100.0], [228.66, 240.0]], N2A_SPANS, 1200, 150)
    assert measures["evidence_scenes"] == 3 and measures["touched_scenes"] == 2
    assert measures["seconds_looked"] == pytest.approx(51.34) and measures["tokens"] == 1350
    assert math.isnan(answer_measures([], N2A_SPANS, None, None)["tokens"])
    assert answer_measures([], N2A_SPANS, 100, None)["tokens"] == 100


def test_claim_readings_tell_never_looked_from_seen_and_not_stated():
    evidence = evidence_touched(
        pd.DataFrame(
            {
                "scene_index": [5, 10, 11],
                "start_s": [211.17, 385.73, 430.12],
                "end_s": [228.66, 419.33, 451.26],
                "claim_ords": [[1], [2, 3], [4]],
            }
        ),
        [[200.0, 211.17], [380.0, 420.0]],
    )
    assert evidence["touched"].tolist() == [False, True, False]
    claims = pd.DataFrame(
        {
            "ord": [4, 1, 2, 3, 5, 6],
            "role": ["core"] * 6,
            "claim": list("dabcef"),
            "verdict": ["omitted", "omitted", "asserted", "omitted", "omitted", None],
        }
    )
    table = claims_against_trail(claims, evidence)
    assert table["ord"].tolist() == [1, 2, 3, 4, 5, 6]
    assert table["reading"].tolist() == [
        READINGS["never looked"],
        READINGS["asserted"],
        READINGS["seen"],
        READINGS["never looked"],
        READINGS["no evidence"],
        READINGS["not judged"],
    ]
    assert table["evidence scenes"].tolist()[:4] == ["5", "10", "10", "11"]
    assert table["touched"].tolist()[:4] == ["", "10", "10", ""]


def _loops(**columns) -> pd.DataFrame:
    frame = pd.DataFrame(columns)
    defaults = {
        "run_id": "r1",
        "setting_label": frame["setting_id"],
        "tier": "fast",
        "outcome": "answered",
        "bad_calls": 0,
        "tokens": 100.0,
        "recall": np.nan,
    }
    return frame.assign(**{k: v for k, v in defaults.items() if k not in frame})


def test_setting_rows_average_loops_per_question_then_over_questions():
    loops = _loops(
        setting_id=["a", "a", "a", "b"],
        question_id=["q1", "q1", "q2", "q1"],
        touched_share=[1.0, 0.0, 1.0, 0.5],
        tiou=[0.5, 0.1, 0.3, np.nan],
        turns=[2, 4, 6, 8],
        tool_calls=[1, 3, 5, 7],
        outcome=["answered", "step_limit", "failed", "answered"],
        bad_calls=[0, 2, 1, 0],
    )
    a, b = trail_setting_rows(loops, resamples=300)
    # q1's two loops average to 0.5 touched, then (0.5 + 1.0) / 2 over the questions
    assert (a["setting"], a["n"], a["loops"]) == ("a", 2, 3)
    assert a["touched_share"] == pytest.approx(0.75) and a["turns"] == pytest.approx(4.5)
    assert a["tiou"] == pytest.approx((0.3 + 0.3) / 2)
    assert (a["answered"], a["step_limit"], a["failed"], a["bad_calls"]) == (1, 1, 1, 3)
    low, high = a["touched_share_ci"]
    assert 0.5 <= low <= a["touched_share"] <= high <= 1.0
    assert b["tiou"] is None and b["tiou_ci"] == [None, None]  # no evidence, no IoU
    # a setting's interval resamples its own questions: the same beside other settings or alone
    (alone,) = trail_setting_rows(loops[loops.setting_id == "a"], resamples=300)
    assert alone == a


def test_touched_recall_relation():
    loops = _loops(
        setting_id=["a"] * 4,
        question_id=["q1", "q2", "q3", "q4"],
        touched_share=[0.0, 0.5, 1.0, 0.25],
        tiou=[0.0] * 4,
        turns=[1] * 4,
        tool_calls=[1] * 4,
        recall=[0.1, 0.4, 0.9, np.nan],
    )
    (row,) = trail_setting_rows(loops, resamples=50)
    assert row["recall_n"] == 3 and row["touched_recall_rho"] == pytest.approx(1.0)
    reversed_recall = loops.assign(recall=[0.9, 0.4, 0.1, np.nan])
    (row,) = trail_setting_rows(reversed_recall, resamples=50)
    assert row["touched_recall_rho"] == pytest.approx(-1.0)
    (row,) = trail_setting_rows(loops.iloc[:2], resamples=50)
    assert row["recall_n"] == 2 and row["touched_recall_rho"] is None  # too few to rank
