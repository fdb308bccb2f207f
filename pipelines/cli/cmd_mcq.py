"""StoryVideoQA analytics commands: `storyscope topics`, `reviewers`, `difficulty`,
`mcq answer`, `storymind generate` (StoryVideoQA §3-4). Predictions come in with `storyscope
import mcq-predictions` (`mcq import-predictions` stays as its alias)."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from pipelines.cli.app import JsonOption, StoreOption, app, fail, open_store
from pipelines.cli.parsing import split_list
from pipelines.cli.scale_options import ExecutorOption, RayAddressOption

SetOption = Annotated[
    str | None,
    typer.Option(
        "--set",
        envvar="STORYSCOPE_MCQ_SET",
        help="Only this MCQ set (golden, generated, ...); default all.",
    ),
]

mcq_app = typer.Typer(help="StoryVideoQA multiple-choice questions.", no_args_is_help=True)
app.add_typer(mcq_app, name="mcq")


def _questions_or_fail(store, set_name):
    from data_access.tables.mcq import mcq_questions

    frame = mcq_questions(store, set_name=set_name)
    if frame.empty:
        raise fail("no MCQs in the store; run `storyscope import storyvideoqa` first")
    return frame


@app.command()
def topics(
    store: StoreOption = None, set_name: SetOption = None, as_json: JsonOption = False
) -> None:
    """Topic balance per source and overall: counts, Gini, entropy, topics > 5% (Table 1)."""
    from pipelines.mcq.topics import PAPER_TABLE1, TOPICS, topic_stats

    result = topic_stats(_questions_or_fail(open_store(store, mode="read"), set_name))
    if as_json:
        typer.echo(json.dumps(result, indent=2))
        return
    typer.echo(
        f"{'set':<10} {'n':>6} {'gini':>7} {'entropy':>8} {'>5%':>4}  "
        + " ".join(f"{t:>5}" for t in TOPICS)
    )
    for row in result["sets"]:
        typer.echo(
            f"{row['set']:<10} {row['n']:>6} {row['gini']:>7.3f} {row['entropy']:>8.3f}"
            f" {row['topics_over_5pct']:>4}  " + " ".join(f"{row['counts'][t]:>5}" for t in TOPICS)
        )
    typer.echo(
        f"{PAPER_TABLE1['set']}: gini {PAPER_TABLE1['gini']}, entropy "
        f"{PAPER_TABLE1['entropy']}, topics > 5% {PAPER_TABLE1['topics_over_5pct']}"
    )


@app.command()
def reviewers(
    store: StoreOption = None, set_name: SetOption = None, as_json: JsonOption = False
) -> None:
    """Reviewer voting (§3.3): unanimous correctness, majority answer, pairwise agreement."""
    from pipelines.mcq.reviewers import reviewer_stats

    result = reviewer_stats(_questions_or_fail(open_store(store, mode="read"), set_name))
    if as_json:
        typer.echo(json.dumps(result, indent=2))
        return
    for row in result["sets"]:
        rates = ", ".join(f"{k} {v:.3f}" for k, v in row["reviewer_gt_rate"].items())
        typer.echo(
            f"{row['set']:<8} n={row['n']:<5} unanimous-correct {row['unanimous_correct']:.4f}"
            f"  majority-answer {row['majority_answer']:.4f}  strict "
            f"{row['strict_consistency']:.4f}"
            f"  kept {row['kept']:.4f}  picked GT: {rates}"
        )


@app.command()
def difficulty(
    store: StoreOption = None,
    set_name: SetOption = None,
    recompute: Annotated[
        bool,
        typer.Option(
            "--recompute/--no-recompute",
            help="Score the MCQs now (default: only when no difficulty is stored).",
        ),
    ] = False,
    executor: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    as_json: JsonOption = False,
) -> None:
    """QA difficulty D_q, D_a, D_qa, D (§3.4) with BERTScore on MiniLM; nine equal-count bins.

    BERTScores are computed one video per unit on --executor; a killed run resumes when the
    same command is given again."""
    from pipelines.cli.scale_options import open_executor, progress_bar
    from pipelines.mcq.difficulty_run import difficulty_summary, run_difficulty

    handle = open_store(store, mode="write")
    summary = difficulty_summary(handle, set_name)
    if recompute or summary["n"] == 0:
        runner = open_executor(executor, ray_address)
        try:
            summary = run_difficulty(
                handle,
                set_name,
                echo=lambda m: typer.echo(m, err=True),
                executor=runner,
                progress=progress_bar("difficulty"),
            )
        except ValueError as exc:
            raise fail(str(exc)) from exc
        finally:
            runner.close()
    if as_json:
        typer.echo(json.dumps(summary, indent=2))
        return
    mean = summary["mean"]
    typer.echo(
        f"n={summary['n']}  mean D_q {mean['d_q']}  D_a {mean['d_a']}  "
        f"D_qa {mean['d_qa']}  D {mean['d']}  (BERTScore: all-MiniLM-L6-v2)"
    )
    for row in summary["bins"]:
        acc = row.get("accuracy") or {}
        extra = "  " + ", ".join(f"{m} {a:.1f}%" for m, a in acc.items()) if acc else ""
        typer.echo(
            f"  bin {row['bin']}: n={row['n']:<5} D {row['d_min']:.3f}-{row['d_max']:.3f}{extra}"
        )
    for row in summary.get("accuracy", {}).get("by_topic", []):
        cells = " ".join(
            "  -  " if v is None else f"{v:5.1f}" for k, v in row.items() if k != "method"
        )
        typer.echo(f"  {row['method']:<20} {cells}")
    _echo_factor_bins(summary.get("accuracy", {}).get("by_factor_bin", []))


def _echo_factor_bins(rows: list[dict]) -> None:
    """Figure 17: mean accuracy over methods per bin of D_q, D_a and D_qa."""
    average = [r for r in rows if r["method"] == "average"]
    if not average:
        return
    typer.echo("accuracy (mean over methods) by bins of each factor (Figure 17):")
    for factor in ("d_q", "d_a", "d_qa"):
        cells = " ".join(f"{r['accuracy']:5.1f}" for r in average if r["factor"] == factor)
        typer.echo(f"  {factor:<5} bins 1..9: {cells}")


@mcq_app.command("answer")
def answer_cmd(
    method: Annotated[
        str,
        typer.Option(
            "--method",
            envvar="STORYSCOPE_MCQ_METHOD",
            help="plottree (PlotTree QA, §5.2) or subtitles (the video's subtitles).",
        ),
    ],
    where: Annotated[
        list[str] | None,
        typer.Option(
            "--where",
            envvar="STORYSCOPE_WHERE",
            help="Filter KEY=V1[,V2...] on source, set, vid, type, element or question;"
            " several joined by ';' or the option repeated, for AND.",
        ),
    ] = None,
    limit: Annotated[
        int | None, typer.Option("--limit", help="At most N questions (by source, video, id).")
    ] = None,
    budget: Annotated[
        int | None,
        typer.Option(
            "--budget",
            envvar="STORYSCOPE_MCQ_BUDGET",
            help="Context budget in estimated tokens (4 characters each); subtitles default"
            " 16000, PlotTree none (its top-M nodes).",
        ),
    ] = None,
    top_m: Annotated[int, typer.Option("--top-m", help="PlotTree nodes retrieved.")] = 32,
    backend: Annotated[
        str,
        typer.Option(
            "--backend",
            envvar="STORYSCOPE_MCQ_BACKEND",
            help="openai (the LLM gateway) or offline (plottree only: minilm-option-match).",
        ),
    ] = "openai",
    model: Annotated[str | None, typer.Option("--model", help="LLM model (openai).")] = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Answer MCQs with a StoryScope method; the predictions join imported ones."""
    from data_access.queries.task_questions import MCQ_FILTERS
    from pipelines.cli.parsing import parse_where
    from pipelines.mcq.methods import AnswerOptions, answer_mcqs

    if limit is not None and limit < 1:
        raise fail("--limit must be at least 1")
    options = AnswerOptions(
        method=method,
        where=parse_where(where, MCQ_FILTERS),
        limit=limit,
        budget=budget,
        llm_config=_method_llm_config(backend, model),
        top_m=top_m,
    )
    try:
        result = answer_mcqs(
            open_store(store, mode="write"), options, echo=lambda m: typer.echo(m, err=True)
        )
    except ValueError as exc:
        raise fail(str(exc)) from exc
    if as_json:
        typer.echo(json.dumps(result, indent=2))
        return
    accuracy = "-" if result["accuracy"] is None else f"{result['accuracy']:.2f}%"
    typer.echo(
        f"{result['method']}: {result['questions']} MCQs, {result['answered']} answered,"
        f" {result['failed']} failed, accuracy {accuracy} (run {result['run_id']},"
        f" {result['status']})"
    )


def _method_llm_config(backend: str, model: str | None):
    if backend == "offline":
        return None
    if backend != "openai":
        raise fail(f"--backend {backend!r}: expected openai or offline")
    from pipelines.llm import load_config

    try:
        return load_config({"model": model})
    except ValueError as exc:
        raise fail(str(exc)) from exc


storymind_app = typer.Typer(help="StoryMindv2 QA generation (§3.2-3.3).", no_args_is_help=True)
app.add_typer(storymind_app, name="storymind")


@storymind_app.command("generate")
def storymind_generate(
    video: Annotated[
        str, typer.Option("--video", help="Video id in the store (e.g. Friends-S01E01).")
    ],
    per_topic: Annotated[
        int, typer.Option("--per-topic", help="T: QAs per topic before its tool is deactivated.")
    ] = 2,
    per_batch: Annotated[
        int, typer.Option("--per-batch", help="QAs asked per generator batch.")
    ] = 7,
    max_batches: Annotated[int, typer.Option("--max-batches")] = 10,
    model: Annotated[
        str | None,
        typer.Option(
            "--model", envvar="STORYSCOPE_STORYMIND_MODEL", help="Generator and supervisor model."
        ),
    ] = None,
    reviewer_models: Annotated[
        str | None,
        typer.Option(
            "--reviewer-models",
            envvar="STORYSCOPE_STORYMIND_REVIEWERS",
            help="Three comma-separated models for the gpt, claude, gemini reviewers.",
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show the plan; call no model.")
    ] = False,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Generate QAs for one video: topic tools with threshold T, supervisor with fault
    archive, three reviewers with majority answer voting."""
    from pipelines.llm import load_config
    from pipelines.mcq.reviewers import REVIEWERS
    from pipelines.mcq.storymind import StoryMindOptions, generate_for_video, plan

    if per_topic < 1 or per_batch < 1 or max_batches < 1:
        raise fail("--per-topic, --per-batch and --max-batches must be at least 1")
    try:
        generator = load_config({"model": model})
        names = split_list(reviewer_models)
        if names and len(names) != 3:
            raise fail("--reviewer-models needs exactly three models (gpt, claude, gemini)")
        reviewers = {r: load_config({"model": m}) for r, m in zip(REVIEWERS, names)}
    except ValueError as exc:
        raise fail(str(exc)) from exc
    options = StoryMindOptions(video, generator, None, reviewers, per_topic, per_batch, max_batches)
    handle = open_store(store, mode="write")
    try:
        result = (
            plan(handle, options)
            if dry_run
            else generate_for_video(handle, options, echo=lambda m: typer.echo(m, err=True))
        )
    except ValueError as exc:
        raise fail(str(exc)) from exc
    if as_json or dry_run:
        typer.echo(json.dumps(result, indent=2))
        return
    typer.echo(
        f"run {result['run_id']}: {result['final_kept']} QAs kept of "
        f"{result['supervisor_kept']} after the supervisor; Self-BLEU-2 "
        f"{result['self_bleu_2']}, -4 {result['self_bleu_4']}"
    )
