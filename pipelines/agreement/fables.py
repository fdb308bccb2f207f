"""Import FABLES (mungg/FABLES; SOURCES.md §9): human claim labels on five models' summaries of
26 novels. The file has a `{"canary": ..., "FABLES": {...}}` wrapper the README does not show;
both forms are accepted. Labels: Yes -> asserted, No -> contradicted, PartialSupport ->
partial, Inapplicable -> unverifiable (kept as their own values).

FABLES holds one human label per claim, so agreement needs a second judge: with
`lexical_evidence=True` the offline `lexical` claim matcher labels each claim against the
annotators' evidence quotes, stored as judge `lexical-evidence` (named as such everywhere).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from data_access.importers.json_files import JsonFileError, read_json_file
from data_access.store import Store
from data_access.store.interrupts import telling_interrupts
from pipelines.agreement.imports import HUMAN, write_judge_labels
from pipelines.agreement.storysumm import ImportError_

LABELS = {
    "Yes": "asserted",
    "No": "contradicted",
    "PartialSupport": "partial",
    "Inapplicable": "unverifiable",
}
LEXICAL_JUDGE = "lexical-evidence"


@dataclass
class FablesImport:
    books: int = 0
    summaries: int = 0
    claims: int = 0
    by_label: dict[str, int] = field(default_factory=dict)
    lexical: int = 0


@dataclass
class FablesClaim:
    summary_id: str
    claim_id: str
    text: str
    verdict: str
    evidence: list[str]


def read_fables(path: Path, books: int | None = None) -> list[FablesClaim]:
    """Every claim of the file (optionally of the first `books` books), validated."""
    try:
        data = read_json_file(path, str(path))
    except JsonFileError as exc:
        raise ImportError_(f"malformed JSON: {exc}") from None
    data = data.get("FABLES", data) if isinstance(data, dict) else None
    if not isinstance(data, dict):
        raise ImportError_(f"{path}: expected an object of books")
    claims = []
    for title in list(data)[:books]:
        for model, summary in data[title].items():
            claims += _claims_of(path, title, model, summary)
    return claims


def _claims_of(path: Path, title: str, model: str, summary) -> list[FablesClaim]:
    where = f"{path.name}: book {title!r}, model {model!r}"
    if not isinstance(summary, dict) or not isinstance(summary.get("claims"), dict):
        raise ImportError_(f"{where}: field 'claims' must be an object")
    found = []
    for key, claim in summary["claims"].items():
        label = claim.get("label") if isinstance(claim, dict) else None
        if label not in LABELS:
            raise ImportError_(
                f"{where}, claim {key!r}: field 'label' is {label!r}; expected "
                f"one of {', '.join(LABELS)}"
            )
        summary_id = f"fables:{title}:{model}"
        found.append(
            FablesClaim(
                summary_id,
                f"{summary_id}:{key}",
                str(claim.get("claim", "")),
                LABELS[label],
                [e for e in claim.get("evidence") or [] if e],
            )
        )
    return found


def lexical_evidence_rows(claims: list[FablesClaim]) -> list[tuple]:
    """The offline `lexical` matcher's verdict on each claim against its evidence quotes."""
    from pipelines.judge.lexical import LexicalMatcher

    items = [
        (" ".join(e.strip().rstrip(".") + "." for e in claim.evidence), [claim.text])
        for claim in claims
    ]
    labels = LexicalMatcher().label_many(items)
    return [
        (claim.summary_id, claim.claim_id, *labelled[0])
        if evidence
        else (claim.summary_id, claim.claim_id, "omitted", "no evidence quoted")
        for claim, (evidence, _), labelled in zip(claims, items, labels)
    ]


def import_fables(
    store: Store, path: Path, lexical_evidence: bool = False, books: int | None = None
) -> FablesImport:
    """Import the human labels (and optionally the lexical-evidence judge) in one transaction."""
    claims = read_fables(path, books)
    report = FablesImport(
        books=len({c.summary_id.split(":")[1] for c in claims}),
        summaries=len({c.summary_id for c in claims}),
        claims=len(claims),
    )
    for claim in claims:
        report.by_label[claim.verdict] = report.by_label.get(claim.verdict, 0) + 1
    human = [(c.summary_id, c.claim_id, c.verdict, None) for c in claims]
    lexical = lexical_evidence_rows(claims) if lexical_evidence else []
    told = telling_interrupts(store, "import.fables", str(path), f"the import of {path}")
    with told, store.transaction() as cursor:
        write_judge_labels(cursor, "fables", HUMAN, "human", str(path), human)
        if lexical:
            write_judge_labels(
                cursor,
                "fables",
                LEXICAL_JUDGE,
                "lexical",
                str(path),
                lexical,
                note="offline lexical matcher against the evidence quotes",
            )
            report.lexical = len(lexical)
    return report
