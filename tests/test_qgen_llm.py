"""The LLM path of generation against the local OpenAI-compatible test server: normal,
malformed and thin replies, every retirement rule, and replay from the cache on rerun."""

from __future__ import annotations

import json
import re

from pipelines.qgen.generate import GenerateOptions, generate
from tests.qgen_film import build_film

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


def test_llm_path_records_every_outcome_and_replays_from_cache(store, fake_llm):
    film = build_film(store)
    server = fake_llm(handler)
    config = fake_llm.config(server)
    report = generate(
        store,
        GenerateOptions(
            film,
            qtypes=["Q2", "Q3", "Q5", "Q6", "Q7", "N2"],
            n=20,
            backend="openai",
            with_analytics=False,
        ),
        llm_config=config,
    )
    by_key = {
        (d.context_set.qtype, d.context_set.center, d.context_set.anchor_scene): d
        for d in report.drafts
    }
    assert by_key[("Q3", "Mara", 2)].status == "thin"
    assert by_key[("Q6", "Tom", 5)].status == "failed"
    assert by_key[("Q2", "Mara", 5)].retire_rule == "contradicted_core"
    assert by_key[("Q5", "Mara", 5)].retire_rule == "too_few_core"
    assert by_key[("Q7", "Tom", 1)].retire_rule == "rewrite_failed_checks"
    assert "not_yes_no" in by_key[("Q7", "Tom", 1)].retire_reason
    assert by_key[("N2", "Mara", 7)].retire_rule == "gold_omits_core"
    ivy = by_key[("Q7", "Ivy", 5)]
    assert ivy.status == "candidate" and [c.role for c in ivy.claims] == ["core", "core", "context"]

    run_id = report.run_id
    stages = store.df("SELECT * FROM qgen_stage_outputs WHERE run_id = ?", [run_id])
    malformed = stages[stages["status"] == "malformed"]
    assert len(malformed) == 1 and "cut off" in malformed.iloc[0]["raw_reply"]
    thin = stages[stages["status"] == "thin"].iloc[0]
    assert json.loads(thin["payload"])["thin_reason"] == "the belief is uncontested"
    outcomes = store.df(
        "SELECT final_status, retire_rule FROM qgen_outcomes WHERE run_id = ?", [run_id]
    )
    assert set(outcomes["final_status"]) == {"candidate", "retired", "thin", "failed"}
    run = store.df(
        "SELECT backend, model, prompt_version, n_failed FROM runs WHERE run_id = ?", [run_id]
    )
    assert run.iloc[0].tolist() == ["openai", "fake-model", "qgen-v1", 1]
    assert "sk-test" not in json.dumps(store.df("SELECT * FROM runs").astype(str).values.tolist())

    # a rerun replays every validated reply from the cache: only the malformed one is re-sent
    sent = len(server.log.bodies)
    rerun = generate(
        store,
        GenerateOptions(
            film,
            qtypes=["Q2", "Q3", "Q5", "Q6", "Q7", "N2"],
            n=20,
            backend="openai",
            with_analytics=False,
        ),
        llm_config=config,
    )
    assert len(server.log.bodies) - sent == config.parse_retries + 1
    assert [d.status for d in rerun.drafts] == [d.status for d in report.drafts]
