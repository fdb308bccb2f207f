"""The evidence trail's measures: where an agent looked (the film intervals its tool calls
touched) against where the answer was (the question's evidence scenes), per answer.

Pure functions over intervals `(start_s, end_s)` in film seconds (docs/SETTINGS.md, "Agents: the
evidence trail"):

- `touched_scene_flags`: which evidence scenes a trail touched. The rule (LF-VideoQA §4.3 names
  the tools but no measure of the trail, so it is ours): a scene is touched when some touched
  interval overlaps its span by a positive length. Spans that merely meet end to start do not
  count (scenes are contiguous, so a call ending where a scene begins has not looked at it);
  a zero-length interval (a single time) or zero-length span (an evidence time without a scene)
  counts when it lies inside the other, edges included.
- `temporal_iou`: the clue-grounding IoU of CG-Bench (Chen et al. 2024, "CG-Bench: Clue-grounded
  Question Answering Benchmark for Long Video Understanding", white-box mIoU; its toolkit's
  `calculate_intervals_iou`): each side's intervals merged into their union, then
  |touched ∩ evidence| / |touched ∪ evidence| in seconds, 0 when the union has no length (as
  there). A question without evidence spans has no IoU (NaN, left out of means).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

Interval = tuple[float, float]


def clean_intervals(intervals: Iterable[Sequence[float]] | None) -> list[Interval]:
    """Finite (start, end) pairs with start <= end (a reversed pair is put in order); pairs
    that are not two finite numbers are dropped (a model's bad arguments can leave them)."""
    if intervals is None:
        return []
    pairs = list(intervals)
    try:  # the usual case, all pairs of numbers, in one array operation
        array = np.array(pairs, dtype=float)
    except (TypeError, ValueError):
        array = None
    if array is None or array.ndim != 2 or array.shape[1] != 2:
        return _clean_one_by_one(pairs)
    array = np.sort(array[np.isfinite(array).all(axis=1)], axis=1)
    return [(start, end) for start, end in array.tolist()]


def _clean_one_by_one(pairs: list) -> list[Interval]:
    kept = []
    for pair in pairs:
        try:
            start, end = (float(value) for value in pair)
        except (TypeError, ValueError):
            continue
        if math.isfinite(start) and math.isfinite(end):
            kept.append((min(start, end), max(start, end)))
    return kept


def merge_intervals(intervals: Iterable[Sequence[float]] | None) -> list[Interval]:
    """The union of `intervals` as sorted, disjoint intervals (ones that meet are joined, as
    CG-Bench's `merge_intervals`)."""
    return _merged(clean_intervals(intervals))


def _merged(clean: list[Interval]) -> list[Interval]:
    merged: list[list[float]] = []
    for start, end in sorted(clean):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(start, end) for start, end in merged]


def _length(merged: list[Interval]) -> float:
    return sum(end - start for start, end in merged)


def _shared(left: list[Interval], right: list[Interval]) -> float:
    """Seconds in both of two merged (sorted, disjoint) lists: one sweep over both."""
    shared, i, j = 0.0, 0, 0
    while i < len(left) and j < len(right):
        shared += max(0.0, min(left[i][1], right[j][1]) - max(left[i][0], right[j][0]))
        if left[i][1] < right[j][1]:
            i += 1
        else:
            j += 1
    return shared


def total_length(intervals: Iterable[Sequence[float]] | None) -> float:
    """Seconds covered by the union of `intervals`."""
    return _length(merge_intervals(intervals))


def intersection_length(a: Iterable[Sequence[float]], b: Iterable[Sequence[float]]) -> float:
    """Seconds covered by both unions."""
    return _shared(merge_intervals(a), merge_intervals(b))


def temporal_iou(touched: Iterable[Sequence[float]], evidence: Iterable[Sequence[float]]) -> float:
    """CG-Bench's clue-grounding IoU of the touched intervals with the evidence spans (module
    docstring); NaN when there are no evidence spans."""
    return _iou(merge_intervals(touched), merge_intervals(evidence))


def _iou(touched: list[Interval], evidence: list[Interval]) -> float:
    if not evidence:
        return math.nan
    overlap = _shared(touched, evidence)
    union = _length(touched) + _length(evidence) - overlap
    return overlap / union if union > 0 else 0.0


def overlaps(interval: Sequence[float], span: Sequence[float]) -> bool:
    """Whether `interval` touches `span` under the trail's rule (module docstring)."""
    (start, end), (span_start, span_end) = sorted(interval), sorted(span)
    shared = min(end, span_end) - max(start, span_start)
    if end == start or span_end == span_start:
        return shared >= 0  # a single time inside the other, edges included
    return shared > 0


def touched_scene_flags(
    touched: Iterable[Sequence[float]], spans: Iterable[Sequence[float]]
) -> list[bool]:
    """For each evidence span, whether any touched interval touches it."""
    return _flags(clean_intervals(touched), clean_intervals(spans))


def _flags(looked: list[Interval], spans: list[Interval]) -> list[bool]:
    return [any(overlaps(i, span) for i in looked) for span in spans]


def touched_share(touched: Iterable[Sequence[float]], spans: Iterable[Sequence[float]]) -> float:
    """The share of evidence scenes touched (NaN for a question without evidence spans)."""
    flags = touched_scene_flags(touched, spans)
    return sum(flags) / len(flags) if flags else math.nan


def answer_measures(touched, spans, prompt_tokens=None, completion_tokens=None) -> dict:
    """One answer's trail measures: evidence scenes, how many were touched, their share, the
    temporal IoU, the seconds of film looked at, and the tokens spent (NaN when the run did
    not count them). Each side's intervals are cleaned and merged once."""
    looked, scenes = clean_intervals(touched), clean_intervals(spans)
    flags = _flags(looked, scenes)
    looked_union = _merged(looked)
    counted = [float(t) for t in (prompt_tokens, completion_tokens) if _number(t)]
    return {
        "evidence_scenes": len(flags),
        "touched_scenes": sum(flags),
        "touched_share": sum(flags) / len(flags) if flags else math.nan,
        "tiou": _iou(looked_union, _merged(scenes)),
        "seconds_looked": _length(looked_union),
        "tokens": sum(counted) if counted else math.nan,
    }


def _number(value) -> bool:
    """Whether `value` is a count (not None, NaN or pandas' NA of a column of NULLs)."""
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False
