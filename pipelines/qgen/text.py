"""Word-level helpers shared by the checks, the leak score and the analytics.

Kept dependency-light (sklearn's stop-word list, NLTK's Porter stemmer — neither needs a data
download) so the checks run on any question from any source without a model.
"""

from __future__ import annotations

import re
from functools import lru_cache

# Interrogative words that open an open question (Table 23: "what / how / when / who").
QUESTION_WORDS = frozenset({"what", "how", "when", "who", "whom", "whose", "which", "why", "where"})

_WORD = re.compile(r"[A-Za-z\u00C0-\u024F][A-Za-z\u00C0-\u024F'\u2019\-]*")


def words(text: str) -> list[str]:
    """The words of `text` in order, with possessive 's and curly quotes normalised away."""
    found = []
    for raw in _WORD.findall(text or ""):
        token = raw.replace("\u2019", "'")
        if token.lower().endswith("'s"):
            token = token[:-2]
        token = token.strip("'-")
        if token:
            found.append(token)
    return found


@lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    """scikit-learn's English stop-word list, imported on first use: importing scikit-learn (and
    scipy with it) takes seconds, and pages that never check a question import this module."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


@lru_cache(maxsize=1)
def _stemmer():
    # on first use, like the stop words: `import nltk` loads scikit-learn and scipy with it
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer()


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Porter stem of a lower-cased word (cached: the analytics stem the same words often)."""
    return _stemmer().stem(word.lower())


def is_proper_noun(token: str, position: int) -> bool:
    """A capitalised word that does not open its sentence — names, places (heuristic)."""
    return position > 0 and token[:1].isupper()


def proper_nouns(*texts: str) -> frozenset[str]:
    """Lower-cased words written capitalised inside a sentence of any of `texts`."""
    found = set()
    for text in texts:
        for sentence in _sentences(text):
            for position, token in enumerate(words(sentence)):
                if is_proper_noun(token, position):
                    found.add(token.lower())
    return frozenset(found)


def _sentences(text: str) -> list[str]:
    return re.split(r"(?<=[.!?;:])\s+", text or "")


def content_stems(
    text: str, exclude_proper_nouns: bool = True, extra_stop: frozenset[str] = frozenset()
) -> set[str]:
    """Distinct stems of the content words of `text`.

    Args:
        text: any English text.
        exclude_proper_nouns: drop capitalised words that do not open a sentence (and the same
            words where they do); names and places are allowed in a question (name budget,
            anchor), so they are not leaks.
        extra_stop: further lower-case words to ignore (e.g. proper nouns of a companion text).
    """
    skip = set(extra_stop) | (proper_nouns(text) if exclude_proper_nouns else set())
    stems: set[str] = set()
    for token in words(text):
        lower = token.lower()
        if lower in stop_words() or lower in skip or len(lower) < 3:
            continue
        stems.add(stem(lower))
    return stems
