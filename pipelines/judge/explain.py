"""Why a judge gave a verdict, in words a researcher can check (the Verdicts page).

An LLM judge stores a one-sentence rationale (App. F.2) and that is its explanation. The offline
`lexical` judge stores a terse rationale ("similarity 0.72, opposite negation in sentence 2");
its matcher is deterministic, so the sentence it matched is recovered exactly by splitting the
answer the way the matcher did (`lexical.split_sentences`), and the cue behind a contradiction
is the negation words of the claim and of that sentence (`lexical.NEGATION_CUES`).
"""

from __future__ import annotations

import re

import pandas as pd

from pipelines.judge.lexical import NEGATION_CUES, split_sentences

_SCORE = re.compile(r"similarity (\d+(?:\.\d+)?)")
_SENTENCE = re.compile(r"sentence (\d+)")
_WORD = re.compile(r"[A-Za-z]+(?:['’][a-z]+)?")


def negation_words(text: str) -> list[str]:
    """The negation cues in `text`, in order (what flips the lexical judge's polarity)."""
    words = [w.lower().replace("’", "'") for w in _WORD.findall(text)]
    return [w for w in words if w in NEGATION_CUES or w.endswith("n't")]


def explain_lexical(rationale: str | None, answer: str | None, claim: str | None) -> dict:
    """The lexical judge's evidence for one verdict: matched sentence, score and cue.

    Returns:
        {"sentence": str | None, "score": float | None, "cue": str} — the sentence is None when
        the rationale names none (omitted claims, declining answers).
    """
    # a missing rationale arrives from a DataFrame as NaN (truthy), not None
    rationale = rationale if isinstance(rationale, str) else ""
    answer = answer if isinstance(answer, str) else None
    score = _SCORE.search(rationale)
    number = _SENTENCE.search(rationale)
    sentences = split_sentences(answer or "") or [answer or ""]
    sentence = None
    if number and 1 <= int(number.group(1)) <= len(sentences):
        sentence = sentences[int(number.group(1)) - 1]
    cue = rationale
    if sentence is not None:
        in_claim, in_sentence = negation_words(claim or ""), negation_words(sentence)
        cue = (
            f"negation in claim: {', '.join(in_claim) or 'none'}; "
            f"in sentence: {', '.join(in_sentence) or 'none'}"
        )
    return {
        "sentence": sentence,
        "score": float(score.group(1)) if score else None,
        "cue": cue,
    }


def explanation(
    backend: str | None, rationale: str | None, answer: str | None, claim: str | None
) -> str:
    """One line saying why: the lexical judge's matched sentence, score and cue, or another
    judge's stored rationale ("" when it stored none)."""
    if backend != "lexical":
        return rationale if isinstance(rationale, str) else ""
    found = explain_lexical(rationale, answer, claim)
    if found["sentence"] is None:
        return found["cue"]
    score = "" if found["score"] is None else f" (similarity {found['score']:.2f})"
    # the cue first: it is what decided asserted against contradicted
    return f"{found['cue']}; matched “{found['sentence']}”{score}"


# The Verdicts page's filters over the side-by-side table
FILTERS = {
    "contradicted": "a judge says contradicted",
    "judges disagree": "judges give this claim different verdicts on one answer",
    "settings differ": "a judge gives this claim different verdicts across settings",
}


def side_by_side(judgements: pd.DataFrame, answers: pd.DataFrame) -> pd.DataFrame:
    """One row per (claim, setting), one column per judge holding "verdict — why", and the
    flags the filters read (`contradicted`, `judges disagree`, `settings differ`).

    Args:
        judgements: `verdicts_view.claim_judgements` rows of one question.
        answers: `verdicts_view.answers_of_question` (answer_id, text), to recover the
            lexical judge's matched sentence.
    """
    keys = ["ord", "role", "claim", "setting"]
    if judgements.empty:
        return pd.DataFrame(columns=[*keys, *FILTERS])
    text_of = dict(zip(answers["answer_id"], answers["text"]))
    why = [
        explanation(b, r, text_of.get(a), c)
        for b, r, a, c in zip(
            judgements["backend"],
            judgements["rationale"],
            judgements["answer_id"],
            judgements["claim"],
        )
    ]
    cells = judgements.assign(
        cell=[f"{v} — {w}" if w else str(v) for v, w in zip(judgements["verdict"], why)]
    )
    table = cells.pivot_table(index=keys, columns="judge_id", values="cell", aggfunc="first")
    per_claim = cells.groupby(["ord", "judge_id"])["verdict"].nunique()
    varying = set(per_claim[per_claim > 1].index.get_level_values("ord"))
    table = table.reset_index()
    # one vectorised pass per flag: a per-row lambda (groupby.apply) cost ~0.2 s of the page's
    # script on a 33-setting question
    flags = (
        cells.assign(contradicted=cells["verdict"].eq("contradicted"))
        .groupby(keys)
        .agg(contradicted=("contradicted", "any"), verdicts=("verdict", "nunique"))
    )
    flags = pd.DataFrame(
        {"contradicted": flags["contradicted"], "judges disagree": flags["verdicts"] > 1}
    ).reset_index()
    table = table.merge(flags, on=keys)
    table["settings differ"] = table["ord"].isin(varying)
    return table.sort_values(["ord", "setting"]).reset_index(drop=True)


def filtered(table: pd.DataFrame, wanted: list[str]) -> pd.DataFrame:
    """The rows of a `side_by_side` table with every flag in `wanted` set."""
    keep = pd.Series(True, index=table.index)
    for flag in wanted:
        keep &= table[flag].astype(bool)
    return table[keep]
