"""The `asymmetry` belief backend's engine: who knows which state of the story, who missed a
change, who was told something the story contradicts (LF-VideoQA App. D record shape,
Tables 19–21; reasoning of the symbolic Hi-ToM tracker, `pipelines.beliefs.tom.tracker`).

It replays events in order. A narrated event states facts (`asymmetry.facts`); a spoken line or
reported speech tells claims. Rules:
1. Witness. Everyone in the event's witness set perceives its facts: a new state becomes a
   'witnessed' belief; a state that disagrees with what they held (`asymmetry.same`) becomes a
   'revised' belief that `revises` the old one, whose `revised_at_scene` is this scene.
2. Absence. Whoever is not a witness keeps the last state they knew. When the narrated state
   changes under a belief they hold, that belief is false from then on (Table 19's
   offscreen_unaware: "leaves a belief of theirs now false") until they witness or are told the
   new state (rule 1 / 3: a revision).
3. Told. A listener (the addressee, or everyone present) accepts a claim unless they have seen
   the state (or its place) themselves later than the teller could have (Hi-ToM assumption 3,
   generalised from "exited later" to "last had access later"); a rejected claim is recorded
   with believed=False. A teller's access includes what they were told: news passed on is as
   recent as its source's access (`access`), so a listener who saw the old state is revised by
   second-hand news of the change, not deaf to it. Telling does not change the teller's own
   belief. An accepted claim is false when the narrated state disagrees with it while it is
   held, or, where nothing is narrated, when the story's last word on that state (a later
   claim) disagrees (a lie, a mistake).
4. Meta-beliefs (Table 21, second order): co-witnesses of a change think each other know it
   (shared_witnessing); a witness thinks an absent character who held the old state does not
   know (d_absence); a teller thinks the listener now holds the claim (c_told_d). Only states
   that matter get records: a change, or a state someone holds differently.
5. Voiced (`EventIn.voiced`, a film's spoken line): the speaker holds what they say (an
   'inferred' belief citing the line, or 'revised'); in hindsight it is a lie, and left out,
   when they later say the opposite without having seen or been told anything about the state
   in between, or when it is false and about themselves. What a speaker says about themselves
   is kept only when false or revising (they are its source). Nobody is told what they did or
   are (rule 3: the listener gets no record). docs/BELIEFS_ASYMMETRY.md has the examples.
Deeper chains (Hi-ToM orders 3–4) are answered from the same updates: a chain believes the last
state all its members perceived together, or a tell that reached it (`believes`).
Every record keeps its basis: event ids, the scene, the teller (`source_character`), the trigger.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from pipelines.beliefs.asymmetry.facts import Fact, whereabouts
from pipelines.beliefs.asymmetry.same import SameState

Key = tuple[str, str, str]


@dataclass
class EventIn:
    """One event: narrated facts (seen by `witnesses`) and/or claims told by `teller`."""

    event_id: str
    scene_index: int
    text: str
    witnesses: frozenset[str]
    facts: list[Fact] = field(default_factory=list)
    teller: str | None = None
    listeners: frozenset[str] = frozenset()
    claims: list[Fact] = field(default_factory=list)
    location: str | None = None
    voiced: bool = False  # a spoken line: the teller says what they believe (rule 5)


@dataclass
class Held:
    """One first-order belief record while it is computed."""

    holder: str
    tag: str
    key: Key
    fact: Fact
    t: int
    row: dict
    end_t: int | None = None
    voiced: bool = False


def about(fact: Fact, who: str) -> bool:
    """The fact is about `who`: its subject, the doer of a 'did' fact, the holder of a thing
    (what they took or have, and so where it is: with them), or a claim that opens with them."""
    if fact.subject == who or (fact.slot in ("did", "holder") and fact.value == who):
        return True
    if fact.slot == "location" and fact.value == who:
        return True
    return fact.slot == "claim" and fact.subject.startswith(who.lower() + " ")


_PERCEIVED = ("saw ", "heard ", "watched ", "noticed ", "see ", "hear ", "watch ", "notice ")


def _perception_report(fact: Fact) -> bool:
    """ "June saw Tomas carry crates": said by June, it is testimony about what happened (her
    belief about Tomas), not about June."""
    return fact.slot == "did" and fact.subject.startswith(_PERCEIVED)


def _with_whereabouts(fact: Fact) -> list[Fact]:
    """A transfer is also a change of where the thing is (rule 1: "Ben takes the key" revises
    "the key is in the drawer"); the location comes first, so that one sentence's record is the
    one that revises (`records`)."""
    moved = whereabouts(fact)
    return [moved, fact] if moved is not None else [fact]


def _sentence(held: Held) -> tuple:
    return held.holder, held.row["scene_index"], held.row["content"]


class AsymmetryTracker:
    """Replays `EventIn`s; `records()` gives belief rows, `meta` the meta-belief rows."""

    def __init__(self, same: SameState, film_id: str):
        self.same, self.film_id = same, film_id
        self.t = 0
        self.world: dict[Key, list[tuple[int, Fact]]] = defaultdict(list)
        self.told: dict[Key, list[tuple[int, Fact]]] = defaultdict(list)
        self.current: dict[str, dict[Key, Held]] = defaultdict(dict)
        self.held: list[Held] = []
        self.rejected: list[dict] = []
        self.meta: list[dict] = []
        self._meta_seen: dict[tuple[str, str, Key], tuple] = {}
        self.fresh: dict[tuple[str, Key], int] = {}
        self.heard: dict[tuple[str, Key], int] = {}  # when the source of a told state saw it
        self.last_at: dict[tuple[str, str], int] = {}
        self.key_location: dict[Key, str] = {}
        self.updates: list[tuple[int, Key, Fact, frozenset | None, frozenset | None]] = []
        self.unaware: set[tuple[int, str]] = set()  # (scene, character) whose belief went false
        self.learned: dict[tuple[str, Key], list[int]] = defaultdict(list)  # seen or told, when
        self._tags: dict[str, int] = defaultdict(int)

    # -- reading -----------------------------------------------------------------------
    def reality(self, key: Key) -> Fact | None:
        """The last narrated fact of a state."""
        return self.world[key][-1][1] if self.world.get(key) else None

    def believes(self, chain: tuple[str, ...], key: Key) -> Fact | None:
        """What chain[0] thinks chain[1] thinks ... about a state (module docstring)."""
        if not chain:
            return self.reality(key)
        for _, k, fact, witnesses, chains in reversed(self.updates):
            if k != key:
                continue
            if (witnesses is not None and set(chain) <= witnesses) or (
                chains is not None and tuple(chain) in chains
            ):
                return fact
        return None

    def freshness(self, who: str, key: Key) -> int:
        """When `who` last had first-hand access to a state (-1: never)."""
        place = self.key_location.get(key)
        at = self.last_at.get((who, place), -1) if place else -1
        return max(self.fresh.get((who, key), -1), at)

    def access(self, who: str, key: Key) -> int:
        """How recent what `who` can tell about a state is: their own access, or that of
        whoever told them (rule 3: news passed on keeps its source's date)."""
        return max(self.freshness(who, key), self.heard.get((who, key), -1))

    # -- replay ------------------------------------------------------------------------
    def step(self, event: EventIn) -> None:
        """Apply one event (rules 1–4)."""
        self.t += 1
        if event.location and event.facts:  # looking, not talking, gives access to a place
            for who in event.witnesses:
                self.last_at[(who, event.location)] = self.t
        for fact in event.facts:
            for each in _with_whereabouts(fact):
                self._narrate(event, each)
        for fact in event.claims:
            for each in _with_whereabouts(fact):
                self._tell(event, each)

    def see_place(self, event: EventIn, entrants: set[str]) -> None:
        """Entering a place, everyone there sees where its things are (Hi-ToM EnterAction)."""
        for key, place in list(self.key_location.items()):
            fact = self.reality(key)
            if place != event.location or fact is None or key[1] != "location":
                continue
            self.updates.append((self.t, key, fact, event.witnesses, None))
            for who in entrants:
                self._witness(who, key, fact, event)

    def _narrate(self, event: EventIn, fact: Fact) -> None:
        key = self.same.key(fact)
        changed = self.reality(key) is not None and not self.same.agrees(self.reality(key), fact)
        self.world[key].append((self.t, fact))
        if event.location and fact.slot == "location":
            self.key_location[key] = event.location
        self.updates.append((self.t, key, fact, event.witnesses, None))
        for who in sorted(event.witnesses):
            self._witness(who, key, fact, event)
        missed = [
            who
            for who, beliefs in self.current.items()
            if who not in event.witnesses
            and key in beliefs
            and not self.same.agrees(beliefs[key].fact, fact)
        ]
        for who in missed:
            self.unaware.add((event.scene_index, who))
        if changed or missed:
            self._meta_witnessing(event, key, fact, missed)

    def _witness(self, who: str, key: Key, fact: Fact, event: EventIn) -> None:
        self.fresh[(who, key)] = self.t
        self.learned[(who, key)].append(self.t)
        old = self.current[who].get(key)
        if old is not None and self.same.agrees(old.fact, fact):
            return
        self._hold(who, key, fact, event, "witnessed", old)

    def _tell(self, event: EventIn, fact: Fact) -> None:
        key, teller = self.same.key(fact), event.teller
        self.told[key].append((self.t, fact))
        believers = set()
        for who in sorted(event.listeners - {teller}):
            old = self.current[who].get(key)
            listener_saw, source = self.freshness(who, key), self.access(teller, key)
            if listener_saw >= 0 and listener_saw > source:
                if old is None or not self.same.agrees(old.fact, fact):
                    self._reject(who, fact, event)
                continue
            believers.add(who)
            self.heard[(who, key)] = source
            self.learned[(who, key)].append(self.t)
            if about(fact, who):  # what they did or are: they know it first-hand (rule 3)
                continue
            if old is None or not self.same.agrees(old.fact, fact):
                # no teller: a document its reader reads, seen first-hand (Table 20)
                self._hold(who, key, fact, event, "told" if teller else "witnessed", old)
            self._meta(teller, who, key, fact, event, "c_told_d")
        if event.voiced and teller is not None:
            self._voice(teller, key, fact, event)
            believers.add(teller)
        chains = {(b,) for b in believers} | {(b, teller) for b in believers}
        chains |= {(teller, who) for who in event.listeners - {teller}}
        self.updates.append((self.t, key, fact, None, frozenset(chains)))

    def _voice(self, who: str, key: Key, fact: Fact, event: EventIn) -> None:
        """Rule 5: a speaker holds what they say, unless hindsight shows a lie (`records`)."""
        old = self.current[who].get(key)
        if old is not None and self.same.agrees(old.fact, fact):
            return
        self._hold(who, key, fact, event, "inferred", old)
        self.held[-1].voiced = True

    # -- records -----------------------------------------------------------------------
    def _tag(self, holder: str) -> str:
        self._tags[holder] += 1
        return f"B{self._tags[holder]}"

    def _hold(self, who, key, fact, event, kind, old: Held | None) -> None:
        told = kind == "told"
        row = {
            "film_id": self.film_id,
            "belief_id": self._tag(who),
            "holder": who,
            "scene_index": event.scene_index,
            "kind": "revised" if old is not None else kind,
            "content": fact.text,
            "source_character": event.teller if told else None,
            "believed": True if told else None,
            "basis": [event.event_id],
            "confidence": "high" if kind == "witnessed" else "medium",
            "is_false": False,
            "revises": old.tag if old is not None else None,
            "revised_at_scene": None,
            "trigger": event.event_id if old is not None else None,
        }
        if old is not None:
            old.end_t = self.t
            old.row["revised_at_scene"] = event.scene_index
        held = Held(who, row["belief_id"], key, fact, self.t, row)
        self.current[who][key] = held
        self.held.append(held)

    def _reject(self, who: str, fact: Fact, event: EventIn) -> None:
        self.rejected.append(
            {
                "film_id": self.film_id,
                "belief_id": self._tag(who),
                "holder": who,
                "scene_index": event.scene_index,
                "kind": "told",
                "content": fact.text,
                "source_character": event.teller,
                "believed": False,
                "basis": [event.event_id],
                "confidence": "medium",
                "is_false": False,
                "trigger": "rejected: the listener saw this state later than the teller could",
            }
        )

    def _meta_witnessing(self, event: EventIn, key: Key, fact: Fact, missed: list[str]) -> None:
        for c in sorted(event.witnesses):
            for d in sorted(event.witnesses - {c}):
                self._meta(c, d, key, fact, event, "shared_witnessing")
            for d in missed:
                self._meta(c, d, key, fact, event, "d_absence")

    def _meta(self, c: str, d: str, key: Key, fact: Fact, event: EventIn, source: str) -> None:
        if c is None or c == d:
            return
        state = (fact.text, source == "d_absence")
        previous = self._meta_seen.get((c, d, key))
        if previous == state:
            return
        self._meta_seen[(c, d, key)] = state
        about_self = c.lower() in fact.text.lower() or fact.subject == c
        self.meta.append(
            {
                "film_id": self.film_id,
                "meta_id": f"M{len(self.meta) + 1}",
                "holder": c,
                "about": d,
                "scene_index": event.scene_index,
                "claim": fact.text,
                "type": "about_self" if about_self else "first_order_about_d",
                "change": "new" if previous is None else "changed",
                "source": source,
                "basis": [event.event_id],
                "confidence": "medium" if source == "d_absence" else "high",
                "order_depth": 2,
            }
        )

    def records(self) -> list[dict]:
        """Every belief row, with `is_false` settled in hindsight (rules 2–3) and lies left out
        (rule 5)."""
        for held in self.held:
            held.row["is_false"] = self._false_while_held(held)
        lies = self._lies()
        for held in self.held:
            if held.row["revises"] in lies.get(held.holder, ()):
                held.row.update(kind="inferred", revises=None, trigger=None)
        revised = {(h.holder, h.row["revises"]) for h in self.held}
        shown = [
            h
            for h in self.held
            if h.tag not in lies.get(h.holder, ()) and self._matters(h, revised)
        ]
        return self._one_per_sentence(shown) + self.rejected

    def _one_per_sentence(self, shown: list[Held]) -> list[dict]:
        """One sentence read as several facts ("took the log ... and carried it"; a transfer is a
        holder and a location) is one record: the first that revises another sentence's record
        ("Otto leaves the shed with the lantern" revises where the lantern was, not where Otto
        was), else the first. A revision of a record left out revises its sentence's record."""
        by_tag = {(h.holder, h.tag): h for h in self.held}

        def revised_elsewhere(held: Held) -> Held | None:
            old = by_tag.get((held.holder, held.row["revises"]))
            return old if old is not None and _sentence(old) != _sentence(held) else None

        groups: dict[tuple, list[Held]] = defaultdict(list)
        for held in shown:
            groups[_sentence(held)].append(held)
        chosen = {
            same: next((h for h in members if revised_elsewhere(h)), members[0])
            for same, members in groups.items()
        }
        for held in chosen.values():
            old = revised_elsewhere(held)
            target = chosen.get(_sentence(old), old) if old is not None else None
            if target is not None:
                held.row["revises"] = target.tag
                at = target.row["revised_at_scene"]
                scene = held.row["scene_index"]
                target.row["revised_at_scene"] = scene if at is None else min(at, scene)
        return [held.row for held in chosen.values()]

    def _matters(self, held: Held, revised: set) -> bool:
        """Rule 5: what a speaker says about themselves is kept only when it is false, revises
        or is revised, or reports what they perceived; every other record is kept."""
        if not held.voiced or held.row["is_false"] or held.row["revises"]:
            return True
        if (held.holder, held.tag) in revised:
            return True
        return not about(held.fact, held.holder) or _perception_report(held.fact)

    def _lies(self) -> dict[str, set[str]]:
        """Tags of voiced beliefs that were lies: the speaker later says the opposite without
        having seen or been told anything about that state in between, or says something false
        about themselves (nobody is mistaken about who they are or why they are there)."""
        lies: dict[str, set[str]] = defaultdict(set)
        by_tag = {(h.holder, h.tag): h for h in self.held}
        for later in self.held:
            earlier = by_tag.get((later.holder, later.row["revises"]))
            if not (later.voiced and earlier is not None and earlier.voiced):
                continue
            access = self.learned.get((later.holder, later.key), [])
            if not any(earlier.t < t < later.t for t in access):
                lies[later.holder].add(earlier.tag)
        for held in self.held:
            if held.voiced and held.row["is_false"] and held.fact.subject == held.holder:
                lies[held.holder].add(held.tag)
        return lies

    def _false_while_held(self, held: Held) -> bool:
        end = held.end_t if held.end_t is not None else self.t + 1
        timeline = self.world.get(held.key, [])
        before = [f for t, f in timeline if t <= held.t]
        during = ([before[-1]] if before else []) + [f for t, f in timeline if held.t < t < end]
        if any(not self.same.agrees(f, held.fact) for f in during):
            return True
        if timeline or (held.row["source_character"] is None and not held.voiced):
            return False
        later = [f for t, f in self.told.get(held.key, []) if t > held.t]
        return bool(later) and not self.same.agrees(later[-1], held.fact)
