"""Row counts for `storyscope stats` and the store-wide cache token of the pages.

The Overview page's own queries live in `data_access.queries.overview_view`."""

from __future__ import annotations

from data_access.store import Store

# The tables whose sizes tell what a store holds, in the order they are shown.
COUNTED_TABLES = [
    "datasets",
    "films",
    "scenes",
    "script_lines",
    "characters",
    "subtitles",
    "scene_events",
    "presence",
    "beliefs",
    "meta_beliefs",
    "context_sets",
    "questions",
    "rubric_claims",
    "question_evidence",
    "settings",
    "answers",
    "judges",
    "claim_verdicts",
    "reported_results",
    "mcq_questions",
    "mcq_predictions",
    "mcq_difficulty",
    "plottree_nodes",
    "embeddings",
    "llm_cache",
    "llm_calls",
    "runs",
    "jobs",
]


def table_counts(store: Store) -> dict[str, int]:
    """Rows per table, in one round trip."""
    union = " UNION ALL ".join(
        f"SELECT '{name}' AS name, count(*) AS n FROM {name}" for name in COUNTED_TABLES
    )
    rows = store.rows(union)
    return {name: int(n) for name, n in rows}


def _grouped(store: Store, sql: str) -> dict[str, int]:
    return {str(key): int(n) for key, n in store.rows(sql)}


def store_stats(store: Store) -> dict:
    """Everything `storyscope stats --json` prints: table counts and per-source/kind counts."""
    with store.session():  # one open of the file for the ten queries below
        return _store_stats(store)


def _store_stats(store: Store) -> dict:
    return {
        "store": str(store.path),
        "tables": table_counts(store),
        "mcq_by_source": _grouped(
            store, "SELECT source, count(*) FROM mcq_questions GROUP BY source ORDER BY source"
        ),
        "mcq_by_set": _grouped(
            store, "SELECT set_name, count(*) FROM mcq_questions GROUP BY set_name ORDER BY 1"
        ),
        "films_by_kind": _grouped(
            store, "SELECT kind, count(*) FROM films GROUP BY kind ORDER BY 1"
        ),
        "films_by_dataset": _grouped(
            store, "SELECT dataset_id, count(*) FROM films GROUP BY dataset_id ORDER BY 1"
        ),
        "questions_by_type": _grouped(
            store, "SELECT qtype, count(*) FROM questions GROUP BY qtype ORDER BY 1"
        ),
        "questions_by_status": _grouped(
            store, "SELECT status, count(*) FROM questions GROUP BY status ORDER BY 1"
        ),
        "questions_by_source": _grouped(
            store, "SELECT source, count(*) FROM questions GROUP BY source ORDER BY 1"
        ),
        "runs_by_step": _grouped(store, "SELECT step, count(*) FROM runs GROUP BY step ORDER BY 1"),
    }


def store_version(store: Store) -> str:
    """A cheap token that changes whenever a run starts or ends: pages key their caches on it,
    so a run written by another process shows without restarting the app."""
    row = store.rows(
        "SELECT count(*), max(started_at), max(finished_at), count(*) FILTER (status = 'running')"
        " FROM runs"
    )[0]
    return "|".join(str(part) for part in row)
