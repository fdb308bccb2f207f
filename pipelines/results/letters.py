"""MCQ option letters from free text, each harness's own way and at the version that wrote the
file (a prediction is scored as that harness scored it). StoryVideoQA MCQs have up to five
options, A-E (docs/FORMAT.md).

Every function returns the letter and no more; readers pair it with the name of the rule that
gave it (`RULES`), which the import report counts, so a user sees which rule read each letter.
"""

from __future__ import annotations

import re

LETTERS = "ABCDE"

# The rules a letter can come from, as the report names them (reader -> rule -> count).
HARNESS_PARSE = "the harness's own parse on the line"
STORYSCOPE_RULE = "StoryScope's export rule (storyscope_letter)"
VLMEVAL_JUDGED = "VLMEvalKit's scored outcome (hit/log)"
VLMEVAL_CAN_INFER = "VLMEvalKit can_infer"
LOGLIKELIHOOD = "lm-eval highest loglikelihood"
INSPECT_SCORE = "inspect scorer's Score.answer"
INSPECT_PARSE = "inspect ANSWER: parsing"
BARE_LETTER = "a bare letter or ANSWER: X"
MAPPED_OPTION = "the --map option column"
MAPPED_LETTERS = "the --map letters labels"


def storyscope_letter(response, n_choices=5):
    """The option letter of a free-text reply by StoryScope's own rule: the letter after
    "Answer:" (any case, optionally in brackets) when it is one of the choices, else the first
    capital choice letter standing alone (not inside a word), else None.

    This one function is both sides of the trip: `storyscope export-task --harness lmms-eval`
    copies its source into the exported task's utils.py (so lmms-eval scores with it), and the
    import reads replies that carry no parse of their own with it. It therefore uses nothing
    but `re`, imported inside.
    """
    import re

    letters = "ABCDEFGH"[:n_choices]
    text = (response or "").strip()
    answer = re.search(r"answer\s*[:\uff1a]\s*\(?([A-H])\b", text, re.IGNORECASE)
    if answer and answer.group(1).upper() in letters:
        return answer.group(1).upper()
    found = re.search(rf"(?<![A-Za-z])([{letters}])(?![A-Za-z])", text)
    return found.group(1) if found else None


# lmms-eval: every task has its own reply parser (videomme's `extract_characters_regex`, the
# shared `_task_utils/mcq_extract.py` since 2026-04, MMMU's `parse_multi_choice_response`, ...),
# and its `process_results` keeps the parse inside the sample's metric dict, which
# `--log_samples` writes (EvolvingLMMs-Lab/lmms-eval, e.g. lmms_eval/tasks/videomme/utils.py
# `pred_answer`, tasks/longvideobench/utils.py `parsed_pred` at 75571cfe). That parse is the
# harness's verdict; these are the keys it is written under, StoryScope's own export first.
LMMS_PARSE_KEYS = (
    "pred_letter",
    "pred_answer",
    "parsed_pred",
    "extracted_answer",
    "parsed_answer",
    "pred_ans",
)


def as_letter(value) -> str | None:
    """A parsed answer as an option letter: one of A-E, in any case, alone or as "(B)" / "B.";
    anything else (an empty parse, an option's text) is no letter."""
    if not isinstance(value, str):
        return None
    text = value.strip().strip("().").upper()
    return text if len(text) == 1 and text in LETTERS else None


# VLMEvalKit's `can_infer(answer, choices)` (vlmeval/utils/matching_util.py, open-compass/
# VLMEvalKit) = `can_infer_option`, else `can_infer_text`. It changed twice; the rule of the
# version that wrote the file applies (its run folder's date, vlmevalkit.py):
# - from the start (read at 18fc37a5): exactly one option letter among the reply's words
#   (punctuation blanked), else exactly one option's text inside the reply;
# - c3371551 (2025-08-04): the letter counts only among the last four words, and the text rule
#   only for replies at most twice as long as the options' texts together;
# - a67ace50 (2026-06-17): failing those, a verbose "the (correct) answer is **B**" (A-D).
# Its refusals and a bare "Z" are its 'Z' ("no answer"), which is no letter here.
VLMEVAL_ORIGINAL = "2023-12-14"
VLMEVAL_POSITION = "2025-08-04"
VLMEVAL_VERBOSE = "2026-06-17"
VLMEVAL_RULE_DATES = (VLMEVAL_ORIGINAL, VLMEVAL_POSITION, VLMEVAL_VERBOSE)
_VLMEVAL_BLANKED = str.maketrans({c: " " for c in ".()[],:;!*#{}"})
_VLMEVAL_REFUSALS = (
    "Sorry, I can't help with images of people yet.",
    "I can't process this file.",
    "I'm sorry, but without the image provided",
    "Cannot determine the answer",
)
_VLMEVAL_VERBOSE_ANSWER = re.compile(r"(?i)(?:correct\s+)?answer\s+is\s+\**([ABCD])\**")


def vlmevalkit_rule(run_date: str | None) -> str:
    """The date of the `can_infer` rule a VLMEvalKit run of `run_date` (YYYY-MM-DD) used: the
    latest rule not newer than the run (a run cannot use later code); the current rule when the
    run's date is unknown."""
    if not run_date:
        return VLMEVAL_RULE_DATES[-1]
    return max((d for d in VLMEVAL_RULE_DATES if d <= run_date), default=VLMEVAL_ORIGINAL)


def vlmevalkit_letter(
    text: str, choices: dict[str, str], rule: str = VLMEVAL_VERBOSE
) -> str | None:
    """The option letter VLMEvalKit's `can_infer(text, choices)` gives under the rule of `rule`
    (a date of `VLMEVAL_RULE_DATES`); None for its False and its 'Z'."""
    if "Failed to obtain answer via API" in text:
        return None
    if any(refusal in text for refusal in _VLMEVAL_REFUSALS):
        return None
    words = [word.strip() for word in text.translate(_VLMEVAL_BLANKED).split()]
    found = [letter for letter in choices if letter in words]
    if len(found) == 1:
        letter = found[0]
        if rule < VLMEVAL_POSITION or words.index(letter) > len(words) - 5:
            return letter
    elif not found and "Z" in words:
        return None  # its 'Z': no text rule after it
    if rule >= VLMEVAL_VERBOSE:
        match = _VLMEVAL_VERBOSE_ANSWER.search(text)
        if match and match.group(1).upper() in choices:
            return match.group(1).upper()
    lowered = text.lower()
    if rule >= VLMEVAL_POSITION and len(lowered) > 2 * sum(len(str(v)) for v in choices.values()):
        return None
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


# Older inspect_ai read the reply differently (UKGovernmentBEIS/inspect_ai, src/inspect_ai/solver/
# _multiple_choice.py `parse_answers`): before 0.3.42 (775396c9) the FIRST `ANSWER: X` anywhere
# (letters, spaces and commas), each capital letter of it marking a choice; from 0.3.42 the first
# strict line, else the first anywhere, accepted when it is exactly one allowed capital letter;
# from 0.3.221 (846da97f) the LAST such line, in either case (the rule above). The log's
# `packages.inspect_ai` says which version wrote it.
INSPECT_FIRST_ANY = "0.3.0"
INSPECT_FIRST_STRICT = "0.3.42"
INSPECT_LAST = "0.3.221"
INSPECT_RULE_VERSIONS = (INSPECT_FIRST_ANY, INSPECT_FIRST_STRICT, INSPECT_LAST)
_INSPECT_OLD_LOOSE = re.compile(r"(?i)ANSWER\s*:\s*([A-Za-z ,]+)(?:[^\w]|\n|$)")


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version)[:3])


def inspect_rule(version: str | None) -> str:
    """The parsing rule of the inspect_ai `version` that wrote a log (the latest when unknown)."""
    if not version or not re.match(r"^\d+\.\d+", version):
        return INSPECT_LAST
    key = _version_key(version)
    return max(
        (r for r in INSPECT_RULE_VERSIONS if _version_key(r) <= key), key=_version_key,
        default=INSPECT_FIRST_ANY,
    )  # fmt: skip


def inspect_letter(text: str, rule: str = INSPECT_LAST) -> str | None:
    """The option letter inspect_ai's multiple-choice parsing (of `rule`, a version of
    `INSPECT_RULE_VERSIONS`) reads from a completion."""
    if rule == INSPECT_FIRST_ANY:
        match = _INSPECT_OLD_LOOSE.search(text)
        marked = {c for c in match[1] if c in LETTERS} if match else set()
        return marked.pop() if len(marked) == 1 else None
    if rule == INSPECT_FIRST_STRICT:
        match = _INSPECT_STRICT.search(text) or _INSPECT_LOOSE.search(text)
        answer = match[1].strip().rstrip(".") if match else ""
        return answer if len(answer) == 1 and answer in LETTERS else None
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


def parse_labels(spec: str) -> tuple[str, ...]:
    """`--map letters=1234` or `letters=1,2,3,4`: the labels a model answered with, in option
    order (the first names option A)."""
    labels = [p.strip() for p in spec.split(",")] if "," in spec else list(spec.strip())
    return tuple(label for label in labels if label)


def labelled_letter(text: str, labels: tuple[str, ...]) -> str | None:
    """The option a reply names by one of `labels` (alone, optionally bracketed, with a final
    period, or after `ANSWER:`), as its letter; None otherwise."""
    reply = re.sub(r"(?i)^\s*answer\s*:\s*", "", text.strip()).strip().strip("().").strip()
    if reply in labels and labels.index(reply) < len(LETTERS):
        return LETTERS[labels.index(reply)]
    return None
