"""Why items failed, in words a user can act on ("every failure is explained").

The gateway stores a short category (`reason`) next to each failed call's full error text; the
CLI summary, the job's record and the Runs page count failures by category and show the first
error in full.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

# (category, substrings of the recorded error that identify it), checked in order.
_CATEGORIES = (
    # the endpoint refused the whole run (the gateway does not trust the server; `calls.refusal`)
    ("key refused", ("key refused:",)),
    ("redirect refused", ("redirect refused:",)),
    ("format rejected", ("format rejected",)),
    ("truncated reply", ("finish_reason=length",)),
    ("malformed reply", ("malformed reply", "malformed response body")),
    ("rate limited", ("RateLimitError", "429")),
    ("timeout", ("APITimeoutError", "Timeout")),
    ("connection error", ("APIConnectionError", "Connection")),
    ("not sent", ("not sent:",)),
    ("server error", ("InternalServerError", "APIStatusError", "Error code: 5")),
    (
        "request rejected",
        (
            "BadRequestError",
            "NotFoundError",
            "AuthenticationError",
            "PermissionDeniedError",
            "UnprocessableEntityError",
            "Error code: 4",
        ),
    ),
)


def failure_reason(error: str | None) -> str:
    """The category of a recorded error text (`other` when none fits)."""
    if not error:
        return "other"
    for category, needles in _CATEGORIES:
        if any(needle in error for needle in needles):
            return category
    return "other"


def summarize_failures(errors: Iterable[tuple[str | None, str | None]]) -> dict:
    """Counts by reason and the first error in full, from (reason, error) pairs in order.

    Returns:
        {"by_reason": {reason: n, ...} (most frequent first), "first": str | None}.
    """
    counts: Counter[str] = Counter()
    first = None
    for reason, error in errors:
        counts[reason or failure_reason(error)] += 1
        if first is None:
            first = error
    return {"by_reason": dict(counts.most_common()), "first": first}


def failure_lines(summary: dict) -> list[str]:
    """Human-readable lines of a `summarize_failures` result (empty when nothing failed)."""
    if not summary.get("by_reason"):
        return []
    counts = ", ".join(f"{reason} {n}" for reason, n in summary["by_reason"].items())
    return [f"failures by reason: {counts}", f"first failure: {summary['first']}"]


def run_failures(store, run_id: str | None) -> dict:
    """`summarize_failures` of one run's failed LLM calls (empty when none or no run)."""
    from data_access.tables.llm_modes import failure_reasons

    if not run_id:
        return summarize_failures([])
    frame = failure_reasons(store, [run_id])
    return summarize_failures(zip(frame["reason"], frame["error"]))
