"""Hi-ToM (He et al., 2023; Apache-2.0): stories with enter/exit, moves and (deceptive) telling,
questions of order 0–4. One item of `Hi-ToM_data.json` = one story + one question.

The released file holds each story twice, once per prompting style (CoTP and VP), and the two
halves were labelled by two versions of Hi-ToM's generator: on the same story and question the
labels can differ. Checked against every item (see tests/test_beliefs_tom_data.py):
- CoTP labels follow the stated assumptions: every co-present witness sees every other witness
  (nesting='symmetric');
- VP labels follow the generator version whose MoveAction updates nested beliefs over
  `combinations` of the witnesses (nesting='ordered', see `BeliefTracker`).
`rules_for` picks the rule per item; `evaluate(..., nesting='symmetric')` scores every item
under the stated assumptions alone.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from pipelines.beliefs.evaluate import EvalResult, Miss, normalise_answer
from pipelines.beliefs.events import TomQuestion, TomStory
from pipelines.beliefs.grammar import parse_story
from pipelines.beliefs.tracker import track

DATASET_ID = "hitom"
_NUMBERED = re.compile(r"^\d+\s+(.*)$")
_REALLY = re.compile(r"^Where is the (?P<obj>.+?) really\?$")
_FIRST = re.compile(r"^Where does (?P<a>\w+) really think the (?P<obj>.+?) is\?$")
_NESTED = re.compile(r"^Where does (?P<chain>\w+(?: thinks? \w+)*) thinks? the (?P<obj>.+?) is\?$")


class TomFormatError(ValueError):
    """A dataset file or record that cannot be read; the message names file, record and field."""


def story_sentences(story: str) -> list[str]:
    """The numbered event lines of a Hi-ToM story (instructions and blank lines dropped)."""
    lines = []
    for raw in story.splitlines():
        match = _NUMBERED.match(raw.strip())
        if match:
            lines.append(match.group(1).strip())
    return lines


def question_chain(question: str) -> tuple[tuple[str, ...], str] | None:
    """'Where does A think B thinks the O is?' -> (('A', 'B'), 'O'); () for reality."""
    text = question.strip()
    if match := _REALLY.match(text):
        return (), match["obj"]
    if match := _FIRST.match(text):
        return (match["a"],), match["obj"]
    if match := _NESTED.match(text):
        return tuple(re.split(r" thinks? ", match["chain"])), match["obj"]
    return None


def load_items(path: Path) -> list[dict]:
    """The items of a Hi-ToM file (`{"data": [...]}` or a bare list)."""
    try:
        payload = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise TomFormatError(f"{path}: not readable JSON ({exc})") from exc
    items = payload.get("data") if isinstance(payload, dict) else payload
    if not isinstance(items, list):
        raise TomFormatError(f"{path}: expected {{'data': [...]}} or a list of items")
    for index, item in enumerate(items):
        for key in ("story", "question", "answer", "question_order"):
            if not isinstance(item, dict) or key not in item:
                raise TomFormatError(f"{path}: record {index}: missing field '{key}'")
    return items


def build_story(item: dict, index: int, path: Path | str = "") -> TomStory:
    """One Hi-ToM item as a story with its question."""
    sentences = story_sentences(item["story"])
    events, unparsed = parse_story(sentences)
    parsed = question_chain(item["question"])
    if parsed is None:
        raise TomFormatError(
            f"{path}: record {index}: field 'question' has an unknown form: {item['question']!r}"
        )
    chain, obj = parsed
    deception = bool(item.get("deception"))
    # (prompting style, sample id) is unique in the released file and stable across subsets.
    if item.get("prompting_type") and isinstance(item.get("sample_id"), int):
        story_id = f"hitom-{item['prompting_type'].lower()}-{item['sample_id']:04d}"
    else:
        story_id = f"hitom-{index:04d}"
    question = TomQuestion(
        question_id=f"{story_id}-q",
        text=item["question"],
        chain=chain,
        obj=obj,
        gold=str(item["answer"]),
        group=str(item["question_order"]),
        extra={
            "deception": deception,
            "story_length": item.get("story_length"),
            "prompting_type": item.get("prompting_type"),
        },
    )
    meta = {
        k: item.get(k)
        for k in (
            "prompting_type",
            "deception",
            "story_length",
            "question_order",
            "sample_id",
            "choices",
        )
    }
    return TomStory(story_id, DATASET_ID, sentences, events, [question], meta, unparsed)


def load_stories(path: Path) -> list[TomStory]:
    """Every item of a Hi-ToM file as a story."""
    return [build_story(item, i, path) for i, item in enumerate(load_items(path))]


def rules_for(story: TomStory) -> str:
    """The nesting rule the item's labels follow (module docstring)."""
    return "ordered" if story.meta.get("prompting_type") == "VP" else "symmetric"


def trace_story(story: TomStory, nesting: str = "auto"):
    """Run the tracker on a Hi-ToM story under its labels' rule ('auto') or a given one."""
    rule = rules_for(story) if nesting == "auto" else nesting
    return track(story.events, story.agents, nesting=rule)


def evaluate(path: Path, nesting: str = "auto") -> EvalResult:
    """Answer every question from the tracker; accuracy by order and by deception."""
    result = EvalResult(DATASET_ID)
    result.notes["nesting"] = nesting
    for story in load_stories(path):
        trace = trace_story(story, nesting)
        for question in story.questions:
            predicted = trace.believes(question.chain, question.obj)
            ok = normalise_answer(predicted) == normalise_answer(question.gold)
            tell = "deception" if question.extra["deception"] else "no_deception"
            result.add(
                ok,
                question.group,
                Miss(story.story_id, question.text, question.gold, predicted, question.group),
                also={
                    "condition": tell,
                    "order_condition": f"{question.group}/{tell}",
                    "prompting_type": str(question.extra["prompting_type"]),
                },
            )
    return result
