"""StoryMindv2 prompts and reply schemas (StoryVideoQA §3.2-3.3, Appendix B.3-B.5).

The appendix names the parts of each prompt (Figures A1-A3 themselves are images): generator =
system prompt, fine-grained topic descriptions, video description, QA requirements, supervisor
feedback; supervisor = system prompt, topics, video description, generated QAs, task; reviewer =
system prompt, video description, generated QAs, correctness and answer requirements. These are
our wordings of those parts. Prompt version: storymind-v1.
"""

from __future__ import annotations

import json

from pydantic import BaseModel, Field

PROMPT_VERSION = "storymind-v1"

QUESTION_TYPES = {
    "P": "perception: answerable by directly watching the video",
    "I": "inference: needs reasoning over motives, causes or consequences",
}
ELEMENTS = {
    "C": "characters",
    "A": "actions",
    "L": "locations",
    "CA": "characters and actions",
    "CL": "characters and locations",
    "AL": "actions and locations",
    "CAL": "characters, actions and locations",
}


class GeneratedQA(BaseModel):
    """One QA produced with a topic tool."""

    topic: str = Field(description="the tool used, e.g. P-CA")
    question: str
    choices: list[str] = Field(min_length=5, max_length=5)
    answer: str = Field(description="the letter A-E of the correct choice")
    times: list[str] = Field(default_factory=list, description="HH:MM:SS-HH:MM:SS spans")
    characters: list[str] = Field(default_factory=list)
    locations: list[str] = Field(default_factory=list)


class GeneratorReply(BaseModel):
    qas: list[GeneratedQA]


class SupervisorVerdict(BaseModel):
    index: int
    correct: bool
    reason: str = ""


class SupervisorReply(BaseModel):
    verdicts: list[SupervisorVerdict]


class FeedbackReply(BaseModel):
    feedback: str


class ReviewerReply(BaseModel):
    correct: bool
    answer: str = Field(description="the text (or letter) of the option the reviewer chooses")


def topic_tools(active: list[str]) -> str:
    """The active per-topic tools (deactivated ones are simply not offered)."""
    lines = []
    for topic in active:
        qtype, element = topic.split("-")
        lines.append(
            f"- tool `{topic}`: a {QUESTION_TYPES[qtype].split(':')[0]} question about "
            f"{ELEMENTS[element]} ({QUESTION_TYPES[qtype].split(': ')[1]})"
        )
    return "\n".join(lines)


def generator_messages(
    description: str, active: list[str], per_batch: int, feedback: str | None
) -> list[dict]:
    """Generator prompt: topics as tools, video description, requirements, feedback."""
    system = (
        "You are the generator of StoryMindv2. You write multiple-choice questions about a "
        "story video for deep video understanding, using one tool per fine-grained topic."
    )
    user = (
        f"Available tools (use only these):\n{topic_tools(active)}\n\n"
        f"Video description:\n{description}\n\n"
        f"Requirements: write {per_batch} QAs, each with exactly five choices, one correct; "
        "set `topic` to the tool used, `answer` to its letter, and give the evidence time "
        "spans, characters and locations. Questions must be answerable from the video alone."
    )
    if feedback:
        user += f"\n\nFeedback from the supervisor on past faults:\n{feedback}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def qa_lines(qas: list[dict]) -> str:
    """QAs as numbered JSON lines for supervisor/reviewer prompts."""
    return "\n".join(
        f"{i}. "
        + json.dumps(
            {k: qa[k] for k in ("topic", "question", "choices", "answer")}, ensure_ascii=False
        )
        for i, qa in enumerate(qas)
    )


def supervisor_messages(description: str, qas: list[dict]) -> list[dict]:
    """Supervisor check: which of the just-generated QAs are wrong."""
    system = (
        "You are the supervisor of StoryMindv2. You check generated QAs against the video "
        "description and delete the incorrect ones."
    )
    user = (
        f"Video description:\n{description}\n\nGenerated QAs:\n{qa_lines(qas)}\n\n"
        "Task: for every QA give `index`, `correct` (is it logically sound, answerable from "
        "the video, with exactly one correct choice matching `answer`, on its topic?) and a "
        "short `reason`."
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def feedback_messages(faults: list[dict], similar: list[dict]) -> list[dict]:
    """Supervisor feedback: the new faults plus the top-10 similar past faults (RAG)."""
    system = "You are the supervisor of StoryMindv2. You give the generator targeted feedback."
    user = (
        f"QAs just deleted:\n{qa_lines(faults)}\n\nSimilar past faults of this video:\n"
        f"{qa_lines(similar) or '(none)'}\n\nSummarise the recurring mistakes and how to "
        "avoid them, in at most five bullet points."
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def reviewer_messages(reviewer: str, description: str, qa: dict) -> list[dict]:
    """Reviewer prompt (one QA): correctness requirement + answer requirement."""
    system = (
        f"You are reviewer '{reviewer}' of StoryMindv2. You judge one QA about a story "
        "video independently."
    )
    user = (
        f"Video description:\n{description}\n\nQA:\n{qa_lines([qa])}\n\n"
        "Correctness requirement: `correct` is true only if the QA is logically sound, "
        "answerable from the video context, and needs no external knowledge.\n"
        "Answer requirement: in `answer`, give the choice you think is correct."
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]
