"""What the LF-VideoQA settings read of a film (§4): its screenplay, subtitle track and runtime.

Each query returns one film's rows in film order from the `current_*` views, so the setting
builders in `pipelines/settings` never talk SQL and a setting's input is the same whichever
way it is answered (StoryScope's own `answer`, an exported harness task).
"""

from __future__ import annotations

import pandas as pd

from data_access.store import Store


def screenplay_lines(store: Store, film_id: str) -> pd.DataFrame:
    """Every screenplay line in order, with its scene's heading and times.

    Columns: scene_index, heading, scene_start_s, scene_end_s, line_index, kind (direction |
    dialogue), character, parenthetical, text, start_s, end_s.
    """
    return store.df(
        """
        SELECT l.scene_index, s.heading, s.start_s AS scene_start_s, s.end_s AS scene_end_s,
               l.line_index, l.kind, l.character, l.parenthetical, l.text, l.start_s, l.end_s
        FROM current_script_lines l
        LEFT JOIN current_scenes s ON s.film_id = l.film_id AND s.scene_index = l.scene_index
        WHERE l.film_id = ?
        ORDER BY l.line_index
        """,
        [film_id],
    )


def subtitle_track(store: Store, film_id: str) -> pd.DataFrame:
    """The film's time-aligned subtitle cues in time order: cue_index, start_s, end_s, text."""
    return store.df(
        "SELECT cue_index, start_s, end_s, text FROM current_subtitles"
        " WHERE film_id = ? ORDER BY start_s, cue_index",
        [film_id],
    )


def film_span(store: Store, film_id: str) -> dict | None:
    """Title, year, runtime and video of a film (runtime: the stored one, else the end of its
    last scene or cue), or None for an unknown film."""
    frame = store.df(
        """
        SELECT f.film_id, f.title, f.year, f.video_path, f.fps,
               coalesce(f.runtime_s,
                        greatest((SELECT max(end_s) FROM current_scenes WHERE film_id = f.film_id),
                                 (SELECT max(end_s) FROM current_subtitles
                                  WHERE film_id = f.film_id))) AS runtime_s
        FROM films f WHERE f.film_id = ?
        """,
        [film_id],
    )
    return None if frame.empty else frame.iloc[0].to_dict()
