"""The judge's work units, shared by a local run (pipelines.judge.run) and a run on an
executor (pipelines.judge.scaled): a slice of answers with their claims, one LLM request per
answer (rendered where it is sent: on a Ray worker for a scaled-out run, `judge_unit`), and
the offline backends' pure batch functions.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import pandas as pd
import pyarrow as pa

from data_access.store import Store
from data_access.writes import judging
from data_access.writes.judging import JudgeFilter
from pipelines.judge.lexical import LEXICAL_VERSION, LexicalMatcher, lexical_measures
from pipelines.judge.prompt import JudgeReply, checked_labels, judge_messages
from pipelines.judge.schema import judge_reply_schema
from pipelines.judge.support import SUPPORT_VERSION, SupportMatcher
from pipelines.llm import LLMRequest
from pipelines.llm.requests import canonical_json, key_part, response_format
from pipelines.scale.llm_worker import LLMUnitRows, unit_gateway, unit_rows

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
    """The cache key of each item's judge request under `gateway` (its model and mode): equal
    to the gateway's own key (`Gateway.key_of`), so a local run and a scaled-out one share the
    store's cache.

    Fast: the key hashes (model, system prompt, user prompt, params), and of these only the
    user prompt (the question, claims and answer of App. F.2's "Input Information") differs
    between answers whose rubrics have the same claim numbers. So the hash of everything
    before it is taken once per rubric shape and copied per answer; the first answer of each
    shape is keyed by the gateway too, and a shape whose fast key differs from the gateway's
    (a mode that rewrites the messages, a changed key layout) is keyed by the gateway alone.
    """
    shapes: dict[tuple, _KeyShape | None] = {}
    keys = []
    for item in items:
        rubric = claims[item[1]]
        ords = tuple(c["ord"] for c in rubric)
        shape = shapes.get(ords, _UNSET)
        if shape is _UNSET:
            request = judge_request(item, rubric, version, parse=False)
            key = gateway.key_of(request)
            shapes[ords] = _KeyShape.of(gateway, request, key)
            keys.append(key)
            continue
        key = None
        if shape is not None:
            key = shape.key(judge_messages(item[2], rubric, item[3], version))
        if key is None:
            key = gateway.key_of(judge_request(item, rubric, version, parse=False))
        keys.append(key)
    return keys


_UNSET = object()


@dataclass(frozen=True)
class _KeyShape:
    """The constant parts of the cache keys of judge requests of one rubric shape."""

    system: str
    prefix: Any  # a hashlib sha256 object over everything before the user prompt
    suffix: bytes  # what follows the user prompt: its (empty) extras and the params

    @classmethod
    def of(cls, gateway, request: LLMRequest, key: str) -> _KeyShape | None:
        """The shape of `request` (keyed `key` by the gateway), or None when its fast key
        would not equal the gateway's."""
        shaper, mode = gateway.shaper, gateway.mode
        messages = shaper.messages(request, mode)
        plain = messages is request.messages and [m.get("role") for m in messages] == [
            "system",
            "user",
        ]
        if not plain or any(set(m) != {"role", "content"} for m in messages):
            return None
        params = shaper.params(request)
        fmt = response_format(request, mode)
        if fmt is not None:
            encoded = canonical_json({**params, "response_format": fmt})
        else:
            encoded = canonical_json(params) if params else "{}"
        system = messages[0]["content"]
        head = key_part(shaper.model) + key_part("system") + key_part(system)
        shape = cls(
            system,
            hashlib.sha256(head + key_part("") + key_part("user")),
            key_part("") + key_part(encoded),
        )
        return shape if shape.key(messages) == key else None

    def key(self, messages: list[dict]) -> str | None:
        """The cache key of a request with these messages (None: not of this shape)."""
        if messages[0]["content"] != self.system:
            return None
        digest = self.prefix.copy()
        digest.update(key_part(messages[1]["content"]) + self.suffix)
        return digest.hexdigest()


@dataclass
class JudgeUnitRows:
    """What a worker sends back for one chunk of answers: every row the driver writes, built
    on the worker (Arrow tables), so the driver inserts them with no work per row."""

    llm: LLMUnitRows  # cache entries, call rows (pipelines.scale.llm_worker)
    verdicts: pa.Table  # judging.verdict_table
    failed: list[str]  # answers whose call failed (after the gateway's retries)


def verdict_rows(results, claims_of: dict[str, list[dict]]) -> list[tuple]:
    """(answer_id, claim_id, verdict, rationale) per claim of each answered result;
    `claims_of` maps an answer id to its question's claims."""
    return [
        (r.item_id, c["claim_id"], r.parsed[c["ord"]].label, r.parsed[c["ord"]].rationale or None)
        for r in results
        if r.ok
        for c in claims_of[r.item_id]
    ]


def judge_unit(payload: dict) -> JudgeUnitRows:
    """Work unit (on a worker): judge a chunk of answers through this worker's gateway.

    The payload carries `items` (`judge_items`), the `claims` of their questions and the
    prompt `version`, besides the gateway's settings (`llm_worker.unit_gateway`: config
    without the key, run id, mode, budget). The App. F.2 prompts are rendered here, not on
    the driver (issue 30: the driver only plans units and writes rows).
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
