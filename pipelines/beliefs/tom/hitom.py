"""Hi-ToM (He et al., 2023; Apache-2.0): stories with enter/exit, moves and (deceptive) telling,
questions of order 0–4. One item of `Hi-ToM_data.json` = one story + one question.

One reading for every item (no rule is chosen per item: that would fit the labels). The
tracker follows the published generator's update rules (`dynamic_actions.py` of
ying-hui-he/Hi-ToM_dataset), which is `nesting='generator'` (the tracker's 'ordered' rule):
- entering: the agents entering together see where every object of the room is, at every
  order among themselves (EnterAction: permutations); the waiting room holds no objects;
- leaving: an agent who has left sees nothing more in that room; re-entering is entering again;
- moving: the mover and the agents still in the room update, nested beliefs only for chains in
  witness order with the mover last (MoveAction iterates `combinations`, not permutations);
- telling: a trusting listener adopts the claim and thinks the speaker holds it; the speaker
  thinks every listener holds it (PublicTellAction / PrivateTellAction; trust by exit order).

Why the two prompting halves score differently (evidence, not fitting): 340 story+question
pairs occur in both the CoTP and the VP half with the same numbered story text, and 76 of them
carry different labels. Under any one version of the generator a label is a function of the
story text (the observers of every action are the agents still in the room, in the order the
story lists them), so the two halves' labels were produced by different code. On all 76 the VP
label is the published MoveAction's (`combinations`, mover last) and 71 of the CoTP labels are
the symmetric update of the paper's stated assumption (2); the stored versions of
`dynamic_actions.py` we could read all use `combinations` in MoveAction (the code that made the
CoTP labels is not among them), so no rule keyed on the prompting style is used. No reading
can match both labels of a contradicting pair: the ceiling for any single reading is
(895 - 76) / 895 = 91.5% (`notes['single_reading_ceiling']`). Items whose label contradicts the
reading are listed as label errors with the reason (`label_errors`), naming the twin where
there is one; `nesting='symmetric'` is kept as a named alternative (the stated assumption).

Two published versions of MoveAction. The stored history of `dynamic_actions.py` holds both
rules: commits ed661f1… and 093fb3d… update nested beliefs after a move with `combinations`
(witness order, mover last), while commit ab832ae… updates both orders of every pair and every
permutation of three and four witnesses (and ObjectLocAction likewise); the data files of that
commit carry labels of the second rule (data_ToMh/No_Tell/{CoT,MC}/length_1/sample_6/order_2:
"Where does Sophia think Jayden thinks the cherry is? green_crate", Sophia having moved it there
before leaving; `combinations` gives red_crate). The released JSON's stories are not among the
stored data files, so which version labelled which half is read off the labels: VP follows the
first on 440/440 items, CoTP the second on 447/455. `nesting='versioned'` applies that per half
(keyed on the prompting style, an input field); it is a named alternative, not the default.

Public claims follow the labels' generator, not the stored HEAD: HEAD's PublicTellAction also
tells every listener which listeners believe the speaker ("all listeners know the believers"),
and with that rule (`public_known=True`) the VP half drops from 440 to 433 of 440 and the CoTP
half from 344 to 338, so neither half was labelled with it; the tracker leaves it off.
"""

from __future__ import annotations

import re
from pathlib import Path

from data_access.importers.json_files import JsonFileError, read_json_file
from pipelines.beliefs.tom.evaluate import EvalResult, Miss, normalise_answer
from pipelines.beliefs.tom.events import TomQuestion, TomStory
from pipelines.beliefs.tom.grammar import parse_story
from pipelines.beliefs.tom.tracker import track

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
        payload = read_json_file(path, str(path))
    except (OSError, JsonFileError) as exc:
        raise TomFormatError(f"not readable JSON: {exc}") from None
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


# The reading names: 'generator' is the published generator's rules (module docstring);
# 'symmetric' the stated assumption (2); 'versioned' applies, per prompting half, the published
# MoveAction version whose rule that half's labels follow (module docstring, "Two published
# versions"): VP -> combinations, CoTP -> both orders. It is keyed on the prompting style.
READINGS = {"generator": "ordered", "symmetric": "symmetric", "versioned": None}
DEFAULT_READING = "generator"
VERSION_BY_PROMPT = {"VP": "generator", "CoTP": "symmetric"}


def tracker_rule(story: TomStory, nesting: str = DEFAULT_READING) -> str:
    """The tracker's nesting rule for this story under a reading ('ordered' / 'symmetric')."""
    if nesting not in READINGS:
        raise ValueError(f"nesting must be one of {', '.join(READINGS)}, not {nesting!r}")
    if nesting != "versioned":
        return READINGS[nesting]
    style = story.meta.get("prompting_type")
    if style not in VERSION_BY_PROMPT:
        raise ValueError(
            f"{story.story_id}: the versioned reading needs prompting_type VP or CoTP, "
            f"not {style!r}"
        )
    return READINGS[VERSION_BY_PROMPT[style]]


def trace_story(story: TomStory, nesting: str = DEFAULT_READING):
    """Run the tracker on a Hi-ToM story under one reading (the same for every item)."""
    return track(story.events, story.agents, nesting=tracker_rule(story, nesting))


def _story_text(story: str) -> str:
    return "\n".join(story_sentences(story))


def label_twins(items: list[dict]) -> dict[int, list[dict]]:
    """For each item, the items of the other prompting half with the same story and question."""
    by_text: dict[tuple[str, str], list[int]] = {}
    for index, item in enumerate(items):
        by_text.setdefault((_story_text(item["story"]), item["question"]), []).append(index)
    return {
        index: [
            items[other]
            for other in by_text[(_story_text(item["story"]), item["question"])]
            if items[other].get("prompting_type") != item.get("prompting_type")
        ]
        for index, item in enumerate(items)
    }


def _twin_agreement(item: dict, twins: list[dict]) -> str:
    """'contradicts' when a twin in the other half carries another label, else 'agrees'/'none'."""
    if not twins:
        return "none"
    labels = {normalise_answer(str(t["answer"])) for t in twins}
    return "agrees" if labels == {normalise_answer(str(item["answer"]))} else "contradicts"


def label_error_reason(
    story: TomStory,
    question: TomQuestion,
    predicted: str | None,
    nesting: str = DEFAULT_READING,
    twins: list[dict] | None = None,
) -> str:
    """Why an item's label contradicts the reading (for the label-error list)."""
    gold = normalise_answer(question.gold)
    containers = {normalise_answer(e.container) for e in story.events if e.obj == question.obj}
    if gold not in containers:
        return f"label names a container the {question.obj} is never in or claimed to be in"
    for twin in twins or []:
        if normalise_answer(str(twin["answer"])) == normalise_answer(predicted):
            return (
                f"the same story and question in the {twin.get('prompting_type')} half (sample "
                f"{twin.get('sample_id')}) is labelled {twin['answer']}, as this reading answers; "
                "the two halves' labels contradict each other"
            )
    other = "generator" if tracker_rule(story, nesting) == "symmetric" else "symmetric"
    nested = question.chain and len(question.chain) >= 2
    if nested and normalise_answer(
        trace_story(story, other).believes(question.chain, question.obj)
    ) == (gold):
        return _OTHER_RULE[other]
    return (
        f"label {question.gold} follows neither the generator's nor the symmetric update "
        f"(tracker: {predicted})"
    )


_OTHER_RULE = {
    "symmetric": (
        "label follows the symmetric update (every co-present witness chain), not the "
        "generator's MoveAction, which updates only chains in witness order with the mover last"
    ),
    "generator": (
        "label follows the generator's MoveAction (chains in witness order, mover last), not "
        "the symmetric update of the stated assumption"
    ),
}


def evaluate(path: Path, nesting: str = DEFAULT_READING) -> EvalResult:
    """Answer every question from the tracker; accuracy by order, deception, prompting half and
    twin agreement, and the items whose label contradicts the reading, with the reason
    (`notes['label_errors']`)."""
    result = EvalResult(DATASET_ID)
    result.notes["nesting"] = nesting
    items = load_items(path)
    twins = label_twins(items)
    errors = []
    for index, item in enumerate(items):
        story = build_story(item, index, path)
        trace = trace_story(story, nesting)
        agreement = _twin_agreement(item, twins[index])
        for question in story.questions:
            predicted = trace.believes(question.chain, question.obj)
            ok = normalise_answer(predicted) == normalise_answer(question.gold)
            if not ok:
                reason = label_error_reason(story, question, predicted, nesting, twins[index])
                errors.append(
                    {
                        "item": story.story_id,
                        "question": question.text,
                        "order": question.group,
                        "label": question.gold,
                        "tracker": predicted,
                        "reason": reason,
                    }
                )
            tell = "deception" if question.extra["deception"] else "no_deception"
            result.add(
                ok,
                question.group,
                Miss(story.story_id, question.text, question.gold, predicted, question.group),
                also={
                    "condition": tell,
                    "order_condition": f"{question.group}/{tell}",
                    "prompting_type": str(question.extra["prompting_type"]),
                    "twin_label": agreement,
                },
            )
    contradicting = sum(
        _twin_agreement(it, twins[i]) == "contradicts" for i, it in enumerate(items)
    )
    result.notes["contradicting_pairs"] = contradicting // 2
    result.notes["single_reading_ceiling"] = round(1 - (contradicting // 2) / max(len(items), 1), 4)
    result.notes["label_errors"] = errors
    return result
