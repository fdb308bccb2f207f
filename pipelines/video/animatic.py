"""An animatic of a film from what the store knows of it: one card per scene (its heading, who
is in it, the line being spoken, timed by the subtitles), written with opencv as a small video.

The demo's sample film has no footage; its animatic (`storyscope demo`, step 47) gives the
frame, caption and video settings real, checkable content on a fresh machine: each frame
shows the scene and the subtitle on screen at that time, and its time in the corner.

Deterministic: the same store rows give the same frames (no clock, no randomness; text is
drawn with opencv's built-in Hershey font, ASCII only). Small: 320x180 at 2 fps in mp4v (the
codec every opencv build writes; H.264 needs an encoder opencv's wheels do not ship).
"""

from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from data_access.queries.video import film_video, scene_people, scene_spans, timed_speakers
from data_access.store import Store

SIZE = (320, 180)  # width, height
FPS = 2.0
FOURCC = "mp4v"
TAIL_S = 2.0  # the last card stays this long after the last scene or cue ends
_FONT = 0  # cv2.FONT_HERSHEY_SIMPLEX
_BACKGROUND = (40, 32, 24)  # BGR
_TEXT = (235, 235, 235)
_HEADING = (120, 210, 255)
_MUTED = (170, 170, 170)


@dataclass
class AnimaticReport:
    film_id: str
    path: Path
    frames: int
    duration_s: float
    scenes: int
    cues: int


@dataclass
class _Film:
    title: str
    scenes: pd.DataFrame
    people: dict[int, list[str]]
    cues: pd.DataFrame  # by start time, index 0..n-1

    def __post_init__(self) -> None:
        self.scene_starts = self.scenes["start_s"].to_numpy(float)
        self.cue_starts = self.cues["start_s"].to_numpy(float)
        self.cue_ends = self.cues["end_s"].to_numpy(float)


def ascii_text(text: str) -> str:
    """The text in the characters the Hershey font draws (accents dropped, quotes straight)."""
    text = str(text).replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"')
    text = text.replace("\u201d", '"').replace("\u2014", "-").replace("\u2013", "-")
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return " ".join(text.split())


def animatic_path(store: Store, film_id: str) -> Path:
    """Where a film's animatic goes: `videos/` beside the store file (never in the repo)."""
    return Path(store.path).parent / "videos" / f"{film_id}.animatic.mp4"


def render_animatic(store: Store, film_id: str, path: Path | None = None) -> AnimaticReport:
    """Write the film's animatic to `path` (default `animatic_path`) and return what it holds.

    Raises:
        ValueError: no such film, or it has no timed scenes.
    """
    import cv2

    film = _load(store, film_id)
    path = path or animatic_path(store, film_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    ends = [float(film.scenes["end_s"].max())]
    if not film.cues.empty:
        ends.append(float(film.cues["end_s"].max()))
    duration = max(ends) + TAIL_S
    frames = int(np.ceil(duration * FPS))
    partial = path.with_name(path.name + f".{os.getpid()}.tmp.mp4")
    writer = cv2.VideoWriter(str(partial), cv2.VideoWriter_fourcc(*FOURCC), FPS, SIZE)
    if not writer.isOpened():
        raise ValueError(f"{path}: opencv cannot write {FOURCC} video here")
    try:
        cards: dict[tuple, np.ndarray] = {}
        for index in range(frames):
            time_s = index / FPS
            state = _state_at(film, time_s)
            if state not in cards:
                cards = {state: _card(film, *state)}  # consecutive frames share a card
            frame = cards[state].copy()
            _put(frame, _clock(time_s), (SIZE[0] - 52, SIZE[1] - 8), 0.35, _MUTED)
            writer.write(frame)
    finally:
        writer.release()
    os.replace(partial, path)
    return AnimaticReport(film_id, path, frames, duration, len(film.scenes), len(film.cues))


def _load(store: Store, film_id: str) -> _Film:
    row = film_video(store, film_id)
    if row is None:
        raise ValueError(f"no film {film_id!r} in the store")
    scenes = scene_spans(store, film_id)
    if scenes.empty:
        raise ValueError(f"film {film_id!r} has no timed scenes to draw")
    people: dict[int, list[str]] = {}
    for person in scene_people(store, film_id).itertuples():
        people.setdefault(int(person.scene_index), []).append(str(person.character))
    cues = timed_speakers(store, film_id).reset_index(drop=True)
    return _Film(str(row["title"]), scenes.reset_index(drop=True), people, cues)


def _state_at(film: _Film, time_s: float) -> tuple[int | None, int | None]:
    """(row of the scene on screen, row of the cue being spoken) at `time_s`; a scene stays on
    screen until the next one starts."""
    scene = int(np.searchsorted(film.scene_starts, time_s, side="right")) - 1
    cue = int(np.searchsorted(film.cue_starts, time_s, side="right")) - 1  # the last one begun
    spoken = cue >= 0 and film.cue_ends[cue] > time_s
    return (scene if scene >= 0 else None, cue if spoken else None)


def _card(film: _Film, scene: int | None, cue: int | None) -> np.ndarray:
    frame = np.zeros((SIZE[1], SIZE[0], 3), np.uint8)
    frame[:] = _BACKGROUND
    if scene is None:  # before the first scene: the title card
        _put(frame, ascii_text(film.title), (12, 80), 0.6, _HEADING)
        return frame
    row = film.scenes.iloc[scene]
    y = _wrapped(frame, ascii_text(row["heading"] or f"Scene {row['scene_index']}"), 20, 0.45,
                 _HEADING)  # fmt: skip
    present = film.people.get(int(row["scene_index"]), [])
    if present:
        y = _wrapped(frame, "Present: " + ", ".join(map(ascii_text, present)), y + 4, 0.38, _MUTED)
    if cue is not None:
        line = film.cues.loc[cue]
        speaker = line["character"] if isinstance(line["character"], str) else None
        text = ascii_text(line["text"])
        _wrapped(frame, f"{ascii_text(speaker)}: {text}" if speaker else text, y + 14, 0.42, _TEXT)
    return frame


def _wrapped(frame, text: str, y: int, scale: float, colour) -> int:
    """Draw `text` word-wrapped to the frame's width from baseline `y`; the next free y."""
    import cv2

    line_height = int(30 * scale) + 4
    words, line = text.split(), ""
    for word in words:
        candidate = f"{line} {word}".strip()
        if line and cv2.getTextSize(candidate, _FONT, scale, 1)[0][0] > SIZE[0] - 24:
            _put(frame, line, (12, y), scale, colour)
            y, line = y + line_height, word
        else:
            line = candidate
    if line:
        _put(frame, line, (12, y), scale, colour)
        y += line_height
    return y


def _put(frame, text: str, origin: tuple[int, int], scale: float, colour) -> None:
    import cv2

    cv2.putText(frame, text, origin, _FONT, scale, colour, 1, cv2.LINE_AA)


def _clock(time_s: float) -> str:
    whole = int(time_s)
    return f"{whole // 60:02d}:{whole % 60:02d}.{int(round((time_s - whole) * 10)) % 10}"
