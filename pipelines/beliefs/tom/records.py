"""Belief records from a tracker trace, in the store's schema (LF-VideoQA §3.1, App. D).

A story becomes a film of kind 'story' whose scenes are its sentences; each sentence is one
scene event `e_<scene:03d>_1` (the paper's `e_017_3` form). From the trace:
- presence: on_screen for the sentence's perceivers; offscreen_unaware for an absent agent whose
  belief the sentence makes false (Table 19: "leaves a belief of theirs now false"); otherwise
  absent_unmentioned;
- beliefs: first-order, one record per (holder, belief) with stable tags B1, B2, ... per holder,
  the scene where it forms and where it is revised, its kind (witnessed / told), its source,
  its basis event and whether it was false while held; rejected tells are kept (believed=False);
- meta-beliefs: second-order for every ordered pair, and deeper chains on request (orders 3–4),
  typed and sourced with Table 21's vocabulary.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pipelines.beliefs.tom.events import PRIVATE_TELL, PUBLIC_CLAIM, TomStory
from pipelines.beliefs.tom.tracker import TOLD, Trace

BACKEND = "symbolic-tracker"


def event_id(step: int, ordinal: int = 1) -> str:
    """The paper's event id form: scene 17, event 3 -> e_017_3."""
    return f"e_{step:03d}_{ordinal}"


def proposition(obj: str, container: str) -> str:
    """A location belief as a sentence ('a donation bin' and "Oliver's closet" keep their own
    determiner)."""
    place = container if re.match(r"^(?:a|an|the)\s|.*'s\s", container) else f"the {container}"
    return f"the {obj} is in {place}"


@dataclass
class StoryRecords:
    """Rows for one story, keyed by table name; every list holds plain dicts."""

    film: dict
    scenes: list[dict] = field(default_factory=list)
    script_lines: list[dict] = field(default_factory=list)
    scene_events: list[dict] = field(default_factory=list)
    presence: list[dict] = field(default_factory=list)
    beliefs: list[dict] = field(default_factory=list)
    meta_beliefs: list[dict] = field(default_factory=list)


def story_records(
    story: TomStory, trace: Trace, title: str, deep_chains: list[tuple[str, ...]] = ()
) -> StoryRecords:
    """All rows of one story (film, scenes, events, presence, beliefs, meta-beliefs)."""
    film_id = story.story_id
    records = StoryRecords(
        {
            "film_id": film_id,
            "dataset_id": story.dataset_id,
            "title": title,
            "kind": "story",
            "source": story.dataset_id,
        }
    )
    for step, (sentence, event) in enumerate(zip(story.sentences, trace.events)):
        room = trace.rooms[step] if step < len(trace.rooms) else None
        records.scenes.append(
            {
                "film_id": film_id,
                "scene_index": step,
                "heading": sentence,
                "location": room,
                "summary": sentence,
                "time_source": "none",
            }
        )
        records.script_lines.append(
            {
                "film_id": film_id,
                "line_index": step,
                "scene_index": step,
                "kind": "direction",
                "text": sentence,
            }
        )
        participants = [a for a in (*event.agents, event.listener) if a]
        records.scene_events.append(
            {
                "film_id": film_id,
                "event_id": event_id(step),
                "scene_index": step,
                "ord": 1,
                "description": sentence,
                "participants": participants,
                "witnesses": sorted(trace.perceivers[step]),
            }
        )
    agents = story.agents
    records.presence = presence_rows(film_id, trace, agents)
    records.beliefs = belief_rows(film_id, trace, agents, story.meta.get("stated_beliefs"))
    records.meta_beliefs = meta_belief_rows(film_id, trace, agents, deep_chains)
    return records


def presence_rows(film_id: str, trace: Trace, agents: list[str]) -> list[dict]:
    """The presence ladder of every agent at every step (module docstring)."""
    rows = []
    for step, perceivers in enumerate(trace.perceivers):
        event = trace.events[step]
        for agent in agents:
            if agent in perceivers:
                status, seen = "on_screen", [event_id(step)]
            elif event.obj and _now_false_for(trace, agent, event.obj, step):
                status, seen = "offscreen_unaware", []
            else:
                status, seen = "absent_unmentioned", []
            rows.append(
                {
                    "film_id": film_id,
                    "scene_index": step,
                    "character": agent,
                    "status": status,
                    "witnessed_events": seen,
                }
            )
    return rows


def _now_false_for(trace: Trace, agent: str, obj: str, step: int) -> bool:
    held = trace.believes((agent,), obj, step)
    return (
        held is not None
        and held != trace.reality(obj, step)
        and (step == 0 or held == trace.reality(obj, step - 1))
    )


def belief_rows(
    film_id: str, trace: Trace, agents: list[str], stated: list[dict] | None = None
) -> list[dict]:
    """First-order belief records with stable per-holder tags (B1, B2, ...)."""
    rows = []
    last_step = len(trace.events) - 1
    for holder in agents:
        tags = iter(range(1, 10_000))
        for obj in trace.objects():
            previous = None
            history = trace.history((holder,), obj)
            for index, (step, value, update) in enumerate(history):
                end = history[index + 1][0] if index + 1 < len(history) else None
                tag = f"B{next(tags)}"
                told = update.kind == TOLD
                rows.append(
                    {
                        "film_id": film_id,
                        "belief_id": tag,
                        "holder": holder,
                        "scene_index": step,
                        "kind": "told" if told else "witnessed",
                        "content": proposition(obj, value),
                        "source_character": update.source if told else None,
                        "believed": True if told else None,
                        "basis": [event_id(step)],
                        "confidence": "high",
                        "is_false": _false_while_held(trace, obj, value, step, end, last_step),
                        "revises": previous,
                        "revised_at_scene": end,
                        "trigger": trace.events[step].text if previous else None,
                    }
                )
                previous = tag
        rows.extend(_rejected_tells(film_id, trace, holder, tags))
        rows.extend(_stated_beliefs(film_id, stated or [], holder, tags))
    return rows


def _stated_beliefs(film_id: str, stated: list[dict], holder: str, tags) -> list[dict]:
    """Beliefs a dataset states outright (OpenToM's mistaken beliefs about others)."""
    return [
        {
            "film_id": film_id,
            "belief_id": f"B{next(tags)}",
            "holder": holder,
            "scene_index": item["scene_index"],
            "kind": item["kind"],
            "content": item["content"],
            "is_false": item.get("is_false", False),
            "basis": [event_id(item["scene_index"])],
            "trigger": item.get("trigger"),
        }
        for item in stated
        if item["holder"] == holder
    ]


def _false_while_held(
    trace: Trace, obj: str, value: str, start: int, end: int | None, last_step: int
) -> bool:
    stop = last_step if end is None else end - 1
    return any(trace.reality(obj, step) not in (None, value) for step in range(start, stop + 1))


def _rejected_tells(film_id: str, trace: Trace, holder: str, tags) -> list[dict]:
    rows = []
    for step, listener, speaker, trusts in trace.trusted:
        event = trace.events[step]
        if listener != holder or trusts or event.kind not in (PUBLIC_CLAIM, PRIVATE_TELL):
            continue
        rows.append(
            {
                "film_id": film_id,
                "belief_id": f"B{next(tags)}",
                "holder": holder,
                "scene_index": step,
                "kind": "told",
                "content": proposition(event.obj, event.container),
                "source_character": speaker,
                "believed": False,
                "basis": [event_id(step)],
                "confidence": "high",
                "is_false": event.container != trace.reality(event.obj, step),
                "revises": None,
                "revised_at_scene": step + 1,
                "trigger": "not trusted: the speaker left the room before the listener",
            }
        )
    return rows


def meta_belief_rows(
    film_id: str, trace: Trace, agents: list[str], deep_chains: list[tuple[str, ...]] = ()
) -> list[dict]:
    """Second-order meta-beliefs for every ordered pair, plus the given deeper chains."""
    chains = [(c, d) for c in agents for d in agents if c != d]
    chains += [tuple(chain) for chain in deep_chains if len(chain) > 2]
    rows, counter = [], iter(range(1, 1_000_000))
    for chain in chains:
        for obj in trace.objects():
            for index, (step, value, update) in enumerate(trace.history(chain, obj)):
                rows.append(
                    _meta_row(
                        film_id,
                        f"M{next(counter)}",
                        chain,
                        obj,
                        value,
                        step,
                        update,
                        "new" if index == 0 else "changed",
                    )
                )
    return rows


def _meta_row(film_id, meta_id, chain, obj, value, step, update, change) -> dict:
    holder, about = chain[0], chain[1]
    claim = proposition(obj, value)
    for inner in reversed(chain[2:]):
        claim = f"{inner} thinks {claim}"
    if update.kind == TOLD:
        source = "c_told_d" if update.source == holder else "observed_d_told"
    else:
        source = "shared_witnessing"
    return {
        "film_id": film_id,
        "meta_id": meta_id,
        "holder": holder,
        "about": about,
        "scene_index": step,
        "claim": claim,
        "type": "first_order_about_d" if len(chain) == 2 else "about_third_party",
        "change": change,
        "source": source,
        "basis": [event_id(step)],
        "confidence": "high",
        "order_depth": len(chain),
    }


def labelled_perceiver_records(story: TomStory, title: str) -> StoryRecords:
    """Rows of a conversation whose perceivers the dataset labels (Percept-FANToM): each
    utterance is heard by its labelled perceivers, who are on screen and are told it."""
    film_id = story.story_id
    records = StoryRecords(
        {
            "film_id": film_id,
            "dataset_id": story.dataset_id,
            "title": title,
            "kind": "story",
            "source": story.dataset_id,
        }
    )
    agents = list(dict.fromkeys(a for p in story.meta["gold_perceivers"] for a in p))
    tags: dict[str, int] = {}
    for step, (event, heard) in enumerate(zip(story.events, story.meta["gold_perceivers"])):
        speaker, text = event.agents[0], event.text.partition(":")[2].strip()
        records.scenes.append(
            {
                "film_id": film_id,
                "scene_index": step,
                "heading": event.text[:80],
                "summary": event.text,
                "time_source": "none",
            }
        )
        records.script_lines.append(
            {
                "film_id": film_id,
                "line_index": step,
                "scene_index": step,
                "kind": "dialogue",
                "character": speaker,
                "text": text,
            }
        )
        records.scene_events.append(
            {
                "film_id": film_id,
                "event_id": event_id(step),
                "scene_index": step,
                "ord": 1,
                "description": event.text,
                "participants": [speaker],
                "witnesses": sorted(heard),
            }
        )
        for agent in agents:
            present = agent in heard
            records.presence.append(
                {
                    "film_id": film_id,
                    "scene_index": step,
                    "character": agent,
                    "status": "on_screen" if present else "absent_unmentioned",
                    "witnessed_events": [event_id(step)] if present else [],
                }
            )
            if present and agent != speaker:
                tags[agent] = tags.get(agent, 0) + 1
                records.beliefs.append(
                    {
                        "film_id": film_id,
                        "belief_id": f"B{tags[agent]}",
                        "holder": agent,
                        "scene_index": step,
                        "kind": "told",
                        "content": text,
                        "source_character": speaker,
                        "basis": [event_id(step)],
                        "is_false": False,
                    }
                )
    return records
