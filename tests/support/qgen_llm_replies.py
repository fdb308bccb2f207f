"""Scripted replies of question generation's LLM stages."""

from __future__ import annotations

import json
import re

TOPIC = {
    "Q2": "news",
    "Q3": "noise",
    "Q5": "rumour",
    "Q6": "gossip",
    "Q7": "account",
    "N2": "friendship",
}


GOLD = (
    "{h} hears the account in full and weighs it against what {h} has already seen for "
    "{h}self. {h} treats the claim as settled and acts on it, and the outcome shows what {h} "
    "has concluded about the people involved. Nothing in the exchange leads {h} to doubt "
    "the account, and {h} keeps to that reading for the rest of the evening without "
    "raising it again with anyone else present."
)


def _stage(body: dict) -> int:
    system = body["messages"][0]["content"]
    return next(
        n
        for n, start in (
            (1, "You write ONE"),
            (2, "You write the gold"),
            (3, "You verify"),
            (4, "You are grading"),
        )
        if system.startswith(start)
    )


def _user(body: dict) -> str:
    return body["messages"][1]["content"]


def _stage1(user: str) -> str:
    qtype = re.search(r"QUESTION TYPE: (\w+)", user).group(1)
    holder = re.search(r'"holder": "([^"]+)"', user).group(1)
    if qtype == "Q3":
        return json.dumps({"verdict": "thin", "thin_reason": "the belief is uncontested"})
    if qtype == "Q6":
        return '{"verdict": "ok", "question": "cut off'  # malformed every time
    return json.dumps(
        {
            "verdict": "ok",
            "question": f"At the pub, what does {holder} make of the {TOPIC[qtype]}?",
            "outline": [
                {"claim": f"{holder} believes it", "entries": ["B1"]},
                {"claim": f"{holder} acts on it", "entries": ["B2"]},
            ],
            "source_path": ["e_005_1"],
            "distractor": f"{holder} doubts it.",
        }
    )


def _stage2(user: str) -> str:
    holder = re.search(r"what does (\w+) make", user).group(1)
    return json.dumps(
        {
            "gold": GOLD.format(h=holder),
            "claims": [
                {"text": f"{holder} believes the account.", "role": "core", "outline_index": 1},
                {"text": f"{holder} acts on the account.", "role": "core", "outline_index": 2},
                {
                    "text": f"{holder} hears the account in full.",
                    "role": "context",
                    "outline_index": 1,
                },
            ],
            "dropped": [],
            "dropped_why": "",
        }
    )


def _stage3(user: str) -> str:
    qtype = re.search(r"QUESTION \((\w+)\)", user).group(1)
    verdicts = {1: "supported", 2: "supported", 3: "supported"}
    if qtype == "Q2":
        verdicts[1] = "contradicted"
    if qtype == "Q5":
        verdicts[2] = "unsupported"
    reply = {
        "verdicts": [
            {"claim_id": k, "verdict": v, "rewrite": "", "why": "S5"} for k, v in verdicts.items()
        ],
        "answers_question": "yes",
        "revised_gold": "",
        "revised_question": "",
        "revised_type": "",
        "revision_note": "",
    }
    if qtype == "Q7" and "Tom" in user.split("GOLD ANSWER")[0]:
        reply.update(
            answers_question="no",
            revised_question="Does Tom trust Ivy or not?",
            revised_type="Q7",
            revision_note="asks about trust instead",
        )
    return json.dumps(reply)


def _stage4(user: str) -> str:
    label = "omitted" if "friendship" in user else "asserted"
    return json.dumps(
        {"verdicts": [{"claim": n, "label": label, "rationale": "r"} for n in (1, 2, 3)]}
    )


def handler(body: dict, number: int) -> str:
    stage = _stage(body)
    return {1: _stage1, 2: _stage2, 3: _stage3, 4: _stage4}[stage](_user(body))
