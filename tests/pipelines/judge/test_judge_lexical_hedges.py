"""The lexical judge reads a hedged sentence as stating nothing (the rule the LLM judge's prompt
gives: hedged statements omit a claim unless the claim is hedged): its "not" used to read as a
contradiction. Measured against the gold film's hand verdicts (samples/gold): Cohen's κ 0.397
before the rule, 0.492 with it, and no omitted claim judged contradicted."""

from __future__ import annotations

import collections
import json

from pipelines.agreement.stats import cohen_kappa
from pipelines.judge.lexical import LexicalMatcher
from tests.support.paths import REPO_ROOT

GOLD = REPO_ROOT / "samples" / "gold" / "the_keepers_ledger" / "lfvqa"


def test_a_hedged_negation_contradicts_nothing():
    matcher = LexicalMatcher()
    claim = "Tomas learns that Ruth is police."
    hedged = "Perhaps Tomas does not learn that Ruth is police."
    plain = "Tomas does not learn that Ruth is police."
    assert matcher.label_claims(hedged, [claim])[0][0] == "omitted"
    assert "only hedged sentences" in matcher.label_claims(hedged, [claim])[0][1]
    assert matcher.label_claims(plain, [claim])[0][0] == "contradicted"
    # a hedged claim is stated by a hedged sentence
    assert matcher.label_claims(hedged, ["Perhaps Tomas learns that Ruth is police."])[0][0] in (
        "asserted",
        "contradicted",
    )


def _load(name: str) -> list[dict]:
    return [json.loads(line) for line in (GOLD / name).read_text().splitlines() if line.strip()]


def test_lexical_judge_against_the_gold_verdicts():
    claims = collections.defaultdict(list)
    for claim in sorted(_load("rubric_claims.jsonl"), key=lambda c: (c["question_id"], c["ord"])):
        claims[claim["question_id"]].append(claim)
    answers = {a["answer_id"]: a for a in _load("answers.jsonl")}
    gold = {(v["answer_id"], v["claim_id"]): v["verdict"] for v in _load("claim_verdicts.jsonl")}
    judged = sorted({answer for answer, _ in gold})
    items = [
        (answers[a]["text"], [c["text"] for c in claims[answers[a]["question_id"]]]) for a in judged
    ]
    pairs = [
        (gold[(a, c["claim_id"])], verdict)
        for a, labels in zip(judged, LexicalMatcher().label_many(items))
        for c, (verdict, _) in zip(claims[answers[a]["question_id"]], labels)
        if (a, c["claim_id"]) in gold
    ]
    assert len(pairs) == 105
    confusion = collections.Counter(pairs)
    assert confusion[("omitted", "contradicted")] == 0  # six hedged answers before the rule
    kappa = cohen_kappa([g for g, _ in pairs], [j for _, j in pairs])
    assert kappa > 0.45  # 0.397 before the rule
