"""The `asymmetry` backend on ToM stories (Hi-ToM, OpenToM): the film backend's readers and
tracker over the stories' narrated sentences, scored beside the symbolic tracker.

Only the narration is read — not the dataset reader's parsed events — so this measures how the
film backend reads a world, not the dataset's grammar. A story becomes a film whose scenes are
its sentences. Presence follows the narration: "X entered the kitchen" puts X in the kitchen
until "X exited the kitchen"; a sentence happens in the room it names, else in the last room
named; its witnesses are the characters in that room, plus anyone it says saw the action and
minus anyone it says did not ("... and Amir did not witness it"). Entering, everyone in the room
sees where its things are (the tracker's EnterAction reading). Reported speech is a tell: a
private tell reaches its listener, a public claim everyone present. The characters are the
story's agents (the dataset reader's entity list, the stories' roster).
"""

from __future__ import annotations

from pathlib import Path

from pipelines.beliefs.asymmetry.cues import NameIndex, normalise, observers_cue, reported_tell
from pipelines.beliefs.asymmetry.facts import Fact, read_facts
from pipelines.beliefs.asymmetry.film import claim_facts
from pipelines.beliefs.asymmetry.same import SameState
from pipelines.beliefs.asymmetry.tracker import AsymmetryTracker, EventIn
from pipelines.beliefs.tom.evaluate import EvalResult, Miss, normalise_answer
from pipelines.beliefs.tom.events import TomStory


def story_events(sentences: list[str], names: NameIndex) -> list[tuple[EventIn, set[str]]]:
    """One event per sentence with its witnesses, and who entered the room with it."""
    where: dict[str, str | None] = {}
    room: str | None = None
    events = []
    for step, raw in enumerate(sentences):
        sentence, saw, missed = observers_cue(raw, names)
        tell = reported_tell(sentence, names)
        facts = [] if tell else read_facts(sentence, names)
        moves = [f for f in facts if f.slot == "location" and f.subject in names.canonical.values()]
        if moves:
            room = moves[0].value
        entrants = {f.subject for f in moves if not f.negated}
        for who in entrants:
            where[who] = room
        present = {who for who, at in where.items() if at is not None and at == room}
        actors = set(names.names_in(sentence)[:1])
        event = EventIn(
            f"e_{step:03d}_1", step, raw, frozenset((present | saw | actors) - missed), facts
        )
        event.location = room
        if tell:
            event.teller = tell.speaker
            event.listeners = frozenset({tell.listener} if tell.listener else event.witnesses)
            if tell.listener:
                event.witnesses = frozenset({tell.speaker, tell.listener})
            event.claims = claim_facts(tell.claim, names)
        for f in moves:
            if f.negated:
                where[f.subject] = None
        events.append((event, entrants))
    return events


class StoryTrace:
    """A replayed story answering `believes(chain, obj)` like `tracker.Trace` does.

    Args:
        story: the story (its sentences; its questions' objects are embedded up front).
        embed: texts -> unit vectors (default MiniLM).
        agents: the characters (default: the story's agents).
    """

    def __init__(self, story: TomStory, embed=None, agents: list[str] | None = None):
        agents = list(agents or story.agents)
        self.names = NameIndex({agent: [] for agent in agents})
        self.events = story_events(story.sentences, self.names)
        facts = [f for e, _ in self.events for f in (*e.facts, *e.claims)]
        facts += [self._probe(q.obj) for q in story.questions if q.obj]
        self.same = SameState(facts, set(agents), embed)
        self.tracker = AsymmetryTracker(self.same, story.story_id)
        for event, entrants in self.events:
            self.tracker.step(event)
            if entrants:
                self.tracker.see_place(event, entrants)

    def _probe(self, obj: str) -> Fact:
        return Fact(normalise(obj, self.names), "location", "?", False, obj)

    def believes(self, chain: tuple[str, ...], obj: str) -> str | None:
        """Where chain[0] thinks ... the object is (None: no belief, or only a negation)."""
        fact = self.tracker.believes(tuple(chain), self.same.key(self._probe(obj)))
        return None if fact is None or fact.negated else fact.value


def _cached_embed():
    from pipelines.embeddings import embed_texts

    cache: dict[str, object] = {}

    def embed(texts: list[str]):
        import numpy as np

        missing = [t for t in texts if t not in cache]
        if missing:
            cache.update(zip(missing, embed_texts(missing)))
        return np.asarray([cache[t] for t in texts])

    return embed


def evaluate_hitom(path: Path, embed=None) -> EvalResult:
    """Hi-ToM accuracy by order with the asymmetry backend (every item, one reading)."""
    from pipelines.beliefs.tom.hitom import build_story, load_items

    result = EvalResult("hitom")
    result.notes["backend"] = "asymmetry"
    embed = embed or _cached_embed()
    for index, item in enumerate(load_items(path)):
        story = build_story(item, index, path)
        trace = StoryTrace(story, embed)
        for question in story.questions:
            predicted = trace.believes(question.chain, question.obj)
            ok = normalise_answer(predicted) == normalise_answer(question.gold)
            tell = "deception" if question.extra["deception"] else "no_deception"
            miss = Miss(story.story_id, question.text, question.gold, predicted, question.group)
            result.add(ok, question.group, miss, also={"condition": tell})
    return result


def evaluate_opentom(folder: Path, embed=None) -> EvalResult:
    """OpenToM location accuracy by question set with the asymmetry backend."""
    from pipelines.beliefs.tom.opentom import answer, load_stories

    result = EvalResult("opentom")
    result.notes["backend"] = "asymmetry"
    embed = embed or _cached_embed()
    for story in load_stories(folder):
        trace = StoryTrace(story, embed)
        for question in story.questions:
            predicted = answer(trace, story, question)
            ok = normalise_answer(predicted) == normalise_answer(question.gold)
            miss = Miss(story.story_id, question.text, question.gold, predicted, question.group)
            result.add(ok, question.group, miss)
    return result


EVALUATORS = {"hitom": evaluate_hitom, "opentom": evaluate_opentom}
