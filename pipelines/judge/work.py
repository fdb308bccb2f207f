"""The judge's work, shared by every backend's runner (pipelines.judge.runners): a slice of
answers with their claims, one LLM request per answer (rendered where it is sent: on a Ray
worker for a scaled-out run, `judge_unit`), and the offline backends' pure batch functions.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import pyarrow as pa

from data_access.store import Store
from data_access.tables import judging
from data_access.tables.judging import JudgeFilter
from pipelines.judge.lexical import LexicalMatcher, lexical_measures
from pipelines.judge.prompt import JudgeReply, checked_labels, judge_messages
from pipelines.judge.schema import judge_reply_schema
from pipelines.judge.support import SupportMatcher
from pipelines.judge.verdicts import verdict_rows
from pipelines.llm import LLMRequest
from pipelines.scale.llm_worker import LLMUnitRows, unit_gateway, unit_rows


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
    # One pass over the columns (rows come ordered by question, ord): a `to_dict` per
    # question's group cost ~0.3 ms a question, the driver's largest cost per call at scale.
    claims: dict[str, list[dict]] = {}
    names = list(frame.columns)
    for values in zip(*(frame[name].tolist() for name in names)):
        record = dict(zip(names, values))
        claims.setdefault(record["question_id"], []).append(record)
    answers = answers[answers.question_id.isin(claims)].reset_index(drop=True)
    return Slice(answers, claims)


def judge_items(part: Slice) -> list[tuple[str, str, str, str]]:
    """(answer_id, question_id, question, answer) per answer, in slice order: what one judge
    request is made of, with the question's claims (`part.claims`). Small and plain, so a
    scale-out unit carries these instead of the rendered prompts (`judge_unit`)."""
    answers = part.answers
    return list(
        zip(
            answers.answer_id.tolist(),
            answers.question_id.tolist(),
            answers.question.tolist(),
            answers.answer.tolist(),
        )
    )


def judge_request(
    item: tuple[str, str, str, str], claims: list[dict], version: str, parse: bool = True
) -> LLMRequest:
    """The judge request of one answer: the LF-VideoQA App. F.2 judge prompt (Table 26
    template, `version`) over its question, rubric claims and answer, asking for one label
    per claim. The same function builds it on the driver (for the cache key) and on a worker
    (to send it), so both agree with a local run's request byte for byte. `parse=False`
    leaves out the reply check, which is not part of the cache key."""
    answer_id, _, question, answer = item
    ords = tuple(c["ord"] for c in claims)
    return LLMRequest(
        answer_id,
        judge_messages(question, claims, answer, version),
        schema=JudgeReply,
        parse=checked_labels(list(ords)) if parse else None,
        params={"temperature": 0},
        json_schema=judge_reply_schema(ords),
    )


def llm_requests(part: Slice, options) -> list[LLMRequest]:
    """One judge request per answer (App. F.2 / Table 26 template)."""
    return [
        judge_request(item, part.claims[item[1]], options.prompt_version)
        for item in judge_items(part)
    ]


def judge_keys(items: list[tuple], claims: dict[str, list[dict]], version: str, gateway) -> list:
    """The gateway's cache key of each item's judge request (its model and mode), so a local
    run and a scaled-out one share the store's cache.

    Fast: the answers whose rubrics have the same claim numbers send requests that differ only
    in the user prompt (App. F.2's "Input Information"), so their keys come from one key family
    per rubric shape (`Gateway.key_family`), which hashes only that prompt; where the gateway
    offers none (a mode that rewrites the messages), it keys each request itself.
    """
    families: dict[tuple, object] = {}
    keys = []
    for item in items:
        rubric = claims[item[1]]
        ords = tuple(c["ord"] for c in rubric)
        family = families.get(ords, _UNSET)
        if family is _UNSET:
            family = gateway.key_family(judge_request(item, rubric, version, parse=False))
            families[ords] = family
        key = None
        if family is not None:
            key = family.key(judge_messages(item[2], rubric, item[3], version))
        if key is None:
            key = gateway.key_of(judge_request(item, rubric, version, parse=False))
        keys.append(key)
    return keys


_UNSET = object()


@dataclass
class JudgeUnitRows:
    """What a worker sends back for one chunk of answers: every row the driver writes, built
    on the worker (Arrow tables), so the driver inserts them with no work per row."""

    llm: LLMUnitRows  # cache entries, call rows (pipelines.scale.llm_worker)
    verdicts: pa.Table  # judging.verdict_table
    failed: list[str]  # answers whose call failed (after the gateway's retries)


def judge_unit(payload: dict) -> JudgeUnitRows:
    """Work unit (on a worker): judge a chunk of answers through this worker's gateway.

    The payload carries `items` (`judge_items`), the `claims` of their questions and the
    prompt `version`, besides the gateway's settings (`llm_worker.unit_gateway`: config
    without the key, run id, mode, budget, and the cached replies of a unit the driver
    replays). The App. F.2 prompts are rendered here, not on the driver (the driver only
    plans units and writes rows). A refused key comes back with the rows (`LLMUnitRows`).
    """
    claims, version = payload["claims"], payload["version"]
    items = payload["items"]
    requests = [judge_request(item, claims[item[1]], version) for item in items]
    gateway = unit_gateway(payload)
    results = gateway.run(requests)
    verdicts = verdict_rows(results, {item[0]: claims[item[1]] for item in items})
    return JudgeUnitRows(
        unit_rows(gateway),
        judging.verdict_table(verdicts),
        [r.item_id for r in results if r.status == "failed"],
    )


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
