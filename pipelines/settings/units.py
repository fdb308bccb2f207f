"""A film as a sequence of units in film order: what a setting shows a model, before the budget.

A unit is one screenplay line (or scene heading), one subtitle cue, one caption chunk (with the
subtitles of its interval, in the combined setting) or one sampled frame (with the subtitles of
its interval). Units carry their times, so what was kept can be reported as time ranges.
"""

from __future__ import annotations

from dataclasses import dataclass

from data_access.formats.film_time import film_clock


@dataclass(frozen=True)
class Unit:
    """One piece of a film's representation.

    Attributes:
        text: the unit's text as the model reads it ("" for a bare frame).
        start_s, end_s: the film interval it stands for (None when the store has no times).
        structural: kept first while it fits (a scene heading).
        frame_path: a JPEG of the frame at `frame_time_s`, for video units.
    """

    text: str
    start_s: float | None = None
    end_s: float | None = None
    structural: bool = False
    frame_time_s: float | None = None
    frame_path: str | None = None


def clock(seconds: float | None) -> str:
    """A unit's time stamp as prompts print it (HH:MM:SS)."""
    return film_clock(seconds, missing="--:--:--", padded=True)


def stamp(start_s: float | None, end_s: float | None) -> str:
    """`[HH:MM:SS-HH:MM:SS]`, or "" when the unit has no times."""
    if start_s is None or start_s != start_s:
        return ""
    return f"[{clock(start_s)}-{clock(end_s)}] "


def screenplay_units(lines) -> list[Unit]:
    """Scene headings and lines of the parsed screenplay (`film_context.screenplay_lines`)."""
    units: list[Unit] = []
    scene = None
    for row in lines.itertuples(index=False):
        if row.scene_index != scene:
            scene = row.scene_index
            heading = row.heading if isinstance(row.heading, str) else f"Scene {int(scene) + 1}"
            units.append(
                Unit(
                    f"\n{stamp(row.scene_start_s, row.scene_end_s)}{heading}",
                    _time(row.scene_start_s),
                    _time(row.scene_start_s),
                    structural=True,
                )
            )
        units.append(Unit(_line_text(row), _time(row.start_s), _time(row.end_s)))
    return units


def _line_text(row) -> str:
    if row.kind == "dialogue" and row.character:
        aside = f" ({row.parenthetical})" if isinstance(row.parenthetical, str) else ""
        return f"{row.character}{aside}: {row.text}"
    return str(row.text)


def subtitle_units(cues) -> list[Unit]:
    """One unit per subtitle cue, time-stamped."""
    return [
        Unit(f"{stamp(c.start_s, c.end_s)}{_one_line(c.text)}", float(c.start_s), float(c.end_s))
        for c in cues.itertuples(index=False)
    ]


def interleaved_units(chunks, cues, with_subtitles: bool) -> list[Unit]:
    """Caption chunks in time order, each followed by the subtitles that start inside it.

    Args:
        chunks: rows with start_s, end_s, caption.
        cues: the subtitle track (rows with start_s, end_s, text).
        with_subtitles: False for the captions-only setting.
    """
    cue_rows = list(cues.itertuples(index=False)) if with_subtitles else []
    units, next_cue = [], 0
    for chunk in chunks.itertuples(index=False):
        lines = [f"{stamp(chunk.start_s, chunk.end_s)}Video: {_one_line(chunk.caption)}"]
        while next_cue < len(cue_rows) and cue_rows[next_cue].start_s < chunk.end_s:
            lines.append(f"  Subtitle: {_one_line(cue_rows[next_cue].text)}")
            next_cue += 1
        units.append(Unit("\n".join(lines), float(chunk.start_s), float(chunk.end_s)))
    return units


def frame_units(frames, cues, interval_s: float, with_subtitles: bool) -> list[Unit]:
    """One unit per sampled frame, with the subtitles of [t, t + interval) when asked.

    Args:
        frames: (time_s, jpeg_path) pairs in time order.
        cues: the subtitle track.
        interval_s: seconds between frames (1 / fps).
    """
    cue_rows = list(cues.itertuples(index=False)) if with_subtitles else []
    units, next_cue = [], 0
    for time_s, path in frames:
        end = time_s + interval_s
        lines = [f"[{clock(time_s)}]"]
        while next_cue < len(cue_rows) and cue_rows[next_cue].start_s < end:
            lines.append(f"Subtitle: {_one_line(cue_rows[next_cue].text)}")
            next_cue += 1
        units.append(
            Unit(
                "\n".join(lines),
                float(time_s),
                float(end),
                frame_time_s=float(time_s),
                frame_path=str(path),
            )
        )
    return units


def _one_line(text) -> str:
    return " ".join(str(text).split())


def _time(value) -> float | None:
    return None if value is None or value != value else float(value)
