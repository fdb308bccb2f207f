"""Question generation: the write path of generation / check runs and the reads they need.

Writers take the caller's cursor so a whole run's rows land in one transaction (a failure leaves
the store as it was). The Question Lab page reads through `data_access.queries.qlab_view`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from data_access.store import Store

# Columns each writer fills, in order (`data_access.store.append_rows`); JSON columns arrive as
# text (a context-set's `payload`).
COLUMNS: dict[str, tuple[str, ...]] = {
    "context_sets": (
        "context_set_id",
        "film_id",
        "qtype",
        "center",
        "anchor_scene",
        "payload",
        "discard_reason",
        "run_id",
    ),
    "questions": (
        "question_id",
        "film_id",
        "qtype",
        "center",
        "anchor_scene",
        "anchor_time_s",
        "anchor_location",
        "status",
        "text",
        "gold",
        "source",
        "context_set_id",
        "run_id",
    ),
    "rubric_claims": (
        "claim_id",
        "question_id",
        "ord",
        "role",
        "text",
        "evidence_scenes",
        "run_id",
    ),
    "question_evidence": (
        "question_id",
        "ord",
        "time_s",
        "location",
        "scene_index",
        "claim_ords",
        "is_anchor",
        "run_id",
    ),
    "qgen_stage_outputs": (
        "run_id",
        "context_set_id",
        "question_id",
        "stage",
        "status",
        "backend",
        "payload",
        "raw_reply",
    ),
    "qgen_outcomes": (
        "run_id",
        "question_id",
        "context_set_id",
        "final_status",
        "retire_rule",
        "retire_reason",
        "distractor",
        "revised",
        "revision_note",
    ),
    "question_check_results": (
        "run_id",
        "question_id",
        "source",
        "film_id",
        "qtype",
        "passed",
        "leak_score",
        "anchor_words",
        "anchor_rivals",
        "name_violations",
        "checks_version",
    ),
    "question_check_failures": ("run_id", "question_id", "check_name", "reason"),
    "question_near_duplicates": ("run_id", "question_a", "question_b", "cosine"),
    "question_clusters": ("run_id", "question_id", "cluster_id", "cluster_size"),
    "question_diversity": ("run_id", "qtype", "n_questions", "self_bleu_2", "self_bleu_4"),
    "question_opening_frames": ("run_id", "qtype", "frame", "n_words", "count", "share"),
    "embeddings": ("run_id", "item_kind", "item_id", "model", "vector", "x", "y"),
}
# Keys `select_questions` accepts in --where filters, mapped to their column.
QUESTION_FILTERS = {
    "film_id": "q.film_id",
    "film": "q.film_id",
    "qtype": "q.qtype",
    "type": "q.qtype",
    "status": "q.status",
    "source": "q.source",
    "run_id": "q.run_id",
    "center": "q.center",
    "question_id": "q.question_id",
}


# -- reads a generation run needs ---------------------------------------------------------------
@dataclass
class FilmRecords:
    """The stored records of one film that context-sets are built from (current runs)."""

    film: dict
    scenes: pd.DataFrame
    characters: pd.DataFrame
    presence: pd.DataFrame
    beliefs: pd.DataFrame
    meta_beliefs: pd.DataFrame
    scene_events: pd.DataFrame
    script_lines: pd.DataFrame | None = None  # kind, character, text (the question checks)


def film_records(store: Store, film_id: str) -> FilmRecords | None:
    """Scenes, characters, presence, beliefs, meta-beliefs and events of a film, or None."""
    film = store.df("SELECT * FROM films WHERE film_id = ?", [film_id])
    if film.empty:
        return None

    def current(table: str, order: str) -> pd.DataFrame:
        return store.df(
            f"SELECT * FROM current_{table} WHERE film_id = ? ORDER BY {order}", [film_id]
        )

    return FilmRecords(
        film=film.iloc[0].to_dict(),
        scenes=current("scenes", "scene_index"),
        characters=current("characters", "character_id"),
        presence=current("presence", "scene_index, character"),
        beliefs=current("beliefs", "scene_index, belief_id, holder"),
        meta_beliefs=current("meta_beliefs", "scene_index, meta_id"),
        scene_events=current("scene_events", "scene_index, ord"),
        script_lines=film_script_lines(store, film_id),
    )


def film_script_lines(store: Store, film_id: str) -> pd.DataFrame:
    """The film's screenplay lines (kind dialogue | direction, speaker, text), current run."""
    return store.df(
        "SELECT kind, character, text FROM current_script_lines WHERE film_id = ?"
        " ORDER BY line_index",
        [film_id],
    )


def film_ids(store: Store) -> list[str]:
    """Every film id in the store, sorted."""
    return [row[0] for row in store.rows("SELECT film_id FROM films ORDER BY film_id")]


def select_questions(
    store: Store, filters: Mapping[str, Sequence[str]] | None = None
) -> pd.DataFrame:
    """Questions matching `filters` (key -> allowed values; keys from `QUESTION_FILTERS`).

    Raises:
        KeyError: for a filter key that is not a question field.
    """
    clauses, params = [], []
    for key, allowed in (filters or {}).items():
        if key not in QUESTION_FILTERS:
            raise KeyError(key)
        clauses.append(f"list_contains(?, {QUESTION_FILTERS[key]})")
        params.append(list(allowed))
    where = " AND ".join(clauses) or "true"
    return store.df(
        f"""SELECT q.question_id, q.film_id, q.qtype, q.center, q.anchor_scene, q.anchor_location,
                   q.status, q.text, q.gold, q.source, q.context_set_id, q.run_id
            FROM questions q WHERE {where} ORDER BY q.film_id, q.question_id""",
        params,
    )


def spoken_names(store: Store, film_ids: Sequence[str]) -> pd.DataFrame:
    """Characters of the films with their first-spoken time (NULL: never spoken aloud)."""
    return store.df(
        "SELECT film_id, canonical_name, aliases, first_spoken_s FROM current_characters"
        " WHERE list_contains(?, film_id)",
        [list(film_ids)],
    )


def current_claim_texts(store: Store, question_ids: Sequence[str]) -> dict[str, list[str]]:
    """Per question: its rubric claims' texts in order (the gold checks read them)."""
    frame = store.df(
        "SELECT question_id, text FROM rubric_claims WHERE list_contains(?, question_id)"
        " ORDER BY question_id, ord",
        [list(question_ids)],
    )
    return frame.groupby("question_id")["text"].apply(list).to_dict() if not frame.empty else {}


def direction_lines(store: Store, film_id: str) -> tuple[str, ...]:
    """The film's screenplay direction lines (current run)."""
    frame = film_script_lines(store, film_id)
    return tuple(frame.loc[frame["kind"] == "direction", "text"].dropna().astype(str))


def rejected_question_texts(store: Store, film_id: str) -> dict[str, str]:
    """Question text (lowercased, spaces collapsed) -> question id, for every question of the
    film whose latest review decision is a rejection (a generator must not write it again)."""
    frame = store.df(
        "SELECT q.question_id, q.text FROM questions q JOIN ("
        "  SELECT question_id, arg_max(decision, created_at) AS decision FROM question_reviews"
        "  WHERE decision IN ('accept', 'reject') GROUP BY question_id"
        ") r USING (question_id) WHERE q.film_id = ? AND r.decision = 'reject'",
        [film_id],
    )
    texts = zip(frame["question_id"], frame["text"])
    return {" ".join(str(t).lower().split()): q for q, t in texts}


def anchor_contexts(store: Store, question_ids: Sequence[str]) -> pd.DataFrame:
    """Per question: the stored context-set payload, when the question came from one."""
    return store.df(
        "SELECT q.question_id, c.payload FROM questions q"
        " JOIN context_sets c USING (context_set_id)"
        " WHERE list_contains(?, q.question_id)",
        [list(question_ids)],
    )


def scene_texts(store: Store, film_id: str, scene_indices: Sequence[int]) -> dict[int, str]:
    """Full screenplay text of the given scenes (the Stage 3 verifier reads it, Table 25)."""
    frame = store.df(
        "SELECT scene_index, kind, character, text FROM current_script_lines"
        " WHERE film_id = ? AND list_contains(?, scene_index) ORDER BY line_index",
        [film_id, [int(s) for s in scene_indices]],
    )
    texts: dict[int, list[str]] = {}
    for row in frame.itertuples():
        line = (
            f"{row.character}: {row.text}" if row.kind == "dialogue" and row.character else row.text
        )
        texts.setdefault(int(row.scene_index), []).append(line)
    return {scene: "\n".join(lines) for scene, lines in texts.items()}


def paper_question_count(store: Store) -> int:
    """How many questions transcribed from a paper the store holds."""
    return int(store.scalar("SELECT count(*) FROM questions WHERE source = 'paper'"))
