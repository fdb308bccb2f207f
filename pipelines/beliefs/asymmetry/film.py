"""Backend 'asymmetry' of `storyscope beliefs annotate`: the information-asymmetry tracker
(`asymmetry.tracker`) over a stored film.

Per scene, in film order, the screenplay's own structure gives the inputs (as the `rules`
backend reads it, `rules.engine.annotate_scene`): one event per script line, its witnesses (the
characters present, minus V.O.-only speakers and anyone knocked out) and the presence ladder of
Table 19. Then:
- a direction line's sentences are narrated facts (`asymmetry.facts.read_facts`; a leading
  he / she is the character the scene's directions named last), seen by the event's witnesses;
  reported speech in a direction ("Kit tells Mara that ...") is a tell;
- a spoken line (not V.O.) tells each of its story claims (`rules.claims.story_claims`, a
  contraction counted as two words: "And you're the birdwatcher." is a claim) to everyone
  present; "you" resolves to the addressee named at the line's end ("..., Kit.") or to
  the only listener. A claim no pattern reads is kept as a 'claim' fact (`asymmetry.same`).
The film is always replayed whole (beliefs depend on everything before, falsity on what comes
after); a scene or character selection keeps that part of the rows, so a partial run's rows are
the ones a full run gives.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import replace

from data_access.store import Store
from data_access.tables import belief_records
from pipelines.beliefs.asymmetry.cues import NameIndex, observers_cue, reported_tell
from pipelines.beliefs.asymmetry.epithets import Epithets
from pipelines.beliefs.asymmetry.facts import is_movement, located, read_facts
from pipelines.beliefs.asymmetry.refs import Referents, genders
from pipelines.beliefs.asymmetry.same import SameState, claim_fact
from pipelines.beliefs.asymmetry.tracker import AsymmetryTracker, EventIn
from pipelines.beliefs.backend_io import (
    AnnotationResult,
    LoadedFilm,
    Selection,
    load_film,
    offline_run_spec,
)
from pipelines.beliefs.rules import engine as rules
from pipelines.beliefs.rules.claims import story_claims
from pipelines.beliefs.rules.presence import without_depictions
from pipelines.beliefs.text import display_name, split_sentences

BACKEND = "asymmetry"
_LEADING_PRONOUN = re.compile(r"^(He|She)\b")


_PAST_BE = re.compile(r"\b(?:was|were)\b", re.I)


def claim_facts(claim: str, names: NameIndex):
    """The facts a claim states, or the claim itself as a 'claim' fact. Where a character *was*
    ("Kit was on the trawler") is about an earlier time: their whereabouts now cannot contradict
    it, so it is kept as a claim, not as their location."""
    facts = read_facts(claim, names)
    people = set(names.canonical.values())
    if any(f.slot == "location" and f.subject in people and _PAST_BE.search(f.text) for f in facts):
        return [claim_fact(claim)]
    return facts or [claim_fact(claim)]


def _direction_event(base: EventIn, text: str, names: NameIndex, last: list[str]) -> EventIn:
    for raw in split_sentences(text):
        sentence = raw.strip()
        if last and _LEADING_PRONOUN.match(sentence):
            named = display_name(last[-1])  # text, not a replacement template (`\d+`)
            sentence = _LEADING_PRONOUN.sub(lambda _, named=named: named, sentence, count=1)
        # a "He" / "She" refers back to someone the scene shows, not to a sign or a photo
        last.extend(names.names_in(without_depictions(sentence)))
        sentence, saw, missed = observers_cue(sentence, names)
        if saw or missed:
            base.witnesses = frozenset((base.witnesses | saw) - missed)
        tell = reported_tell(sentence, names)
        if tell:
            base.teller = tell.speaker
            listeners = {tell.listener} if tell.listener else set(base.witnesses)
            base.listeners = frozenset(listeners)
            base.claims.extend(claim_facts(tell.claim, names))
        else:
            base.facts.extend(f for f in read_facts(sentence, names) if not _blocking(f, base))
    return base


def _blocking(fact, event: EventIn) -> bool:
    """Where a character on screen sits or stands in the scene is presence (the presence table),
    not a belief; their entering or leaving a place is a change of state and stays."""
    return (
        fact.slot == "location"
        and fact.subject in event.witnesses
        and not fact.negated
        and not is_movement(fact.text)
    )


def _addressee(text: str, listeners: list[str], names: NameIndex) -> list[str]:
    tail = re.search(r",\s*([\w'’ .-]+?)\s*[.!?]*$", text.strip())
    named = names.resolve(tail.group(1)) if tail else None
    return [named] if named in listeners else listeners


def film_events(loaded: LoadedFilm) -> tuple[list, list[EventIn], NameIndex]:
    """The rules' scene annotations and one `EventIn` per script line, in film order."""
    scenes, locations, roster = loaded.scenes, loaded.locations, loaded.roster
    names = NameIndex(roster.names)
    directions = [line.text for i in scenes for line in scenes[i] if line.kind == "direction"]
    gender = genders(directions, names)
    annotated, events, previous = [], [], None
    epithets = Epithets(names)  # what the film has called each character so far
    for index in sorted(scenes):
        same_place = previous is not None and locations.get(index) == locations.get(
            previous.scene_index
        )
        previous = rules.annotate_scene(index, scenes[index], roster, previous, same_place)
        annotated.append(previous)
        last_named: list[str] = []
        referents = Referents(names, gender)
        asked = None  # the last line's where-question (asker, thing), answered by the next
        for line, event in zip(scenes[index], previous.events):
            base = EventIn(
                event["event_id"],
                index,
                event["description"],
                frozenset(event["witnesses"]),
                location=locations.get(index),
            )
            if line.kind == "direction":
                referents.mention(line.text)
                events.append(_direction_event(base, line.text, names, last_named))
            elif line.mode != "voice_over" and event["participants"]:
                speaker = event["participants"][0]
                listeners = sorted(base.witnesses - set(event["participants"]))
                you = _addressee(line.text, listeners, names)
                text = referents.resolve(line.text, speaker, you if len(you) == 1 else [])
                base.teller, base.listeners = speaker, frozenset(listeners)
                base.voiced = True
                # said to nobody: still voiced; a contraction is two words
                answer = _answered(asked, speaker, text, you, names)
                if answer is not None:
                    text = answer[1]
                    base.claims.append(answer[0])
                epithets.note_line(line.text, speaker, listeners)
                for claim in story_claims(text, speaker, you, contractions=True):
                    claim = epithets.resolve(claim)
                    epithets.note_claim(claim)
                    base.claims.extend(claim_facts(claim, names))
                events.append(base)
                asked = _asked_where(text, speaker, referents)
                continue
            if _reads_document(line, event, base):
                events.append(_document_event(base, line.text, event["participants"][0], names))
            asked = None  # only the next spoken line answers a question
    for event in events:
        event.facts = [_gone_from(f, event.location, names) for f in event.facts]
        event.claims = [_gone_from(f, event.location, names) for f in event.claims]
    return annotated, events, names


# A V.O. line read from a document ("MARA (V.O.) (reading)"): the screenplay voices what the
# reader reads. App. D, Table 20: the reader perceives the document's text first-hand; what it
# says is a claim the document makes, not a line said to those present (a V.O. is not heard).
_READING = re.compile(r"\bread(?:s|ing)?\b", re.I)


def _reads_document(line, event: dict, base: EventIn) -> bool:
    return (
        line.kind == "dialogue"
        and line.mode == "voice_over"
        and bool(_READING.search(line.parenthetical or ""))
        and bool(event["participants"])
        and event["participants"][0] in base.witnesses  # the reader is on screen, reading
    )


def _document_event(base: EventIn, text: str, reader: str, names: NameIndex) -> EventIn:
    """The text read, as claims the document tells its reader: each sentence a fact reads, or,
    if none does (a ledger's entries, a list), the passage as one claim (`claim_facts`' rule)."""
    facts = [f for s in split_sentences(text) for f in read_facts(s, names)]
    base.teller, base.listeners = None, frozenset({reader})
    base.claims.extend(facts or [claim_fact(text)])
    return base


# A where-question answered by a place alone ("And where does Tomas keep it?" / "In the harbour
# office, on his desk."): the answer says where the thing asked about is (a fact is
# "where someone is" or a thing is; what is said is told). Only the next line, by someone else.
_WHERE = re.compile(
    r"(?:^|[.!?]\s+)(?:and\s+|so\s+|but\s+|then\s+)?where\s+(?:"
    r"(?:is|are|was|were)\s+(?P<a>[\w'’ -]+?)|"
    r"(?:does|did|do|would|will|could)\s+[\w'’ .-]+?\s+"
    r"(?:keep|keeps|put|hide|leave|store|have)\s+(?P<b>[\w'’ -]+?))"
    r"(?:\s+now|\s+these days|\s+then)?\s*\?\s*$",
    re.I,
)
_PLACE_ANSWER = re.compile(
    r"^(?:and\s+)?(?P<prep>in|inside|on|under|behind|beside|at|near|by)\s+"
    r"(?P<place>(?:the|a|an|his|her|their|my|your|our)\s+[\w'’-]+(?:\s+[\w'’-]+){0,2})"
    r"\s*(?:[,.;]|$)",
    re.I,
)
_OBJECT_PRONOUNS = {"it", "them", "that", "this"}


def _asked_where(text: str, speaker: str, referents: Referents) -> tuple[str, str] | None:
    """(asker, the thing asked about) when a line ends with a where-question."""
    m = _WHERE.search(text.strip())
    if not m:
        return None
    thing = (m["a"] or m["b"]).strip()
    if thing.lower() in _OBJECT_PRONOUNS:
        thing = referents.thing or ""
    if not thing or thing.lower() in {"he", "she", "they", "you", "i", "we"}:
        return None
    return speaker, thing


def _answered(asked, speaker: str, text: str, you: list[str], names: NameIndex):
    """(the location fact, the rest of the line) when the line opens by answering `asked` with
    a place only; None otherwise."""
    if asked is None or asked[0] == speaker:
        return None
    first, *rest = split_sentences(text.strip())
    if not _PLACE_ANSWER.match(first):
        return None
    thing = asked[1][0].upper() + asked[1][1:]
    claims = story_claims(f"{thing} is {first[0].lower()}{first[1:]}", speaker, you, True)
    m = _PLACE_ANSWER.match(re.sub(r"^.*?\bis\s+", "", claims[0], count=1)) if claims else None
    fact = located(asked[1], m["place"], claims[0], names) if m else None
    return (fact, " ".join(rest)) if fact is not None else None


# "The log's gone", "The key is missing": not where it was, i.e. not here (the event's place;
# "different location" is an explicit cue of disagreement).
def _gone_from(fact, place: str | None, names: NameIndex):
    """An "is gone / missing" fact (`asymmetry.facts`) as the thing's location: not at the
    event's place."""
    if fact.slot != "is" or fact.negated or fact.value != "gone" or not place:
        return fact
    here = located(fact.subject, place, fact.text, names)
    return replace(here, negated=True) if here is not None else fact


def asymmetry_rows(
    film_id: str, loaded: LoadedFilm, selection: Selection, embed=None
) -> AnnotationResult:
    """Presence, events, beliefs and meta-beliefs of the selected scenes (pure: a scale-out
    unit; `embed` defaults to MiniLM)."""
    annotated, events, names = film_events(loaded)
    facts = [f for e in events for f in (*e.facts, *e.claims)]
    tracker = AsymmetryTracker(SameState(facts, set(names.canonical.values()), embed), film_id)
    for event in events:
        tracker.step(event)
    result = AnnotationResult(
        film_id,
        BACKEND,
        defaultdict(list),
        {"voices_from_source": loaded.voices_known, "facts": len(facts)},
    )
    keep_scene, keep_who = selection.has_scene, selection.has_character
    for scene in annotated:
        if not keep_scene(scene.scene_index):
            continue
        result.tables["scene_events"] += [{"film_id": film_id, **e} for e in scene.events]
        for character, status in scene.presence.items():
            if not keep_who(character):
                continue
            if status == "absent_unmentioned" and (scene.scene_index, character) in tracker.unaware:
                status = "offscreen_unaware"
            result.tables["presence"].append(
                {
                    "film_id": film_id,
                    "scene_index": scene.scene_index,
                    "character": character,
                    "status": status,
                    "witnessed_events": scene.witnessed.get(character, []),
                }
            )
    result.tables["beliefs"] = [
        r for r in tracker.records() if keep_scene(r["scene_index"]) and keep_who(r["holder"])
    ]
    result.tables["meta_beliefs"] = [
        r for r in tracker.meta if keep_scene(r["scene_index"]) and keep_who(r["holder"])
    ]
    return result


def annotate_with_asymmetry(
    store: Store, film_id: str, selection: Selection, dry_run: bool = False, embed=None
) -> AnnotationResult:
    """Annotate with the asymmetry tracker and (unless dry_run) store the rows as one run."""
    result = asymmetry_rows(film_id, load_film(store, film_id), selection, embed)
    result.counts = {table: len(rows) for table, rows in result.tables.items()}
    if dry_run:
        return result
    spec = offline_run_spec(film_id, result, selection)
    result.run_id, result.counts = belief_records.write_annotation(store, spec, result.tables)
    return result
