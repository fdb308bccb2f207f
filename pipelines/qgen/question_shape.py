"""The shape of a question: where its anchor ends and its body begins, and how much of the
gold answer the body already says (the leak score of Table 23's self-test).

Measures, not verdicts: the checks (checks.py) judge questions with them, and the analytics
(analytics.py) count opening frames with `question_body`.
"""

from __future__ import annotations

import re

from pipelines.qgen.text import QUESTION_WORDS, content_stems, proper_nouns, words


def first_question_word_index(question: str) -> int | None:
    """Index (in `words`) of the question word that opens the main clause, or None.

    A question word opening a clause (at the start or after a comma) wins over one inside the
    anchor ("In the corridor where the staff smoke, what ..."); otherwise the first one counts.
    """
    clause_start, first_any = None, None
    position = 0
    for clause in re.split(r"[,;:\u2013\u2014]", question):
        clause_words = words(clause)
        if clause_words and clause_words[0].lower() in QUESTION_WORDS and clause_start is None:
            clause_start = position
        for offset, token in enumerate(clause_words):
            if first_any is None and token.lower() in QUESTION_WORDS:
                first_any = position + offset
        position += len(clause_words)
    return clause_start if clause_start is not None else first_any


def question_body(question: str) -> str:
    """The question from its main question word on (the anchor phrase removed)."""
    index = first_question_word_index(question)
    if index is None:
        return question
    # Find the character offset of the index-th word.
    matches = [
        m
        for m in re.finditer(r"[A-Za-z\u00C0-\u024F][A-Za-z\u00C0-\u024F'\u2019\-]*", question)
        if _word_of(m.group(0))
    ]
    return question[matches[index].start() :] if index < len(matches) else question


def _word_of(raw: str) -> str:
    return raw.replace("\u2019", "'").removesuffix("'s").strip("'-")


def leak_score(question: str, gold: str) -> float:
    """Share of the gold answer's content words already in the question body.

    Names and places (capitalised words) and the anchor phrase are excluded: the question must
    name its center and its moment, and those words are not the answer (Table 23 self-test).
    """
    names = proper_nouns(question, gold)
    gold_stems = content_stems(gold, extra_stop=names)
    if not gold_stems:
        return 0.0
    return len(gold_stems & content_stems(question_body(question), extra_stop=names)) / len(
        gold_stems
    )
