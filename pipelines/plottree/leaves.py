"""PlotTree leaf nodes from a film's text timeline (StoryVideoQA §5.1, "Leaf Node Generation").

The paper samples keyframes at 1 fps (§6.1) and captions each with the characters recognised in
it (P_i), the subtitle dialogue (d_i) and a plot summary (s_i); t_i is the keyframe index.
Without video, the leaves follow the film's own units (`leaf_units`: one per time-stamped scene,
backend `scene-window`; subtitle clips when the film has no timed scene, `subtitle-clip`), or
fixed windows of `leaf_seconds` when a caller asks (`subtitle-script-window`; W = 1 s is the
paper's 1 fps). Credits are dropped and no leaf ends past the runtime. Every leaf is built from
the aligned script and subtitles, never passed off as a caption:

- d_i: the subtitle cues of the leaf. A scene or clip holds the cues that start in it (each cue
  in one leaf), written as one "Dialogue: …" part per clip (`leaf_units.clip_groups`), so
  segment-pooled embedding reads a long scene exchange by exchange instead of truncating it at
  MiniLM's 256 tokens; a fixed window holds the cues overlapping it;
- P_i: the characters of the leaf's scene (its speakers; a scene's cast is on screen), plus any
  speaker of d_i;
- s_i: "<scene location>: <stage direction>". A scene leaf takes its scene's directions in
  order, cut at `DIRECTION_WORDS` words (a summary, not the script: the whole scene is on the
  Film page). A fixed window takes the direction current at its middle, where a direction
  line's time is estimated as the time of the nearest timed line before it in its scene (else
  the scene start), since the release times only dialogue. A clip has no scene, so no s_i;
- the leaf text that is embedded joins s_i, d_i and P_i, like the authors' combined caption.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pipelines.plottree.leaf_units import (
    CLIP_BACKEND,
    SCENE_BACKEND,
    WINDOW_BACKEND,
    clip_groups,
    clip_windows,
    drop_credit_cues,
    film_span,
    fixed_windows,
    scene_windows,
    timed_scenes,
)

DIRECTION_WORDS = 80


@dataclass
class Leaves:
    """Leaf nodes, one row per leaf: t, start_s, end_s, summary, characters, backend.

    `backend` names how they were cut (`leaf_units`); `seconds` is the window length (None for
    scenes and clips)."""

    frame: pd.DataFrame
    seconds: float | None
    backend: str


def direction_times(lines: pd.DataFrame, scenes: pd.DataFrame) -> pd.Series:
    """Estimated start time of each script line (timed lines keep their own)."""
    scene_start = dict(zip(scenes["scene_index"], scenes["start_s"]))
    estimate, last_scene, last_time = [], None, None
    for scene, start in zip(lines["scene_index"], lines["start_s"]):
        if scene != last_scene:
            last_scene, last_time = scene, scene_start.get(scene)
        if start is not None and not pd.isna(start):
            last_time = float(start)
        estimate.append(last_time)
    return pd.Series(estimate, index=lines.index, dtype="float64")


def _text(value: object) -> str:
    """A scene field as text: missing (None, or NaN from a headerless scene) is empty, so a leaf
    never reads "nan: Gittes laughs"."""
    return value.strip() if isinstance(value, str) else ""


def _scene_casts(lines: pd.DataFrame) -> dict[int, list[str]]:
    talk = lines[(lines["kind"] == "dialogue") & lines["character"].notna()]
    return {
        int(s): list(dict.fromkeys(c.strip().title() for c in part["character"] if c.strip()))
        for s, part in talk.groupby("scene_index")
    }


def _scene_at(times: np.ndarray, scenes: pd.DataFrame) -> np.ndarray:
    """Index into `scenes` of the scene running at each time (-1 before the first)."""
    starts = scenes["start_s"].fillna(-np.inf).to_numpy(dtype=float)
    return np.searchsorted(starts, times, side="right") - 1


def _current_direction(
    times: np.ndarray,
    lines: pd.DataFrame,
    est: pd.Series,
    scene_of_time: np.ndarray,
    scenes: pd.DataFrame,
) -> list[str]:
    directions = lines.assign(t=est)[(lines["kind"] == "direction") & est.notna()]
    by_scene = {
        int(s): (part["t"].to_numpy(), part["text"].tolist())
        for s, part in directions.groupby("scene_index")
    }
    scene_ids = scenes["scene_index"].to_numpy()
    out = []
    for time, position in zip(times, scene_of_time):
        entry = by_scene.get(int(scene_ids[position])) if position >= 0 else None
        if not entry:
            out.append("")
            continue
        k = max(int(np.searchsorted(entry[0], time, side="right")) - 1, 0)
        out.append(entry[1][k])
    return out


def _dialogue(
    windows: np.ndarray, seconds: float, subtitles: pd.DataFrame, speaker_of_line: dict[int, str]
) -> tuple[list[str], list[list[str]]]:
    subtitles = subtitles.sort_values("start_s", kind="stable")
    starts = subtitles["start_s"].to_numpy(float)
    ends = subtitles["end_s"].to_numpy(float)
    texts = subtitles["text"].tolist()
    matched = subtitles["matched_line"].tolist()
    longest = float((ends - starts).max()) if len(starts) else 0.0
    dialogue, speakers = [], []
    for lo in windows:
        hi = lo + seconds
        # a cue overlaps [lo, hi) when start < hi and end > lo; only cues starting after
        # lo - longest can still be running, so the scan is a short slice
        first = int(np.searchsorted(starts, lo - longest, side="left"))
        last = int(np.searchsorted(starts, hi, side="left"))
        hits = [i for i in range(first, last) if ends[i] > lo]
        dialogue.append(" ".join(texts[i] for i in hits))
        names = [
            speaker_of_line.get(int(matched[i]))
            for i in hits
            if matched[i] is not None and not pd.isna(matched[i])
        ]
        speakers.append([n for n in names if n])
    return dialogue, speakers


def _leaf_text(place: str, direction: str, dialogue: list[str], people: list[str]) -> str:
    """s_i, then each d_i part, then P_i, as one text ("(no dialogue)" when all are empty)."""
    summary = f"{place}: {direction}".strip(": ").strip() if (place or direction) else ""
    parts = [summary, *(f"Dialogue: {d}" for d in dialogue if d)]
    parts.append(f"Characters: {', '.join(people)}." if people else "")
    return " ".join(p for p in parts if p) or "(no dialogue)"


def _place(scene) -> str:
    return (_text(scene["location"]) or _text(scene["heading"])) if scene is not None else ""


def _speakers_of(lines: pd.DataFrame) -> dict[int, str]:
    """line_index -> its speaker's name (title case), for dialogue lines."""
    return {
        int(i): str(c).strip().title()
        for i, c, k in zip(
            lines.get("line_index", []), lines.get("character", []), lines.get("kind", [])
        )
        if k == "dialogue" and c
    }


def _leaf_row(t: int, start: float, end: float, text: str, people: list[str]) -> dict:
    return {
        "t": t,
        "start_s": float(start),
        "end_s": float(end),
        "summary": text,
        "characters": people,
    }


def _window_leaves(
    subtitles: pd.DataFrame,
    lines: pd.DataFrame,
    scenes: pd.DataFrame,
    runtime_s: float | None,
    seconds: float,
) -> Leaves:
    """Fixed windows of `seconds` over the span (the paper's 1 fps at 1.0)."""
    scenes = scenes.sort_values("start_s", na_position="first").reset_index(drop=True)
    duration = film_span(subtitles, scenes, runtime_s)
    subtitles = subtitles[subtitles["start_s"] < duration] if len(subtitles) else subtitles
    windows = fixed_windows(duration, seconds)["start_s"].to_numpy()
    count, middles = len(windows), windows + seconds / 2
    scene_pos = _scene_at(middles, scenes) if len(scenes) else np.full(count, -1)
    est = direction_times(lines, scenes) if len(lines) else pd.Series(dtype=float)
    directions = (
        _current_direction(middles, lines, est, scene_pos, scenes) if len(lines) else [""] * count
    )
    dialogue, speakers = _dialogue(windows, seconds, subtitles, _speakers_of(lines))
    casts = _scene_casts(lines) if len(lines) else {}
    rows = []
    for i in range(count):
        scene = scenes.iloc[scene_pos[i]] if scene_pos[i] >= 0 else None
        cast = casts.get(int(scene["scene_index"]), []) if scene is not None else []
        people = list(dict.fromkeys(speakers[i] + cast))
        text = _leaf_text(_place(scene), directions[i], [dialogue[i]], people)
        rows.append(_leaf_row(i, windows[i], windows[i] + seconds, text, people))
    return Leaves(pd.DataFrame(rows).assign(backend=WINDOW_BACKEND), seconds, WINDOW_BACKEND)


def _scene_directions(lines: pd.DataFrame) -> dict[int, str]:
    """scene_index -> its stage directions in script order, cut at `DIRECTION_WORDS` words."""
    if lines.empty:
        return {}
    directions = lines[(lines["kind"] == "direction") & lines["text"].notna()]
    out = {}
    for scene, part in directions.groupby("scene_index"):
        words = " ".join(t.strip() for t in part["text"] if t.strip()).split()
        cut = len(words) > DIRECTION_WORDS
        out[int(scene)] = " ".join(words[:DIRECTION_WORDS]) + (" …" if cut else "")
    return out


def _unit_leaves(
    windows: pd.DataFrame, backend: str, scenes: pd.DataFrame, cues: pd.DataFrame, lines
) -> Leaves:
    """Scene or clip leaves from `leaf_units` windows over start-ordered `cues`."""
    texts, matched = cues["text"].tolist(), cues["matched_line"].tolist()
    starts, ends = cues["start_s"].to_numpy(float), cues["end_s"].to_numpy(float)
    speaker_of_line = _speakers_of(lines)
    casts = _scene_casts(lines) if len(lines) else {}
    directions = _scene_directions(lines)
    rows = []
    for t, window in enumerate(windows.itertuples(index=False)):
        held = np.asarray(window.cues, dtype=int)
        scene = scenes.iloc[window.scene] if window.scene >= 0 else None
        index = int(scene["scene_index"]) if scene is not None else None
        clips = clip_groups(starts[held], ends[held]) if len(held) else []
        dialogue = [" ".join(texts[held[k]] for k in clip) for clip in clips]
        speakers = [
            speaker_of_line.get(int(matched[i]))
            for i in held
            if matched[i] is not None and not pd.isna(matched[i])
        ]
        people = list(dict.fromkeys([p for p in speakers if p] + casts.get(index, [])))
        text = _leaf_text(_place(scene), directions.get(index, ""), dialogue, people)
        rows.append(_leaf_row(t, window.start_s, window.end_s, text, people))
    return Leaves(pd.DataFrame(rows).assign(backend=backend), None, backend)


def build_leaves(
    timeline: dict[str, pd.DataFrame],
    runtime_s: float | None = None,
    leaf_seconds: float | None = None,
) -> Leaves:
    """The film's leaves: one per timed scene, else one per subtitle clip, or fixed windows of
    `leaf_seconds` when given (`leaf_units` has the rules).

    Args:
        timeline: `subtitles`, `lines`, `scenes` frames as
            `data_access.tables.plottree_records.film_timeline`.
        runtime_s: the video length. No leaf ends past it; credit cues are dropped.
        leaf_seconds: W for fixed windows (1.0 = the paper's 1 fps); None for the film's units.

    Raises:
        ValueError: no timed scene and no subtitle cue to place a leaf on (fixed windows
            still span the runtime).
    """
    subtitles, lines, scenes = timeline["subtitles"], timeline["lines"], timeline["scenes"]
    cues = drop_credit_cues(subtitles, runtime_s) if len(subtitles) else subtitles
    if leaf_seconds is not None:
        return _window_leaves(cues, lines, scenes, runtime_s, leaf_seconds)
    cues = cues.reset_index(drop=True)
    windows = scene_windows(scenes, cues, runtime_s)
    if len(windows):
        return _unit_leaves(windows, SCENE_BACKEND, timed_scenes(scenes), cues, lines)
    if len(cues):
        return _unit_leaves(clip_windows(cues, runtime_s), CLIP_BACKEND, scenes, cues, lines)
    raise ValueError("no timed scene and no subtitle cue to place PlotTree leaves on")
