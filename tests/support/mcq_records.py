"""Helpers for the MCQ tests: records built in code, and the golden files read as records.

The golden records are inserted into a temp store through `insert_mcq_questions`, so tests do
not depend on the StoryVideoQA importer landing first.
"""

from __future__ import annotations

import json
from pathlib import Path

from data_access.tables.mcq import insert_mcq_questions
from data_access.tables.runs import RunSpec, finish_run, insert_run

LETTERS = "ABCDE"


def make_mcq(
    source: str, vid: str, qid: int, question_type: str = "P", story_element: str = "C", **extra
) -> dict:
    """One MCQ record with sensible defaults (option A is the GT unless overridden)."""
    choices = extra.pop("choices", [f"answer {qid} {k}" for k in range(5)])
    option = extra.pop("option", "A")
    record = {
        "mcq_id": f"{source}:{vid}:{qid}",
        "source": source,
        "vid": vid,
        "qid": qid,
        "question": extra.pop("question", f"What happens in scene {qid}?"),
        "choices": choices,
        "gt": choices[LETTERS.index(option)],
        "option": option,
        "question_type": question_type,
        "story_element": story_element,
        "set_name": extra.pop("set_name", "golden"),
    }
    record.update(extra)
    return record


def golden_records(shared_data: Path, sources: tuple[str, ...] | None = None) -> list[dict]:
    """The released golden questions as mcq_questions records."""
    records = []
    for path in sorted((shared_data / "storyvideoqa" / "golden_questions").glob("*_golden.json")):
        source = path.name.split("_")[0]
        if sources and source not in sources:
            continue
        for item in json.loads(path.read_text(encoding="utf-8")):
            records.append(
                {
                    "mcq_id": f"{source}:{item['vid']}:{item['id']}",
                    "source": source,
                    "vid": item["vid"],
                    "qid": item["id"],
                    "question": item["question"],
                    "choices": item["choices"],
                    "gt": item["GT"],
                    "option": item["option"],
                    "question_type": item.get("question_type"),
                    "story_element": item.get("story_element"),
                    "characters": item.get("characters") or [],
                    "locations": item.get("locations") or [],
                    "times": item.get("times") or [],
                    "set_name": "golden",
                    "gemini_check": item.get("gemini_check"),
                    "claude_check": item.get("claude_check"),
                    "gpt_check": item.get("gpt_check"),
                }
            )
    return records


def load_records(store, records: list[dict]) -> str:
    """Insert records under one finished run; return the run id."""
    with store.transaction() as cursor:
        run_id = insert_run(cursor, RunSpec(step="test.mcq", backend="fixture"))
        insert_mcq_questions(cursor, records, run_id)
        finish_run(cursor, run_id, n_items=len(records))
    return run_id
