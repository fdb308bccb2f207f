"""OpenToM (Xu et al., ACL 2024; CC BY-NC 4.0, never shipped): a mover moves an entity while an
observer does or does not witness it. The structured `plot` of `meta_data.json` is parsed into
events; the location questions (coarse and fine, first and second order) are answered from the
tracker. Attitude and multi-hop (fullness, accessibility) questions need commonsense beyond
belief tracking and are not scored here.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from data_access.importers.json_files import JsonFileError, read_json_file
from pipelines.beliefs.tom.evaluate import EvalResult, Miss, normalise_answer
from pipelines.beliefs.tom.events import TomQuestion, TomStory
from pipelines.beliefs.tom.grammar import parse_story
from pipelines.beliefs.tom.hitom import TomFormatError
from pipelines.beliefs.tom.tracker import track

DATASET_ID = "opentom"
QUESTION_FILES = {
    "location_cg_fo": "location_cg_fo.json",
    "location_cg_so": "location_cg_so.json",
    "location_fg_fo": "location_fg_fo_new.json",
    "location_fg_so": "location_fg_so_new.json",
}
_PERSPECTIVE = r"^From (?P<a>[\w'\-]+)'s perspective, "
_PATTERNS = [
    ("initial_fo", re.compile(_PERSPECTIVE + r"is the (?P<obj>.+?) in its initial location")),
    (
        "initial_so",
        re.compile(
            _PERSPECTIVE
            + r"does (?P<b>[\w'\-]+) think that the (?P<obj>.+?) is in its initial location"
        ),
    ),
    (
        "start",
        re.compile(_PERSPECTIVE + r"where is (?:the )?(?P<obj>.+?) located in the beginning"),
    ),
    (
        "where_fo",
        re.compile(
            _PERSPECTIVE + r"where is (?:the )?(?P<obj>.+?) located (?:precisely )?by the end"
        ),
    ),
    (
        "where_so",
        re.compile(
            _PERSPECTIVE
            + r"where precisely does (?P<b>[\w'\-]+) think that the (?P<obj>.+?) is located"
        ),
    ),
]


def _read_json(path: Path) -> dict:
    try:
        payload = read_json_file(path, str(path))
    except (OSError, JsonFileError) as exc:
        raise TomFormatError(f"not readable JSON: {exc}") from None
    if not isinstance(payload, dict):
        raise TomFormatError(f"{path}: expected an object keyed by story id")
    return payload


def parse_question(text: str) -> tuple[str, tuple[str, ...], str] | None:
    """(form, chain, object); the narrator's chain is () (reality)."""
    for form, pattern in _PATTERNS:
        if match := pattern.match(text.strip()):
            first = () if match["a"].lower() == "narrator" else (match["a"],)
            second = (match["b"],) if "b" in pattern.groupindex else ()
            return form, first + second, match["obj"]
    return None


def load_stories(folder: Path) -> list[TomStory]:
    """Every story of `meta_data.json` with its location questions."""
    folder = Path(folder)
    meta = _read_json(folder / "meta_data.json")
    question_sets = {
        name: _read_json(folder / file)
        for name, file in QUESTION_FILES.items()
        if (folder / file).is_file()
    }
    stories = []
    for story_id, record in meta.items():
        if not isinstance(record, dict) or "plot" not in record or "plot_info" not in record:
            raise TomFormatError(
                f"{folder / 'meta_data.json'}: record {story_id}: missing field 'plot'"
            )
        sentences = [line.strip() for line in record["plot"].split("\n") if line.strip()]
        events, unparsed = parse_story(sentences)
        events, conflict = _apply_observed_flag(events, record)
        questions = []
        for set_name, by_story in question_sets.items():
            for n, item in enumerate(by_story.get(story_id, [])):
                parsed = parse_question(item.get("question", ""))
                if parsed is None:
                    continue
                form, chain, obj = parsed
                questions.append(
                    TomQuestion(
                        f"{story_id}-{set_name}-{n}",
                        item["question"],
                        chain,
                        obj,
                        str(item.get("answer", "")),
                        group=set_name,
                        kind=form,
                    )
                )
        stories.append(
            TomStory(
                f"opentom-{story_id}",
                DATASET_ID,
                sentences,
                events,
                questions,
                {
                    "plot_info": record["plot_info"],
                    "observed": record.get("observed"),
                    "plot_contradicts_observed": conflict,
                    "stated_beliefs": mistaken_beliefs(record),
                },
                unparsed,
            )
        )
    return stories


_MISTAKEN = re.compile(r"^(?P<holder>[\w'\-]+) mistakenly thinks? that (?P<claim>.+?)\.?$")


def mistaken_beliefs(record: dict) -> list[dict]:
    """OpenToM's stated mistaken beliefs about another character ("Amir mistakenly think that
    Diego likes scarf.") as false first-order beliefs held from the story's start."""
    found = []
    for text in (record.get("preferences") or {}).values():
        match = _MISTAKEN.match(str(text).strip())
        if match:
            found.append(
                {
                    "holder": match["holder"],
                    "content": match["claim"],
                    "scene_index": 0,
                    "kind": "false",
                    "is_false": True,
                    "trigger": "stated by the dataset (preferences)",
                }
            )
    return found


def _apply_observed_flag(events: list, record: dict) -> tuple[list, bool]:
    """Make the move's witnesses agree with the story's `observed` flag.

    In some stories the plot line says "X did not witness" while `observed` is true (or the
    reverse); the questions were labelled from the flag, so the flag wins and the conflict is
    kept in the story's meta (and counted by `evaluate`).
    """
    info, observed = record["plot_info"], record.get("observed")
    if observed is None:
        return events, False
    fixed, conflict = [], False
    for event in events:
        if event.kind == "move" and event.agents and event.agents[0] == info.get("mover"):
            wanted = (event.agents[0], info["observer"]) if observed else (event.agents[0],)
            if event.observers is not None and set(event.observers) != set(wanted):
                conflict = True
            event = replace(event, observers=wanted)
        fixed.append(event)
    return fixed, conflict


def answer(trace, story: TomStory, question: TomQuestion) -> str | None:
    """The tracker's answer in the question's own form (Yes/No or a place)."""
    info = story.meta["plot_info"]
    if question.kind == "start":
        return info.get("original_place")
    believed = trace.believes(question.chain, question.obj)
    if question.kind.startswith("initial"):
        if believed is None:
            return None
        same = normalise_answer(believed) == normalise_answer(info.get("original_place"))
        return "Yes" if same else "No"
    return believed


def _perspective(story: TomStory, question: TomQuestion) -> str:
    info = story.meta["plot_info"]
    names = {info.get("mover"): "mover", info.get("observer"): "observer"}
    return "->".join(names.get(a, "other") for a in question.chain) or "narrator"


def evaluate(folder: Path) -> EvalResult:
    """Accuracy on the location questions, by question set (coarse/fine x first/second order)."""
    result = EvalResult(DATASET_ID)
    stories = load_stories(folder)
    result.notes["stories"] = len(stories)
    result.notes["plot_contradicts_observed"] = sum(
        bool(s.meta["plot_contradicts_observed"]) for s in stories
    )
    for story in stories:
        trace = track(story.events, story.agents)
        for question in story.questions:
            predicted = answer(trace, story, question)
            ok = normalise_answer(predicted) == normalise_answer(question.gold)
            observed = "observed" if story.meta.get("observed") else "unobserved"
            result.add(
                ok,
                question.group,
                Miss(story.story_id, question.text, question.gold, predicted, question.group),
                also={"observed": observed, "perspective": _perspective(story, question)},
            )
    return result
