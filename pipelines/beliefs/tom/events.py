"""The event model shared by every belief source: a story is a list of steps, each one event.

A ToM story becomes a film of kind 'story' whose scenes are its sentences (DESIGN.md, "a story is
a film whose scenes are sentences"); a screenplay scene can hold several events. Events carry
only what the text states; who perceived them is the tracker's job
(`pipelines.beliefs.tom.tracker`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Event kinds. Perceptual kinds change the world and are seen by whoever is in the room;
# communicative kinds reach only their listeners (Hi-ToM assumptions 3–4).
ENTER, EXIT, LOCATED, MOVE, STAY = "enter", "exit", "located", "move", "stay"
CONTAINER_IN, AGENT_IN = "container_in", "agent_in"
PUBLIC_CLAIM, PRIVATE_TELL = "public_claim", "private_tell"
OTHER = "other"
KINDS = (
    ENTER,
    EXIT,
    LOCATED,
    MOVE,
    STAY,
    CONTAINER_IN,
    AGENT_IN,
    PUBLIC_CLAIM,
    PRIVATE_TELL,
    OTHER,
)


@dataclass(frozen=True)
class StoryEvent:
    """One atomic event of a story step.

    Attributes:
        step: 0-based index of the sentence / scene the event belongs to.
        kind: one of `KINDS`.
        text: the sentence as written.
        agents: the actors (entrants for `enter`; the speaker for tells).
        room: the room named by the event, if any.
        obj: the object whose location the event is about.
        container: the container the object is (claimed to be) in.
        listener: the addressee of a private tell.
        observers: explicit witnesses stated by the text (OpenToM "Amir witnessed the action");
            None lets the tracker derive them from who is in the room.
    """

    step: int
    kind: str
    text: str
    agents: tuple[str, ...] = ()
    room: str | None = None
    obj: str | None = None
    container: str | None = None
    listener: str | None = None
    observers: tuple[str, ...] | None = None


@dataclass
class TomQuestion:
    """A dataset question reduced to a belief chain: () asks where the object really is."""

    question_id: str
    text: str
    chain: tuple[str, ...]
    obj: str | None
    gold: str
    group: str  # what `beliefs eval` reports by (order, condition, ...)
    kind: str = "location"  # location | initial | changed
    extra: dict = field(default_factory=dict)


@dataclass
class TomStory:
    """A story ready for the tracker and the store: sentences, parsed events, questions."""

    story_id: str
    dataset_id: str
    sentences: list[str]
    events: list[StoryEvent]
    questions: list[TomQuestion] = field(default_factory=list)
    meta: dict = field(default_factory=dict)
    unparsed: list[str] = field(default_factory=list)

    @property
    def agents(self) -> list[str]:
        """Every agent the events name, in order of first mention."""
        seen: dict[str, None] = {}
        for event in self.events:
            for name in (*event.agents, event.listener, *(event.observers or ())):
                if name:
                    seen.setdefault(name, None)
        return list(seen)
