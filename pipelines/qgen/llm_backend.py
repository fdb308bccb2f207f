"""The LLM backend (`openai`): Stages 1–3 and the gold self-check through the gateway.

Each stage is one gateway batch over the drafts still active, so a rerun replays every answered
call from the store's cache (resumable), and a malformed reply is retried by the gateway, then
kept here as a `malformed` stage row with its raw text — never silently dropped. A Stage 1
reply with verdict "thin" is a refusal (Table 23, REFUSE A THIN PACK) and is recorded as such.
"""

from __future__ import annotations

import json
from pathlib import Path

from data_access.store import Store
from data_access.tables import qgen_records
from pipelines.llm import Gateway, LLMConfig, LLMRequest, LLMResult
from pipelines.qgen.context_sets import context_pack
from pipelines.qgen.drafts import Draft, StageResult
from pipelines.qgen.film_view import FilmView
from pipelines.qgen.prompts import (
    TYPE_SPECS,
    SelfCheckReply,
    Stage1Reply,
    Stage2Reply,
    Stage3Reply,
    render,
    validate_stage1,
)

BACKEND = "openai"
SAMPLE_DIR = Path(__file__).resolve().parents[2] / "samples" / "lfvqa_paper"
PARAMS = {"temperature": 0}


def example_triples(exclude_film: str, k: int = 2) -> str:
    """Two released triples of App. H from other films (Stage 1's exemplars)."""
    questions = _jsonl(SAMPLE_DIR / "questions.jsonl")
    claims = _jsonl(SAMPLE_DIR / "rubric_claims.jsonl")
    picked = [q for q in questions if q.get("film_id") != exclude_film][:k]
    blocks = []
    for q in picked:
        rubric = [
            f"{c['ord']}. [{c['role']}] {c['text']}"
            for c in claims
            if c["question_id"] == q["question_id"]
        ]
        blocks.append(
            f"TYPE {q['qtype']}\nQUESTION: {q['text']}\nGOLD: {q.get('gold')}\n"
            "CLAIMS:\n" + "\n".join(rubric)
        )
    return "\n\n".join(blocks) or "(none)"


def _jsonl(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def _numbered_claims(draft: Draft, with_role: bool = True) -> str:
    return "\n".join(
        f"{c.ord}. " + (f"[{c.role}] " if with_role else "") + c.text for c in draft.claims
    )


class LLMBackend:
    """Stage calls through the gateway for one generation run."""

    name = BACKEND

    def __init__(self, store: Store, config: LLMConfig, run_id: str, view: FilmView) -> None:
        self.gateway = Gateway(store, config, run_id)
        self.model = config.model
        self.store = store
        self.view = view
        self.examples = example_triples(view.film_id)

    def _run(
        self, drafts: list[Draft], stage: int, messages, schema, parse=None
    ) -> list[StageResult]:
        requests = [
            LLMRequest(
                item_id=f"{d.question_id}:s{stage}",
                messages=messages(d),
                schema=schema,
                parse=parse,
                params=dict(PARAMS),
            )
            for d in drafts
        ]
        return [_stage_result(result) for result in self.gateway.run(requests)]

    def stage1(self, drafts: list[Draft]) -> list[StageResult]:
        def messages(d: Draft) -> list[dict]:
            payload = context_pack(d.context_set.payload)
            return render(
                1,
                qtype=d.context_set.qtype,
                type_spec=TYPE_SPECS[d.context_set.qtype],
                examples=self.examples,
                context_pack=payload,
            )

        results = self._run(drafts, 1, messages, Stage1Reply, validate_stage1)
        for result in results:
            if result.status == "ok" and result.parsed.verdict == "thin":
                result.status = "thin"
        return results

    def stage2(self, drafts: list[Draft]) -> list[StageResult]:
        def messages(d: Draft) -> list[dict]:
            outline = "\n".join(
                f"{i}. {c.claim}" for i, c in enumerate(d.stages[1].parsed.outline, 1)
            )
            return render(
                2,
                qtype=d.qtype,
                question=d.question,
                outline=outline,
                context_pack=context_pack(d.context_set.payload),
            )

        return self._run(drafts, 2, messages, Stage2Reply)

    def stage3(self, drafts: list[Draft]) -> list[StageResult]:
        def messages(d: Draft) -> list[dict]:
            shown = sorted({s["scene"] for s in d.context_set.payload["scenes"]})
            texts = self._scene_texts(shown)
            return render(
                3,
                qtype=d.qtype,
                question=d.question,
                gold=d.gold,
                claims=_numbered_claims(d, with_role=False),
                story_context=self._story_context(shown),
                scene_texts="\n\n".join(
                    f"* S{s}\n{texts.get(s, '(no text stored)')}" for s in shown
                ),
            )

        return self._run(drafts, 3, messages, Stage3Reply)

    def _scene_texts(self, shown: list[int]) -> dict:
        # A scaled-out unit carries its scene texts (a worker has no store; qgen/scaled.py).
        shipped = getattr(self, "scene_texts", None)
        if shipped is not None:
            return shipped
        return qgen_records.scene_texts(self.store, self.view.film_id, shown)

    def _story_context(self, shown: list[int]) -> str:
        lines = []
        for index in sorted(self.view.scenes):
            scene = self.view.scenes[index]
            mark = "*" if index in shown else " "
            lines.append(
                f"{mark}S{index} {scene.get('heading') or scene.get('location') or ''}: "
                f"{scene.get('summary') or ''}".rstrip()
            )
        return "\n".join(lines)

    def self_check(self, drafts: list[Draft]) -> list[StageResult]:
        def messages(d: Draft) -> list[dict]:
            return render(4, question=d.question, claims=_numbered_claims(d), answer=d.gold)

        return self._run(drafts, 4, messages, SelfCheckReply)


def _stage_result(result: LLMResult) -> StageResult:
    if result.ok:
        return StageResult("ok", result.parsed, raw=result.raw)
    status = "malformed" if result.raw else "failed"
    return StageResult(status, raw=result.raw, error=result.error or result.status)
