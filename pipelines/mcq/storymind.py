"""The StoryMindv2 generation loop (StoryVideoQA §3.2-3.3, Figures 7-8), through the gateway.

Per batch: the generator writes QAs with the *active* topic tools (a tool is deactivated once
its topic holds T kept QAs; QAs naming an inactive tool are set aside as `tool_inactive`); the
supervisor checks the batch and deletes wrong QAs into the video's fault archive; the deleted
QAs are embedded (MiniLM here, Multilingual-E5 in the paper) and the top-10 most similar past
faults of the video are retrieved to write targeted feedback for the next batch. After
generation, three reviewers (separately configurable models) judge every kept QA; a QA is
finally kept when all three judge it correct and the majority answer equals the GT (§3.3).
Every stage's output is stored per run (`storymind_items`); finally kept QAs go to
mcq_questions (set 'generated', reviewer verdicts in the gpt/claude/gemini check columns), so
`storyscope topics/reviewers/difficulty --set generated` analyse them like the release.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from data_access.store import Store
from data_access.tables.mcq import (
    insert_fault_vectors,
    insert_mcq_questions,
    insert_storymind_items,
    storymind_faults,
)
from data_access.tables.runs import RunSpec, end_run, start_run
from pipelines.mcq import storymind_prompts as prompts
from pipelines.mcq.reviewers import REVIEWERS, review_table
from pipelines.mcq.topics import TOPICS, topic_label
from pipelines.mcq.video_description import video_description

TOP_FAULTS = 10  # §3.2: top-10 similar QAs from the fault archive


@dataclass
class StoryMindOptions:
    """What to generate and with which models (one LLMConfig per role)."""

    vid: str
    generator: object
    supervisor: object | None = None
    reviewers: dict[str, object] = field(default_factory=dict)
    per_topic: int = 2  # T
    per_batch: int = 7
    max_batches: int = 10
    description_chars: int = 40000


def source_of(vid: str) -> str:
    """The release's source name for a video id."""
    for prefix in ("Friends", "BigBang", "GOT"):
        if vid.startswith(prefix):
            return prefix
    return "Movie"


def plan(store: Store, options: StoryMindOptions) -> dict:
    """What a run would do (for --dry-run): no model is called."""
    description = video_description(store, options.vid, options.description_chars)
    return {
        "vid": options.vid,
        "description_chars": len(description),
        "topics": len(TOPICS),
        "per_topic": options.per_topic,
        "target_qas": len(TOPICS) * options.per_topic,
        "per_batch": options.per_batch,
        "max_batches": options.max_batches,
        "generator": options.generator.model,
        "supervisor": (options.supervisor or options.generator).model,
        "reviewers": {k: v.model for k, v in _reviewers(options).items()},
    }


def _reviewers(options: StoryMindOptions) -> dict[str, object]:
    return {name: options.reviewers.get(name, options.generator) for name in REVIEWERS}


def _row(vid, batch, stage, item_id, topic, payload) -> dict:
    return {
        "vid": vid,
        "batch": batch,
        "stage": stage,
        "item_id": item_id,
        "topic": topic,
        "payload": json.dumps(payload, ensure_ascii=False),
    }


def _qa_text(qa: dict) -> str:
    return qa["question"] + " " + " | ".join(qa["choices"])


def _normalise(batch: int, reply) -> list[dict]:
    qas = []
    for i, qa in enumerate(reply.qas):
        item = qa.model_dump()
        item["topic"] = topic_label(*item["topic"].split("-", 1)) if "-" in item["topic"] else None
        item["answer"] = item["answer"].strip().upper()[:1]
        item["item_id"] = f"b{batch:03d}-q{i:02d}"
        qas.append(item)
    return qas


class StoryMindLoop:
    """One run of the loop; `run()` returns the report."""

    def __init__(self, store: Store, options: StoryMindOptions, echo: Callable[[str], None]):
        from pipelines.llm import Gateway

        self.store, self.options, self.echo = store, options, echo
        self.description = video_description(store, options.vid, options.description_chars)
        spec = RunSpec(
            step="storymind.generate",
            backend="llm",
            model=options.generator.model,
            prompt_version=prompts.PROMPT_VERSION,
            source=options.vid,
            params={k: v for k, v in plan(store, options).items() if k != "description_chars"},
        )
        self.run_id = start_run(store, spec)
        self.generator = Gateway(store, options.generator, self.run_id)
        self.supervisor = Gateway(store, options.supervisor or options.generator, self.run_id)
        self.reviewers = {n: Gateway(store, c, self.run_id) for n, c in _reviewers(options).items()}
        self.counts = dict.fromkeys(TOPICS, 0)
        self.kept: list[dict] = []
        self.feedback: str | None = None
        self.failed = 0

    def _write(self, rows: list[dict]) -> None:
        with self.store.transaction() as cursor:
            insert_storymind_items(cursor, rows, self.run_id)

    def _ask(self, gateway, item_id, messages, schema, params=None):
        from pipelines.llm import LLMRequest

        [result] = gateway.run(
            [
                LLMRequest(
                    item_id=item_id,
                    messages=messages,
                    schema=schema,
                    params=params or {"temperature": 0},
                )
            ]
        )
        if not result.ok:
            self.failed += 1
        return result

    def _generate(self, batch: int) -> list[dict]:
        active = [t for t in TOPICS if self.counts[t] < self.options.per_topic]
        result = self._ask(
            self.generator,
            f"b{batch:03d}-generate",
            prompts.generator_messages(
                self.description, active, self.options.per_batch, self.feedback
            ),
            prompts.GeneratorReply,
            {"temperature": 0.7, "seed": batch},
        )
        if not result.ok:
            return []
        qas = _normalise(batch, result.parsed)
        rows = [
            _row(self.options.vid, batch, "generated", q["item_id"], q["topic"], q) for q in qas
        ]
        usable = [q for q in qas if q["topic"] in active and q["answer"] in "ABCDE" and q["answer"]]
        rows += [
            _row(self.options.vid, batch, "tool_inactive", q["item_id"], q["topic"], q)
            for q in qas
            if q not in usable
        ]
        self._write(rows)
        return usable

    def _supervise(self, batch: int, qas: list[dict]) -> list[dict]:
        result = self._ask(
            self.supervisor,
            f"b{batch:03d}-supervise",
            prompts.supervisor_messages(self.description, qas),
            prompts.SupervisorReply,
        )
        wrong = {v.index for v in result.parsed.verdicts if not v.correct} if result.ok else set()
        faults = [q for i, q in enumerate(qas) if i in wrong]
        kept = [q for i, q in enumerate(qas) if i not in wrong]
        rows = [
            _row(self.options.vid, batch, "supervisor_deleted", q["item_id"], q["topic"], q)
            for q in faults
        ]
        rows += [
            _row(self.options.vid, batch, "supervisor_kept", q["item_id"], q["topic"], q)
            for q in kept
        ]
        similar = self._similar_faults(faults) if faults else []
        self._write(rows)
        if faults:
            self._archive(faults)
            self._write_feedback(batch, faults, similar)
        return kept

    def _similar_faults(self, faults: list[dict]) -> list[dict]:
        """Top-10 past faults of this video by cosine to the new faults (the RAG step)."""
        from pipelines.embeddings import embed_texts

        past = storymind_faults(self.store, self.options.vid).dropna(subset=["vector"])
        if past.empty:
            return []
        query = embed_texts([_qa_text(f) for f in faults])
        matrix = np.asarray(past["vector"].tolist(), dtype=np.float32)
        best = (matrix @ query.T).max(axis=1)
        top = np.argsort(-best)[:TOP_FAULTS]
        return [json.loads(past["payload"].iloc[i]) for i in top]

    def _archive(self, faults: list[dict]) -> None:
        from pipelines.embeddings import MODEL_NAME, embed_texts

        vectors = embed_texts([_qa_text(f) for f in faults])
        with self.store.transaction() as cursor:
            insert_fault_vectors(
                cursor, [f["item_id"] for f in faults], vectors, MODEL_NAME, self.run_id
            )

    def _write_feedback(self, batch: int, faults: list[dict], similar: list[dict]) -> None:
        result = self._ask(
            self.supervisor,
            f"b{batch:03d}-feedback",
            prompts.feedback_messages(faults, similar),
            prompts.FeedbackReply,
        )
        if result.ok:
            self.feedback = result.parsed.feedback
            self._write(
                [
                    _row(
                        self.options.vid,
                        batch,
                        "feedback",
                        f"b{batch:03d}-feedback",
                        None,
                        {"feedback": self.feedback, "similar_faults": len(similar)},
                    )
                ]
            )

    def _count(self, kept: list[dict], batch: int) -> None:
        over = []
        for qa in kept:
            if self.counts[qa["topic"]] < self.options.per_topic:
                self.counts[qa["topic"]] += 1
                self.kept.append(qa)
            else:
                over.append(qa)  # the tool reached T within this batch
        if over:
            self._write(
                [
                    _row(
                        self.options.vid,
                        batch,
                        "tool_inactive",
                        q["item_id"] + "-over",
                        q["topic"],
                        q,
                    )
                    for q in over
                ]
            )

    def generate(self) -> None:
        """Batches until every topic tool is deactivated or max_batches is reached."""
        for batch in range(self.options.max_batches):
            if all(n >= self.options.per_topic for n in self.counts.values()):
                break
            qas = self._generate(batch)
            if qas:
                self._count(self._supervise(batch, qas), batch)
            self.echo(
                f"batch {batch}: {sum(self.counts.values())}/"
                f"{len(TOPICS) * self.options.per_topic} QAs kept so far"
            )

    def review(self) -> list[dict]:
        """Three reviewers per kept QA; return the MCQ records that pass §3.3 voting."""
        from pipelines.llm import LLMRequest

        verdicts = {}
        for name, gateway in self.reviewers.items():
            results = gateway.run(
                [
                    LLMRequest(
                        item_id=f"{q['item_id']}-{name}",
                        schema=prompts.ReviewerReply,
                        messages=prompts.reviewer_messages(name, self.description, q),
                        params={"temperature": 0},
                    )
                    for q in self.kept
                ]
            )
            self.failed += sum(not r.ok for r in results)
            verdicts[name] = [
                [str(r.parsed.correct), r.parsed.answer] if r.ok else None for r in results
            ]
        records = [self._record(i, q, verdicts) for i, q in enumerate(self.kept)]
        frame = pd.DataFrame(records)
        table = review_table(frame) if len(frame) else pd.DataFrame({"kept": []})
        kept_mask = table["kept"].tolist()
        rows = [
            _row(
                self.options.vid,
                -1,
                "review",
                q["item_id"],
                q["topic"],
                {n: verdicts[n][i] for n in REVIEWERS},
            )
            for i, q in enumerate(self.kept)
        ]
        rows += [
            _row(self.options.vid, -1, "kept" if ok else "rejected", q["item_id"], q["topic"], q)
            for q, ok in zip(self.kept, kept_mask)
        ]
        self._write(rows)
        return [r for r, ok in zip(records, kept_mask) if ok]

    def _record(self, index: int, qa: dict, verdicts: dict) -> dict:
        vid = self.options.vid
        choices = qa["choices"]
        letter = qa["answer"]
        return {
            "mcq_id": f"storymind:{vid}:{self.run_id[-6:]}-{index:03d}",
            "source": source_of(vid),
            "vid": vid,
            "qid": index,
            "question": qa["question"],
            "choices": choices,
            "gt": choices["ABCDE".index(letter)],
            "option": letter,
            "question_type": qa["topic"].split("-")[0],
            "story_element": qa["topic"].split("-")[1],
            "characters": qa["characters"],
            "locations": qa["locations"],
            "times": qa["times"],
            "set_name": "generated",
            "dataset_id": "storymind",
            **{f"{n}_check": verdicts[n][index] for n in REVIEWERS},
            "extra": {"run_id": self.run_id, "item_id": qa["item_id"]},
        }

    def run(self) -> dict:
        """Generate, supervise, review, store; return the report."""
        from pipelines.qgen.analytics import self_bleu

        try:
            self.generate()
            final = self.review()
            with self.store.transaction() as cursor:
                insert_mcq_questions(cursor, final, self.run_id)
        except BaseException:
            end_run(self.store, self.run_id, status="failed", n_failed=self.failed)
            raise
        end_run(self.store, self.run_id, n_items=len(final), n_failed=self.failed)
        questions = [r["question"] for r in final]
        return {
            "run_id": self.run_id,
            "vid": self.options.vid,
            "supervisor_kept": len(self.kept),
            "final_kept": len(final),
            "topic_counts": {t: n for t, n in self.counts.items() if n},
            "failed_calls": self.failed,
            "self_bleu_2": self_bleu(questions, 2),
            "self_bleu_4": self_bleu(questions, 4),
        }


def generate_for_video(
    store: Store, options: StoryMindOptions, echo: Callable[[str], None] = lambda _: None
) -> dict:
    """Run the StoryMindv2 loop for one video (raises ValueError for a video without script)."""
    return StoryMindLoop(store, options, echo).run()
