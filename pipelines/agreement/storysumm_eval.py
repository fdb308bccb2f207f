"""How far to trust a judge: run it over StorySumm and score it against the human labels.

StorySumm (SOURCES.md §10) has 96 story summaries with human faithfulness labels per summary
sentence (`errors`: 1 faithful, 0 not) and per summary (`label`). A judge sees the story as the
"answer" and each summary sentence as a rubric claim; asserted -> faithful, contradicted or
omitted -> unfaithful (the story does not support the sentence).

Reported, against the humans:
- sentence level: Cohen's κ and accuracy over every sentence with a human label;
- summary level: balanced accuracy (mean of the recalls of the unfaithful and the faithful
  class), a summary being unfaithful when any of its sentences is.

Anchors are the released detectors of `predicted_labels/`, scored the same way from their own
summary `label` fields against the human summary `label` (files without labels, i.e. only
probabilities, are not anchors: we do not pick thresholds for them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from pipelines.agreement.stats import cohen_kappa
from pipelines.agreement.storysumm import ImportError_, _binary, load_json

FAITHFUL, UNFAITHFUL = 1, 0


@dataclass
class Summary:
    """One StorySumm summary with its human labels."""

    story_id: str
    story: str
    sentences: list[str]
    sentence_labels: list[int] | None  # human `errors` (1 faithful); None: count mismatch
    label: int  # human summary label
    split: str = ""  # the release's own `split` (val | test): tune on val, report on test


@dataclass
class JudgeEval:
    """A judge's figures against the human labels, with the anchors beside them."""

    backend: str
    n_summaries: int
    n_sentences: int
    kappa: float
    accuracy: float
    balanced_accuracy: float
    anchors: list[dict] = field(default_factory=list)
    failed: int = 0
    notes: list[str] = field(default_factory=list)
    run_id: str | None = None  # the LLM run, for a model judge
    split: str | None = None  # the StorySumm split scored (None: every summary)

    def as_json(self) -> dict:
        """The issue's JSON shape (plus accuracy, failures and notes)."""
        return {
            "backend": self.backend,
            "n_summaries": self.n_summaries,
            "n_sentences": self.n_sentences,
            "kappa": round(self.kappa, 3),
            "accuracy": round(self.accuracy, 3),
            "balanced_accuracy": round(self.balanced_accuracy, 3),
            "anchors": self.anchors,
            "failed": self.failed,
            "notes": self.notes,
            "run_id": self.run_id,
            "split": self.split,
        }


def _list(value, where: str) -> list:
    if isinstance(value, str):  # some releases store lists as JSON text
        try:
            value = json.loads(value)
        except ValueError:
            raise ImportError_(f"{where}: expected a list") from None
    if not isinstance(value, list):
        raise ImportError_(f"{where}: expected a list")
    return value


def load_summaries(directory: Path, notes: list[str] | None = None) -> list[Summary]:
    """Every summary; one whose sentence labels do not match its sentences is noted and kept
    for the summary level only (sentence_labels None)."""
    path = Path(directory) / "storysumm.json"
    notes = notes if notes is not None else []
    data = load_json(path, notes)
    summaries = []
    for story_id, record in data.items():
        where = f"{path.name}: record {story_id!r}"
        sentences = _list(record.get("summary"), f"{where} field 'summary'")
        errors = _list(record.get("errors"), f"{where} field 'errors'")
        labels = [_binary(v, f"{where} field 'errors[{k}]'") for k, v in enumerate(errors)]
        if len(errors) != len(sentences):
            notes.append(
                f"{story_id}: {len(errors)} labels for {len(sentences)} sentences "
                "(summary level only)"
            )
            labels = None
        summaries.append(
            Summary(
                str(story_id),
                str(record.get("story") or ""),
                [str(s) for s in sentences],
                labels,
                _binary(record.get("label"), f"{where} field 'label'"),
                str(record.get("split") or ""),
            )
        )
    return summaries


def balanced_accuracy(truth: list[int], predicted: list[int]) -> float:
    """Mean per-class recall (scikit-learn's definition)."""
    from sklearn.metrics import balanced_accuracy_score

    return float(balanced_accuracy_score(truth, predicted))


def anchors(directory: Path, summaries: list[Summary]) -> list[dict]:
    """Balanced accuracy of each released detector's own summary labels."""
    human = {s.story_id: s.label for s in summaries}
    found = []
    root = Path(directory) / "predicted_labels"
    for file in sorted(root.rglob("*.json")):
        data = load_json(file, [])
        labelled = [k for k in human if isinstance(data.get(k), dict) and "label" in data[k]]
        if not labelled:
            continue  # probabilities only: no labels to score
        where = f"{file.name}: record"
        predicted = [_binary(data[k]["label"], f"{where} {k!r} field 'label'") for k in labelled]
        found.append(
            {
                "name": file.relative_to(root).with_suffix("").as_posix(),
                "balanced_accuracy": round(
                    balanced_accuracy([human[k] for k in labelled], predicted), 3
                ),
                "n_summaries": len(labelled),
            }
        )
    return found


def score(backend: str, summaries: list[Summary], predicted: dict[str, list[int]]) -> JudgeEval:
    """Figures of a judge's per-sentence labels (`predicted[story_id]`) against the humans.

    Summaries the judge failed on (missing from `predicted`) are left out and counted.
    """
    judged = [s for s in summaries if s.story_id in predicted]
    labelled = [s for s in judged if s.sentence_labels is not None]
    truth = [v for s in labelled for v in s.sentence_labels]
    guess = [v for s in labelled for v in predicted[s.story_id]]
    summary_guess = [min(predicted[s.story_id], default=FAITHFUL) for s in judged]
    return JudgeEval(
        backend=backend,
        n_summaries=len(judged),
        n_sentences=len(truth),
        kappa=cohen_kappa(truth, guess),
        accuracy=sum(t == g for t, g in zip(truth, guess)) / max(1, len(truth)),
        balanced_accuracy=balanced_accuracy([s.label for s in judged], summary_guess),
        failed=len(summaries) - len(judged),
    )


def verdict_to_label(verdict: str) -> int:
    """asserted -> faithful; contradicted / omitted -> unfaithful (the story lacks it)."""
    return FAITHFUL if verdict == "asserted" else UNFAITHFUL


# -- judges ---------------------------------------------------------------------------------
# The task as the judge sees it: the summary's sentences are claims about the story.
STORYSUMM_QUESTION = "Summarize the story faithfully."


def _claims(summary: Summary) -> list[dict]:
    return [
        {"ord": k + 1, "role": "core", "text": sentence}
        for k, sentence in enumerate(summary.sentences)
    ]


def lexical_labels(summaries: list[Summary]) -> dict[str, list[int]]:
    """Per-sentence labels from the offline `lexical` judge (one embedding pass)."""
    from pipelines.judge.lexical import LexicalMatcher

    verdicts = LexicalMatcher().label_many([(s.story, s.sentences) for s in summaries])
    return {
        s.story_id: [verdict_to_label(v) for v, _ in labelled]
        for s, labelled in zip(summaries, verdicts)
    }


def support_labels(summaries: list[Summary]) -> dict[str, list[int]]:
    """Per-sentence labels from the offline `minilm-support` judge (`pipelines.judge.support`)."""
    from pipelines.judge.support import SupportMatcher

    verdicts = SupportMatcher().label_many([(s.story, s.sentences) for s in summaries])
    return {
        s.story_id: [verdict_to_label(v) for v, _ in labelled]
        for s, labelled in zip(summaries, verdicts)
    }


OFFLINE_BACKENDS = {"lexical": lexical_labels, "minilm-support": support_labels}
BACKENDS = (*OFFLINE_BACKENDS, "openai")


def llm_labels(store, summaries: list[Summary], llm: dict) -> tuple[dict[str, list[int]], str]:
    """Per-sentence labels from an LLM judge through the gateway (cached in `store`).

    Returns the labels of the summaries judged and the run id; failed items are recorded in
    the run's call log with their raw reply and reason.
    """
    from data_access.tables.runs import RunSpec, end_run, start_run
    from pipelines.judge.prompt import PROMPT_VERSION, JudgeReply, checked_labels, judge_messages
    from pipelines.judge.schema import judge_reply_schema
    from pipelines.llm import Gateway, LLMRequest, load_config

    config = load_config(llm)
    run_id = start_run(
        store,
        RunSpec(
            "judge-eval.storysumm",
            backend="openai",
            model=config.model,
            prompt_version=PROMPT_VERSION,
            params=config.public_dict(),
        ),
    )
    requests = []
    for s in summaries:
        claims = _claims(s)
        ords = tuple(c["ord"] for c in claims)
        requests.append(
            LLMRequest(
                f"storysumm:{s.story_id}",
                judge_messages(STORYSUMM_QUESTION, claims, s.story),
                schema=JudgeReply,
                parse=checked_labels(list(ords)),
                params={"temperature": 0},
                json_schema=judge_reply_schema(ords),
            )
        )
    results = Gateway(store, config, run_id).run(requests)
    labels = {
        s.story_id: [verdict_to_label(r.parsed[k + 1].label) for k in range(len(s.sentences))]
        for s, r in zip(summaries, results)
        if r.ok
    }
    end_run(store, run_id, n_items=len(results), n_failed=sum(not r.ok for r in results))
    return labels, run_id


def evaluate(
    directory: Path,
    backend: str = "lexical",
    store=None,
    llm: dict | None = None,
    limit: int | None = None,
    split: str | None = None,
) -> JudgeEval:
    """Run a judge over StorySumm in `directory` and score it, with the anchors beside it.

    `split` (`val` | `test`) scores only that split of the release; thresholds of the offline
    judges were chosen on `val`, so their honest figures are those on `test`.
    """
    notes: list[str] = []
    summaries = load_summaries(directory, notes)
    if split is not None:
        summaries = [s for s in summaries if s.split == split]
        if not summaries:
            raise ValueError(f"no StorySumm summaries in split {split!r} (expected val or test)")
    if limit is not None:
        summaries = summaries[:limit]
    run_id = None
    if backend in OFFLINE_BACKENDS:
        predicted = OFFLINE_BACKENDS[backend](summaries)
    elif backend == "openai":
        if store is None:
            raise ValueError("the openai backend needs a store (for the LLM cache and call log)")
        predicted, run_id = llm_labels(store, summaries, llm or {})
    else:
        raise ValueError(f"unknown judge backend {backend!r} ({' | '.join(BACKENDS)})")
    result = score(backend, summaries, predicted)
    result.run_id, result.split = run_id, split
    # Anchors on the same split as the judge (on every summary without one), so a split's
    # figures are compared like with like.
    every = load_summaries(directory, [])
    result.anchors = anchors(directory, [s for s in every if split in (None, s.split)])
    result.notes = notes
    return result


def comparison_frame(evals):
    """Our judges' latest StorySumm figures and the released detectors' anchors, one row each.

    Args:
        evals: `data_access.tables.judge_evals.latest_judge_evals(store, "storysumm")`.

    Returns:
        columns name, kind (`our judge` | `released detector`), balanced_accuracy, kappa,
        accuracy, n_summaries; sorted by balanced accuracy, best first.
    """
    import pandas as pd

    rows = [
        {
            "name": f"{e.judge} ({e.backend})",
            "kind": "our judge",
            "balanced_accuracy": e.balanced_accuracy,
            "kappa": e.kappa,
            "accuracy": e.accuracy,
            "n_summaries": e.n_summaries,
        }
        for e in evals.itertuples()
    ]
    anchors_seen: dict[str, dict] = {}
    for e in evals.itertuples():
        for anchor in json.loads(e.anchors or "[]"):
            anchors_seen.setdefault(anchor["name"], anchor)
    rows += [
        {
            "name": name,
            "kind": "released detector",
            "balanced_accuracy": anchor["balanced_accuracy"],
            "kappa": None,
            "accuracy": None,
            "n_summaries": anchor.get("n_summaries"),
        }
        for name, anchor in anchors_seen.items()
    ]
    frame = pd.DataFrame(
        rows,
        columns=["name", "kind", "balanced_accuracy", "kappa", "accuracy", "n_summaries"],
    )
    return frame.sort_values("balanced_accuracy", ascending=False, ignore_index=True)
