"""Where PlotTree leaves fall on a film's clock (StoryVideoQA §5.1 "Leaf Node Generation", §6.1).

The paper's leaves are keyframes sampled at 1 fps from the video, each captioned. We have no
video for the real films, only subtitles and an aligned screenplay, and a one-second window of
text is not a unit of meaning: a 2-hour film became 7,000-9,000 leaves, most repeating the same
stage direction. So, without an explicit window length, a leaf is the film's own unit:

- **`scene-window`** (the film has time-stamped scenes): one leaf per timed scene, in order of
  start time. Leaf i runs from its scene's start to the next scene's start (the gap between two
  aligned scenes is the earlier scene's silent tail: the next scene begins when its first line
  is heard), the last leaf to the film's end (`film_span`); the first leaf starts at the first
  cue when a cue comes before the first scene. Every cue in the film therefore belongs to
  exactly one leaf, the one its start falls in. Scenes without a time are not leaves.
- **`subtitle-clip`** (no timed scene): subtitle cues merged into clips. A new clip starts
  when a cue begins more than `CLIP_GAP_S` (5 s) after every earlier cue of the clip has ended
  (a pause longer than a turn between speakers), or when the clip would pass `CLIP_MAX_S`
  (120 s). A clip runs from its first cue's start to its last cue's end; silent stretches
  between clips belong to no leaf (without scenes or video nothing is known about them). On
  the real films with their scenes ignored this makes 130-195 clips of ~20 s median (versus
  77-390 scenes).
- **`subtitle-script-window`** (a caller asks for `leaf_seconds` = W): the paper-faithful
  fixed windows [i·W, (i+1)·W) over the span, W = 1 being the paper's 1 fps.

t_i is the leaf's sequential index in every case, as the paper defines it (§5.1: "the
sequential keyframe index i"); the condensation's time term |t_i − t_j|/F then counts leaves.

Credits are dropped (`drop_credit_cues`, `film_span`): a cue starting at or after the known
runtime is not in the film; a final cue after a silence of at least `CREDITS_GAP_S` (30 s) that
lasts longer than `CREDITS_CUE_S` (20 s; no spoken cue in the demo's 58 real videos lasts 9 s)
or runs past the runtime is the subtitler's sign-off (The Departed's "谢谢观赏！ (subtitle from
http://shooter.cn …)" runs from 2:24:35 to 3:24:47 against a 2:31:19 runtime), and so is any
cue starting after the last timed scene ends. Leaves never end past the runtime.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

SCENE_BACKEND = "scene-window"
CLIP_BACKEND = "subtitle-clip"
WINDOW_BACKEND = "subtitle-script-window"
CLIP_GAP_S = 5.0
CLIP_MAX_S = 120.0
CREDITS_GAP_S = 30.0
CREDITS_CUE_S = 20.0


def _known(value: object) -> float | None:
    return None if value is None or pd.isna(value) else float(value)


def timed_scenes(scenes: pd.DataFrame) -> pd.DataFrame:
    """The scenes with a known start, by start time (scene order breaks ties), re-indexed."""
    if scenes.empty:
        return scenes.reset_index(drop=True)
    timed = scenes[scenes["start_s"].notna()]
    return timed.sort_values(["start_s", "scene_index"], kind="stable").reset_index(drop=True)


def drop_credit_cues(subtitles: pd.DataFrame, runtime_s: float | None = None) -> pd.DataFrame:
    """The cues that belong to the film, in start order: cues starting at or after the runtime
    are dropped, then trailing sign-off cues (the module docstring's rule), one at a time."""
    cues = subtitles.sort_values("start_s", kind="stable")
    runtime = _known(runtime_s)
    if runtime:
        cues = cues[cues["start_s"] < runtime]
    while len(cues) > 1:
        last, earlier = cues.iloc[-1], cues.iloc[:-1]
        silence = float(last["start_s"]) - float(earlier["end_s"].max())
        long_cue = float(last["end_s"]) - float(last["start_s"]) > CREDITS_CUE_S
        past_runtime = runtime is not None and float(last["end_s"]) > runtime
        if silence < CREDITS_GAP_S or not (long_cue or past_runtime):
            break
        cues = earlier
    return cues


def film_span(
    subtitles: pd.DataFrame, scenes: pd.DataFrame, runtime_s: float | None = None
) -> float:
    """Where the leaves end: with the film's last timed scene (never past the video's length),
    else at the video's length, else at the last subtitle's end.

    What follows the last scene is the credits roll, where subtitle files add their own credit
    cue: The Departed's starts at 2:24:35, after the last scene ends at 2:24:00, and lasts until
    3:24:47; taking the latest of all ends made 12,287 one-second leaves, the last hour of them
    holding only that cue.
    """
    runtime = _known(runtime_s)
    last_scene = _known(scenes["end_s"].max()) if len(scenes) else None
    if last_scene:
        return min(last_scene, runtime) if runtime else last_scene
    if runtime:
        return runtime
    return (_known(subtitles["end_s"].max()) if len(subtitles) else None) or 0.0


def leaf_backend(
    timeline: dict[str, pd.DataFrame],
    runtime_s: float | None = None,
    leaf_seconds: float | None = None,
) -> str:
    """Which leaves `plan_leaves` makes for this film (the run spec records it up front)."""
    if leaf_seconds is not None:
        return WINDOW_BACKEND
    cues = drop_credit_cues(timeline["subtitles"], runtime_s)
    starts, _ = _scene_starts(timeline["scenes"], cues, runtime_s)
    return SCENE_BACKEND if len(starts) else CLIP_BACKEND


def _scene_starts(
    scenes: pd.DataFrame, cues: pd.DataFrame, runtime_s: float | None
) -> tuple[np.ndarray, float]:
    """Start times of the timed scenes that begin before the span ends, and the span."""
    timed = timed_scenes(scenes)
    span = film_span(cues, timed, runtime_s)
    starts = timed["start_s"].to_numpy(float)
    return starts[starts < span], span


def scene_windows(
    scenes: pd.DataFrame, cues: pd.DataFrame, runtime_s: float | None = None
) -> pd.DataFrame:
    """One window per timed scene (`timed_scenes` order): start_s, end_s, scene (its position
    in `timed_scenes(scenes)`), and the cue positions (into `cues`) each window holds."""
    starts, span = _scene_starts(scenes, cues, runtime_s)
    if not len(starts):
        return pd.DataFrame(columns=["start_s", "end_s", "scene", "cues"])
    cue_starts = cues["start_s"].to_numpy(float)
    starts = starts.copy()
    if len(cue_starts) and cue_starts.min() < starts[0]:
        starts[0] = cue_starts.min()
    ends = np.append(starts[1:], span)
    owner = np.searchsorted(starts, cue_starts, side="right") - 1
    owner[cue_starts >= span] = -1
    held = [np.flatnonzero(owner == i).tolist() for i in range(len(starts))]
    return pd.DataFrame(
        {"start_s": starts, "end_s": ends, "scene": np.arange(len(starts)), "cues": held}
    )


def clip_groups(starts: np.ndarray, ends: np.ndarray) -> list[list[int]]:
    """Positions of start-ordered cues grouped into clips (`CLIP_GAP_S`, `CLIP_MAX_S`)."""
    groups: list[list[int]] = []
    clip_start = clip_end = -math.inf
    for i, (start, end) in enumerate(zip(starts, ends)):
        if groups and start - clip_end <= CLIP_GAP_S and end - clip_start <= CLIP_MAX_S:
            groups[-1].append(i)
            clip_end = max(clip_end, end)
        else:
            groups.append([i])
            clip_start, clip_end = start, end
    return groups


def clip_windows(cues: pd.DataFrame, runtime_s: float | None = None) -> pd.DataFrame:
    """One window per subtitle clip: start_s, end_s (capped at the runtime), scene (-1: none),
    and the cue positions (into `cues`, which are in start order) each clip holds."""
    starts, ends = cues["start_s"].to_numpy(float), cues["end_s"].to_numpy(float)
    groups = clip_groups(starts, ends)
    runtime = _known(runtime_s)
    clip_ends = [float(ends[g].max()) for g in groups]
    return pd.DataFrame(
        {
            "start_s": [float(starts[g[0]]) for g in groups],
            "end_s": [min(e, runtime) if runtime else e for e in clip_ends],
            "scene": -1,
            "cues": groups,
        }
    )


def fixed_windows(duration: float, seconds: float) -> pd.DataFrame:
    """[i·W, (i+1)·W) windows over the span (at least one)."""
    count = max(1, math.ceil(duration / seconds))
    starts = np.arange(count) * seconds
    return pd.DataFrame({"start_s": starts, "end_s": starts + seconds})
