"""The judge's verdict rows and the one writer every backend writes them through.

Every backend (offline or LLM, on the local executor or on Ray workers) hands its verdicts to a
`VerdictWriter`, which writes them with the backend's lexical scores and the job's progress in
the caller's transaction, so a killed run resumed as a job writes every answer exactly once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple, Protocol

import duckdb
import pyarrow as pa

from data_access.store import Store
from data_access.tables import judging


class VerdictRow(NamedTuple):
    """One claim's verdict, as `judging.write_verdicts` stores it."""

    answer_id: str
    claim_id: str
    verdict: str  # asserted | omitted | contradicted
    rationale: str | None


class JobProgress(Protocol):
    """What the writer needs of a job (`pipelines.jobs.JobContext`): its progress and stop."""

    def progress(self, cursor: duckdb.DuckDBPyConnection, done: int, failed: int) -> None: ...

    def should_stop(self) -> bool: ...


def verdict_rows(results: Iterable, claims_of: dict[str, list[dict]]) -> list[VerdictRow]:
    """One row per claim of each answered LLM result (`LLMResult`, parsed into labels by claim
    ord); `claims_of` maps an answer id to its question's claims."""
    return [
        VerdictRow(
            r.item_id,
            c["claim_id"],
            r.parsed[c["ord"]].label,
            r.parsed[c["ord"]].rationale or None,
        )
        for r in results
        if r.ok
        for c in claims_of[r.item_id]
    ]


class VerdictWriter:
    """Writes one batch of a run's verdicts (+ lexical scores + job progress) per transaction.

    Progress counts the answers written so far as a set of ids (an answer's verdicts all
    arrive in one batch), and failures as a set of item ids, so a batch retried after a write
    conflict never double-counts: a rolled-back attempt's ids are the retry's ids, and a set
    union is idempotent. Counting in memory instead of `count(DISTINCT answer_id)` inside each
    transaction keeps the driver's cost per batch flat as the run grows (that count went from
    1 ms to 17 ms per batch over a 250k-verdict run).

    Args:
        store: the store the run writes to.
        run_id: the judging run.
        judge_id: the judge the verdicts are recorded under.
        done_before: answers the run had written before (a resumed run).
        job: the job's progress and stop hooks, or None outside a job.
    """

    def __init__(
        self,
        store: Store,
        run_id: str,
        judge_id: str,
        done_before: int = 0,
        job: JobProgress | None = None,
    ) -> None:
        self.store, self.run_id, self.judge_id, self.job = store, run_id, judge_id, job
        self.done_before, self.done = done_before, done_before
        self.stopped = False
        self.failed_items: set[str] = set()
        self.written_answers: set[str] = set()

    @property
    def failed(self) -> int:
        return len(self.failed_items)

    def write(
        self,
        cursor: duckdb.DuckDBPyConnection,
        verdicts: Sequence[tuple] | pa.Table,
        failed_items: Iterable[str] = (),
        lexical: list[dict] | None = None,
    ) -> None:
        """Write `verdicts` (`VerdictRow`s or a `judging.verdict_table`), the answers that
        failed, and lexical scores, with the job's progress, in `cursor`'s transaction. The
        counts change only once the rows are written."""
        judging.write_verdicts(cursor, self.run_id, self.judge_id, verdicts)
        judging.write_lexical_scores(cursor, self.run_id, lexical or [])
        written = self.written_answers | judging.verdict_answer_ids(verdicts)
        done = self.done_before + len(written)
        failed = self.failed_items | set(failed_items)
        if self.job is not None:
            self.job.progress(cursor, done, len(failed))
        self.done, self.failed_items, self.written_answers = done, failed, written

    def should_stop(self) -> bool:
        """True once the job was asked to stop (and from then on)."""
        if self.job is not None and self.job.should_stop():
            self.stopped = True
        return self.stopped
