"""The video description StoryMindv2 writes questions from (StoryVideoQA §3.1): the film's
aligned script as text, scene headings with their times, timed dialogue, and directions.

Apart from the loop (storymind.py) because it is the loop's input, read from the store, and the
same whatever the models do with it.
"""

from __future__ import annotations

from data_access.formats.film_time import film_clock
from data_access.store import Store
from data_access.tables.plottree_records import film_timeline


def _clock(seconds) -> str:
    return film_clock(seconds, missing="--:--:--", padded=True)


def video_description(store: Store, vid: str, max_chars: int = 40000) -> str:
    """The aligned script as the §3.1 video description: scenes, timed dialogue, directions."""
    timeline = film_timeline(store, vid)
    if timeline["lines"].empty:
        raise ValueError(
            f"video '{vid}' has no script lines in the store (import its aligned script first)"
        )
    scenes = timeline["scenes"].set_index("scene_index")
    parts, current = [], None
    for line in timeline["lines"].itertuples():
        if line.scene_index != current and line.scene_index in scenes.index:
            current = line.scene_index
            scene = scenes.loc[current]
            parts.append(
                f"\nScene {current} [{_clock(scene.start_s)}-{_clock(scene.end_s)}] "
                f"{scene.location or scene.heading or ''}"
            )
        if line.kind == "dialogue":
            parts.append(f"[{_clock(line.start_s)}] {line.character}: {line.text}")
        else:
            parts.append(f"({line.text})")
    text = "\n".join(parts).strip()
    return text if len(text) <= max_chars else text[:max_chars] + "\n[... description truncated]"
