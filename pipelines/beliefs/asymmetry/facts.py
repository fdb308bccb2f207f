"""Facts for the `asymmetry` belief backend: a sentence (a direction, a narrated event or a
claim someone makes aloud) read as claims about the story state.

A `Fact` is (subject, slot, value, negated), e.g. ("ledger", "location", "cellar", False):
- location: where a person or thing is ("X enters the kitchen", "the log is in the office",
  "Y moved the apple to the box", "X hides the key under the mat"; "X leaves" negates it);
- holder: who has a thing ("X takes / pockets / finds the ledger", "X gives Y the ledger");
- alive: "X is dead / dies / was killed" (value dead) or "X is alive";
- knows: "X knows (that) ..." (a secret and who holds it);
- did: who did what ("T.R. paid Elias" -> subject "paid elias", value the doer);
- is: what someone or something is ("the man is a diver", "Ruth is not a birdwatcher"); "X is
  waiting at the bar" (progressive) is an action in progress, not a state, and gives no fact.
Patterns are tried in that order and the first that reads the sentence wins; "not / n't /
never" before the verb sets `negated`. Names come from the film's roster (canonical name and
aliases, i.e. the store's coreference groups) and resolve to the canonical name, so "Jake" and
"GITTES" are one subject. A sentence nothing here reads yields no fact (it is scenery).
Reported speech in narration is a tell, not a fact (`asymmetry.cues.reported_tell`).
Written here: no library reads screenplay prose into state triples offline.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from pipelines.beliefs.asymmetry.cues import DETERMINER as _DET
from pipelines.beliefs.asymmetry.cues import NameIndex, names_list, normalise

# A word of a name may carry a full stop ("Mrs. Mulwray", "J.J. Gittes"): sentences are split
# before facts are read (`text.split_sentences`), so no stop here ends one.
_WORD = r"[\w'’/-]+(?:\.[\w'’/-]*)*"
_NP = rf"(?:{_DET}\s+)?(?:{_WORD}\s+){{0,3}}?{_WORD}"
# A thing that can be put somewhere or change hands: a noun phrase with its determiner ("the log",
# "a leather LEDGER"), so "gets up", "has trouble" or "gets out of the car" are no possession.
# A possessive name is a determiner too ("Tomas's log", as "his log"); capitalised, as names are.
_OWNER = r"(?-i:[A-Z])[\w.-]*['’]s"
_THING = rf"(?:{_DET}|{_OWNER})\s+(?:[\w'’/-]+\s+){{0,3}}?[\w'’/-]+"
# Body parts move with their owner and never change hands ("holds her breath", "puts his hand").
_BODY = frozenset(
    [
        "breath",
        "hand",
        "hands",
        "head",
        "face",
        "eyes",
        "eye",
        "arm",
        "arms",
        "shoulder",
        "shoulders",
        "finger",
        "fingers",
        "lips",
        "mouth",
        "hair",
        "foot",
        "feet",
        "leg",
        "legs",
        "back",
        "neck",
        "chin",
        "fist",
        "fists",
        "knee",
        "knees",
        "heart",
        "voice",
    ]
)
_NEG = r"(?P<neg>\s+(?:not|never|n't|no longer))?"
_PREP = r"(?:in|into|inside|on|onto|under|behind|beside|at|to|toward|towards|near|inside of)"
_BE = (
    r"(?:is|was|are|were|'s|lies|lay|sits|sat|stands|stood|remains|stays|hangs|waits|waited|"
    r"hovers|hovered|hides|hid)"
)
# Trailing modifiers after an object or a place ("a LEDGER wrapped in oilcloth").
_TAIL = (
    r"(?:\s+(?:wrapped|with|from|in|inside|on|under|behind|at|into|off|out|for|and|toward|"
    r"towards)\b.*)?"
)
_PUT = (
    r"(?:moved|moves|move|put|puts|placed|places|hid|hides|hide|slips|slipped|stuffs|stuffed|"
    r"tucks|tucked|drops|dropped|throws|threw|locks|locked|stashes|stashed|buries|buried|"
    r"returns|returned|carries|carried)"
)
_TAKE = (
    r"(?:has got|have got|had got|'s got|'ve got|"  # before "has" / "got": "has got the key"
    r"takes|took|grabs|grabbed|pockets|pocketed|picks up|picked up|steals|stole|finds|found|"
    r"has|had|holds|held|keeps|kept|gets|got|snatches|snatched|pulls out|pulled out|"
    r"retrieves|retrieved|owns|owned)"
)
_GIVE = r"(?:gives|gave|hands|handed|passes|passed|sends|sent|sells|sold)"
_DEAD_WORD = r"(?:dead|killed|murdered|shot|drowned|stabbed|strangled|poisoned|executed)"
_DIES = r"(?:dies|died|drowns|drowned|is killed|was killed|was murdered|is murdered)"
_ENTER = (
    r"(?:entered|enters|enter|comes into|came into|walks into|walked into|arrives at|"
    r"arrived at|goes into|went into|steps into|stepped into)"
)
_EXIT = r"(?:exited|exits|exit|leaves|left|walks out of|walked out of|goes out of|went out of)"
_PRONOUNS = {"he", "she", "him", "her", "his", "they", "them", "it", "this", "that", "there"}
# Nothing in particular: "There's nothing in the safe" is no state of any one thing.
_PRONOUNS |= {"nothing", "something", "anything", "everything", "nobody", "somebody", "anybody"}
_PRONOUNS |= {"everybody", "someone", "anyone", "everyone", "no one"}
# A person is no thing that is carried or held ("walks with the man").
_PEOPLE_WORDS = frozenset(
    ["man", "men", "woman", "women", "boy", "girl", "child", "children", "people", "guy", "kid"]
)
SLOTS = ("location", "holder", "alive", "knows", "did", "is")
# Slots where a thing has one value at a time: two different values disagree.
SINGLE_VALUED = frozenset({"location", "holder", "alive"})


@dataclass(frozen=True)
class Fact:
    """One claim about the story state.

    Attributes:
        subject: the normalised subject (a roster name, or a noun phrase without determiner).
        slot: one of `SLOTS`.
        value: the normalised value (a place, a name, "dead", a phrase).
        negated: the sentence denies the value ("is not", "never").
        text: the sentence the fact was read from (a belief's content).
    """

    subject: str
    slot: str
    value: str
    negated: bool
    text: str


def _fact(subject, slot, value, negated, text, names) -> Fact | None:
    subj, val = normalise(subject, names), normalise(value, names)
    if not subj or not val or subj in _PRONOUNS:
        return None
    if slot in ("location", "holder") and _BODY & set(subj.split()):
        return None
    return Fact(subj, slot, val, bool(negated), text)


def _compile(pattern: str) -> re.Pattern:
    return re.compile(pattern, re.I)


_P_ENTER = _compile(rf"^(?P<who>.+?)\s+{_ENTER}\s+(?P<place>{_NP})$")
_P_EXIT = _compile(rf"^(?P<who>.+?)\s+{_EXIT}(?:\s+(?P<place>{_NP}))?{_TAIL}$")
_P_MOVE = _compile(
    rf"^(?P<agent>{_NP})\s+{_PUT}\s+(?P<obj>{_THING})\s+(?:back\s+)?{_PREP}\s+(?P<place>{_NP})$"
)
_P_LOCATED = _compile(rf"^(?P<obj>{_NP})\s+{_BE}{_NEG}\s+(?:still\s+)?{_PREP}\s+(?P<place>{_NP})$")
# Screenplay prose names the place first: "On the desk is a framed photo of Evelyn", "In the
# drawer are the photos"; speech opens with "there": "There's a drunk in the morgue".
_LIES = r"(?:is|are|was|were|lies|lie|lay|sits|sit|stands|stand|hangs|hang|rests|rest|waits)"
_P_PLACE_FIRST = _compile(
    rf"^(?:{_PREP}|inside)\s+(?P<place>{_NP}),?\s+{_LIES}\s+(?P<obj>{_DET}\s+.+?){_TAIL}$"
)
# Seen somewhere: "Gittes spots a card tray on Yelburton's desk" (finding is taking: holder).
_P_SPOTS = _compile(
    rf"^(?P<who>{_NP})\s+(?:spots|spotted|sees|saw|notices|noticed|discovers|discovered|"
    rf"glimpses|glimpsed)\s+(?P<obj>{_THING})\s+{_PREP}\s+(?P<place>{_NP})$"
)
_P_THERE = _compile(
    rf"^there(?:'s|’s|\s+is|\s+are|\s+was|\s+were){_NEG}\s+(?:(?P<no>no)\s+)?"
    rf"(?P<obj>(?:{_DET}\s+)?{_NP})\s+{_PREP}\s+(?P<place>{_NP}){_TAIL}$"
)
_P_GIVE_TO = _compile(rf"^(?P<agent>{_NP})\s+{_GIVE}\s+(?P<obj>{_NP})\s+to\s+(?P<to>{_NP})$")
_P_GIVE = _compile(rf"^(?P<agent>{_NP})\s+{_GIVE}\s+(?P<to>{_NP})\s+(?P<obj>{_DET}\s+{_NP})$")
_P_TAKE = _compile(
    rf"^(?P<agent>{_NP})(?:\s+(?:does|did))?{_NEG}\s+(?:still\s+)?{_TAKE}\s+(?P<obj>{_THING}){_TAIL}$"
)
_P_DEAD = _compile(rf"^(?P<who>{_NP})\s+(?:is|was|'s|has been|had been){_NEG}\s+{_DEAD_WORD}\b")
_P_DIES = _compile(rf"^(?P<who>{_NP})\s+{_DIES}\b")
_P_KILLED = _compile(
    rf"^(?P<agent>{_NP})\s+(?:killed|murdered|shot|drowned|stabbed|strangled)\s+(?P<who>{_NP})\b"
)
_P_ALIVE = _compile(rf"^(?P<who>{_NP})\s+(?:is|was|'s){_NEG}\s+(?:still\s+)?alive\b")
_P_KNOWS = _compile(
    rf"^(?P<who>{_NP})(?:\s+(?:does|did))?{_NEG}\s+(?:knows?|knew)\s+(?:that\s+|about\s+)?(?P<what>.+)$"
)
_P_KNOWS_PLAIN = _compile(rf"^(?P<who>{_NP})\s+(?:knows|knew)\s+(?:that\s+|about\s+)?(?P<what>.+)$")
_P_IS = _compile(rf"^(?P<subj>{_NP})\s+(?:is|was|are|were|'s){_NEG}\s+(?P<what>.+)$")
_P_DID_NEG = _compile(
    rf"^(?P<agent>{_NP})\s+(?:did not|didn't|never|does not|doesn't)\s+"
    r"(?P<verb>[a-z]+)\s+(?P<rest>.+)$"
)
_P_DID = _compile(
    rf"^(?P<agent>{_NP})\s+(?P<verb>[a-z]+ed|paid|sold|told|made|took|saw|knew|sent|lost|hid|set|put|kept|left|ran|stole|burned|burnt|sank|wrote)\s+(?P<rest>.+)$"
)


_MOVEMENT = _compile(rf"\b(?:{_ENTER}|{_EXIT})\b")


def is_movement(sentence: str) -> bool:
    """The sentence moves someone (enters / leaves), rather than placing them where they are."""
    return bool(_MOVEMENT.search(sentence))


def _place(phrase: str) -> str:
    """The container of a nested place: "the basket in the patio" -> "the basket"."""
    return re.split(r"\s+(?:in|on|at|inside|of)\s+", phrase, maxsplit=1)[0]


def _location_facts(s: str, names: NameIndex) -> list[Fact]:
    if m := _P_ENTER.match(s):
        who = names_list(m["who"], names)
        return [f for w in who if (f := _fact(w, "location", m["place"], False, s, names))]
    if m := _P_EXIT.match(s):
        who = names_list(m["who"], names)
        place = m["place"] or "here"
        return [f for w in who if (f := _fact(w, "location", place, True, s, names))]
    if m := _P_MOVE.match(s):
        return [f for f in [_fact(m["obj"], "location", _place(m["place"]), False, s, names)] if f]
    if m := _P_LOCATED.match(s):
        place = _place(m["place"])
        return [f for f in [_fact(m["obj"], "location", place, m["neg"], s, names)] if f]
    for pattern in (_P_PLACE_FIRST, _P_THERE, _P_SPOTS):
        if m := pattern.match(s):
            negated = m.groupdict().get("neg") or m.groupdict().get("no")
            return [
                f for f in [_fact(m["obj"], "location", _place(m["place"]), negated, s, names)] if f
            ]
    return []


def _holder_facts(s: str, names: NameIndex) -> list[Fact]:
    for pattern in (_P_GIVE_TO, _P_GIVE):
        if (m := pattern.match(s)) and names.resolve(m["to"]):
            return [f for f in [_fact(m["obj"], "holder", m["to"], False, s, names)] if f]
    if (m := _P_TAKE.match(s)) and names.resolve(m["agent"]):
        return [f for f in [_fact(m["obj"], "holder", m["agent"], m["neg"], s, names)] if f]
    return []


def _alive_facts(s: str, names: NameIndex) -> list[Fact]:
    if m := _P_ALIVE.match(s):
        return [f for f in [_fact(m["who"], "alive", "alive", m["neg"], s, names)] if f]
    if m := _P_DEAD.match(s):
        return [f for f in [_fact(m["who"], "alive", "dead", m["neg"], s, names)] if f]
    if m := _P_DIES.match(s):
        return [f for f in [_fact(m["who"], "alive", "dead", False, s, names)] if f]
    if (m := _P_KILLED.match(s)) and names.resolve(m["who"]):
        dead = _fact(m["who"], "alive", "dead", False, s, names)
        doer = _fact(f"killed {m['who']}", "did", m["agent"], False, s, names)
        return [f for f in (dead, doer) if f]
    return []


# "The log's gone": no longer where it was (a contraction _P_IS leaves alone, as "'s" after a
# noun is mostly a possessive; before "gone" / "missing" it is "is"). `asymmetry.film` places it.
_P_GONE = _compile(rf"^(?P<obj>{_NP})(?:'s|’s|\s+(?:is|are|was|were)){_NEG}\s+(?:gone|missing)$")


def _other_facts(s: str, names: NameIndex) -> list[Fact]:
    if m := _P_GONE.match(s):
        return [f for f in [_fact(m["obj"], "is", "gone", m["neg"], s, names)] if f]
    for pattern in (_P_KNOWS, _P_KNOWS_PLAIN):
        if (m := pattern.match(s)) and names.resolve(m["who"]):
            neg = m.groupdict().get("neg")
            return [f for f in [_fact(m["who"], "knows", m["what"], neg, s, names)] if f]
    if (m := _P_DID_NEG.match(s)) and names.resolve(m["agent"]):
        return [
            f for f in [_fact(f"{m['verb']} {m['rest']}", "did", m["agent"], True, s, names)] if f
        ]
    if (
        (m := _P_IS.match(s))
        and not re.match(rf"^(?:{_PREP}\b|\w+ing\b)", m["what"], re.I)
        and not re.match(rf"^(?:{_PREP}|inside)\s", m["subj"], re.I)  # "On the desk is ..."
    ):
        return [f for f in [_fact(m["subj"], "is", m["what"], m["neg"], s, names)] if f]
    if (m := _P_DID.match(s)) and names.resolve(m["agent"]):
        return [
            f for f in [_fact(f"{m['verb']} {m['rest']}", "did", m["agent"], False, s, names)] if f
        ]
    return []


# A clause boundary before a verb: "... and puts", or a comma before a third-person verb as
# screenplays chain actions ("Gittes pulls out a cigarette case, offers the Secretary one"); not
# a comma before a word that only looks like one ("his", "was", "as").
_CLAUSE = re.compile(
    r"\s*,?\s+and\s+(?=[a-z]+(?:s|ed)\b)|"
    r",\s+(?!(?:his|hers|its|this|was|is|has|as|us|yes|thus|less|unless|across|perhaps)\b)"
    r"(?=[a-z]+s\s)"
)


def clauses(text: str, names: NameIndex) -> list[str]:
    """ "Tomas closes the log and puts his hand on it" -> two clauses, the second with the
    first's subject (only when the sentence opens with a character's name)."""
    parts = _CLAUSE.split(text)
    opener = names.pattern.match(text)
    if len(parts) == 1 or not opener:
        return [text]
    return [parts[0]] + [f"{opener.group(0)} {p}" for p in parts[1:]]


# Taking a thing or being handed it moves it: it is with its new holder, no longer where it was
# ("Ben takes the key" ends "the key is in the drawer"). Having, keeping or finding it moves
# nothing ("Tomas has a boat"; "finds the key in the drawer" leaves it there).
_TRANSFER = _compile(
    r"\b(?:takes|took|grabs|grabbed|pockets|pocketed|picks up|picked up|steals|stole|"
    r"snatches|snatched|pulls out|pulled out|retrieves|retrieved|gives|gave|hands|handed|"
    r"passes|passed)\b"
)


def whereabouts(fact: Fact) -> Fact | None:
    """Where a holder fact that is a transfer puts its thing: with the new holder (a location
    fact of the same thing, so it disagrees with where the thing was believed to be)."""
    if fact.slot != "holder" or fact.negated or not _TRANSFER.search(fact.text):
        return None
    return Fact(fact.subject, "location", fact.value, False, fact.text)


# Carrying something away (App. D, Table 18: an actor's own action is an event its witnesses see;
# "who holds what"): "Tomas leaves the harbour office with the boat log under his coat"
# moves the log with him, as a transfer does (`whereabouts`). Only a verb of going: "sits at the
# bar with a whisky" places nothing, and a person is company, not a thing ("walks with the man").
_GO = (
    r"(?:leaves|left|exits|exited|enters|entered|walks|walked|hurries|hurried|runs|ran|goes|went|"
    r"comes|came|climbs|climbed|arrives|arrived|heads|headed|steps|stepped|returns|returned|"
    r"crosses|crossed|slips|slipped|drives|drove|rides|rode|sets off|set off)"
)
_P_CARRY = _compile(
    rf"^(?P<who>{_NP})\s+{_GO}\b(?:\s+[\w'’-]+){{0,6}}?\s+with\s+(?P<obj>{_THING})"
    r"(?:\s+(?:under|in|inside|beneath|over|on|against|at)\s.*)?$"
)


def carried(clause: str, names: NameIndex) -> list[Fact]:
    """What an actor carries as they go: the thing is theirs (holder) and is with them
    (location), so it is no longer where it was believed to be."""
    m = _P_CARRY.match(clause)
    who = names.resolve(m["who"]) if m else None
    if who is None or names.resolve(m["obj"]) or _PEOPLE_WORDS & set(m["obj"].lower().split()):
        return []
    facts = [_fact(m["obj"], slot, who, False, clause, names) for slot in ("location", "holder")]
    return [f for f in facts if f]


def located(thing: str, place: str, text: str, names: NameIndex) -> Fact | None:
    """`thing` is at `place` (a place phrase; its container, `_place`), as said in `text`."""
    return _fact(thing, "location", _place(place), False, text, names)


_READERS = (_location_facts, _holder_facts, _alive_facts, _other_facts)
_LEAD = re.compile(
    r"^(?:and|but|so|then|now|well|oh|still|later|suddenly|finally|meanwhile)\b[,\s]*", re.I
)


def read_facts(sentence: str, names: NameIndex) -> list[Fact]:
    """The facts one sentence states (module docstring); [] when it states none we can read."""
    text = _LEAD.sub("", sentence.strip()).rstrip(".!").strip()
    if not text or text.endswith("?") or len(text.split()) < 3:
        return []
    found = []
    for clause in clauses(text, names):
        for reader in _READERS:
            facts = reader(clause, names)
            if facts:
                found += [replace(f, text=sentence.strip()) for f in facts]
                break
        found += [replace(f, text=sentence.strip()) for f in carried(clause, names)]
    return found
