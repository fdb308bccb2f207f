"""BERTScore (Zhang et al., ICLR 2020), as StoryVideoQA §3.4 uses it, on the offline MiniLM.

Definition (the paper's §3): tokens of candidate x and reference y get contextual embeddings
from a transformer layer; with unit vectors,

    P = sum_{x_i in x} w(x_i) max_{y_j in y} x_i.y_j / sum w(x_i)
    R = sum_{y_j in y} w(y_j) max_{x_i in x} x_i.y_j / sum w(y_j)
    F = 2PR / (P + R)

w = 1 (or idf computed over the references when `idf=True`). As in the reference package
`bert-score`, [CLS] and [SEP] take part in the max matching but carry weight 0, a sentence is
stripped before tokenising, and an empty candidate or reference scores 0. Optional baseline
rescaling maps s to (s - b) / (1 - b); the package ships no baseline for MiniLM, so
`estimate_baseline` measures b as the mean score of random unrelated pairs of the corpus (the
package's own recipe, on Common Crawl pairs).

Efficiency: each distinct text is encoded once (texts sorted by length so batches carry little
padding); the per-pair greedy matching is a small matrix product. Equality with the package
within 1e-4 is tested in tests/pipelines/mcq/test_mcq_bertscore.py.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from pipelines.progress import report

BACKBONE = "all-MiniLM-L6-v2"
DEFAULT_LAYER = 6  # MiniLM-L6: the last of its 6 layers


@dataclass
class Encoded:
    """One text's unit-length token embeddings and token ids (special tokens included)."""

    vectors: np.ndarray
    ids: list[int]


@dataclass
class BertScores:
    """Precision, recall and F1 arrays aligned with the input pairs."""

    precision: np.ndarray
    recall: np.ndarray
    f1: np.ndarray


def encode_texts(
    texts: list[str], num_layers: int = DEFAULT_LAYER, batch_size: int = 128
) -> dict[str, Encoded]:
    """Contextual token embeddings of each distinct text (stripped), keyed by the raw text."""
    import torch

    from pipelines.embeddings import token_model

    tokenizer, model = token_model()
    distinct = sorted(set(texts), key=lambda t: len(t))
    out: dict[str, Encoded] = {}
    with torch.inference_mode():
        for start in range(0, len(distinct), batch_size):
            chunk = distinct[start : start + batch_size]
            batch = tokenizer(
                [t.strip() for t in chunk],
                padding=True,
                truncation=True,
                max_length=tokenizer.model_max_length,
                return_tensors="pt",
            )
            hidden = model(**batch, output_hidden_states=True).hidden_states[num_layers]
            hidden = torch.nn.functional.normalize(hidden, dim=-1).numpy()
            lengths = batch["attention_mask"].sum(dim=1).tolist()
            for k, text in enumerate(chunk):
                n = int(lengths[k])
                out[text] = Encoded(hidden[k, :n].copy(), batch["input_ids"][k, :n].tolist())
            report("BERTScore: encoding texts", start + len(chunk), len(distinct))
    return out


def idf_weights(references: list[str]) -> dict[int, float]:
    """idf(w) = log((M + 1) / (df(w) + 1)) over the M references (the package's definition)."""
    from pipelines.embeddings import token_model

    tokenizer, _ = token_model()
    counts: Counter[int] = Counter()
    for text in references:
        counts.update(set(tokenizer(text.strip(), truncation=True)["input_ids"]))
    total = len(references)
    return {token: math.log((total + 1) / (df + 1)) for token, df in counts.items()}


def _weights(
    ids: list[int], idf: dict[int, float] | None, special: set[int], unseen: float
) -> np.ndarray:
    if idf is None:
        return np.array([0.0 if t in special else 1.0 for t in ids], dtype=np.float64)
    return np.array([0.0 if t in special else idf.get(t, unseen) for t in ids], dtype=np.float64)


def greedy_match(
    cand: np.ndarray, cand_w: np.ndarray, ref: np.ndarray, ref_w: np.ndarray
) -> tuple[float, float, float]:
    """(P, R, F) of one pair from unit token vectors and token weights."""
    if cand_w.sum() == 0 or ref_w.sum() == 0:
        return 0.0, 0.0, 0.0  # empty sentence: the package's convention
    sim = cand @ ref.T
    precision = float((sim.max(axis=1) * cand_w).sum() / cand_w.sum())
    recall = float((sim.max(axis=0) * ref_w).sum() / ref_w.sum())
    denom = precision + recall
    return precision, recall, (2 * precision * recall / denom if denom else 0.0)


def bert_score(
    candidates: list[str],
    references: list[str],
    idf: bool = False,
    num_layers: int = DEFAULT_LAYER,
    baseline: tuple[float, float, float] | None = None,
    encoded: dict[str, Encoded] | None = None,
) -> BertScores:
    """BERTScore of each (candidate, reference) pair.

    Args:
        candidates: candidate sentences.
        references: reference sentences, same length as `candidates`.
        idf: weight tokens by idf over `references` (otherwise all weights 1).
        num_layers: which hidden layer gives the token embeddings (6 = last).
        baseline: optional (b_P, b_R, b_F) for rescaling, see `estimate_baseline`.
        encoded: token embeddings already computed by `encode_texts` (reused when given).
    """
    if len(candidates) != len(references):
        raise ValueError(f"{len(candidates)} candidates but {len(references)} references")
    from pipelines.embeddings import token_model

    tokenizer, _ = token_model()
    encoded = encoded or encode_texts(list(candidates) + list(references), num_layers)
    idf_map = idf_weights(list(references)) if idf else None
    unseen = math.log(len(references) + 1) if idf else 1.0
    special = {tokenizer.cls_token_id, tokenizer.sep_token_id}
    scores = np.zeros((len(candidates), 3))
    for k, (cand, ref) in enumerate(zip(candidates, references)):
        c, r = encoded[cand], encoded[ref]
        scores[k] = greedy_match(
            c.vectors,
            _weights(c.ids, idf_map, special, unseen),
            r.vectors,
            _weights(r.ids, idf_map, special, unseen),
        )
    if baseline is not None:
        scores = (scores - np.asarray(baseline)) / (1 - np.asarray(baseline))
    return BertScores(scores[:, 0], scores[:, 1], scores[:, 2])


def estimate_baseline(
    texts: list[str], n_pairs: int = 2000, seed: int = 0, num_layers: int = DEFAULT_LAYER
) -> tuple[float, float, float]:
    """Mean (P, R, F) of random pairs of different texts: the rescaling baseline b."""
    rng = np.random.default_rng(seed)
    pool = [t for t in dict.fromkeys(texts) if t.strip()]
    if len(pool) < 2:
        raise ValueError("need at least two distinct non-empty texts for a baseline")
    first = rng.integers(0, len(pool), n_pairs)
    second = (first + rng.integers(1, len(pool), n_pairs)) % len(pool)
    result = bert_score([pool[i] for i in first], [pool[j] for j in second], num_layers=num_layers)
    return (float(result.precision.mean()), float(result.recall.mean()), float(result.f1.mean()))
