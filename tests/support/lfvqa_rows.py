"""A small LF-VideoQA slice built in code: films, questions with rubrics, settings, answers,
and a scripted judge handler for the fake server."""

from __future__ import annotations

import json
import re

from data_access.tables.judging import insert_records
from data_access.tables.runs import RunSpec, insert_run

CLAIMS = {
    "Q1": [
        "Miss Crane knows she invited Paul Hunham and Angus Tully to her party.",
        "Paul Hunham hears Miss Crane's invitation.",
        "Angus Tully does not yet know about Miss Crane's invitation.",
    ],
    "Q4": [
        "Elwood hears the machinery roar during Black Mike's punishment.",
        "Elwood infers that the machinery masks the victims' screams.",
    ],
}
GOLD = {
    "Q1": "Miss Crane knows she invited Paul Hunham and Angus Tully to her party. Paul Hunham "
    "hears Miss Crane's invitation. Angus Tully does not yet know about the invitation.",
    "Q4": "Elwood hears the machinery roar during Black Mike's punishment. From that, Elwood "
    "infers that the machinery masks the victims' screams.",
}
ANSWERS = {
    ("Q1", "screenplay"): GOLD["Q1"],
    ("Q1", "subtitles"): "Angus Tully knows about Miss Crane's invitation. The party is fun.",
    ("Q4", "screenplay"): "Elwood infers that the machinery masks the victims' screams.",
    ("Q4", "subtitles"): "I cannot answer this question from the information given.",
}


def build_slice(store, n_copies: int = 1) -> dict:
    """Insert films/questions/claims/settings/answers; `n_copies` repeats the questions."""
    with store.transaction() as cursor:
        run_id = insert_run(cursor, RunSpec("test.fixture", backend="import"), status="finished")
        insert_records(
            cursor,
            "films",
            [{"film_id": "f1", "dataset_id": "t", "title": "F", "kind": "film", "run_id": run_id}],
        )
        insert_records(
            cursor,
            "settings",
            [
                {"setting_id": s, "source": s, "label": s.title(), "run_id": run_id}
                for s in ("screenplay", "subtitles")
            ],
        )
        questions, claims, answers = [], [], []
        for copy in range(n_copies):
            for qtype, texts in CLAIMS.items():
                qid = f"q{copy}-{qtype}"
                questions.append(
                    {
                        "question_id": qid,
                        "film_id": "f1",
                        "qtype": qtype,
                        "center": "X",
                        "status": "released",
                        "text": f"What {qtype}?",
                        "gold": GOLD[qtype],
                        "source": "synthetic",
                        "run_id": run_id,
                    }
                )
                claims += [
                    {
                        "claim_id": f"{qid}-c{i + 1}",
                        "question_id": qid,
                        "ord": i + 1,
                        "role": "core" if i != 1 else "context",
                        "text": t,
                        "run_id": run_id,
                    }
                    for i, t in enumerate(texts)
                ]
                answers += [
                    {
                        "answer_id": f"{qid}-{s}",
                        "question_id": qid,
                        "setting_id": s,
                        "text": ANSWERS[(qtype, s)],
                        "run_id": run_id,
                    }
                    for s in ("screenplay", "subtitles")
                ]
        insert_records(cursor, "questions", questions)
        insert_records(cursor, "rubric_claims", claims)
        insert_records(cursor, "answers", answers)
    return {
        "questions": len(questions),
        "claims": len(claims),
        "answers": len(answers),
        "verdicts": sum(len(CLAIMS[q["qtype"]]) for q in questions) * 2,
    }


# judge-claims-v1 shows "[core]" / "[context]" before each claim; v2 (App. F.2 only) does not.
_CLAIM_LINE = re.compile(r"^(\d+)\. (?:\[(core|context)\] )?(.*)$", re.MULTILINE)


def scripted_judge(body: dict, number: int) -> str:
    """A deterministic judge: a claim is asserted when its text appears in the answer,
    contradicted when its last word appears with 'knows about', omitted otherwise."""
    user = body["messages"][-1]["content"]
    answer = user.split("CANDIDATE ANSWER:", 1)[1].strip()
    verdicts = []
    for ord_, _, text in _CLAIM_LINE.findall(user):
        label = "asserted" if text.rstrip(".") in answer else "omitted"
        if "does not yet know" in text and "knows about" in answer:
            label = "contradicted"
        verdicts.append({"claim": int(ord_), "label": label, "rationale": "scripted"})
    return json.dumps({"verdicts": verdicts})
