"""PercepToM (Jung et al., EMNLP 2024): who perceived each sentence (Percept-ToMi) and each
utterance (Percept-FANToM). The files carry no licence: read from ../shared/data only, never
shipped. List cells are Python reprs, so they are read with `ast.literal_eval` (SOURCES.md §7).

Percept-ToMi: the tracker computes the perceivers of every sentence from the events alone and
answers the ToMi questions ("Where will A look for the X?" = A's belief; "Where does A think
that B searches for the X?" = A's belief about B's belief).
Percept-FANToM: a conversation has no enter/exit events, only utterances. The rule used
(written here, no library does it): a long silence means the speaker left, their next turn means
they are back (`fantom_perceivers`). It is a heuristic over turn order only, since FANToM states
no exits, so its agreement is reported, not claimed exact.
"""

from __future__ import annotations

import ast
import csv
import re
from pathlib import Path

from pipelines.beliefs.tom.evaluate import EvalResult, Miss, normalise_answer
from pipelines.beliefs.tom.events import OTHER, StoryEvent, TomQuestion, TomStory
from pipelines.beliefs.tom.grammar import normalise_name, parse_story
from pipelines.beliefs.tom.hitom import TomFormatError
from pipelines.beliefs.tom.tracker import track

DATASET_ID = "perceptom"
_FIRST = re.compile(r"^Where will (?P<a>\w+) look for the (?P<obj>.+?)\?$")
_SECOND = re.compile(
    r"^Where does (?P<a>\w+) think that (?P<b>\w+) searches for the (?P<obj>.+?)\?$"
)
csv.field_size_limit(10_000_000)


def _literal(path: Path, row: int, field: str, text: str):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, RecursionError, MemoryError) as exc:  # nested too deep
        raise TomFormatError(
            f"{path}: record {row}: field '{field}' is not a Python literal"
            f" ({exc.__class__.__name__})"
        ) from exc


def _read_rows(path: Path, required: tuple[str, ...]) -> list[dict]:
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise TomFormatError(f"{path}: not a readable CSV ({exc})") from exc
    for index, row in enumerate(rows):
        for key in required:
            if row.get(key) in (None, ""):
                raise TomFormatError(f"{path}: record {index}: missing field '{key}'")
    return rows


def tomi_question(text: str) -> tuple[tuple[str, ...], str] | None:
    """ToMi question text -> (belief chain, object)."""
    if match := _FIRST.match(text.strip()):
        return (match["a"],), normalise_name(match["obj"])
    if match := _SECOND.match(text.strip()):
        return (match["a"], match["b"]), normalise_name(match["obj"])
    return None


def load_tomi(path: Path) -> list[TomStory]:
    """Percept-ToMi rows as stories (gold perceivers kept in `meta`)."""
    stories = []
    for index, row in enumerate(_read_rows(path, ("story", "perceivers", "question", "answer"))):
        sentences = [str(s) for s in _literal(path, index, "story", row["story"])]
        # An empty annotation is written [''].
        gold = [[n for n in p if n] for p in _literal(path, index, "perceivers", row["perceivers"])]
        if len(gold) != len(sentences):
            raise TomFormatError(
                f"{path}: record {index}: field 'perceivers' has {len(gold)}"
                f" entries for {len(sentences)} sentences"
            )
        events, unparsed = parse_story(sentences)
        story_id = f"perceptom-tomi-{row.get('index') or index}"
        parsed = tomi_question(row["question"])
        questions = []
        if parsed:
            chain, obj = parsed
            questions.append(
                TomQuestion(
                    f"{story_id}-q",
                    row["question"],
                    chain,
                    obj,
                    row["answer"],
                    group=row.get("qType") or str(len(chain)),
                )
            )
        stories.append(
            TomStory(
                story_id,
                DATASET_ID,
                sentences,
                events,
                questions,
                {"gold_perceivers": gold, "qType": row.get("qType")},
                unparsed,
            )
        )
    return stories


def evaluate_tomi(path: Path) -> EvalResult:
    """Perceiver agreement per sentence and per story, and question accuracy by type."""
    result = EvalResult(DATASET_ID)
    sentences_ok = sentences = stories_exact = 0
    disagreements: dict[str, int] = {}
    stories = load_tomi(path)
    for story in stories:
        trace = track(story.events, story.agents)
        exact = True
        for predicted, gold in zip(trace.perceivers, story.meta["gold_perceivers"]):
            sentences += 1
            kind = perceiver_disagreement(set(predicted), set(gold))
            sentences_ok += kind is None
            exact &= kind is None
            if kind:
                disagreements[kind] = disagreements.get(kind, 0) + 1
        stories_exact += exact
        for question in story.questions:
            answer = trace.believes(question.chain, question.obj)
            ok = normalise_answer(answer) == normalise_answer(question.gold)
            result.add(
                ok,
                question.group,
                Miss(story.story_id, question.text, question.gold, answer, question.group),
            )
    result.notes.update(
        {
            "perceiver_sentences": sentences,
            "perceiver_agreement": round(sentences_ok / sentences, 4) if sentences else 0.0,
            "perceiver_stories_exact": round(stories_exact / len(stories), 4) if stories else 0.0,
            "perceiver_disagreements": disagreements,
        }
    )
    return result


def perceiver_disagreement(predicted: set[str], gold: set[str]) -> str | None:
    """How a gold perceiver set differs from the computed one (None: they agree)."""
    if predicted == gold:
        return None
    if not gold:
        return "gold_empty"
    if gold < predicted:
        return "gold_omits_present_agent"
    if gold > predicted:
        return "gold_adds_absent_agent"
    return "gold_differs"


def fantom_perceivers(
    speakers: list[str], gap: int = 6, hears_reply: bool = True
) -> list[set[str]]:
    """Who hears each utterance of one conversation part, from the order of speakers alone.

    A speaker silent for at least `gap` utterances left after their turn (hearing one more
    line, the goodbye reply, with `hears_reply`) and is back at their next turn; a speaker whose
    first turn comes after `gap` utterances joined then. 'Everyone' is not a person. `gap=6`
    and `hears_reply` scored best of gap 3–10 on Percept-FANToM (see module docstring).
    """
    count = len(speakers)
    turns: dict[str, list[int]] = {}
    for index, name in enumerate(speakers):
        if name.lower() != "everyone":
            turns.setdefault(name, []).append(index)
    heard: list[set[str]] = [set() for _ in speakers]
    for name, spoken in turns.items():
        present = set(range(spoken[0] + 1)) if spoken[0] <= gap else {spoken[0]}
        for before, after in zip(spoken, [*spoken[1:], count]):
            silent = after - before - 1
            stop = before + 1 + int(hears_reply) if silent >= gap else after
            present.update(range(before, min(stop, count)))
        for index in present:
            heard[index].add(name)
    return heard


def evaluate_fantom(path: Path) -> dict:
    """Per-utterance perceiver agreement on Percept-FANToM (exact set match)."""
    rows = _read_rows(path, ("part_id", "utterance", "perceivers"))
    parts: dict[str, list[tuple[str, set[str]]]] = {}
    for index, row in enumerate(rows):
        speaker = row["utterance"].split(":", 1)[0].strip()
        gold = set(_literal(path, index, "perceivers", row["perceivers"]))
        parts.setdefault(row["part_id"], []).append((speaker, gold))
    agree = total = 0
    for turns in parts.values():
        predicted = fantom_perceivers([speaker for speaker, _ in turns])
        for guess, (_, gold) in zip(predicted, turns):
            total += 1
            agree += guess == gold
    return {
        "utterances": total,
        "parts": len(parts),
        "perceiver_agreement": round(agree / total, 4) if total else 0.0,
    }


def evaluate(path: Path) -> EvalResult:
    """`beliefs eval perceptom PATH`: PATH is the folder or one of its two CSV files."""
    path = Path(path)
    tomi = path / "Percept-ToMi.csv" if path.is_dir() else path
    fantom = path / "Percept-FANToM.csv" if path.is_dir() else None
    if path.is_file() and "fantom" in path.name.lower():
        result = EvalResult(DATASET_ID)
        result.notes["fantom"] = evaluate_fantom(path)
        return result
    result = evaluate_tomi(tomi)
    if fantom is not None and fantom.is_file():
        result.notes["fantom"] = evaluate_fantom(fantom)
    return result


def load_fantom(path: Path) -> list[TomStory]:
    """Percept-FANToM conversation parts as stories: one utterance per step, the dataset's own
    perceivers kept in `meta["gold_perceivers"]` (they are labels, not computed)."""
    parts: dict[str, list[tuple[str, str, list[str]]]] = {}
    for index, row in enumerate(_read_rows(path, ("part_id", "utterance", "perceivers"))):
        speaker, _, text = row["utterance"].partition(":")
        perceivers = [n for n in _literal(path, index, "perceivers", row["perceivers"]) if n]
        parts.setdefault(row["part_id"], []).append((speaker.strip(), text.strip(), perceivers))
    stories = []
    for part_id, turns in parts.items():
        sentences = [f"{speaker}: {text}" for speaker, text, _ in turns]
        events = [
            StoryEvent(i, OTHER, sentence, agents=(speaker,))
            for i, (sentence, (speaker, _, _)) in enumerate(zip(sentences, turns))
        ]
        stories.append(
            TomStory(
                f"perceptom-fantom-{part_id}",
                DATASET_ID,
                sentences,
                events,
                [],
                {"gold_perceivers": [p for _, _, p in turns], "part_id": part_id},
            )
        )
    return stories
