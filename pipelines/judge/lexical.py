"""The `lexical` judge: offline lexical measures and an embedding claim matcher.

Nothing here is an LLM; its verdicts are labelled `lexical` wherever they are shown.
docs/JUDGE.md defines each measure precisely:

- RL: ROUGE-L F1 (rouge-score, Porter stemming) between the answer and the reference answer.
- ClmRL: mean over the rubric claims of ROUGE-L recall of the claim in the answer
  (LCS(claim, answer) / |claim tokens|).
- Cov@.5: fraction of rubric claims whose ROUGE-L recall in the answer is at least 0.5
  (the paper's "claim coverage", §4).
- Hedge: fraction of the answer's sentences that contain a hedge cue (lower is better).

The claim matcher labels each claim: a claim whose best-matching answer sentence (MiniLM cosine)
reaches `assert_threshold` is asserted, unless that sentence and the claim differ in negation
polarity, then contradicted; everything else is omitted. A hedged sentence (a hedge cue) states
nothing unless the claim is hedged too. A declining answer omits every claim (App. F.2).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

# v2: a hedged sentence states nothing (asserts and contradicts no claim) unless the claim is
# hedged too, the rule the LLM judge's prompt gives (docs/JUDGE.md)
LEXICAL_VERSION = "lexical-v2"
HEDGE_CUES = (
    "may",
    "might",
    "perhaps",
    "possibly",
    "probably",
    "likely",
    "unlikely",
    "seems",
    "seem",
    "seemed",
    "appears",
    "appear",
    "apparently",
    "unclear",
    "uncertain",
    "suggests",
    "presumably",
    "could",
    "maybe",
    "not sure",
    "it is possible",
    "i think",
    "i believe",
)
DECLINE_CUES = (
    "cannot answer",
    "can't answer",
    "unable to answer",
    "cannot determine",
    "can't determine",
    "not enough information",
    "insufficient information",
    "no information",
    "i don't know",
    "i do not know",
    "not possible to determine",
    "does not provide",
    "doesn't provide",
    "not provided",
    "cannot be determined",
)
NEGATION_CUES = (
    "not",
    "no",
    "never",
    "none",
    "nobody",
    "nothing",
    "neither",
    "nor",
    "without",
    "cannot",
    "n't",
    "fails",
    "failed",
    "refuses",
    "refused",
    "denies",
    "denied",
    "unaware",
    "doesnt",
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'“‘(A-Z0-9])")
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?|n't")


def split_sentences(text: str) -> list[str]:
    """Sentences of an answer (split after . ! ? before a capital, digit or quote)."""
    return [s.strip() for s in _SENTENCE_END.split(text.strip()) if s.strip()]


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("’", "'"))


def _has_cue(text: str, cues: tuple[str, ...]) -> bool:
    padded = " " + " ".join(_words(text)) + " "
    return any(f" {cue} " in padded for cue in cues)


def negation_polarity(text: str) -> int:
    """Parity of negation cues: 1 when the sentence is negated an odd number of times."""
    words = _words(text)
    count = sum(1 for w in words if w in NEGATION_CUES or w.endswith("n't"))
    return count % 2


_NEGATION_TOKEN = re.compile(
    r"\b(?:" + "|".join(c for c in NEGATION_CUES if c.isalpha()) + r")\b|n['’]t\b", re.IGNORECASE
)


def strip_negation(text: str) -> str:
    """The text without its negation cues (for polarity-free content similarity)."""
    return re.sub(r"\s+", " ", _NEGATION_TOKEN.sub(" ", text)).strip()


def is_declining(answer: str) -> bool:
    """True for an answer that declines the question (it then omits every claim, App. F.2)."""
    return not answer.strip() or _has_cue(answer, DECLINE_CUES) and len(_words(answer)) < 60


@lru_cache(maxsize=1)
def _rouge():
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)


def rouge_l(target: str, prediction: str):
    """rouge-score's ROUGE-L Score (precision, recall, fmeasure) of prediction vs target."""
    return _rouge().score(target, prediction)["rougeL"]


def hedge_rate(answer: str) -> float:
    """Share of the answer's sentences holding a hedge cue (0 for an empty answer)."""
    sentences = split_sentences(answer)
    if not sentences:
        return 0.0
    return sum(_has_cue(s, HEDGE_CUES) for s in sentences) / len(sentences)


def lexical_measures(answer: str, gold: str | None, claims: list[str]) -> dict[str, float]:
    """RL, ClmRL, Cov@.5 and Hedge of one answer (definitions: module docstring, JUDGE.md)."""
    recalls = [rouge_l(claim, answer).recall for claim in claims]
    return {
        "RL": rouge_l(gold, answer).fmeasure if gold else float("nan"),
        "ClmRL": float(np.mean(recalls)) if recalls else float("nan"),
        "Cov@.5": float(np.mean([r >= 0.5 for r in recalls])) if recalls else float("nan"),
        "Hedge": hedge_rate(answer),
    }


@dataclass
class LexicalMatcher:
    """MiniLM claim matcher with negation cues (thresholds documented in docs/JUDGE.md).

    Attributes:
        assert_threshold: minimum cosine similarity between a claim and its best answer
            sentence for the claim to count as stated (asserted or contradicted).
    """

    assert_threshold: float = 0.6

    def label_claims(self, answer: str, claims: list[str]) -> list[tuple[str, str]]:
        """(verdict, rationale) per claim, in claim order."""
        return self.label_many([(answer, claims)])[0]

    def label_many(self, items: list[tuple[str, list[str]]]) -> list[list[tuple[str, str]]]:
        """Label many (answer, claims) items with one embedding pass over all their texts
        (the model's per-call overhead dominates for short texts)."""
        from pipelines.embeddings import embed_texts

        split = [split_sentences(answer) or [answer] for answer, _ in items]
        # Content is compared with negation removed, so "X knows" and "X does not know" match
        # on content and the negation cues alone decide asserted vs contradicted.
        texts = sorted(
            {
                strip_negation(t)
                for (_, claims), sentences in zip(items, split)
                for t in [*claims, *sentences]
            }
        )
        index = {text: i for i, text in enumerate(texts)}
        vectors = embed_texts(texts) if texts else np.zeros((0, 1))
        labelled = []
        for (answer, claims), sentences in zip(items, split):
            if not claims:
                labelled.append([])
                continue
            if is_declining(answer):
                labelled.append([("omitted", "answer declines the question")] * len(claims))
                continue
            left = vectors[[index[strip_negation(c)] for c in claims]]
            right = vectors[[index[strip_negation(s)] for s in sentences]]
            labelled.append(
                [self._label(claim, sentences, row) for claim, row in zip(claims, left @ right.T)]
            )
        return labelled

    def _label(self, claim: str, sentences: list[str], similarities: np.ndarray) -> tuple[str, str]:
        # Among the sentences that state the claim's content, the closest one decides: same
        # negation polarity -> asserted, opposite -> contradicted. A hedged sentence ("may not
        # be who she says") commits to nothing, so it neither asserts nor contradicts a claim
        # that is not itself hedged: its "not" was read as a contradiction (the rule the LLM
        # judge's prompt states: hedged statements omit a claim unless the claim is hedged).
        similar = [i for i in np.argsort(-similarities) if similarities[i] >= self.assert_threshold]
        claim_hedged = _has_cue(claim, HEDGE_CUES)
        stated = [i for i in similar if claim_hedged or not _has_cue(sentences[i], HEDGE_CUES)]
        if not stated:
            if similar:
                return "omitted", (
                    f"only hedged sentences state it (similarity {similarities[similar[0]]:.2f}"
                    f" in sentence {similar[0] + 1})"
                )
            score = float(similarities.max())
            return "omitted", f"best sentence similarity {score:.2f} < {self.assert_threshold}"
        polarity = negation_polarity(claim)
        same = [i for i in stated if negation_polarity(sentences[i]) == polarity]
        opposite = [i for i in stated if negation_polarity(sentences[i]) != polarity]
        if opposite and (not same or similarities[opposite[0]] > similarities[same[0]]):
            best = int(opposite[0])
            return "contradicted", (
                f"similarity {similarities[best]:.2f}, opposite negation in sentence {best + 1}"
            )
        best = int(same[0])
        return "asserted", f"similarity {similarities[best]:.2f} with sentence {best + 1}"
