"""BigToM (Gandhi et al., NeurIPS 2023; MIT): percept vs no percept -> true vs false belief ->
action. `bigtom.csv` is ';'-separated with no header and 19 columns (SOURCES.md §8).

Each row gives two stories: the context plus the aware percept (true-belief condition) or the
unaware percept (false-belief condition). As events: the agent witnesses the initial state; the
causal event changes it, witnessed by the agent only if the percept sentence says the agent
perceives it (read by `perceives`, a negation reading of that one sentence); the tracker then
gives the agent's belief, and the action is the one that belief leads to (columns 10 / 13).
The two propositions are the dataset's own belief statements (columns 8 and 11).
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from pipelines.beliefs.tom.evaluate import EvalResult, Miss, normalise_answer
from pipelines.beliefs.tom.events import LOCATED, OTHER, StoryEvent, TomQuestion, TomStory
from pipelines.beliefs.tom.hitom import TomFormatError
from pipelines.beliefs.tom.tracker import track

DATASET_ID = "bigtom"
COLUMNS = (
    "story",
    "aware_percept",
    "unaware_percept",
    "action_updated",
    "action_not_updated",
    "belief_question",
    "desire_question",
    "action_question",
    "belief_true",
    "desire_aware",
    "action_true",
    "belief_false",
    "desire_unaware",
    "action_false",
    "control_event",
    "control_aware",
    "control_unaware",
    "generator",
    "flag",
)
STATE = "the state of the world"
_NEGATION = re.compile(
    r"\b(?:does not|doesn't|did not|didn't|not|never|fails? to|without|unaware)\b", re.IGNORECASE
)


def perceives(agent: str, percept: str) -> bool:
    """Whether a percept sentence says `agent` perceives the change ("Noor sees ..." vs
    "Noor does not see ...")."""
    return percept.strip().startswith(agent) and not _NEGATION.search(percept)


def read_rows(path: Path) -> list[dict]:
    """The rows of `bigtom.csv` as dicts keyed by `COLUMNS`."""
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            raw = list(csv.reader(handle, delimiter=";"))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise TomFormatError(f"{path}: not a readable ';'-separated file ({exc})") from exc
    rows = []
    for index, cells in enumerate(raw):
        if len(cells) != len(COLUMNS):
            raise TomFormatError(
                f"{path}: record {index}: expected {len(COLUMNS)} ';'-separated"
                f" fields, found {len(cells)}"
            )
        rows.append(dict(zip(COLUMNS, (c.strip() for c in cells))))
    return rows


def build_story(row: dict, index: int, aware: bool) -> TomStory:
    """One condition of one row as a story: context sentences, the change, the percept."""
    # The percept sentences always open with the agent's name ("Noor sees ..."); the story may
    # open with "Yoshi," or a scene-setting clause.
    agent = re.sub(r"\W+$", "", row["aware_percept"].split()[0])
    context = [s.strip() for s in re.split(r"(?<=[.!?])\s+", row["story"]) if s.strip()]
    percept = row["aware_percept" if aware else "unaware_percept"]
    sentences = [*context, percept]
    initial, changed = row["belief_false"], row["belief_true"]
    witnesses = (agent,) if perceives(agent, percept) else ()
    events = [StoryEvent(i, OTHER, text) for i, text in enumerate(context[:-1])]
    # The agent knows the initial state; the last context sentence is the causal change, whose
    # witnesses are read off the percept sentence that follows it.
    events[:1] = [
        StoryEvent(0, LOCATED, context[0], obj=STATE, container=initial, observers=(agent,))
    ]
    events.append(
        StoryEvent(
            len(context) - 1,
            LOCATED,
            context[-1],
            obj=STATE,
            container=changed,
            observers=witnesses,
        )
    )
    events.append(StoryEvent(len(context), OTHER, percept, agents=(agent,)))
    condition = "true_belief" if aware else "false_belief"
    story_id = f"bigtom-{index:03d}-{'aware' if aware else 'unaware'}"
    gold_belief = row["belief_true" if aware else "belief_false"]
    gold_action = row["action_true" if aware else "action_false"]
    questions = [
        TomQuestion(
            f"{story_id}-belief",
            row["belief_question"],
            (agent,),
            STATE,
            gold_belief,
            group=f"belief/{condition}",
        ),
        TomQuestion(
            f"{story_id}-action",
            row["action_question"],
            (agent,),
            STATE,
            gold_action,
            group=f"action/{condition}",
            kind="action",
        ),
    ]
    return TomStory(
        story_id,
        DATASET_ID,
        sentences,
        events,
        questions,
        {
            "agent": agent,
            "condition": condition,
            "row": index,
            "actions": {changed: row["action_true"], initial: row["action_false"]},
        },
    )


def load_stories(path: Path) -> list[TomStory]:
    """Both conditions of every row."""
    return [
        build_story(row, i, aware)
        for i, row in enumerate(read_rows(path))
        for aware in (True, False)
    ]


def evaluate(path: Path) -> EvalResult:
    """Belief and action accuracy by condition (true / false belief)."""
    result = EvalResult(DATASET_ID)
    for story in load_stories(path):
        trace = track(story.events, [story.meta["agent"]])
        for question in story.questions:
            belief = trace.believes(question.chain, question.obj)
            predicted = story.meta["actions"].get(belief) if question.kind == "action" else belief
            ok = normalise_answer(predicted) == normalise_answer(question.gold)
            result.add(
                ok,
                question.group,
                Miss(story.story_id, question.text, question.gold, predicted, question.group),
            )
    return result
