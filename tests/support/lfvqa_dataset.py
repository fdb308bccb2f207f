"""A tiny dataset in the interchange format, written to a folder."""

from __future__ import annotations

import json
from pathlib import Path

MANIFEST = {"format": "storyscope-lfvqa", "version": 1, "dataset_id": "tiny", "name": "Tiny set"}


def tiny_tables() -> dict[str, list[dict]]:
    """Two films with scenes, subtitles, a question with claims, an answer and verdicts."""
    return {
        "films": [
            {"film_id": "f1", "title": "One", "year": 2020, "runtime_s": 600.0},
            {
                "film_id": "f2",
                "title": "Two",
                "kind": "episode",
                "series": "S",
                "season": 1,
                "episode": 2,
            },
        ],
        "scenes": [
            {
                "film_id": "f1",
                "scene_index": i,
                "location": f"L{i}",
                "start_s": 10.0 * i,
                "end_s": 10.0 * i + 9,
                "time_source": "matched",
            }
            for i in range(3)
        ],
        "subtitles": [
            {"film_id": "f1", "cue_index": 0, "start_s": 1.5, "end_s": 2.5, "text": "Hi."}
        ],
        "questions": [
            {
                "question_id": "q1",
                "film_id": "f1",
                "qtype": "Q3",
                "center": "Ann",
                "text": "What does Ann believe?",
                "gold": "That Bob left.",
            }
        ],
        "rubric_claims": [
            {
                "claim_id": "q1.c1",
                "question_id": "q1",
                "ord": 1,
                "role": "core",
                "text": "Ann believes Bob left.",
                "evidence_scenes": [1, 2],
            },
            {
                "claim_id": "q1.c2",
                "question_id": "q1",
                "ord": 2,
                "role": "context",
                "text": "Bob did not leave.",
            },
        ],
        "settings": [{"setting_id": "s1", "source": "screenplay", "label": "Screenplay / X"}],
        "answers": [
            {"answer_id": "a1", "question_id": "q1", "setting_id": "s1", "text": "Bob left."}
        ],
        "judges": [{"judge_id": "j1", "kind": "lexical", "backend": "lexical"}],
        "claim_verdicts": [
            {"judge_id": "j1", "answer_id": "a1", "claim_id": "q1.c1", "verdict": "asserted"},
            {
                "judge_id": "j1",
                "answer_id": "a1",
                "claim_id": "q1.c2",
                "verdict": "omitted",
                "rationale": "not said",
            },
        ],
    }


def write_dataset(
    folder: Path, tables: dict[str, list[dict]], manifest: dict | None = None
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "manifest.json").write_text(json.dumps(manifest or MANIFEST))
    for name, rows in tables.items():
        (folder / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


# one MCQ in the interchange format (its option names the first of two choices)
MCQ = {
    "mcq_id": "m1",
    "source": "Friends",
    "vid": "Friends-S01E01",
    "question": "Who?",
    "choices": ["Ross", "Joey"],
    "gt": "Ross",
    "option": "A",
}
