"""An imported agent run's evidence trail: the staged samples' trails (pipelines/results/
inspect_trail.py) into `agent_steps` and `agent_answers` under the import's run and setting,
inside the import's transaction (a fault leaves the store as it was).

Written for every first record that names an open-ended question of the store, answered or not:
a question whose loop hit the step limit or failed has no answer row, yet its trail (and its
outcome) is what the evidence-trail view shows for it.
"""

from __future__ import annotations

import json

import duckdb

from data_access.importers.results import report as reasons
from data_access.importers.results.link import LINKED
from data_access.importers.results.report import ResultsReport
from data_access.tables.agent_steps import write_trail

_BATCH = 500  # samples' trails held at once
# samples whose trail is kept: imported, or left out only for having no answer
_KEPT = (reasons.EMPTY_ANSWER, reasons.HARNESS_ERROR)


def write_staged_trails(
    cursor: duckdb.DuckDBPyConnection, report: ResultsReport, write: bool = True
) -> None:
    """Write the trails of the linked samples, `_BATCH` samples at a time; count them in the
    report (trails, tool calls, calls with an error, outcomes). `write=False` (a dry run) only
    counts."""
    kept = f"""FROM {LINKED} WHERE trail IS NOT NULL AND repeat IS NULL
        AND (reason IS NULL OR reason IN ({", ".join("?" * len(_KEPT))}))
        AND link_id IN (SELECT question_id FROM questions)"""
    seqs = [row[0] for row in cursor.execute(f"SELECT seq {kept} ORDER BY seq", _KEPT).fetchall()]
    for start in range(0, len(seqs), _BATCH):
        first, last = seqs[start], seqs[min(start + _BATCH, len(seqs)) - 1]
        rows = cursor.execute(
            f"SELECT link_id, reason, trail {kept} AND seq BETWEEN ? AND ? ORDER BY seq",
            [*_KEPT, first, last],
        ).fetchall()
        steps, answers = [], []
        for link_id, reason, text in rows:
            trail = json.loads(text)
            keys = {"run_id": report.run_id, "setting_id": report.setting_id}
            keys["question_id"] = link_id
            steps.extend({**keys, **step} for step in trail["steps"])
            answer_id = f"{report.setting_id}/{link_id}" if reason is None else None
            fields = {k: v for k, v in trail.items() if k != "steps"}
            answers.append({**keys, "answer_id": answer_id, **fields})
            report.n_trail_calls += len(trail["steps"])
            report.n_trail_errors += sum(step["error"] is not None for step in trail["steps"])
            outcome = trail["outcome"]
            report.trail_outcomes[outcome] = report.trail_outcomes.get(outcome, 0) + 1
        if write:
            write_trail(cursor, steps, answers)
        report.n_trails += len(answers)
