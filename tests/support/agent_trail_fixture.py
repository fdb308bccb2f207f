"""Agent answers with their evidence trails on the gold film, written by hand through the trail's
own writer (`data_access.tables.agent_steps.write_trail`), with a judge's verdicts on them: the
store the trail's queries, measures, panel, CLI and export tests read.

Two agent settings. `agent:fast` answers three questions (evidence touched 2/3, 1/3 and 3/3;
recall 1/3, 0 and 1, so touched and recall rank alike). `agent:oracle` hits its step limit on
one question (no answer) and answers another. The gold film's scene spans (seconds):
scene 1 64.84-101.58, 5 211.17-228.66, 6 228.66-262.43, 9 353.32-378.58, 10 385.73-419.33,
11 430.12-451.26, 12 460.33-471.26, 16 580.70-612.29; the film runs 658.3 s.
"""

from __future__ import annotations

from data_access.tables.agent_steps import write_trail
from data_access.tables.judging import insert_records, write_verdicts
from data_access.tables.runs import RunSpec, insert_run
from tests.support.gold_film import with_gold_film

JUDGE = "trail-hand"
FAST, ORACLE = "agent:fast", "agent:oracle"
N2A, N3B, Q1A = "keepers-gold-N2-a", "keepers-gold-N3-b", "keepers-gold-Q1-a"
HOSTILE = "<b>bold</b> [link](http://evil.example/) <img src=x onerror=alert(1)>"

# (setting, question) -> the calls of each turn: (tool, arguments, intervals, error)
CALLS = {
    (FAST, N2A): [
        [("find_clips", {"query": "Hale Inn"}, [[60.0, 100.0]], None)],
        [("browse_clip", {"start": 228.66, "end": 240.0}, [[228.66, 240.0]], None)],
        [("vqa", {"start": "soon", "question": HOSTILE}, [], "bad arguments: start")],
    ],
    (FAST, N3B): [
        # ends where scene 5 begins: meets it, does not overlap it, so scene 5 is not touched
        [("subtitle_search", {"query": "boat"}, [[200.0, 211.17], [380.0, 420.0]], None)],
    ],
    (FAST, Q1A): [[("browse_clip", {"start": 0, "end": 658.3}, [[0.0, 658.3]], None)]],
    (ORACLE, N2A): [
        [("find_clips", {"query": f"ledger {turn}"}, [[585.0, 600.0]], None)] for turn in range(8)
    ],
    (ORACLE, Q1A): [[("character_presence", {"start": 460, "end": 470}, [[460.0, 470.0]], None)]],
}
OUTCOMES = {  # (setting, question) -> (outcome, failure, prompt tokens, completion tokens)
    (FAST, N2A): ("answered", None, 1200, 150),
    (FAST, N3B): ("answered", None, 800, 100),
    (FAST, Q1A): ("answered", None, 1000, 120),
    (ORACLE, N2A): ("step_limit", "no answer within 8 turns", 5000, 400),
    (ORACLE, Q1A): ("answered", None, 900, 80),
}
# claim numbers the judge found asserted in each answer (the rest omitted)
ASSERTED = {(FAST, N2A): {1, 2}, (FAST, N3B): {2}, (FAST, Q1A): {1, 2, 3, 5}, (ORACLE, Q1A): {1, 3}}


def answer_id(setting: str, question: str) -> str:
    return f"{setting}:{question}"


def _steps(run_id: str, setting: str, question: str) -> list[dict]:
    return [
        {
            "run_id": run_id,
            "setting_id": setting,
            "question_id": question,
            "turn": turn,
            "call_index": index,
            "tool": tool,
            "arguments": arguments,
            "intervals": intervals,
            "result_chars": 0 if error else 40,
            "result_text": error or f"{tool} result {HOSTILE}",
            "error": error,
        }
        for turn, calls in enumerate(CALLS[(setting, question)])
        for index, (tool, arguments, intervals, error) in enumerate(calls)
    ]


def _answer_row(run_id: str, setting: str, question: str) -> dict:
    outcome, failure, prompt, completion = OUTCOMES[(setting, question)]
    calls = CALLS[(setting, question)]
    return {
        "run_id": run_id,
        "setting_id": setting,
        "question_id": question,
        "answer_id": answer_id(setting, question) if outcome == "answered" else None,
        "tier": setting.split(":")[1],
        "outcome": outcome,
        "turns": len(calls) + (outcome == "answered"),
        "tool_calls": sum(len(turn) for turn in calls),
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "tool_mode": "native",
        "failure": failure,
    }


def with_agent_trails(store):
    """The gold film with the two agent settings' trails, answers and verdicts; the store."""
    with_gold_film(store)
    claims = store.df("SELECT claim_id, question_id, ord FROM rubric_claims")
    with store.transaction() as cursor:
        for setting in (FAST, ORACLE):
            run_id = insert_run(cursor, RunSpec("answer", backend="agent"), status="finished")
            tier = setting.split(":")[1]
            insert_records(
                cursor,
                "settings",
                [
                    {
                        "setting_id": setting,
                        "source": "agent",
                        "answerer": "fixture",
                        "tier": tier,
                        "label": f"Agent, {tier} tier · {HOSTILE}",
                        "run_id": run_id,
                    }
                ],
            )
            keys = [key for key in CALLS if key[0] == setting]
            answered = [key for key in keys if OUTCOMES[key][0] == "answered"]
            insert_records(
                cursor,
                "answers",
                [
                    {
                        "answer_id": answer_id(*key),
                        "question_id": key[1],
                        "setting_id": setting,
                        "text": f"An answer {HOSTILE}",
                        "run_id": run_id,
                    }
                    for key in answered
                ],
            )
            write_trail(
                cursor,
                [step for key in keys for step in _steps(run_id, *key)],
                [_answer_row(run_id, *key) for key in keys],
            )
        judge_run = insert_run(cursor, RunSpec("judge", backend="manual"), status="finished")
        insert_records(
            cursor, "judges", [{"judge_id": JUDGE, "kind": "human", "run_id": judge_run}]
        )
        verdicts = [
            (
                answer_id(*key),
                claim.claim_id,
                "asserted" if claim.ord in ASSERTED[key] else "omitted",
                None,
            )
            for key in ASSERTED
            for claim in claims[claims.question_id == key[1]].itertuples()
        ]
        write_verdicts(cursor, judge_run, JUDGE, verdicts)
    return store
