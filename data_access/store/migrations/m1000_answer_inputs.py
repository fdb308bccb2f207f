"""What a model was given, per answer StoryScope produced (LF-VideoQA §4 settings).

`storyscope answer` builds each question's input from the store in a setting (screenplay,
subtitles, captions, video frames, ...) within a token budget. One row per (run, question)
records what the model saw: the estimated size, the budget, how many units of the film
(screenplay lines, subtitle cues, caption chunks, frames) were kept out of how many, the time
ranges covered, the frame times, and the rule that cut the rest. A failed item has a row too
(`answer_id` NULL), so a researcher can see what was sent when the model failed.
"""

from data_access.store.migrations import migration


@migration(1000, "answer inputs")
def create_answer_inputs(connection) -> None:
    connection.execute(
        """CREATE TABLE answer_inputs (
            run_id VARCHAR NOT NULL,
            question_id VARCHAR NOT NULL,
            setting_id VARCHAR NOT NULL,
            answer_id VARCHAR,                -- NULL: the model's reply failed
            source VARCHAR NOT NULL,          -- the setting (question-only, subtitles, ...)
            est_tokens INTEGER NOT NULL,      -- estimated prompt tokens of the messages sent
            budget_tokens INTEGER,            -- the context budget for the film's part
            units_total INTEGER NOT NULL,     -- film units available (lines, cues, chunks, frames)
            units_kept INTEGER NOT NULL,
            text_chars INTEGER NOT NULL,
            frame_times DOUBLE[],             -- seconds of the frames sent as image parts
            covered JSON,                     -- [[start_s, end_s], ...] of the kept units
            cut_rule VARCHAR,                 -- the documented rule that chose what was kept
            build_ms DOUBLE,                  -- CPU time to build the input
            PRIMARY KEY (run_id, question_id)
        )"""
    )
