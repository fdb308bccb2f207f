"""What StoryScope's own MCQ methods send a model, and the reply they accept.

Two methods answer a StoryVideoQA multiple-choice question (five options, A-E):

- **PlotTree QA** (StoryVideoQA §5.2): the retrieved node summaries, sorted chronologically and
  concatenated into one context paragraph, "combined with the original QA pair to construct a
  prompt". The paper prints no prompt text; the wording below is the one of the authors'
  released `PlotTree/plotTreeqa.py` (github.com/nercms-mmap/StoryVideoQA): the instruction, the
  `(start): summary` context lines, the `(A) option` list and the closing "Answer: (".
- **Subtitles**: the video's time-stamped subtitle cues (within a token budget, see
  `subtitle_budget`) with the same question and options. Tables 8-9 report no subtitle-only
  baseline, so this prompt is ours: the PlotTree instruction with "subtitles" for "frame
  captions", so the two methods differ only in what the model is given.

The reply is asked as structured output (`MCQReply`: the option letter), as every gateway step
asks for its schema (the release instead reads a free-text reply's first letter).
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel

LETTERS = "ABCDE"
PLOTTREE_PROMPT_VERSION = "plottree-qa-release-v1"
SUBTITLES_PROMPT_VERSION = "mcq-subtitles-v1"
CHARS_PER_TOKEN = 4  # the budget unit: estimated tokens, as the judge's dry run estimates them

_INSTRUCTION = (
    "You are presented with a textual description of a video clip, it consists of {what}. "
    "Your task is to answer a question solely based on these textual description, choosing "
    "the correct option out of five possible answers. Please provide the answer with a "
    "single-letter (A, B, C, D, E) \n\n###\n\n  Description: \n{context}\n\n"
)
PLOTTREE_WHAT = "frame captions sparsely sampled from the video"
SUBTITLES_WHAT = "the subtitles of the video with their times"


class MCQReply(BaseModel):
    """The model's choice: one option letter."""

    option: Literal["A", "B", "C", "D", "E"]


def estimate_tokens(text: str) -> int:
    """Estimated tokens of `text` (4 characters a token): the unit of every context budget."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def choices_block(choices: list[str]) -> str:
    """'(A) first\\n(B) second\\n...' as the release lists options."""
    return "".join(f"({LETTERS[i]}) {c}\n" for i, c in enumerate(choices[: len(LETTERS)]))


def retrieval_query(question: str, choices: list[str]) -> str:
    """The text embedded for node retrieval: the question followed by its options (the
    release embeds `question + choices_str(choices)`; §5.2 "extract and encode question q from
    QA pair")."""
    return question + choices_block(choices)


def mcq_messages(what: str, context: str, question: str, choices: list[str]) -> list[dict]:
    """One user message: instruction, description, question, lettered options, "Answer: (".

    Args:
        what: what the description consists of (PLOTTREE_WHAT or SUBTITLES_WHAT).
        context: the description lines.
        question: the question text.
        choices: the options, in letter order.
    """
    prompt = (
        _INSTRUCTION.format(what=what, context=context)
        + f"\nQuestion: {question}\n\nPlease select one best option from following choices"
        " directly:\n" + choices_block(choices) + "\nAnswer: ("
    )
    return [{"role": "user", "content": prompt}]


def plottree_context(starts: list[float], summaries: list[str]) -> str:
    """The retrieved summaries in context order, one '(start): summary' line each (the
    release numbers a line by its node's start frame; at 1 fps that is its start second)."""
    return "\n".join(f"({int(s)}): {text}" for s, text in zip(starts, summaries))
