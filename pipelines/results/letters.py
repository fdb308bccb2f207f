"""MCQ option letters from free text, each harness's own way (a prediction is scored as that
harness would score it). StoryVideoQA MCQs have up to five options, A-E (docs/FORMAT.md)."""

from __future__ import annotations

import re

LETTERS = "ABCDE"

# lmms-eval's video MCQ tasks (lmms_eval/tasks/videomme/utils.py, `extract_characters_regex`,
# EvolvingLMMs-Lab/lmms-eval): strip the answer prefixes, give up on a long reply without a
# capital option letter, else the first capital letter A-E anywhere in the text.
_LMMS_PREFIXES = (
    "The best answer is",
    "The correct answer is",
    "The answer is",
    "The answer",
    "The best option isThe correct option is",  # their list misses a comma: Python joins
    "Best answer:Best option:",  # the two strings, so these prefixes are as they act there
    "Answer:",
    "Option:",
    "The correct answer",
    "The correct option",
)
_LMMS_PREFIX_WORDS = ("The ", "Best ", "Answer:", "Option:")  # every prefix starts so
_LMMS_LETTER = re.compile(f"[{LETTERS}]")


def lmms_eval_letter(text: str) -> str | None:
    """The option letter lmms-eval's `extract_characters_regex` reads from `text`.

    Theirs gives up ("") on a reply of more than ten words without an option letter and else
    takes the first letter found; both cases are "no match" here, so only the search remains.
    """
    s = text.strip()
    if any(word in s for word in _LMMS_PREFIX_WORDS):  # most replies hold no prefix at all
        for prefix in _LMMS_PREFIXES:
            s = s.replace(prefix, "")
    match = _LMMS_LETTER.search(s)
    return match[0] if match else None


# VLMEvalKit (vlmeval/utils/matching_util.py at 18fc37a5, open-compass/VLMEvalKit): `can_infer`
# = `can_infer_option` (exactly one option letter among the reply's words, punctuation blanked),
# else `can_infer_text` (exactly one option's text inside the reply). Its refusals map to 'Z'
# ("no answer"), which we store as no letter.
_VLMEVAL_BLANKED = str.maketrans({c: " " for c in ".()[],:;!*#{}"})
_VLMEVAL_REFUSALS = (
    "Sorry, I can't help with images of people yet.",
    "I can't process this file.",
    "I'm sorry, but without the image provided",
    "Cannot determine the answer",
)


def vlmevalkit_letter(text: str, choices: dict[str, str]) -> str | None:
    """The option letter VLMEvalKit's `can_infer(text, choices)` gives (None for its 'Z')."""
    if "Failed to obtain answer via API" in text:
        return None
    if any(refusal in text for refusal in _VLMEVAL_REFUSALS):
        return None
    words = [word.strip() for word in text.translate(_VLMEVAL_BLANKED).split()]
    found = [letter for letter in choices if letter in words]
    if len(found) == 1:
        return found[0]
    lowered = text.lower()
    by_text = [k for k, v in choices.items() if str(v).lower() in lowered]
    return by_text[0] if len(by_text) == 1 else None


# inspect_ai's `multiple_choice()` solver asks for "ANSWER: $LETTER"; its `parse_answers`
# (inspect_ai/solver/_multiple_choice.py, inspect_ai 0.3.285, single-answer branch) unwraps
# `$X$`, `**X**` and `(X)`, takes the LAST line `ANSWER: X` (strict: alone on its line), else the
# last `ANSWER: X` anywhere, and accepts it when it is exactly one allowed letter.
_INSPECT_UNWRAP = (
    (re.compile(r"\x24\s*([A-Za-z\d][A-Za-z\d ,]*?)\s*\x24"), r"\1"),
    (re.compile(r"\*\*\s*([A-Za-z\d][A-Za-z\d ,]*?)\s*\*\*"), r"\1"),
    (re.compile(r"(?i)(^|[:,])(\s*)\(([A-Za-z\d])\)(?=\s*(?:,|\.|\n|\Z))"), r"\1\2\3"),
)
_INSPECT_STRICT = re.compile(r"(?i)^ANSWER\s*:\s*([A-Za-z\d ,]+)\s*(?:$|\n|\.)", re.MULTILINE)
_INSPECT_LOOSE = re.compile(r"(?i)ANSWER\s*:\s*([A-Za-z\d ,]+)(?:[^\w]|\n|$|\.)")


def inspect_letter(text: str) -> str | None:
    """The option letter inspect_ai's multiple-choice parsing reads from a completion."""
    for pattern, replacement in _INSPECT_UNWRAP:
        text = pattern.sub(replacement, text)
    matches = _INSPECT_STRICT.findall(text) or _INSPECT_LOOSE.findall(text)
    if not matches:
        return None
    tokens = [t for t in matches[-1].strip().rstrip(".").upper().split(",") if t]
    return tokens[0] if len(tokens) == 1 and tokens[0] in LETTERS else None


def loglikelihood_letter(scores: list[float]) -> str | None:
    """lm-evaluation-harness multiple_choice tasks: the choice with the highest loglikelihood
    (`acc`, lm_eval/api/task.py `process_results`), as a letter by its position."""
    if not scores or len(scores) > len(LETTERS):
        return None
    best = max(range(len(scores)), key=scores.__getitem__)
    return LETTERS[best]


# A bare letter, the convention for files no harness wrote (OpenAI Batch output, tables): the
# whole reply is one letter, optionally "(B)", "B." or "B)", or an inspect-style "ANSWER: B".
_BARE_LETTER = re.compile(rf"^\(?([{LETTERS}])[\).:]?$")


def plain_letter(text: str) -> str | None:
    """A reply that is just an option letter (or `ANSWER: X`); None otherwise."""
    match = _BARE_LETTER.match(text.strip())
    return match[1] if match else inspect_letter(text)
