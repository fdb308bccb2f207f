"""Spoken lines to story claims for the offline `rules` belief backend.

What a listener learns from a line is a claim about the story, not the line's wording
(LF-VideoQA Table 20: a TOLD belief is "what c was told"), so a line yields a claim only where the
text itself makes one:
- one claim per sentence; questions, exclamations-as-orders (a sentence opening with an
  imperative verb: "Go and ring the police") and sentences under `MIN_CLAIM_WORDS` are dropped;
- first and second person are resolved to names: the speaker for "I/me/my" ("I'm here for the
  birds" from RUTH -> "Ruth is here for the birds"), the listener for "you/your" when exactly
  one other person hears the line (with several listeners "you" is ambiguous, so the sentence
  is dropped); a verb after "I" agrees with the name ("I know" -> "June knows");
- the claim must be about someone or something in particular: after resolution it names a
  character or another proper noun, or refers to a person (he / she) or a definite thing ("the
  log"); "They nest in spring." or "That's not the same thing." say nothing about the story.
Written here: the rules are specific to screenplay dialogue and no library does this offline.
"""

from __future__ import annotations

import re

from pipelines.beliefs.text import display_name, split_sentences

MIN_CLAIM_WORDS = 4
_LEADING_CONJUNCTION = re.compile(r"^(and|but|so|then|well|oh|now)\b[,\s]*", re.I)
# A person (he / she / him / her) or a particular thing ("the log") the story is about.
_STORY_REFERENCE = re.compile(
    r"\b(he|she|him|her|his|hers|the (?!same\b|one\b|other\b|way\b|lot\b|thing\b)\w{3,})\b",
    re.I,
)
# Fragments that answer a question rather than state something ("Not on the rocks.").
_FRAGMENT_OPENERS = frozenset({"not", "no", "yes", "nothing", "just", "only"})
_IMPERATIVES = frozenset(
    [
        "go",
        "come",
        "look",
        "tell",
        "keep",
        "don't",
        "do",
        "let",
        "give",
        "take",
        "ring",
        "get",
        "stop",
        "wait",
        "listen",
        "put",
        "leave",
        "show",
        "bring",
        "sit",
        "stay",
        "run",
        "hold",
        "read",
        "find",
        "ask",
        "call",
        "mind",
        "remember",
        "forget",
        "try",
        "help",
        "watch",
        "open",
        "close",
        "say",
        "hurry",
        "please",
    ]
)
# "I know" -> "June knows": only these common present-tense verbs take an -s (a past form such
# as "ran" or an adverb such as "never" must stay as it is).
_PRESENT_VERBS = frozenset(
    [
        "know",
        "think",
        "swear",
        "need",
        "want",
        "see",
        "mean",
        "hope",
        "guess",
        "believe",
        "remember",
        "like",
        "love",
        "hate",
        "wonder",
        "feel",
        "keep",
        "take",
        "tell",
        "find",
        "get",
        "work",
        "live",
        "come",
        "say",
        "read",
        "write",
        "understand",
        "doubt",
        "trust",
        "owe",
    ]
)
_VOCATIVE = re.compile(r",\s*(?:dad|mum|old man|lad|son|miss \w+|mr \w+|{names})\s*([.!?]?)$", re.I)
_IRREGULAR = {
    "am": "is",
    "have": "has",
    "do": "does",
    "don't": "doesn't",
    "go": "goes",
    "haven't": "hasn't",
    "'m": " is",
    "'ve": " has",
    "'ll": " will",
    "'d": " would",
}
_FIRST = {"me": "{s}", "my": "{s}'s", "mine": "{s}'s", "myself": "{s}"}
_SECOND = {"you": "{l}", "your": "{l}'s", "yours": "{l}'s", "yourself": "{l}"}


def _agree(verb: str) -> str:
    lower = verb.lower()
    if lower in _IRREGULAR:
        return _IRREGULAR[lower]
    if lower not in _PRESENT_VERBS:
        return verb
    if lower.endswith(("s", "sh", "ch", "x", "o")):
        return verb + "es"
    if lower.endswith("y") and lower[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _first_person(sentence: str, speaker: str) -> str:
    def contraction(match: re.Match) -> str:
        return speaker + _IRREGULAR[match.group(1).lower()]

    sentence = re.sub(r"\bI('m|'ve|'ll|'d)\b", contraction, sentence)
    sentence = re.sub(r"\bI (\w[\w']*)", lambda m: f"{speaker} {_agree(m.group(1))}", sentence)
    # names are text, never replacement templates: a name like `\d+` is written as it is
    sentence = re.sub(r"\bI\b", lambda _: speaker, sentence)
    for word, form in _FIRST.items():
        said = form.format(s=speaker)
        sentence = re.sub(rf"\b{word}\b", lambda _, said=said: said, sentence, flags=re.I)
    return sentence


def _second_person(sentence: str, listener: str) -> str:
    sentence = re.sub(r"\byou're\b", lambda _: f"{listener} is", sentence, flags=re.I)
    sentence = re.sub(r"\byou've\b", lambda _: f"{listener} has", sentence, flags=re.I)
    sentence = re.sub(r"\byou'll\b", lambda _: f"{listener} will", sentence, flags=re.I)
    sentence = re.sub(
        r"\byou (are|were)\b",
        lambda m: f"{listener} {'is' if m.group(1).lower() == 'are' else 'was'}",
        sentence,
        flags=re.I,
    )
    sentence = re.sub(
        r"(^|[,;]\s*|\b(?:and|that|if|when|because)\s+)you (\w+)\b",
        lambda m: f"{m.group(1)}{listener} {_agree(m.group(2))}",
        sentence,
        flags=re.I,
    )
    for word, form in _SECOND.items():
        said = form.format(l=listener)
        sentence = re.sub(rf"\b{word}\b", lambda _, said=said: said, sentence, flags=re.I)
    return sentence


def _about_the_story(sentence: str, names: list[str]) -> bool:
    if any(re.search(rf"\b{re.escape(n)}\b", sentence) for n in names):
        return True
    words = re.findall(r"[A-Za-z][\w'.-]*", sentence)
    if any(w[:1].isupper() for w in words[1:]):
        return True
    return bool(_STORY_REFERENCE.search(sentence))


def _strip_vocative(sentence: str, names: list[str]) -> str:
    """Drop a trailing form of address (", Dad." / ", Kit.")."""
    alternatives = "|".join(re.escape(n) for n in names) or "(?!)"
    pattern = re.compile(_VOCATIVE.pattern.replace("{names}", alternatives), re.I)
    return pattern.sub(lambda m: m.group(1) or ".", sentence)


# A contraction is two words ("you're" is "you are", "log's gone" is "log is gone").
_CONTRACTION = re.compile(r"\w(?:'re|'s|'ve|'ll|'d|'m|n't)\b", re.I)


def claim_words(sentence: str, contractions: bool = False) -> int:
    """Words of a sentence; with `contractions`, "you're" counts as the two words it is."""
    extra = len(_CONTRACTION.findall(sentence)) if contractions else 0
    return len(sentence.split()) + extra


def story_claims(
    text: str, speaker: str, listeners: list[str], contractions: bool = False
) -> list[str]:
    """The claims a spoken line makes, in the speaker's and listeners' names (may be empty).
    `contractions`: count a contraction as two words against `MIN_CLAIM_WORDS` (the
    `asymmetry` backend: "And you're the birdwatcher." is a claim, "Ruth is the birdwatcher";
    `rules` keeps its first reading)."""
    speaker_name = display_name(speaker)
    single = display_name(listeners[0]) if len(listeners) == 1 else None
    names = [speaker_name] + [display_name(n) for n in listeners]
    claims = []
    for raw in split_sentences(text):
        sentence = _LEADING_CONJUNCTION.sub("", raw.strip())
        sentence = _strip_vocative(sentence, names)
        words = sentence.split()
        if (
            claim_words(sentence, contractions) < MIN_CLAIM_WORDS
            or sentence.endswith("?")
            or words[0].lower().strip(",.!") in _IMPERATIVES | _FRAGMENT_OPENERS
        ):
            continue
        has_you = re.search(r"\byou(r|rs|rself|'re|'ve|'ll)?\b", sentence, re.I)
        if has_you and single is None:
            continue
        claim = _first_person(sentence, speaker_name)
        if has_you:
            claim = _second_person(claim, single)
        claim = claim.rstrip("!").rstrip()
        if not claim.endswith("."):
            claim += "."
        if _about_the_story(claim, names):
            claims.append(claim[0].upper() + claim[1:])
    return claims
