"""Demo step 48: the sample film's questions answered by an agent (LF-VideoQA §4.3) with no
model: `retrieve-extract-v1` (`pipelines.agents.offline`), a named offline baseline that calls
the same five tools as a model would and answers with the retrieved lines. So a fresh store
shows agent answers, their evidence trails on Verdicts and the trail figures; step 70 grades
them with the `lexical` judge like every other answer. The fast tier runs only where the film
has 10-second captions (they come from a captioner model); the others always. Reruns skip what
each tier answered."""

from __future__ import annotations

from pathlib import Path

from data_access.store import Store
from pipelines.agents.tools import TIERS, ToolError

SAMPLE_FILM_ID = "the-keepers-ledger"


def run(store: Store, data_dir: Path | None, echo) -> None:
    """Answer the sample film's questions with the offline agent in each tier it can run."""
    from pipelines.agents.tools.index import FilmIndex
    from pipelines.answer import AnswerOptions, answer_questions

    try:
        captions = FilmIndex.load(store, SAMPLE_FILM_ID, "fast").table("captions")
    except ToolError as exc:
        echo(f"  {exc}; skipped")
        return
    for tier in TIERS:
        if tier == "fast" and captions.empty:
            echo("  fast tier: the sample film has no 10-second captions (a captioner's); skipped")
            continue
        options = AnswerOptions(
            setting="agent",
            tier=tier,
            backend="offline",
            where={"film_id": [SAMPLE_FILM_ID]},
        )
        summary = answer_questions(store, options)
        echo(
            f"  {tier} tier: {summary['answered']} answered, {summary['step_limit']} at the step"
            f" limit, {summary['failed']} failed, {summary['skipped']} already done"
            f" ({summary['setting_id']})"
        )
