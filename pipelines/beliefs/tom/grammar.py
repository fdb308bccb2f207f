"""The templated sentence grammar of ToMi-family stories (ToMi, Percept-ToMi, Hi-ToM, OpenToM).

These datasets are generated from a small set of templates (Hi-ToM `dynamic_actions.py`
templates; ToMi's; OpenToM's plot lines), so a sentence is parsed by matching one template.
A sentence no template matches is kept as an `other` event and reported, never guessed at.
"""

from __future__ import annotations

import re

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

_NAME = r"[A-Z][a-zA-Z'\-]*"
_THING = r"[\w' \-]+?"


def _names(text: str) -> tuple[str, ...]:
    """'A, B and C' -> ('A', 'B', 'C')."""
    return tuple(part.strip() for part in re.split(r",\s*|\s+and\s+", text) if part.strip())


def _strip_article(text: str) -> str:
    """OpenToM writes 'the a donation bin'; the container is 'a donation bin'."""
    text = text.strip()
    return text[4:] if text.lower().startswith("the ") else text


# (pattern, builder) in priority order; the first match wins.
_TEMPLATES: list[tuple[re.Pattern, object]] = []


def _template(pattern: str):
    def register(builder):
        _TEMPLATES.append((re.compile(pattern + r"\.?$"), builder))
        return builder

    return register


@_template(
    rf"^(?P<who>{_NAME}(?:(?:, | and ){_NAME})*) (?:entered|went into|walked into) the "
    rf"(?P<room>{_THING})"
)
def _enter(step, text, m):
    return StoryEvent(step, ENTER, text, agents=_names(m["who"]), room=m["room"])


@_template(rf"^(?P<who>{_NAME}) (?:exited|left|went out of) the (?P<room>{_THING})")
def _exit(step, text, m):
    return StoryEvent(step, EXIT, text, agents=(m["who"],), room=m["room"])


@_template(rf"^(?P<who>{_NAME}) made no movements and stayed in the (?P<room>{_THING}) for .+")
def _stay(step, text, m):
    return StoryEvent(step, STAY, text, agents=(m["who"],), room=m["room"])


@_template(
    rf"^(?P<who>{_NAME}) publicly claimed that (?:the )?(?P<obj>{_THING}) is in the "
    rf"(?P<box>{_THING})"
)
def _public(step, text, m):
    return StoryEvent(
        step, PUBLIC_CLAIM, text, agents=(m["who"],), obj=m["obj"], container=m["box"]
    )


@_template(
    rf"^(?P<who>{_NAME}) privately told (?P<to>{_NAME}) that (?:the )?(?P<obj>{_THING}) is in the "
    rf"(?P<box>{_THING})"
)
def _private(step, text, m):
    return StoryEvent(
        step,
        PRIVATE_TELL,
        text,
        agents=(m["who"],),
        listener=m["to"],
        obj=m["obj"],
        container=m["box"],
    )


# OpenToM: "Diego moved the scarf to the a donation bin and Amir witnessed the action."
@_template(
    rf"^(?P<who>{_NAME}) moved the (?P<obj>{_THING}) to (?P<box>.+?) (?:and|but) (?P<obs>{_NAME}) "
    rf"(?P<neg>did not |didn't )?witness(?:ed)? the (?:action|event|move)"
)
def _move_observed(step, text, m):
    observers = (m["who"],) if m["neg"] else (m["who"], m["obs"])
    return StoryEvent(
        step,
        MOVE,
        text,
        agents=(m["who"],),
        obj=m["obj"],
        container=_strip_article(m["box"]),
        observers=observers,
    )


@_template(rf"^(?P<who>{_NAME}) moved the (?P<obj>{_THING}) to the (?P<box>{_THING})")
def _move(step, text, m):
    return StoryEvent(step, MOVE, text, agents=(m["who"],), obj=m["obj"], container=m["box"])


# OpenToM: "Both Diego and Amir noticed that the scarf is in the basket in the patio."
@_template(
    rf"^Both (?P<a>{_NAME}) and (?P<b>{_NAME}) noticed that the (?P<obj>{_THING}) is in the "
    rf"(?P<box>{_THING}) in the ?(?P<room>{_THING})?"
)
def _noticed(step, text, m):
    return StoryEvent(
        step,
        LOCATED,
        text,
        obj=m["obj"],
        container=m["box"],
        room=m["room"] or None,
        observers=(m["a"], m["b"]),
    )


@_template(rf"^The (?P<obj>{_THING}) (?:is|are) in the (?P<place>{_THING})")
def _the_x_is_in(step, text, m):
    # Room or container is decided by `parse_story`, which knows the story's rooms.
    return StoryEvent(step, LOCATED, text, obj=m["obj"], container=m["place"])


@_template(rf"^(?P<who>{_NAME}) is in the (?P<room>{_THING})")
def _agent_in(step, text, m):
    return StoryEvent(step, AGENT_IN, text, agents=(m["who"],), room=m["room"])


@_template(rf"^(?P<who>{_NAME}) (?:likes|dislikes|hates|loves|saw|lost|wants|is|was) .+")
def _private_state(step, text, m):
    # Preferences, sightings of animals, lost items: known to the actor only (Percept-ToMi).
    return StoryEvent(step, OTHER, text, agents=(m["who"],))


def parse_sentence(step: int, text: str) -> StoryEvent | None:
    """The event a templated sentence states, or None when no template matches."""
    clean = normalise_name(text)
    for pattern, builder in _TEMPLATES:
        match = pattern.match(clean)
        if match:
            return builder(step, clean, match)
    return None


def parse_story(sentences: list[str]) -> tuple[list[StoryEvent], list[str]]:
    """Parse every sentence; 'The X is in the R' with R a room becomes `container_in`.

    Returns:
        The events (one per sentence, `other` for unmatched ones) and the unmatched sentences.
    """
    parsed = [parse_sentence(step, text) for step, text in enumerate(sentences)]
    rooms = {e.room for e in parsed if e and e.kind in (ENTER, EXIT, STAY, AGENT_IN)}
    events, unparsed = [], []
    for step, (text, event) in enumerate(zip(sentences, parsed)):
        if event is None:
            unparsed.append(text)
            event = StoryEvent(step, OTHER, text.strip())
        elif _is_furniture_fact(event, parsed[step + 1] if step + 1 < len(parsed) else None, rooms):
            event = StoryEvent(step, CONTAINER_IN, event.text, obj=event.obj, room=event.container)
        events.append(event)
    return events, unparsed


def _is_furniture_fact(event: StoryEvent, following: StoryEvent | None, rooms: set) -> bool:
    """'The cupboard is in the cellar' (a container in a room), not 'The melon is in the pantry'
    when the next sentence places that pantry in a room (ToMi has a pantry container)."""
    if event.kind != LOCATED or event.observers is not None or event.container not in rooms:
        return False
    places_container = (
        following is not None and following.kind == LOCATED and following.obj == event.container
    )
    return not places_container


def normalise_name(text: str) -> str:
    """ToMi questions write 't - shirt' for the story's 't-shirt'."""
    return re.sub(r"\s*-\s*", "-", text.strip())
