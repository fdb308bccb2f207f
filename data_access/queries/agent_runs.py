"""What the agent loop reads before a run: the questions an agent setting has settled."""

from __future__ import annotations

from data_access.store import Store


def settled_questions(store: Store, setting_id: str) -> set[str]:
    """Questions the setting answered, or whose agent ran into the step limit (a rerun would
    replay the same turns from the cache); failed ones are tried again."""
    frame = store.df(
        "SELECT question_id FROM answers WHERE setting_id = ?"
        " UNION SELECT question_id FROM agent_answers"
        " WHERE setting_id = ? AND outcome = 'step_limit'",
        [setting_id, setting_id],
    )
    return set(frame.question_id)
