"""Score the automatic question checks against our own accept / reject decisions.

The gold (`samples/gold/the_keepers_ledger/generated_question_decisions.jsonl`) holds the 40
questions `storyscope demo` generated on The Keeper's Ledger with the `template` backend, kept
verbatim, each decided by reading it against the screenplay, with reason codes. Beside it,
`generated_question_contexts.jsonl` holds what the checks may know of each question's
context-set (members, anchor, belief entries, dialogue lines): the frozen items are re-checked
without a store.

Per check: how many questions it fails, its precision (failed questions we rejected), its
recall against the rejections whose reasons it is meant to catch (`TARGETS`), and its recall
against every rejection; and the same for "any check fails". `storyscope` prints it with
`python -m pipelines.qgen.decision_eval` (docs/QUESTION_CHECKS.md).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pipelines.qgen.checks import CHECKS, USABILITY_CHECKS, CheckContext, check_question

GOLD_DIR = Path(__file__).resolve().parents[2] / "samples" / "gold" / "the_keepers_ledger"
DECISIONS = GOLD_DIR / "generated_question_decisions.jsonl"
CONTEXTS = GOLD_DIR / "generated_question_contexts.jsonl"
SCREENPLAY = GOLD_DIR.parents[1] / "films" / "the_keepers_ledger.fountain"

# The reason codes of the gold each check is meant to catch.
TARGETS = {
    "centre_is_character": {"non_character_centre"},
    "gold_states_belief": {"direction_gold"},
    "not_self_referential": {"self_referential"},
    "gold_not_tautological": {"tautological_gold"},
    "gold_current_at_anchor": {"stale_belief"},
    "gold_answers_each_member": {"wrong_gold"},
    "well_formed": {"malformed"},
}
BEFORE = tuple(name for name in CHECKS if name not in USABILITY_CHECKS)  # checks-v2


@dataclass(frozen=True)
class Decided:
    """One frozen question with our decision and the context its checks see."""

    context_set_id: str
    question: str
    context: CheckContext
    rejected: bool
    reasons: frozenset[str]


def direction_lines(screenplay: Path = SCREENPLAY) -> tuple[str, ...]:
    """The film's direction lines, parsed as the ingest parses them."""
    from pipelines.preprocess.fountain import parse_fountain

    parsed = parse_fountain(screenplay.read_text(encoding="utf-8"))
    return tuple(e.text for s in parsed.scenes for e in s.events if e.kind == "direction")


def load(decisions: Path = DECISIONS, contexts: Path = CONTEXTS) -> list[Decided]:
    """The decided questions, each with the check context of its context-set."""
    directions = direction_lines()
    by_id = {
        row["context_set_id"]: row
        for row in map(json.loads, contexts.read_text(encoding="utf-8").splitlines())
    }
    items = []
    for line_no, line in enumerate(decisions.read_text(encoding="utf-8").splitlines(), 1):
        row = json.loads(line)
        payload = by_id.get(row["context_set_id"])
        if payload is None:
            raise ValueError(
                f"error: {contexts.name}: no context for {row['context_set_id']!r} "
                f"({decisions.name} line {line_no}, field 'context_set_id')"
            )
        items.append(
            Decided(
                row["context_set_id"],
                row["question"],
                _context(row, payload, directions),
                row["decision"] == "reject",
                frozenset(row["reasons"]),
            )
        )
    return items


def _context(row: dict, payload: dict, directions: tuple[str, ...]) -> CheckContext:
    budget = payload.get("name_budget") or {}
    return CheckContext(
        gold=row["gold"],
        forbidden_names=budget.get("forbidden_names", []),
        allowed_names=budget.get("spoken_by_anchor", []) + budget.get("named_later", []),
        anchor_rivals=payload.get("anchor_location_rivals"),
        claims=[c["text"] for c in row["claims"]],
        centres=payload["members"],
        dialogue_lines={k.upper(): v for k, v in payload["dialogue_lines"].items()},
        qtype=payload["question_type"],
        anchor_scene=payload["anchor_scene"],
        belief_entries=payload["belief_entries"],
        direction_lines=directions,
    )


@dataclass(frozen=True)
class CheckScore:
    """One check (or "any of a set") against the decisions."""

    check: str
    failed: int
    failed_rejected: int
    precision: float | None
    recall_target: float | None  # of the rejections with the reasons the check targets
    recall_all: float  # of every rejection


def score(items: Sequence[Decided], checks: Sequence[str]) -> list[CheckScore]:
    """Per check in `checks`, and a last row "any (<n> checks)"."""
    failed = {item.context_set_id: _failed(item, checks) for item in items}
    rejected = [i for i in items if i.rejected]
    rows = []
    for name in checks:
        flagged = [i for i in items if name in failed[i.context_set_id]]
        targets = TARGETS.get(name)
        targeted = [i for i in rejected if targets and i.reasons & targets]
        rows.append(_row(name, flagged, rejected, targeted if targets else None, failed, {name}))
    any_flagged = [i for i in items if failed[i.context_set_id]]
    rows.append(_row(f"any ({len(checks)} checks)", any_flagged, rejected, None, failed, None))
    return rows


def _row(name, flagged, rejected, targeted, failed, names) -> CheckScore:
    hits = [i for i in flagged if i.rejected]
    recall_target = None
    if targeted:
        recall_target = sum(bool(failed[i.context_set_id] & names) for i in targeted) / len(
            targeted
        )
    return CheckScore(
        name,
        len(flagged),
        len(hits),
        len(hits) / len(flagged) if flagged else None,
        recall_target,
        len(hits) / len(rejected) if rejected else 0.0,
    )


def _failed(item: Decided, checks: Sequence[str]) -> set[str]:
    result = check_question(item.question, item.context)
    return {f.check for f in result.failures if f.check in checks}


def table(rows: Sequence[CheckScore]) -> str:
    """A Markdown table of the scores."""

    def fmt(value: float | None) -> str:
        return "—" if value is None else f"{value:.2f}"

    lines = [
        "| check | fails | of them rejected | precision | recall (its reasons) | recall (all) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| `{row.check}` | {row.failed} | {row.failed_rejected} | {fmt(row.precision)} | "
            f"{fmt(row.recall_target)} | {fmt(row.recall_all)} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    decided = load()
    n_rejected = sum(i.rejected for i in decided)
    print(f"{len(decided)} decided questions, {n_rejected} rejected\n")
    print("Before (checks-v2):\n")
    print(table(score(decided, BEFORE)))
    print("\nAfter (checks-v3):\n")
    print(table(score(decided, tuple(CHECKS))))
