"""Read queries of the Overview page: headline counts, datasets, settings, judges, recent runs."""

from __future__ import annotations

import pandas as pd

from data_access.rollups.source import source
from data_access.store import Store


def _mcq_sets_sql(store: Store) -> str:
    """MCQs and videos per (set, source): the catalogue rollup (data_access.rollups.catalogue)."""
    return f"SELECT set_name, source, questions, videos FROM {source(store, 'rollup_mcq_sets')}"


def _mcqs_per_dataset_sql(store: Store) -> str:
    return (
        f"SELECT dataset_id, sum(n) AS mcqs FROM {source(store, 'rollup_mcq_topics')}"
        " GROUP BY dataset_id"
    )


def datasets_overview(store: Store) -> pd.DataFrame:
    """One row per dataset with what it holds (films, questions, MCQs)."""
    return store.df(
        f"""
        WITH per_film AS (SELECT film_id, count(*) AS n FROM questions GROUP BY film_id),
        film_counts AS (
            SELECT f.dataset_id, count(*) AS films, coalesce(sum(q.n), 0) AS questions
            FROM films f LEFT JOIN per_film q USING (film_id) GROUP BY f.dataset_id),
        mcq_counts AS ({_mcqs_per_dataset_sql(store)})
        SELECT d.dataset_id, d.name, d.kind, d.licence, d.reported_by_paper,
               coalesce(fc.films, 0) AS films, coalesce(fc.questions, 0)::BIGINT AS questions,
               coalesce(mc.mcqs, 0)::BIGINT AS mcqs
        FROM datasets d LEFT JOIN film_counts fc USING (dataset_id)
        LEFT JOIN mcq_counts mc USING (dataset_id)
        ORDER BY d.dataset_id
        """
    )


def recent_runs(store: Store, limit: int = 20) -> pd.DataFrame:
    """The newest runs with their step, backend, status and size."""
    return store.df(
        "SELECT run_id, step, backend, model, status, started_at, finished_at, n_items,"
        " n_failed, reported_by_paper FROM runs ORDER BY started_at DESC LIMIT ?",
        [limit],
    )


def overview_counts(store: Store) -> dict[str, int]:
    """The headline numbers of the Overview page."""
    row = store.rows(
        f"""
        SELECT (SELECT count(*) FROM films WHERE kind <> 'story'),
               (SELECT count(*) FROM questions),
               (SELECT count(*) FROM settings),
               (SELECT count(*) FROM judges),
               (SELECT count(*) FROM runs),
               (SELECT count(*) FROM ({_mcq_sets_sql(store)})),
               (SELECT count(*) FROM mcq_questions),
               (SELECT count(*) FROM films WHERE kind = 'story')
        """
    )[0]
    # films: films and episodes only; a text story (Hi-ToM, BigToM...) is counted apart
    keys = ["films", "questions", "settings", "judges", "runs", "mcq_sets", "mcq_questions"]
    keys.append("stories")
    return dict(zip(keys, (int(v) for v in row)))


def questions_by_type_status(store: Store) -> pd.DataFrame:
    """Question counts by type and status (Overview bar chart)."""
    return store.df(
        "SELECT qtype, status, count(*) AS n FROM questions GROUP BY qtype, status ORDER BY qtype"
    )


def settings_table(store: Store) -> pd.DataFrame:
    """Every answer setting with how many answers it has."""
    per_setting = f"SELECT setting_id, answers FROM {source(store, 'rollup_setting_answers')}"
    return store.df(
        f"""
        WITH per_setting AS ({per_setting})
        SELECT s.setting_id, s.label, s.source, s.answerer, s.captioner, s.tier,
               coalesce(p.answers, 0)::BIGINT AS answers
        FROM settings s LEFT JOIN per_setting p USING (setting_id)
        ORDER BY s.label
        """
    )


def judges_table(store: Store) -> pd.DataFrame:
    """Every judge with how many verdicts it gave."""
    per_judge = f"SELECT judge_id, verdicts FROM {source(store, 'rollup_judge_verdicts')}"
    return store.df(
        f"""
        WITH per_judge AS ({per_judge})
        SELECT j.judge_id, j.kind, j.backend, j.model, j.prompt_version,
               coalesce(p.verdicts, 0)::BIGINT AS verdicts
        FROM judges j LEFT JOIN per_judge p USING (judge_id)
        ORDER BY j.judge_id
        """
    )


def mcq_sets(store: Store) -> pd.DataFrame:
    """MCQ sets per source with their sizes."""
    return store.df(
        "SELECT set_name, source, questions::BIGINT AS questions, videos::BIGINT AS videos"
        f" FROM ({_mcq_sets_sql(store)}) ORDER BY set_name, source"
    )
