"""Classic DTW (StoryMindv2 §3.1's method class) and align-eval's --method option."""

from __future__ import annotations

import numpy as np
import pytest

from pipelines.preprocess.align_eval import evaluate_file
from pipelines.preprocess.dtw import dtw_cost_rows, dtw_cue_to_line, dtw_path, dtw_similarity


def _naive_dtw(cost: np.ndarray) -> np.ndarray:
    """Textbook DTW recursion, cell by cell (the reference for the vectorised rows)."""
    n, m = cost.shape
    acc = np.full((n + 1, m + 1), np.inf)
    acc[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            acc[i, j] = cost[i - 1, j - 1] + min(acc[i - 1, j - 1], acc[i - 1, j], acc[i, j - 1])
    return acc[1:, 1:]


def test_vectorised_rows_equal_the_textbook_recursion():
    rng = np.random.default_rng(7)
    for shape in [(1, 5), (5, 1), (9, 6), (6, 9), (30, 40)]:
        cost = rng.random(shape)
        assert np.allclose(dtw_cost_rows(cost), _naive_dtw(cost))


def test_path_covers_every_cue_and_line_monotonically():
    cost = np.random.default_rng(3).random((12, 20))
    path = dtw_path(cost)
    assert path[0] == (0, 0) and path[-1] == (11, 19)
    assert {i for i, _ in path} == set(range(12)) and {j for _, j in path} == set(range(20))
    assert all(
        0 <= a2 - a1 <= 1 and 0 <= b2 - b1 <= 1 and (a2, b2) != (a1, b1)
        for (a1, b1), (a2, b2) in zip(path, path[1:])
    )
    assert sum(cost[i, j] for i, j in path) == pytest.approx(dtw_cost_rows(cost)[-1, -1])


def test_cut_line_is_absorbed_by_the_closer_cue():
    cues = ["Where were you last night?", "At the harbour,", "checking the boats."]
    harbour = "At the harbour, checking the boats."
    # a cut line sharing words with the previous cue is absorbed by that cue (its first line stays)
    assert dtw_cue_to_line(
        cues, ["Where were you last night?", "Last night we sailed.", harbour]
    ) == [0, 2, 2]
    # a cut line sharing nothing: a tie, broken towards the diagonal, so the next cue starts on
    # the cut line - the release's "first cue of a line gets the line before" pattern
    assert dtw_cue_to_line(cues, ["Where were you last night?", "Bring the nets.", harbour]) == [
        0,
        1,
        2,
    ]


def test_a_cue_stretched_over_lines_takes_the_first():
    # one cue holding two script lines: the release's first-row convention gives the first line
    lines = ["Tell me.", "There was a raven.", "Go home now."]
    cues = ["Tell me. There was a raven.", "Go home now."]
    assert dtw_cue_to_line(cues, lines) == [0, 2]


def test_symmetric_cost_prefers_the_line_that_is_all_of_the_cue():
    similarity = dtw_similarity(["Hello?"], ["Hello?", "Hello, is anyone home tonight?"])
    assert similarity[0, 0] == pytest.approx(1.0)
    assert 0.0 < similarity[0, 1] < 0.75  # the cue is all in the line, the line not in the cue


def test_empty_inputs():
    assert dtw_cue_to_line(["a cue"], []) == [None]
    assert dtw_cue_to_line([], ["a line"]) == []
    assert dtw_path(np.zeros((0, 3))) == []


@pytest.mark.realdata
def test_dtw_and_dp_on_a_real_film(shared_data):
    # golden values measured on this commit (docs/PREPROCESSING.md): the DTW, like the release's,
    # keeps more of the automatic's rows; the DP gets more cues to the human scene and speaker
    path = (
        shared_data / "storyvideoqa" / "aligned_script" / "Movie" / "IMDB-039-The Terminator.json"
    )
    dtw, dp = evaluate_file(path, "dtw"), evaluate_file(path, "dp")
    assert dtw.cues == dp.cues == 564
    assert dtw.fields["row"].ours == pytest.approx(0.606, abs=0.003)
    # (0.543 before the neighbour rule moved word-less cues to their neighbour's line)
    assert dp.fields["row"].ours == pytest.approx(0.539, abs=0.003)
    assert dtw.ours == pytest.approx(0.661, abs=0.003)
    assert dp.ours == pytest.approx(0.755, abs=0.003)
    assert dtw.automatic == dp.automatic == pytest.approx(0.608, abs=0.002)
