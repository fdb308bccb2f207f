"""The agents' evidence trail (LF-VideoQA §4.3): every tool call an agent made before it
answered, and how each agent question ended.

`agent_steps` holds one row per tool call: the model turn and the call's place in it, the tool
and its arguments as the model passed them (unknown tools and bad arguments too, with the
error), the film intervals the call touched, and what the model was given back (its size, and
its text bounded). `agent_answers` holds one row per (run, question): the tier, how the loop
ended (answered, step limit, failed), the turns used, the tokens spent and whether the tools
went as OpenAI `tools` or as the documented prompt-level fallback. A run's answers stay ordinary
`answers` rows, so the judge, Verdicts and `metrics` read them unchanged; an agent run imported
from a harness log (inspect_ai) writes the same two tables under its import run.
"""

from data_access.store.migrations import migration


@migration(1100, "agent evidence trail")
def create_agent_trail(connection) -> None:
    connection.execute(
        """CREATE TABLE agent_steps (
            run_id VARCHAR NOT NULL,
            setting_id VARCHAR NOT NULL,
            question_id VARCHAR NOT NULL,
            turn INTEGER NOT NULL,            -- the model turn that made the call (0-based)
            call_index INTEGER NOT NULL,      -- the call's place within its turn
            tool VARCHAR NOT NULL,            -- as the model named it (an unknown tool too)
            arguments JSON,                   -- as the model passed them
            intervals JSON NOT NULL,          -- [[start_s, end_s], ...] of film the call touched
            result_chars INTEGER NOT NULL,    -- size of what the model was given back
            result_text VARCHAR,              -- that text, bounded
            error VARCHAR,                    -- unknown tool | bad arguments | tool failed: why
            PRIMARY KEY (run_id, question_id, turn, call_index)
        )"""
    )
    connection.execute(
        """CREATE TABLE agent_answers (
            run_id VARCHAR NOT NULL,
            setting_id VARCHAR NOT NULL,
            question_id VARCHAR NOT NULL,
            answer_id VARCHAR,                -- NULL: the loop ended without an answer
            tier VARCHAR NOT NULL,            -- regular | fast | oracle
            outcome VARCHAR NOT NULL,         -- answered | step_limit | failed
            turns INTEGER NOT NULL,           -- model turns used
            tool_calls INTEGER NOT NULL,
            prompt_tokens BIGINT,
            completion_tokens BIGINT,
            tool_mode VARCHAR,                -- native (OpenAI tools) | prompt (fallback) | harness
            failure VARCHAR,                  -- why it ended without an answer
            PRIMARY KEY (run_id, question_id)
        )"""
    )
