"""The judge's work units, shared by a local run (pipelines.judge.run) and a run on an
executor (pipelines.judge.scaled): a slice of answers with their claims, one LLM request per
answer, and the offline backends' pure batch functions.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from data_access.store import Store
from data_access.writes import judging
from data_access.writes.judging import JudgeFilter
from pipelines.judge.lexical import LEXICAL_VERSION, LexicalMatcher, lexical_measures
from pipelines.judge.prompt import JudgeReply, checked_labels, judge_messages
from pipelines.judge.schema import judge_reply_schema
from pipelines.judge.support import SUPPORT_VERSION, SupportMatcher
from pipelines.llm import LLMRequest

OFFLINE_BACKENDS = {"lexical": LEXICAL_VERSION, "minilm-support": SUPPORT_VERSION}


@dataclass
class Slice:
    """The answers of a slice and their rubric claims (dicts: claim_id, ord, role, text)."""

    answers: pd.DataFrame
    claims: dict[str, list[dict]]

    @property
    def n_claims(self) -> int:
        return int(sum(len(self.claims.get(q, [])) for q in self.answers.question_id))


def load_slice(store: Store, options) -> Slice:
    """The answers (or gold answers) selected by `options` (a JudgeOptions), with their claims."""
    answers = judging.answers_in_slice(
        store, JudgeFilter(**options.where), options.gold, options.limit
    )
    frame = judging.claims_of_questions(store, sorted(set(answers.question_id)))
    claims = {q: group.to_dict("records") for q, group in frame.groupby("question_id")}
    answers = answers[answers.question_id.isin(claims)].reset_index(drop=True)
    return Slice(answers, claims)


def llm_requests(part: Slice, options) -> list[LLMRequest]:
    """One judge request per answer (App. F.2 / Table 26 template)."""
    requests = []
    for row in part.answers.itertuples():
        claims = part.claims[row.question_id]
        messages = judge_messages(row.question, claims, row.answer, options.prompt_version)
        requests.append(
            LLMRequest(
                row.answer_id,
                messages,
                schema=JudgeReply,
                parse=checked_labels([c["ord"] for c in claims]),
                params={"temperature": 0},
                json_schema=judge_reply_schema(tuple(c["ord"] for c in claims)),
            )
        )
    return requests


def lexical_items(part: Slice, gold: bool) -> list[tuple]:
    """(answer_id, answer, reference or None, claims) per answer, in slice order."""
    return [
        (
            row.answer_id,
            row.answer,
            None if gold else row.reference,
            [(c["claim_id"], c["text"]) for c in part.claims[row.question_id]],
        )
        for row in part.answers.itertuples()
    ]


def lexical_batch(items: list[tuple]) -> tuple[list[tuple], list[dict]]:
    """Verdicts and lexical scores of a batch of `lexical_items` (pure: a scale-out unit)."""
    return _offline_batch(items, LexicalMatcher())


def support_batch(items: list[tuple]) -> tuple[list[tuple], list[dict]]:
    """`lexical_batch` with the `minilm-support` judge's verdicts (pipelines.judge.support)."""
    return _offline_batch(items, SupportMatcher())


def offline_batch(backend: str):
    """The scale-out unit function of an offline backend."""
    return support_batch if backend == "minilm-support" else lexical_batch


def _offline_batch(items: list[tuple], matcher) -> tuple[list[tuple], list[dict]]:
    labels = matcher.label_many(
        [(answer, [text for _, text in claims]) for _, answer, _, claims in items]
    )
    verdicts, scores = [], []
    for (answer_id, answer, reference, claims), labelled in zip(items, labels):
        verdicts += [(answer_id, cid, v, why) for (cid, _), (v, why) in zip(claims, labelled)]
        m = lexical_measures(answer, reference, [text for _, text in claims])
        scores.append(
            {
                "answer_id": answer_id,
                "rl": m["RL"],
                "clm_rl": m["ClmRL"],
                "cov50": m["Cov@.5"],
                "hedge": m["Hedge"],
            }
        )
    return verdicts, scores
