"""StoryVideoQA analytics commands: `storyscope topics`, `reviewers`, `difficulty`,
`mcq import-predictions`, `storymind generate` (StoryVideoQA §3-4)."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from pipelines.cli.app import JsonOption, StoreOption, app, fail, open_store

SetOption = Annotated[
    str | None,
    typer.Option("--set", envvar="STORYSCOPE_MCQ_SET",
                 help="Only this MCQ set (golden, generated, ...); default all."),
]

mcq_app = typer.Typer(help="StoryVideoQA multiple-choice questions.", no_args_is_help=True)
app.add_typer(mcq_app, name="mcq")


def _questions_or_fail(store, set_name):
    from data_access.mcq import mcq_questions

    frame = mcq_questions(store, set_name=set_name)
    if frame.empty:
        raise fail("no MCQs in the store; run `storyscope import storyvideoqa` first")
    return frame


@app.command()
def topics(store: StoreOption = None, set_name: SetOption = None,
           as_json: JsonOption = False) -> None:
    """Topic balance per source and overall: counts, Gini, entropy, topics > 5% (Table 1)."""
    from pipelines.mcq.topics import PAPER_TABLE1, TOPICS, topic_stats

    result = topic_stats(_questions_or_fail(open_store(store), set_name))
    if as_json:
        typer.echo(json.dumps(result, indent=2))
        return
    typer.echo(f"{'set':<10} {'n':>6} {'gini':>7} {'entropy':>8} {'>5%':>4}  " + " ".join(
        f"{t:>5}" for t in TOPICS))
    for row in result["sets"]:
        typer.echo(f"{row['set']:<10} {row['n']:>6} {row['gini']:>7.3f} {row['entropy']:>8.3f}"
                   f" {row['topics_over_5pct']:>4}  "
                   + " ".join(f"{row['counts'][t]:>5}" for t in TOPICS))
    typer.echo(f"{PAPER_TABLE1['set']}: gini {PAPER_TABLE1['gini']}, entropy "
               f"{PAPER_TABLE1['entropy']}, topics > 5% {PAPER_TABLE1['topics_over_5pct']}")


@app.command()
def reviewers(store: StoreOption = None, set_name: SetOption = None,
              as_json: JsonOption = False) -> None:
    """Reviewer voting (§3.3): unanimous correctness, majority answer, pairwise agreement."""
    from pipelines.mcq.reviewers import reviewer_stats

    result = reviewer_stats(_questions_or_fail(open_store(store), set_name))
    if as_json:
        typer.echo(json.dumps(result, indent=2))
        return
    for row in result["sets"]:
        rates = ", ".join(f"{k} {v:.3f}" for k, v in row["reviewer_gt_rate"].items())
        typer.echo(f"{row['set']:<8} n={row['n']:<5} unanimous-correct {row['unanimous_correct']:.4f}"
                   f"  majority-answer {row['majority_answer']:.4f}  strict {row['strict_consistency']:.4f}"
                   f"  kept {row['kept']:.4f}  picked GT: {rates}")
