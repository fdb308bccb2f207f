"""PlotTree leaf nodes from a film's text timeline (StoryVideoQA §5.1, "Leaf Node Generation").

The paper samples keyframes at 1 fps (§6.1) and captions each with the characters recognised in
it (P_i), the subtitle dialogue (d_i) and a plot summary (s_i); t_i is the keyframe index.
Without video, leaf i covers the window [i·W, (i+1)·W) seconds (W = `leaf_seconds`, default 1
s = 1 fps) and is built from the aligned script (backend `subtitle-script-window`, never passed
off as a caption):

- d_i: the subtitle cues overlapping the window;
- P_i: the characters of the current scene (its speakers; a scene's cast is on screen), plus
  any speaker of d_i;
- s_i: "<scene location>: <current stage direction>", where a direction line's time is
  estimated as the time of the nearest timed line before it in its scene (else the scene
  start), since the release times only dialogue;
- the leaf text that is embedded joins s_i, d_i and P_i, like the authors' combined caption.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

LEAF_BACKEND = "subtitle-script-window"


@dataclass
class Leaves:
    """Leaf nodes, one row per window: t, start_s, end_s, summary, text, characters."""

    frame: pd.DataFrame
    seconds: float


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


def _known(value: object) -> float | None:
    return None if value is None or pd.isna(value) else float(value)


def film_span(
    subtitles: pd.DataFrame, scenes: pd.DataFrame, runtime_s: float | None = None
) -> float:
    """Where the leaves end: with the film's last timed scene (never past the video's length),
    else at the video's length, else at the last subtitle's end.

    Leaves are the paper's 1-fps keyframes (§6.1), but only while the story runs: what follows
    the last scene is the credits roll, and subtitle files add their own credit cue there. The
    Departed's ("谢谢观赏！ (subtitle from http://shooter.cn …)") starts at 2:24:35, after the last
    scene ends at 2:24:00, and lasts until 3:24:47, against a 2:31:19 runtime: taking the latest
    of all ends made 12,287 leaves, the last hour of them holding only that cue.
    """
    runtime = _known(runtime_s)
    last_scene = _known(scenes["end_s"].max()) if len(scenes) else None
    if last_scene:
        return min(last_scene, runtime) if runtime else last_scene
    if runtime:
        return runtime
    return (_known(subtitles["end_s"].max()) if len(subtitles) else None) or 0.0


def build_leaves(
    timeline: dict[str, pd.DataFrame], runtime_s: float | None = None, leaf_seconds: float = 1.0
) -> Leaves:
    """Leaf windows over the whole film.

    Args:
        timeline: `subtitles`, `lines`, `scenes` frames as
        `data_access.writes.plottree.film_timeline`.
        runtime_s: the video length. Leaves end with the last timed scene (capped at the
            runtime), else at the runtime, else at the last cue (`film_span`); cues starting
            after that end (trailing credits) are dropped.
        leaf_seconds: W, the window per leaf (1.0 = the paper's 1 fps).
    """
    subtitles, lines, scenes = timeline["subtitles"], timeline["lines"], timeline["scenes"]
    scenes = scenes.sort_values("start_s", na_position="first").reset_index(drop=True)
    duration = film_span(subtitles, scenes, runtime_s)
    subtitles = subtitles[subtitles["start_s"] < duration] if len(subtitles) else subtitles
    count = max(1, math.ceil(duration / leaf_seconds))
    windows = np.arange(count) * leaf_seconds
    middles = windows + leaf_seconds / 2
    scene_pos = _scene_at(middles, scenes) if len(scenes) else np.full(count, -1)
    est = direction_times(lines, scenes) if len(lines) else pd.Series(dtype=float)
    directions = (
        _current_direction(middles, lines, est, scene_pos, scenes) if len(lines) else [""] * count
    )
    speaker_of_line = {
        int(i): str(c).strip().title()
        for i, c, k in zip(
            lines.get("line_index", []), lines.get("character", []), lines.get("kind", [])
        )
        if k == "dialogue" and c
    }
    dialogue, speakers = _dialogue(windows, leaf_seconds, subtitles, speaker_of_line)
    casts = _scene_casts(lines) if len(lines) else {}
    rows = []
    for i in range(count):
        scene = scenes.iloc[scene_pos[i]] if scene_pos[i] >= 0 else None
        place = (_text(scene["location"]) or _text(scene["heading"])) if scene is not None else ""
        cast = casts.get(int(scene["scene_index"]), []) if scene is not None else []
        people = list(dict.fromkeys(speakers[i] + cast))
        summary = (
            f"{place}: {directions[i]}".strip(": ").strip() if (place or directions[i]) else ""
        )
        text = (
            " ".join(
                part
                for part in (
                    summary,
                    f"Dialogue: {dialogue[i]}" if dialogue[i] else "",
                    f"Characters: {', '.join(people)}." if people else "",
                )
                if part
            )
            or "(no dialogue)"
        )
        rows.append(
            {
                "t": i,
                "start_s": float(windows[i]),
                "end_s": float(windows[i] + leaf_seconds),
                "summary": text,
                "characters": people,
            }
        )
    return Leaves(pd.DataFrame(rows), leaf_seconds)
