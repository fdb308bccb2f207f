"""Scene and line times from the cue alignment (LF-VideoQA App. C, "Alignment to the subtitles").

"A scene takes the time span of its matched lines. Scenes without a matched line get an
interpolated span and are never used as anchors." Interpolated spans share the gap between the
neighbouring matched scenes in proportion to each scene's amount of text, and carry
`time_source = "interpolated"` so later steps can exclude them as anchors. The alignment also
gives every cue the script line it belongs to and every character the first cue in which one of
their names is spoken.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pipelines.preprocess.align import Alignment, align_cues_to_lines, tokens
from pipelines.preprocess.model import Screenplay
from pipelines.preprocess.srt_reader import Cue

# A subtitles file "for another film" matches almost nothing; below this share of dialogue
# lines matched the alignment is reported as failed instead of producing made-up times.
MIN_SHARE_MATCHED = 0.15


class AlignmentFailed(ValueError):
    """The subtitles do not fit the screenplay (e.g. they belong to another film)."""


@dataclass
class SceneTime:
    start_s: float | None
    end_s: float | None
    time_source: str  # matched | interpolated | none


@dataclass
class FilmTiming:
    """Everything the alignment adds to a parsed screenplay."""

    alignment: Alignment
    line_refs: list[tuple[int, int]]  # dialogue line → (scene index, event index)
    line_times: list[tuple[float, float] | None]  # per dialogue line, from its matched cues
    scene_times: list[SceneTime]
    cue_to_line: list[int | None]  # per cue: dialogue line index
    first_spoken: dict[str, float] = field(default_factory=dict)

    @property
    def share_lines_matched(self) -> float:
        return self.alignment.share_lines_matched

    @property
    def share_scenes_matched(self) -> float:
        if not self.scene_times:
            return 0.0
        return sum(t.time_source == "matched" for t in self.scene_times) / len(self.scene_times)


def time_film(
    screenplay: Screenplay, cues: list[Cue], min_share: float = MIN_SHARE_MATCHED
) -> FilmTiming:
    """Align the screenplay's dialogue to the cues and derive scene spans.

    Raises:
        AlignmentFailed: when fewer than `min_share` of the dialogue lines match any cue.
    """
    refs = [
        (scene.index, position)
        for scene in screenplay.scenes
        for position, event in enumerate(scene.events)
        if event.kind == "dialogue"
    ]
    texts = [screenplay.scenes[s].events[e].text for s, e in refs]
    # With the cue times, wordless cues (ad-libs, crowd lines) take their time neighbour's line,
    # as the human-corrected StoryVideoQA sheets label them.
    alignment = align_cues_to_lines(
        [c.text for c in cues], texts, cue_times=[(c.start_s, c.end_s) for c in cues]
    )
    if refs and alignment.share_lines_matched < min_share:
        raise AlignmentFailed(
            f"only {alignment.share_lines_matched:.0%} of {len(refs)} dialogue lines match a "
            f"subtitle "
            f"cue (need {min_share:.0%}); are these the subtitles of this film?"
        )
    line_times = _line_times(cues, alignment)
    scene_times = _scene_times(screenplay, refs, line_times, cues)
    return FilmTiming(alignment, refs, line_times, scene_times, list(alignment.cue_to_line))


def _line_times(cues: list[Cue], alignment: Alignment) -> list[tuple[float, float] | None]:
    spans: dict[int, tuple[float, float]] = {}
    for cue, line in zip(cues, alignment.cue_to_line):
        if line is None or not alignment.line_matched[line]:
            continue
        start, end = spans.get(line, (cue.start_s, cue.end_s))
        spans[line] = (min(start, cue.start_s), max(end, cue.end_s))
    return [spans.get(i) for i in range(len(alignment.line_matched))]


def _scene_times(screenplay: Screenplay, refs, line_times, cues: list[Cue]) -> list[SceneTime]:
    matched: dict[int, tuple[float, float]] = {}
    for (scene, _), span in zip(refs, line_times):
        if span is not None:
            start, end = matched.get(scene, span)
            matched[scene] = (min(start, span[0]), max(end, span[1]))
    times = [
        SceneTime(*matched[s.index], "matched") if s.index in matched else None
        for s in screenplay.scenes
    ]
    film_end = max((c.end_s for c in cues), default=0.0)
    _interpolate(times, screenplay, film_end)
    return times


def _interpolate(times: list[SceneTime | None], screenplay: Screenplay, film_end: float) -> None:
    """Fill runs of unmatched scenes between their matched neighbours, sized by text length."""
    index = 0
    while index < len(times):
        if times[index] is not None:
            index += 1
            continue
        run_end = index
        while run_end < len(times) and times[run_end] is None:
            run_end += 1
        left = times[index - 1].end_s if index > 0 else 0.0
        right = times[run_end].start_s if run_end < len(times) else film_end
        right = max(right, left)
        weights = [
            max(1, sum(len(e.text) for e in screenplay.scenes[i].events))
            for i in range(index, run_end)
        ]
        cursor, total = left, sum(weights)
        for offset, weight in enumerate(weights):
            length = (right - left) * weight / total
            times[index + offset] = SceneTime(
                round(cursor, 3), round(cursor + length, 3), "interpolated"
            )
            cursor += length
        index = run_end


def first_spoken_times(
    aliases: dict[str, list[str]], cues: list[Cue], skip_words: frozenset[str] = frozenset()
) -> dict[str, float]:
    """Start time of the first cue that says one of a character's names aloud.

    A name counts when all its tokens appear in the cue as consecutive words, or when one of
    its distinctive tokens (≥ 3 letters, not an honorific or a generic role word) does.
    """
    cue_words = [tokens(c.text) for c in cues]
    found: dict[str, float] = {}
    for canonical, names in aliases.items():
        patterns = _name_patterns(names, skip_words)
        for cue, words in zip(cues, cue_words):
            joined = " " + " ".join(words) + " "
            if any(f" {p} " in joined for p in patterns):
                found[canonical] = cue.start_s
                break
    return found


def _name_patterns(names: list[str], skip_words: frozenset[str]) -> set[str]:
    patterns = set()
    for name in names:
        words = tokens(re.sub(r"'s voice$", "", name, flags=re.I))
        if not words:
            continue
        patterns.add(" ".join(words))
        patterns.update(w for w in words if len(w) >= 3 and w not in skip_words)
    return {p for p in patterns if p not in skip_words}
