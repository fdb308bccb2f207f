"""`retrieve-extract-v1`: an offline agent (no model) that drives the same loop and tools as
a model does, so a store without an endpoint still has agent answers and evidence trails.

It is a named baseline, not the paper's agent (§4.3 uses Qwen3.6 as orchestrator), and is
labelled by its name everywhere its answers show; its quality is what the judge measures
(the demo grades it with the `lexical` judge). Its policy, fixed and deterministic:

1. turn 0: `subtitle_search` and `find_clips` with the question's text;
2. turn 1: `browse_clip` on the two best clips `find_clips` returned, and
   `character_presence` on the best one (straight to 3 when it found none);
3. turn 2: the answer: the `EXTRACT_LINES` result lines that share the most content words with
   the question, in the order found (a LLoVi-style reduction of the film to a few retrieved
   moments, with the selection done lexically instead of by a model).
"""

from __future__ import annotations

import json
import re

from pipelines.llm.requests import LLMRequest, LLMResult
from pipelines.llm.tool_calls import ToolCall, ToolReply
from pipelines.qgen.text import content_stems

OFFLINE_AGENT = "retrieve-extract-v1"
EXTRACT_LINES = 3
NO_ANSWER = "The parts of the film the tools returned do not say."
BROWSED_CLIPS = 2

_SPAN_PREFIX = re.compile(r"^\[[^\]]*\]\s*")


class OfflineAgentTurns:
    """Answers the loop's turns without a model (`pipelines.agents.loop.TurnModel`)."""

    stop_reason: str | None = None

    def stop(self, reason: str = "stopped") -> None:
        self.stop_reason = reason

    def answer_turns(self, conversations, requests: list[LLMRequest]) -> list[LLMResult]:
        """One reply per open conversation, from what its earlier calls returned."""
        results = []
        for conversation, request in zip(conversations, requests):
            reply = next_reply(conversation.question["text"], conversation.steps)
            results.append(LLMResult(request.item_id, "ok", reply, _raw(reply), mode=OFFLINE_AGENT))
        return results


def next_reply(question: str, steps: list[dict]) -> ToolReply:
    """The policy's next turn, given the calls made so far (module docstring)."""
    turns = {step["turn"] for step in steps}
    if not steps:
        return _calls(
            0, [("subtitle_search", {"query": question}), ("find_clips", {"query": question})]
        )
    if turns == {0}:
        clips = [
            span
            for step in steps
            if step["tool"] == "find_clips" and not step.get("error")
            for span in step["intervals"]
        ][:BROWSED_CLIPS]
        if clips:
            calls = [("browse_clip", {"start": s, "end": e}) for s, e in clips]
            calls.append(("character_presence", {"start": clips[0][0], "end": clips[0][1]}))
            return _calls(1, calls)
    return ToolReply(extract_answer(question, steps))


def extract_answer(question: str, steps: list[dict]) -> str:
    """The result lines sharing the most content words with the question, in found order."""
    wanted = _content_words(question)
    scored = []
    seen = set()
    for step in steps:
        if step.get("error"):
            continue
        for position, line in enumerate(str(step["result_text"]).splitlines()[1:]):
            text = _SPAN_PREFIX.sub("", line).strip()
            if not text or text.startswith("(") or text in seen:
                continue
            seen.add(text)
            overlap = len(wanted & _content_words(text))
            if overlap:
                scored.append((overlap, (step["turn"], step["call_index"], position), text))
    best = sorted(scored, key=lambda item: (-item[0], item[1]))[:EXTRACT_LINES]
    if not best:
        return NO_ANSWER
    return " ".join(text for _, _, text in sorted(best, key=lambda item: item[1]))


def _content_words(text: str) -> set[str]:
    # the question checks' content words (scikit-learn's stop words, Porter stems); names
    # count here: "Ruth" in a question should find Ruth's lines
    return content_stems(text, exclude_proper_nouns=False)


def _calls(turn: int, calls: list[tuple[str, dict]]) -> ToolReply:
    return ToolReply(
        "",
        tuple(
            ToolCall(f"offline-{turn}-{i}", name, json.dumps(arguments))
            for i, (name, arguments) in enumerate(calls)
        ),
    )


def _raw(reply: ToolReply) -> str:
    if not reply.calls:
        return reply.content
    calls = [{"name": c.name, "arguments": json.loads(c.arguments)} for c in reply.calls]
    return json.dumps({"tool_calls": calls})
