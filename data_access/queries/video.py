"""Queries of the video pipelines (frames, chunk captions, the animatic): a film's registered
video, and what the store knows of who is on screen and what is said in a time span."""

from __future__ import annotations

import pandas as pd

from data_access.store import Store


def film_video(store: Store, film_id: str) -> dict | None:
    """The film's registered video {video_path, fps, runtime_s, title} (video_path None when
    none is registered), or None when there is no such film."""
    frame = store.df(
        "SELECT video_path, fps, runtime_s, title FROM films WHERE film_id = ?", [film_id]
    )
    return None if frame.empty else frame.iloc[0].to_dict()


def scene_spans(store: Store, film_id: str) -> pd.DataFrame:
    """Scenes with times: index, heading, start_s, end_s (scenes without times left out)."""
    return store.df(
        "SELECT scene_index, heading, start_s, end_s FROM current_scenes"
        " WHERE film_id = ? AND start_s IS NOT NULL AND end_s IS NOT NULL"
        " ORDER BY start_s, scene_index",
        [film_id],
    )


def scene_people(store: Store, film_id: str) -> pd.DataFrame:
    """(scene_index, character, source, first_line) of who is in each scene: on screen by the
    presence records where the store has them (`presence`), else who speaks in it (`speaks`);
    in the order they first speak, then the silent ones by name."""
    return store.df(
        """
        WITH speakers AS (
            SELECT scene_index, character, min(line_index) AS first_line
            FROM current_script_lines
            WHERE film_id = ? AND kind = 'dialogue' AND character IS NOT NULL GROUP BY 1, 2),
        present AS (
            SELECT DISTINCT scene_index, character FROM current_presence
            WHERE film_id = ? AND status = 'on_screen')
        SELECT p.scene_index, p.character, 'presence' AS source, s.first_line FROM present p
        LEFT JOIN speakers s USING (scene_index, character)
        UNION ALL
        SELECT s.scene_index, s.character, 'speaks', s.first_line FROM speakers s
        WHERE s.scene_index NOT IN (SELECT scene_index FROM present)
        -- who speaks first comes first; the silent ones after, by name
        ORDER BY scene_index, first_line NULLS LAST, character
        """,
        [film_id, film_id],
    )


def timed_speakers(store: Store, film_id: str) -> pd.DataFrame:
    """Subtitle cues with the speaker of the script line each was matched to (None when the
    cue matched no dialogue line): cue_index, start_s, end_s, text, character, scene_index."""
    return store.df(
        """
        SELECT s.cue_index, s.start_s, s.end_s, s.text, l.character, l.scene_index
        FROM current_subtitles s
        LEFT JOIN current_script_lines l
            ON l.film_id = s.film_id AND l.line_index = s.matched_line AND l.kind = 'dialogue'
        WHERE s.film_id = ? ORDER BY s.start_s, s.cue_index
        """,
        [film_id],
    )


CAPTION_READ_COLUMNS = [
    "chunk_index", "start_s", "end_s", "caption", "frame_times", "characters",
    "captioner", "backend", "run_id",
]  # fmt: skip


def film_captions(store: Store, film_id: str, captioner: str | None = None) -> pd.DataFrame:
    """The current captions of a film, chunk by chunk in time order: chunk_index, start_s,
    end_s, caption, frame_times, characters, captioner, backend, run_id. `captioner` None:
    the captioner whose finished run is the latest."""
    if captioner is None:
        latest = store.rows(
            "SELECT c.captioner FROM current_video_captions c JOIN runs r USING (run_id)"
            " WHERE c.film_id = ? ORDER BY r.started_at DESC LIMIT 1",
            [film_id],
        )
        if not latest:
            return pd.DataFrame(columns=CAPTION_READ_COLUMNS)
        captioner = latest[0][0]
    return store.df(
        "SELECT chunk_index, start_s, end_s, caption, frame_times, characters, captioner,"
        " backend, run_id FROM current_video_captions WHERE film_id = ? AND captioner = ?"
        " ORDER BY start_s",
        [film_id, captioner],
    )
