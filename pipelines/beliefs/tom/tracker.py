"""A symbolic belief tracker: who perceived each event and what everyone believes, nested.

It replays a story's events (no answers, no annotations) and keeps:
- the world: which container holds each object, who is in which room;
- the perceivers of every event (Percept-ToMi's "perceivers");
- belief updates, from which the belief of any chain (a1 thinks a2 thinks ... ak thinks) about
  an object is read at any step, to any order (the datasets go to 4, Hi-ToM §3).

Rules, following Hi-ToM's stated assumptions (Hi-ToM prompt note, He et al. 2023 §3.1):
1. An agent witnesses every event in the room it is in, until it exits.
2. Co-present witnesses see each other witness: an event seen by W updates every chain whose
   agents are all in W (so "A thinks B thinks" follows the last event A and B saw together).
3. Telling does not change the teller's own belief. A listener trusts a speaker who exited the
   object's room later than the listener did (or when the listener was never there); the exit
   order is common knowledge.
4. A private tell reaches the listener only; a public claim reaches everyone.
Communication updates are applied as Hi-ToM's generator applies them (`dynamic_actions.py`,
PublicTellAction / PrivateTellAction): a trusting listener adopts the claim and thinks the speaker
holds it; the speaker thinks every listener now holds it (optionally, `public_known`, every
listener of a public claim also knows which listeners trust the speaker). These reach first- and
second-order beliefs only (`tell_depth=2`); deeper chains keep what their agents last saw
together. Checked against the released Hi-ToM labels (`pipelines.beliefs.tom.hitom`).
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass, field

from pipelines.beliefs.tom.events import (
    AGENT_IN,
    CONTAINER_IN,
    ENTER,
    EXIT,
    LOCATED,
    MOVE,
    OTHER,
    PRIVATE_TELL,
    PUBLIC_CLAIM,
    STAY,
    StoryEvent,
)

Chain = tuple[str, ...]
WITNESSED, TOLD = "witnessed", "told"
NESTING_RULES = ("symmetric", "ordered")


@dataclass(frozen=True)
class BeliefUpdate:
    """A change to some chains' belief about where `obj` is.

    Perception updates every chain inside `witnesses`; communication names its `chains`.
    """

    step: int
    obj: str
    value: str
    kind: str
    witnesses: frozenset[str] | None = None
    chains: frozenset[Chain] | None = None
    source: str | None = None
    order: tuple[str, ...] | None = None

    def applies(self, chain: Chain) -> bool:
        """Whether this update sets the belief of `chain`."""
        if self.chains is not None:
            return chain in self.chains
        if self.witnesses is None or not set(chain) <= self.witnesses:
            return False
        return self.order is None or _in_order(chain, self.order)


def _in_order(chain: Chain, order: tuple[str, ...]) -> bool:
    """Whether the chain's agents are distinct and appear in `order` in the same order."""
    positions = [order.index(agent) for agent in chain]
    return all(a < b for a, b in zip(positions, positions[1:]))


@dataclass
class Trace:
    """What the tracker computed for one story; queried by the evaluators and the store writer."""

    events: list[StoryEvent]
    perceivers: list[frozenset[str]]
    updates: list[BeliefUpdate]
    world_log: list[tuple[int, str, str]]  # (step, obj, container) in order
    trusted: list[tuple[int, str, str, bool]] = field(
        default_factory=list
    )  # step, listener, speaker, trusts
    rooms: list[str | None] = field(default_factory=list)  # the room each step happens in

    def reality(self, obj: str, step: int | None = None) -> str | None:
        """Where `obj` really is after `step` (default: the end of the story)."""
        found = None
        for at, name, container in self.world_log:
            if name == obj and (step is None or at <= step):
                found = container
        return found

    def believes(self, chain: Chain, obj: str, step: int | None = None) -> str | None:
        """Where chain[0] thinks chain[1] thinks ... the object is; () asks for reality."""
        if not chain:
            return self.reality(obj, step)
        update = self.last_update(chain, obj, step)
        return update.value if update else None

    def last_update(self, chain: Chain, obj: str, step: int | None = None) -> BeliefUpdate | None:
        """The update that set the current belief of `chain` (its basis)."""
        for update in reversed(self.updates):
            if (
                update.obj == obj
                and (step is None or update.step <= step)
                and update.applies(chain)
            ):
                return update
        return None

    def history(self, chain: Chain, obj: str) -> list[tuple[int, str, BeliefUpdate]]:
        """Each step where the chain's belief about `obj` changes: (step, new value, update)."""
        changes, current = [], None
        for update in self.updates:
            if update.obj == obj and update.applies(chain) and update.value != current:
                changes.append((update.step, update.value, update))
                current = update.value
        return changes

    def objects(self) -> list[str]:
        """Every object whose location the story tracks, in order of first mention."""
        return list(dict.fromkeys(obj for _, obj, _ in self.world_log))


class BeliefTracker:
    """Replays events under the rules in the module docstring.

    Args:
        agents: every agent of the story (public claims reach all of them).
        tell_depth: nesting depth that communication reaches (2: Hi-ToM's convention).
        nesting: 'symmetric' (rule 2 as stated: every chain of co-present witnesses) or
            'ordered' (Hi-ToM's generator: after entering, a seen event updates only chains
            whose agents appear in witness order, the room's agents in arrival order and the
            mover last; `dynamic_actions.py` MoveAction iterates `combinations`, not
            permutations, so "the mover thinks X thinks" is not updated by his own move).
    """

    def __init__(
        self,
        agents: list[str],
        tell_depth: int = 2,
        nesting: str = "symmetric",
        public_known: bool = False,
    ):
        if nesting not in NESTING_RULES:
            raise ValueError(f"nesting must be one of {NESTING_RULES}, not {nesting!r}")
        self.agents = list(agents)
        self.tell_depth = tell_depth
        self.nesting = nesting
        self.public_known = public_known
        self.arrival: dict[str, int] = {}
        self._arrivals = itertools.count()
        self.location: dict[str, str | None] = {}
        self.container_room: dict[str, str] = {}
        self.obj_container: dict[str, str] = {}
        self.exit_step: dict[str, dict[str, int]] = defaultdict(dict)
        self.current_room: str | None = None
        self.trace = Trace([], [], [], [])

    # -- world --------------------------------------------------------------------------
    def occupants(self, room: str | None) -> frozenset[str]:
        """Agents in `room` now."""
        return frozenset(a for a, r in self.location.items() if r is not None and r == room)

    def _event_room(self, event: StoryEvent) -> str | None:
        if event.room:
            return event.room
        if event.kind == MOVE and self.location.get(event.agents[0]):
            return self.location[event.agents[0]]
        if event.container and event.container in self.container_room:
            return self.container_room[event.container]
        return self.current_room

    def _prescan(self, events: list[StoryEvent]) -> None:
        # ToMi states "The cupboard is in the cellar" after the object sentence; the furniture
        # does not move, so the fact holds for the whole story.
        for event in events:
            if event.kind == CONTAINER_IN:
                self.container_room.setdefault(event.obj, event.room)

    # -- perception ---------------------------------------------------------------------
    def _see(
        self,
        step: int,
        obj: str,
        container: str,
        witnesses: frozenset[str],
        last: str | None = None,
        ordered: bool = True,
    ) -> None:
        order = None
        if ordered and self.nesting == "ordered":
            others = sorted(
                (a for a in witnesses if a != last), key=lambda a: self.arrival.get(a, 0)
            )
            order = tuple(others) + ((last,) if last else ())
        self.trace.updates.append(
            BeliefUpdate(step, obj, container, WITNESSED, witnesses, order=order)
        )

    def _set_world(self, step: int, obj: str, container: str, room: str | None) -> None:
        self.obj_container[obj] = container
        if room:
            self.container_room.setdefault(container, room)
        self.trace.world_log.append((step, obj, container))

    def _objects_in(self, room: str) -> list[tuple[str, str]]:
        return [(o, c) for o, c in self.obj_container.items() if self.container_room.get(c) == room]

    def _perceive(self, event: StoryEvent) -> frozenset[str]:
        kind, step = event.kind, event.step
        room = self._event_room(event)
        if kind in (ENTER, AGENT_IN, EXIT, STAY):
            self.current_room = event.room
        if kind in (ENTER, AGENT_IN):
            for agent in event.agents:
                self.location[agent] = event.room
                self.arrival[agent] = next(self._arrivals)
            present = self.occupants(event.room)
            # Entering, everyone present sees where the room's objects are (Hi-ToM EnterAction).
            for obj, container in self._objects_in(event.room):
                self._see(step, obj, container, present, ordered=False)
            return present
        if kind == EXIT:
            present = self.occupants(event.room) | set(event.agents)
            for agent in event.agents:
                self.location[agent] = None
                self.exit_step[event.room][agent] = step
            return frozenset(present)
        present = (
            frozenset(event.observers) if event.observers is not None else self.occupants(room)
        )
        if kind in (LOCATED, MOVE):
            if event.observers is not None and event.room:
                for agent in event.observers:
                    self.location.setdefault(agent, event.room)
            if kind == MOVE:
                present = present | {event.agents[0]}
            self._set_world(step, event.obj, event.container, room)
            mover = event.agents[0] if kind == MOVE else None
            # A stated location is seen at once by all (Hi-ToM's EnterAction: permutations);
            # only a move is ordered.
            self._see(
                step, event.obj, event.container, present, last=mover, ordered=mover is not None
            )
        return present

    # -- communication (Hi-ToM assumptions 3-4) ----------------------------------------------
    def trusts(self, listener: str, speaker: str, obj: str) -> bool:
        """A listener trusts a speaker who left the object's room later than the listener."""
        room = self.container_room.get(self.obj_container.get(obj, ""), self.current_room)
        exits = self.exit_step.get(room, {})
        return exits.get(listener, -1) < exits.get(speaker, -1)

    def _tell(self, event: StoryEvent, listeners: list[str], public: bool) -> None:
        speaker, obj, claim, step = event.agents[0], event.obj, event.container, event.step
        believers = [a for a in listeners if a != speaker and self.trusts(a, speaker, obj)]
        for listener in listeners:
            if listener != speaker:
                self.trace.trusted.append((step, listener, speaker, listener in believers))
        chains: set[Chain] = set()
        for believer in believers:
            chains |= {(believer,), (believer, speaker)}
        chains |= {(speaker, listener) for listener in listeners if listener != speaker}
        if public and self.public_known:
            # The exit order is common knowledge, so every listener knows who believes.
            chains |= {(listener, b) for listener in self.agents for b in believers}
        chains = {c for c in chains if len(c) <= self.tell_depth}
        self.trace.updates.append(
            BeliefUpdate(step, obj, claim, TOLD, chains=frozenset(chains), source=speaker)
        )

    # -- replay --------------------------------------------------------------------------
    def run(self, events: list[StoryEvent]) -> Trace:
        """Replay `events` in order and return the trace."""
        self._prescan(events)
        self.trace.events = list(events)
        for event in events:
            if event.kind == PUBLIC_CLAIM:
                self._tell(event, self.agents, public=True)
                perceivers = frozenset(self.agents)
            elif event.kind == PRIVATE_TELL:
                self._tell(event, [event.listener], public=False)
                perceivers = frozenset({event.agents[0], event.listener})
            elif event.kind == OTHER:
                perceivers = frozenset(event.agents)
            elif event.kind == CONTAINER_IN:
                self.container_room.setdefault(event.obj, event.room)
                perceivers = self.occupants(event.room)
            else:
                perceivers = self._perceive(event)
            self.trace.perceivers.append(perceivers)
            self.trace.rooms.append(
                self._event_room(event) if event.kind != OTHER else self.current_room
            )
        return self.trace


def track(
    events: list[StoryEvent],
    agents: list[str],
    tell_depth: int = 2,
    nesting: str = "symmetric",
    public_known: bool = False,
) -> Trace:
    """Run a fresh tracker over a story's events."""
    return BeliefTracker(
        agents, tell_depth=tell_depth, nesting=nesting, public_known=public_known
    ).run(events)
