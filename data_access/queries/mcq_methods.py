"""StoryVideoQA MCQ methods: what StoryScope's own methods read (subtitle cues), which run each
method's predictions come from (imported or answered here, with provenance), and the
per-question view of one method's predictions (question, options, choice, correct option,
difficulty, and the PlotTree retrieval behind the choice when there is one).

A method's predictions are, per question, those of the latest finished run that answered it (a
rerun supersedes the questions it answers; a method answered video by video, one run each, is
seen over every video), as in `distributions.accuracy_by_topic` / `accuracy_by_bin` and the
difficulty measure.
"""

from __future__ import annotations

import pandas as pd

from data_access.store import Store

ANSWER_STEP = "mcq.answer"  # the runs of `storyscope mcq answer` (StoryScope's own methods)

_LATEST_RUNS = """
    latest AS (
        SELECT p.mcq_id, p.method, arg_max(p.run_id, r.started_at) AS run_id
        FROM mcq_predictions p JOIN runs r USING (run_id)
        WHERE r.status = 'finished' GROUP BY p.mcq_id, p.method
    )"""


def subtitle_cues(store: Store, vid: str) -> pd.DataFrame:
    """The current subtitle cues of one video (film_id = the release's vid), in time order:
    start_s, text."""
    return store.df(
        "SELECT start_s, text FROM current_subtitles WHERE film_id = ? ORDER BY start_s, cue_index",
        [vid],
    )


def prediction_methods(store: Store) -> pd.DataFrame:
    """One row per method: the provenance of its latest finished run and its accuracy over its
    current predictions (per question, the latest run's; `runs` counts the runs they come from).

    Columns: method, origin ('StoryScope' for `mcq answer` runs, else 'imported'), run_id,
    step, backend, model, prompt_version, params (JSON text), finished_at, runs, n, accuracy (%).
    """
    return store.df(
        f"""
        WITH {_LATEST_RUNS},
        current AS (
            SELECT p.method, p.correct, p.run_id, r.started_at
            FROM mcq_predictions p JOIN latest l USING (mcq_id, method, run_id)
            JOIN runs r USING (run_id)
        ),
        per_method AS (
            SELECT method, arg_max(run_id, started_at) AS run_id,
                   count(DISTINCT run_id) AS runs, count(*) AS n,
                   100.0 * avg(correct::INT) AS accuracy
            FROM current GROUP BY method
        )
        SELECT m.method,
               CASE WHEN r.step = ? THEN 'StoryScope' ELSE 'imported' END AS origin,
               m.run_id, r.step, r.backend, r.model, r.prompt_version,
               CAST(r.params AS VARCHAR) AS params, r.finished_at, m.runs, m.n, m.accuracy
        FROM per_method m JOIN runs r USING (run_id)
        ORDER BY origin DESC, m.method
        """,
        [ANSWER_STEP],
    )


def question_predictions(
    store: Store,
    method: str,
    set_name: str | None = None,
    source: str | None = None,
    wrong_only: bool = False,
    limit: int = 500,
) -> pd.DataFrame:
    """The questions one method answered (per question its latest finished run), at most
    `limit`.

    Columns: mcq_id, run_id, source, vid, qid, question, choices, option (correct letter),
    predicted_option (NULL: no answer), correct, question_type, story_element, d, bin
    (difficulty, NULL when not computed), retrieved (a PlotTree retrieval is stored for it).
    """
    return store.df(
        f"""
        WITH {_LATEST_RUNS}
        SELECT p.mcq_id, p.run_id, q.source, q.vid, q.qid, q.question, q.choices, q.option,
               p.predicted_option, p.correct, q.question_type, q.story_element, d.d, d.bin,
               EXISTS (SELECT 1 FROM plottree_retrievals t
                       WHERE t.run_id = p.run_id AND t.item_id = p.mcq_id) AS retrieved
        FROM mcq_predictions p JOIN latest l USING (mcq_id, method, run_id)
        JOIN mcq_questions q USING (mcq_id)
        LEFT JOIN current_mcq_difficulty d USING (mcq_id)
        WHERE p.method = ? AND (? IS NULL OR q.set_name = ?) AND (? IS NULL OR q.source = ?)
          AND (NOT ? OR NOT coalesce(p.correct, false))
        ORDER BY q.source, q.vid, q.qid, p.mcq_id LIMIT ?
        """,
        [method, set_name, set_name, source, source, wrong_only, limit],
    )


def prediction_retrieval(store: Store, run_id: str, mcq_id: str) -> pd.DataFrame:
    """The PlotTree nodes retrieved for one prediction, in the order they were given (time),
    with level, times, cosine score and summary; empty when the method retrieved nothing."""
    return store.df(
        """
        WITH r AS (
            SELECT film_id, tree_run_id, unnest(node_ids) AS node_id,
                   unnest(scores) AS score, generate_subscripts(node_ids, 1) AS position
            FROM plottree_retrievals WHERE run_id = ? AND item_id = ?
        )
        SELECT r.position, r.node_id, n.level, n.start_s, n.end_s, r.score, n.summary
        FROM r LEFT JOIN plottree_nodes n
          ON n.film_id = r.film_id AND n.run_id = r.tree_run_id AND n.node_id = r.node_id
        ORDER BY r.position
        """,
        [run_id, mcq_id],
    )
