"""The measure that chose the retrieval tools' rankers (pipelines.agents.tools.coverage): the
share of a question's evidence scenes the top results overlap, on a film built here whose
figures are worked out by hand."""

from __future__ import annotations

import pandas as pd
import pytest


def _film():
    from pipelines.agents.tools import FilmIndex

    cues = [
        [0, 0.0, 5.0, "The red door is locked."],
        [1, 50.0, 55.0, "A blue car waits outside."],
        [2, 100.0, 105.0, "Pour the red wine."],
        [3, 150.0, 155.0, "Nothing to see here."],
    ]
    return FilmIndex.from_dict(
        {
            "format": 1,
            "film_id": "f",
            "tier": "regular",
            "title": "F",
            "duration_s": 300.0,
            "video": None,
            "video_problem": "no video is registered for this film",
            "rankers": [["subtitle_search", "regular", "bm25"]],
            "tables": {
                "subtitles": {"columns": ["cue_index", "start_s", "end_s", "text"], "rows": cues}
            },
        }
    )


def _evidence() -> pd.DataFrame:
    rows = [
        ("q1", "red", 0, 0.0, 10.0),
        ("q1", "red", 1, 40.0, 60.0),
        ("q1", "red", 2, 95.0, 110.0),
        ("q2", "blue car", 1, 40.0, 60.0),
        ("q2", "blue car", 5, 200.0, 210.0),
    ]
    return pd.DataFrame(
        rows, columns=["question_id", "question", "scene_index", "start_s", "end_s"]
    )


def test_evidence_coverage_by_hand():
    from pipelines.agents.tools.coverage import evidence_coverage

    coverage = evidence_coverage(_film(), _evidence(), "subtitle_search", "bm25")
    # q1: the two "red" cues overlap scenes 0 and 2 of three; q2: the car cue, scene 1 of two
    assert coverage.questions == 2
    assert coverage.evidence_share == pytest.approx((2 / 3 + 1 / 2) / 2)
    assert coverage.top1_hit == 1.0
    assert coverage.runtime_share == pytest.approx((10 / 300 + 5 / 300) / 2)


def test_the_probe_leaves_the_index_rankers_alone():
    from pipelines.agents.tools.coverage import evidence_coverage

    index = _film()
    evidence_coverage(index, _evidence(), "subtitle_search", "embedding")
    assert index.ranker("subtitle_search") == "bm25"


def test_overlaps_and_union_length():
    from pipelines.agents.tools.coverage import overlaps, union_length

    assert overlaps((0, 10), (9, 20)) and not overlaps((0, 10), (10, 20))
    assert union_length([(0, 10), (5, 15), (20, 25)]) == 20
    assert union_length([]) == 0
