"""The fixed templates of the `template` backend: anchor phrase and question frame per type,
written only from a context-set payload (never from the screenplay text); the claims are
written in template_claims.py.

Rules of Tables 23–24 the templates keep: the anchor names a place and, when the location has
rivals, one time detail ("42 minutes in"), never an outcome; the question names the topic, not
the value; two frames per type, picked by the context-set, so a type does not always open the
same way ("VARY THE FRAME"); names are written in normal case (`display_name`).
"""

from __future__ import annotations

import hashlib
import re

_INT_EXT = re.compile(
    r"^\s*(INT\.?\s*/\s*EXT\.?|EXT\.?\s*/\s*INT\.?|I/E\.?|INT\.?|EXT\.?)\s*", re.IGNORECASE
)
_TIME_SUFFIX = re.compile(r"\s+[-–—]+\s+.*$")
_INDOOR = re.compile(
    r"\b(room|office|kitchen|car|house|apartment|bedroom|hall|hallway|corridor|"
    r"bathroom|study|cabin|garage|lobby|elevator|cell|basement|attic|bar|"
    r"restaurant|shop|store|church|hospital|suite|tent|truck|van)\b",
    re.I,
)

FRAMES = {
    "Q1": [
        "what does each of {members} understand about the situation?",
        "what do {members} each take to be the case?",
    ],
    "Q2": ["when does {h}'s understanding change?", "what shifts in how {h} reads the situation?"],
    "Q3": ["what does {h} take to be happening?", "what does {h} believe is going on?"],
    # Not "how does {h} come to know what {h} knows here?": it names nothing to know and asks
    # itself back (the check `not_self_referential`).
    "Q4": ["what tells {h} what has happened here?", "how does the news reach {h}?"],
    "Q5": [
        "what does {h} understand about {about}'s view?",
        "what does {h} take {about} to believe?",
    ],
    "Q6": [
        "what does {h} take {about} to believe about the others?",
        "how does {h} read {about}'s view of the others?",
    ],
    "Q7": ["what does {h} make of {about}'s account?", "how does {h} take what {about} says?"],
    "Q8": [
        "what discoveries had shaped {h}'s understanding, in order?",
        "which things had {h} learned, in order?",
    ],
    "N1": ["how has {h}'s knowledge developed?", "how has what {h} knows grown over the film?"],
    "N2": ["how has {h}'s view of {about} changed?", "how has {h}'s reading of {about} shifted?"],
    "N3": [
        "what sequence leads {h} to their present reading of events?",
        "which steps bring {h} to the view {h} now holds?",
    ],
}


def display_name(name: str | None) -> str:
    """Screenplay capitals to normal case ("CHARLIE CALE" -> "Charlie Cale"), Table 24."""
    name = (name or "someone").strip()
    if not name.isupper():
        return name
    return " ".join(word[:1] + word[1:].lower() for word in name.split())


def _place(payload: dict) -> str:
    anchor = payload.get("anchor") or {}
    raw = anchor.get("location") or anchor.get("heading") or "the scene"
    place = _TIME_SUFFIX.sub("", _INT_EXT.sub("", raw)).strip(" .-") or "the scene"
    if not place.isupper():
        return place
    # Screenplay capitals: "LIGHTHOUSE" -> "the lighthouse", "GITTES' OFFICE" -> "Gittes' office";
    # a place of several words is a name ("GULL POINT ROCKS" -> "the Gull Point Rocks":
    # "the gull point rocks" read as a typo next to the gold questions).
    first, *rest = place.lower().split()
    if rest:
        first, *rest = (w if w == "the" else w[:1].upper() + w[1:] for w in [first, *rest])
    if first.lower().endswith(("'s", "'")):
        return " ".join([first.capitalize(), *rest])
    return " ".join(["the", first, *rest]) if first.lower() != "the" else " ".join([first, *rest])


def anchor_phrase(payload: dict) -> str:
    """'At the Winning Ticket'-style anchor, plus a time detail when the place has rivals."""
    place = _place(payload)
    phrase = f"{'In' if _INDOOR.search(place) else 'At'} {place}"
    time_s = (payload.get("anchor") or {}).get("time_s")
    if payload.get("anchor_location_rivals", 0) >= 1 and time_s is not None:
        minutes = int(time_s // 60)
        phrase += (
            ", in the opening minute"
            if minutes == 0
            else ", a minute in"
            if minutes == 1
            else f", {minutes} minutes in"
        )
    return phrase


def _names(payload: dict) -> dict[str, str]:
    members = [display_name(m) for m in payload.get("members") or [payload.get("holder")]]
    listed = ", ".join(members[:-1]) + f" and {members[-1]}" if len(members) > 1 else members[0]
    about = payload.get("about")
    # NAMING (Table 23): never a name the film does not speak aloud; refer to the role instead.
    forbidden = {n.lower() for n in (payload.get("name_budget") or {}).get("forbidden_names", [])}
    about = "the speaker" if about and about.lower() in forbidden else display_name(about)
    return {"h": members[0], "members": listed, "about": about}


# Frames that name the question's topic (Table 23: "TOPIC, NEVER VALUE"): used when the
# context-set's first belief entry mentions a particular thing ("the boat log"). Added for issue
# 13: without a topic every question of a type read alike (gold-eval: 60% near-duplicates).
# No Q1 topic: a knowledge split spans several people's beliefs, and one member's first belief
# names a thing the others' are not about ("what do Mara and Ruth each know about the light?").
TOPIC_FRAMES = {
    "Q2": ["when does {h}'s view of {topic} change?"],
    "Q3": ["what does {h} believe about {topic}?"],
    "Q4": ["how does {h} learn about {topic}?"],
    "Q5": ["what does {h} understand about {about}'s view of {topic}?"],
    "Q7": ["what does {h} make of what {about} says about {topic}?"],
    "Q8": ["what had {h} found out about {topic}, in order?"],
    "N1": ["how has {h}'s knowledge of {topic} developed?"],
    "N3": ["what sequence shapes {h}'s reading of {topic}?"],
}
# Only "the X": a topic cut from "his desk" or "her father's work" names a thing the belief is
# not about ("when does Ruth's view of the desk change?" for where Tomas's log is).
_TOPIC = re.compile(r"\bthe ([a-z]{3,})(?: ([a-z]+))?")
_NOT_TOPICS = frozenset(
    [
        "same",
        "one",
        "other",
        "way",
        "lot",
        "thing",
        "night",
        "day",
        "morning",
        "year",
        "time",
        "week",
        "rest",
        "end",
        "first",
        "last",
        "place",
        "water",
        "point",
    ]
)


_SECOND_WORD_STOP = frozenset(
    [
        "was",
        "were",
        "is",
        "are",
        "has",
        "had",
        "have",
        "will",
        "would",
        "could",
        "can",
        "did",
        "does",
        "below",
        "above",
        "into",
        "onto",
        "from",
        "with",
        "about",
        "after",
        "before",
        "that",
        "which",
        "who",
        "where",
        "when",
        "and",
        "but",
        "for",
        "the",
        "his",
        "her",
        "their",
    ]
)


def _noun_phrase(first: str, second: str | None) -> str:
    """ "boat log" keeps its second word; "body was" / "rocks below" / "lamp failed" do not."""
    if (
        not second
        or len(second) < 3
        or second in ("out", "off", "all", "not", "its", "own", "now", "too", "yet")
        or second in _SECOND_WORD_STOP
        or second.endswith(("ed", "s", "ly"))
    ):
        return first
    return f"{first} {second}"


def topic_of(payload: dict) -> str | None:
    """A particular thing the first belief entry is about ("the boat log"), not its value, and
    that most of the entries the claims are written from mention (a topic one claim of four
    mentions misdirects the reader: the check `well_formed`)."""
    place = _place(payload).lower()
    entries = (payload.get("belief_entries") or [])[:4]
    texts = [(e.get("content") or e.get("claim") or "").lower() for e in entries]
    for content in texts[:1]:
        for match in _TOPIC.finditer(content):
            phrase = _noun_phrase(match.group(1), match.group(2))
            last = phrase.split()[-1]
            if last in _NOT_TOPICS or phrase in place or last.endswith("ing"):
                continue
            mentioned = sum(bool(re.search(rf"\b{re.escape(last)}\b", t)) for t in texts)
            if mentioned * 2 >= len(texts):
                return f"the {phrase}"
    return None


def question_for(payload: dict) -> str:
    """The question body: one of the type's frames, chosen by the context-set's anchor (a
    topic frame when the context-set has a topic)."""
    qtype = payload["question_type"]
    topic = topic_of(payload)
    frames = FRAMES[qtype] + (TOPIC_FRAMES.get(qtype, []) * 2 if topic else [])
    key = f"{payload.get('holder')}|{(payload.get('anchor') or {}).get('scene')}"
    pick = int(hashlib.sha1(key.encode()).hexdigest(), 16) % len(frames)
    return frames[pick].format(**_names(payload), topic=topic)
