"""`storyscope gold-eval`: each offline backend's output on a film scored against the film's
hand-made gold annotation (samples/gold) — belief records, generated questions and
judge labels. The backends are scored, never fitted: no threshold here is tuned on the gold.
"""

from __future__ import annotations

from data_access.queries import gold_eval_inputs
from data_access.store import Store
from pipelines.beliefs.backends import offline_backend_names
from pipelines.goldeval.beliefs import MATCH_COSINE, score_beliefs
from pipelines.goldeval.judge import score_judge
from pipelines.goldeval.questions import score_questions
from pipelines.qgen.check_run import check_questions_frame


class GoldEvalError(ValueError):
    """The store lacks what a comparison needs; the message says which command makes it."""


def _embed(texts: list[str]):
    from pipelines.embeddings import embed_texts

    return embed_texts(texts)


def evaluate_beliefs(store: Store, film_id: str, backend: str = "rules", embed=_embed) -> dict:
    """The belief comparison of one backend; GoldEvalError when a side is missing."""
    gold_run = gold_eval_inputs.gold_run(store, film_id)
    if gold_run is None:
        raise GoldEvalError(f"no gold belief records for {film_id!r}: run `storyscope demo`")
    run_id = gold_eval_inputs.belief_run(store, film_id, backend)
    if run_id is None:
        raise GoldEvalError(
            f"no {backend!r} belief records for {film_id!r}: run"
            f" `storyscope beliefs annotate --film {film_id} --backend {backend}`"
        )
    backend_rows = gold_eval_inputs.beliefs_of_run(store, film_id, run_id)
    gold_rows = gold_eval_inputs.beliefs_of_run(store, film_id, gold_run)
    scores = score_beliefs(backend_rows, gold_rows, embed)
    return {"backend": backend, **scores, "run_id": run_id, "match_cosine": MATCH_COSINE}


# every offline belief backend of the registry (an LLM one is scored from its own runs)
BELIEF_BACKENDS = offline_backend_names()


def evaluate_belief_backends(
    store: Store, film_id: str, embed=_embed, scored: dict[str, dict] | None = None
) -> dict[str, dict]:
    """Every offline belief backend that has a run on the film, scored side by side;
    a backend without a run is left out (its annotate command is named by `missing_backends`).
    A backend in `scored` (`evaluate_beliefs` results by backend) is taken from it, not scored
    again."""
    scores = {}
    for backend in BELIEF_BACKENDS:
        if scored is not None and backend in scored:
            scores[backend] = scored[backend]
        elif gold_eval_inputs.belief_run(store, film_id, backend) is not None:
            scores[backend] = evaluate_beliefs(store, film_id, backend, embed)
    return scores


def missing_backends(detail: dict) -> list[str]:
    """The annotate command of each belief backend a `gold_eval` detail lacks."""
    if "belief_backends" not in detail:
        return []
    return [
        f"storyscope beliefs annotate --film {detail['film_id']} --backend {backend}"
        for backend in BELIEF_BACKENDS
        if backend not in detail.get("belief_backends", {})
    ]


def evaluate_questions(store: Store, film_id: str, backend: str = "template", embed=_embed) -> dict:
    """The generated questions' figures, with the gold questions' as reference."""
    generated = gold_eval_inputs.generated_questions(store, film_id, backend)
    if generated.empty:
        raise GoldEvalError(
            f"no {backend!r} questions for {film_id!r}: run"
            f" `storyscope generate --film {film_id} --backend {backend}`"
        )
    # the generated questions are checked with their context-sets (centre, belief record at
    # the anchor, direction lines), as the generator and `check-questions` check them
    framed = generated.assign(film_id=film_id, source="generated")
    passed = [item.result.passed for item in check_questions_frame(store, framed)]
    scores = score_questions(generated, embed, passed)
    reference = score_questions(gold_eval_inputs.gold_questions(store, film_id), embed)
    return {"backend": backend, **scores, "gold_reference": reference}


def evaluate_judge(store: Store, film_id: str, judge_id: str = "lexical") -> dict:
    """The judge's labels on the gold answers against the gold verdicts."""
    pairs = gold_eval_inputs.verdict_pairs(store, film_id, judge_id)
    if pairs.empty:
        raise GoldEvalError(f"no gold verdicts for {film_id!r}: run `storyscope demo`")
    if pairs["judged"].isna().all():
        raise GoldEvalError(
            f"judge {judge_id!r} has not labelled the gold answers: run"
            f" `storyscope judge --backend {judge_id}`"
        )
    return {"backend": judge_id, **score_judge(pairs)}


SUMMARY_KEYS = {
    "beliefs": ("backend", "precision", "recall", "false_belief_recall", "revision_recall"),
    "questions": ("backend", "checks_pass_rate", "near_duplicate_rate", "self_bleu2"),
    "judge": ("backend", "kappa", "accuracy", "confusion"),
}


def summary(detail: dict) -> dict:
    """The `--json` shape (three comparisons with exactly these keys), plus, when
    several belief backends were scored, `beliefs_by_backend` with the same keys for each."""
    result = {part: {k: detail[part][k] for k in keys} for part, keys in SUMMARY_KEYS.items()}
    if "belief_backends" in detail:
        keys = SUMMARY_KEYS["beliefs"]
        result["beliefs_by_backend"] = {
            name: {k: scores[k] for k in keys} for name, scores in detail["belief_backends"].items()
        }
    return result


def gold_eval(store: Store, film_id: str) -> dict:
    """All three comparisons with their detail (counts, runs, the gold questions' reference);
    `beliefs` is the rules backend's, `belief_backends` every offline backend's with a run."""
    beliefs = evaluate_beliefs(store, film_id)
    # the rules backend is scored once (its belief and gold texts embedded once), not again here
    backends = evaluate_belief_backends(store, film_id, scored={"rules": beliefs})
    questions = evaluate_questions(store, film_id)
    judge = evaluate_judge(store, film_id)
    return {
        "film_id": film_id,
        "beliefs": beliefs,
        "belief_backends": backends,
        "questions": questions,
        "judge": judge,
    }


def describe(part: str, result: dict) -> str | None:
    """One line for a page, e.g. "rules backend vs gold: precision 0.31, recall 0.22"."""
    scores = result.get(part)
    if not scores:
        return None

    def f(value) -> str:
        return "—" if value is None else f"{value:.2f}"

    if part == "beliefs":
        return (
            f"{scores['backend']} backend vs gold: precision {f(scores['precision'])}, recall"
            f" {f(scores['recall'])}, false-belief recall {f(scores['false_belief_recall'])},"
            f" revision recall {f(scores['revision_recall'])}"
        )
    if part == "questions":
        return (
            f"{scores['backend']} writer on the gold film: checks pass"
            f" {f(scores['checks_pass_rate'])}, near-duplicates {f(scores['near_duplicate_rate'])},"
            f" Self-BLEU-2 {f(scores['self_bleu2'])}"
        )
    return (
        f"{scores['backend']} judge vs gold verdicts: κ {f(scores['kappa'])},"
        f" accuracy {f(scores['accuracy'])}"
    )
