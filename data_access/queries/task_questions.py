"""The question sets `storyscope export-task` hands to an evaluation harness
(questions out): LF-VideoQA open-ended questions with their rubric, or StoryVideoQA multiple
choice questions, filtered by the export's `--where` keys.

Open-ended questions go out as a reviewer last left them: the latest revision's text and gold
answer (`current_question_revisions`, m0800) and claims, else the original. Every filter is a
bound list parameter; an empty list means "any".
"""

from __future__ import annotations

import pandas as pd

from data_access.store import Store

# --where keys of each set -> the column they filter (checked by the CLI before any query)
OPEN_ENDED_FILTERS = {
    "film": "film_id",
    "type": "qtype",
    "center": "center",
    "status": "status",
    "source": "source",
    "question": "question_id",
}
MCQ_FILTERS = {
    "source": "source",
    "set": "set_name",
    "vid": "vid",
    "type": "question_type",
    "element": "story_element",
    "question": "mcq_id",
}


def _filter_params(where: dict[str, list[str]], columns: tuple[str, ...]) -> list:
    params: list = []
    for column in columns:
        values = list(where.get(column, []))
        params += [values, values]
    return params


def open_ended_questions(
    store: Store, where: dict[str, list[str]], limit: int | None = None
) -> pd.DataFrame:
    """Open-ended questions matching `where` (column -> allowed values), ordered by film and id.

    Columns: question_id, film_id, title, year, video_path, qtype, center, anchor_time_s,
    status, source, text, gold, revision, claims (list of {ord, role, text}).
    """
    columns = tuple(OPEN_ENDED_FILTERS.values())
    conditions = " AND ".join(f"(len(?) = 0 OR list_contains(?, q.{c}))" for c in columns)
    return store.df(
        f"""
        WITH picked AS (
            SELECT q.* FROM questions q WHERE {conditions}
            ORDER BY q.film_id, q.question_id LIMIT ?
        ),
        claims AS (
            SELECT c.question_id,
                   list({{'ord': c.ord, 'role': coalesce(r.role, c.role),
                          'text': coalesce(r.text, c.text)}} ORDER BY c.ord) AS claims
            FROM rubric_claims c LEFT JOIN current_claim_revisions r USING (claim_id)
            WHERE c.question_id IN (SELECT question_id FROM picked)
            GROUP BY c.question_id
        )
        SELECT p.question_id, p.film_id, f.title, f.year, f.video_path, p.qtype, p.center,
               p.anchor_time_s, p.status, p.source,
               coalesce(v.text, p.text) AS text, coalesce(v.gold, p.gold) AS gold,
               coalesce(v.revision, 0) AS revision, coalesce(c.claims, []) AS claims
        FROM picked p LEFT JOIN films f USING (film_id)
        LEFT JOIN current_question_revisions v USING (question_id)
        LEFT JOIN claims c USING (question_id)
        ORDER BY p.film_id, p.question_id
        """,
        [*_filter_params(where, columns), limit],
    )


def mcq_questions(
    store: Store, where: dict[str, list[str]], limit: int | None = None
) -> pd.DataFrame:
    """StoryVideoQA multiple-choice questions matching `where`, ordered by source, video, id.

    Columns: mcq_id, dataset_id, set_name, source, vid, qid, question, choices, option (the
    correct letter), gt, question_type, story_element, times.
    """
    columns = tuple(MCQ_FILTERS.values())
    conditions = " AND ".join(f"(len(?) = 0 OR list_contains(?, m.{c}))" for c in columns)
    return store.df(
        f"""
        SELECT m.mcq_id, m.dataset_id, m.set_name, m.source, m.vid, m.qid, m.question,
               m.choices, m.option, m.gt, m.question_type, m.story_element, m.times
        FROM mcq_questions m WHERE {conditions}
        ORDER BY m.source, m.vid, m.qid, m.mcq_id LIMIT ?
        """,
        [*_filter_params(where, columns), limit],
    )
