"""The subtitle baseline's budget rule (pipelines/mcq/subtitle_budget.py): everything when it
fits, else evenly spaced cues, the most that fit; the rule reads no question."""

from __future__ import annotations

import inspect

from hypothesis import given
from hypothesis import strategies as st

from pipelines.mcq.answer_prompts import estimate_tokens
from pipelines.mcq.subtitle_budget import cue_line, evenly_spaced, fit_subtitles


def _track(n: int, words: int = 6) -> tuple[list[float], list[str]]:
    starts = [10.0 * i for i in range(n)]
    texts = [" ".join(f"w{i}x{j}" for j in range(words)) for i in range(n)]
    return starts, texts


def test_everything_is_given_when_it_fits():
    starts, texts = _track(20)
    fitted = fit_subtitles(starts, texts, budget=None)
    assert fitted.cues_kept == 20 and fitted.kept_positions == tuple(range(20))
    assert fitted.text.splitlines()[3] == cue_line(30.0, texts[3]) == f"[00:00:30] {texts[3]}"
    assert fit_subtitles(starts, texts, budget=fitted.tokens).cues_kept == 20  # exactly fits


def test_a_cut_keeps_evenly_spaced_cues_within_the_budget():
    starts, texts = _track(1000)
    whole = fit_subtitles(starts, texts, None)
    fitted = fit_subtitles(starts, texts, budget=whole.tokens // 10)
    assert fitted.tokens <= whole.tokens // 10 == fitted.budget
    k = fitted.cues_kept
    assert 90 <= k <= 100  # about a tenth of the cues; all lines are about the same length
    positions = fitted.kept_positions
    assert positions == tuple(evenly_spaced(1000, k))
    steps = {b - a for a, b in zip(positions, positions[1:])}
    assert max(steps) - min(steps) <= 1  # evenly spaced
    # the whole video stays represented: the first kept cue is in the first stride, the last in
    # the last one
    assert positions[0] < 1000 / k and positions[-1] >= 1000 - 1000 / k
    assert fitted.first_s == starts[positions[0]] and fitted.last_s == starts[positions[-1]]
    # one more evenly spaced cue would not have fitted
    one_more = "\n".join(cue_line(starts[p], texts[p]) for p in evenly_spaced(1000, k + 1))
    assert estimate_tokens(one_more) > fitted.budget
    assert fitted.provenance()["cues_cut"] == 1000 - k


def test_a_budget_below_one_line_gives_nothing():
    starts, texts = _track(5)
    fitted = fit_subtitles(starts, texts, budget=1)
    assert (fitted.cues_kept, fitted.text, fitted.first_s) == (0, "", None)


def test_the_rule_reads_no_question_evidence_or_answer():
    # its only inputs are the cues and the budget: nothing about a question can reach it
    assert list(inspect.signature(fit_subtitles).parameters) == ["starts", "texts", "budget"]


@given(
    lengths=st.lists(st.integers(min_value=0, max_value=200), min_size=1, max_size=300),
    budget=st.integers(min_value=1, max_value=5000),
)
def test_any_track_and_budget_fit(lengths, budget):
    starts = [float(i) for i in range(len(lengths))]
    texts = ["x" * n for n in lengths]
    fitted = fit_subtitles(starts, texts, budget)
    assert fitted.tokens <= budget
    assert list(fitted.kept_positions) == sorted(set(fitted.kept_positions))
    assert len(fitted.text.splitlines()) == fitted.cues_kept
