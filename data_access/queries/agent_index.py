"""What the agent tools read of one film (LF-VideoQA §4.3), one query per table.

`pipelines.agents.tools.index.FilmIndex.load` calls only the readers its tier may see:

- every tier: `agent_film` (title, runtime, registered video) and `agent_subtitles` (the
  subtitle track as cues and times: what a viewer hears);
- fast: `agent_captions` (the precomputed 10-second captions of the latest captioner);
- oracle: `agent_scenes`, `agent_script_lines`, `agent_presence` (the screenplay's scenes, lines
  and presence records).

The subtitle reader leaves out `matched_line` (the cue's screenplay line): a cue's text and
times come from the subtitle file, its match from the screenplay, which the fast and regular
tiers must not see.
"""

from __future__ import annotations

import pandas as pd

from data_access.store import Store


def agent_film(store: Store, film_id: str) -> dict | None:
    """{film_id, title, runtime_s, video_path, fps} of the film, or None for an unknown film."""
    frame = store.df(
        "SELECT film_id, title, runtime_s, video_path, fps FROM films WHERE film_id = ?",
        [film_id],
    )
    return None if frame.empty else frame.iloc[0].to_dict()


def agent_subtitles(store: Store, film_id: str) -> pd.DataFrame:
    """The film's subtitle cues in time order: cue_index, start_s, end_s, text."""
    return store.df(
        "SELECT cue_index, start_s, end_s, text FROM current_subtitles"
        " WHERE film_id = ? ORDER BY start_s, cue_index",
        [film_id],
    )


def agent_captions(store: Store, film_id: str) -> pd.DataFrame:
    """The current 10-second captions of the film's latest captioner (the one whose finished
    run started last), in time order: chunk_index, start_s, end_s, caption, characters,
    captioner."""
    return store.df(
        """
        WITH latest AS (
            SELECT c.captioner FROM current_video_captions c JOIN runs r USING (run_id)
            WHERE c.film_id = ? ORDER BY r.started_at DESC LIMIT 1)
        SELECT c.chunk_index, c.start_s, c.end_s, c.caption, c.characters, c.captioner
        FROM current_video_captions c JOIN latest USING (captioner)
        WHERE c.film_id = ? ORDER BY c.start_s, c.chunk_index
        """,
        [film_id, film_id],
    )


def agent_scenes(store: Store, film_id: str) -> pd.DataFrame:
    """The screenplay's timed scenes in time order: scene_index, heading, start_s, end_s,
    summary, summary_backend (scenes without times left out: a tool cannot point at them)."""
    return store.df(
        "SELECT scene_index, heading, start_s, end_s, summary, summary_backend"
        " FROM current_scenes WHERE film_id = ? AND start_s IS NOT NULL AND end_s IS NOT NULL"
        " ORDER BY start_s, scene_index",
        [film_id],
    )


def agent_script_lines(store: Store, film_id: str) -> pd.DataFrame:
    """The screenplay's lines in order: scene_index, line_index, kind, character, text."""
    return store.df(
        "SELECT scene_index, line_index, kind, character, text FROM current_script_lines"
        " WHERE film_id = ? ORDER BY line_index",
        [film_id],
    )


def agent_presence(store: Store, film_id: str) -> pd.DataFrame:
    """Who is on screen in each scene by the presence records: scene_index, character."""
    return store.df(
        "SELECT DISTINCT scene_index, character FROM current_presence"
        " WHERE film_id = ? AND status = 'on_screen' ORDER BY scene_index, character",
        [film_id],
    )


def evidence_scene_spans(store: Store, film_id: str) -> pd.DataFrame:
    """The answer key's evidence scenes of the film's questions with their spans, for measuring
    the retrieval tools (never for a tool): question_id, question (its text), scene_index,
    start_s, end_s; one row per (question, timed evidence scene), in question order."""
    return store.df(
        """
        SELECT DISTINCT q.question_id, q.text AS question, e.scene_index, s.start_s, s.end_s
        FROM questions q
        JOIN question_evidence e USING (question_id)
        JOIN current_scenes s ON s.film_id = q.film_id AND s.scene_index = e.scene_index
        WHERE q.film_id = ? AND s.start_s IS NOT NULL AND s.end_s IS NOT NULL
        ORDER BY q.question_id, e.scene_index
        """,
        [film_id],
    )
