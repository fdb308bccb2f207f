"""`storyscope answer`: answer LF-VideoQA questions in a setting (§4, Table 3) through the
gateway, as ordinary answers that `judge`, Verdicts and `metrics` then grade."""

from __future__ import annotations

import json
import os
from typing import Annotated

import typer

from pipelines.cli.app import JsonOption, StoreOption, app, fail, open_store
from pipelines.cli.parsing import parse_where
from pipelines.cli.scale_options import ExecutorOption, RayAddressOption


def _setting_help() -> str:
    from pipelines.settings import setting_names

    return "The setting: " + " | ".join(setting_names()) + " (docs/SETTINGS.md)."


@app.command()
def answer(
    setting: Annotated[str, typer.Option(help=_setting_help())] = "question-only",
    store: StoreOption = None,
    setting_name: Annotated[
        str | None,
        typer.Option(help="Setting id to write under (default storyscope:<model>:<setting>:ctxN)."),
    ] = None,
    model: Annotated[str | None, typer.Option(help="Answering model.")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint.")] = None,
    api_key: Annotated[
        str | None,
        typer.Option(help="API key (prefer the env var).", envvar="STORYSCOPE_LLM_API_KEY"),
    ] = None,
    context_tokens: Annotated[
        int, typer.Option(min=256, help="The model's context window in tokens (the budget).")
    ] = 32768,
    answer_tokens: Annotated[
        int, typer.Option(min=16, help="Tokens kept for the reply (its max_tokens).")
    ] = 512,
    fps: Annotated[
        float, typer.Option(min=0.001, max=30.0, help="Frames per second of the video settings.")
    ] = 0.2,
    image_tokens: Annotated[
        int, typer.Option(min=1, help="Estimated prompt tokens of one frame (model-dependent).")
    ] = 258,
    captioner: Annotated[
        str | None, typer.Option(help="Whose 10-second captions the caption settings read.")
    ] = None,
    tier: Annotated[
        str,
        typer.Option(
            help="The agent setting's tier: regular | fast (10-second captions) | oracle"
            " (screenplay) (§4.3, docs/SETTINGS.md)."
        ),
    ] = "regular",
    backend: Annotated[
        str,
        typer.Option(
            help="The agent setting's orchestrator: openai (the model at --base-url) or offline"
            " (retrieve-extract-v1, a named model-free baseline; docs/SETTINGS.md)."
        ),
    ] = "openai",
    max_turns: Annotated[
        int, typer.Option(min=1, max=100, help="The agent's step limit: model turns per question.")
    ] = 12,
    where: Annotated[
        list[str] | None,
        typer.Option(
            help="Question filter KEY=V1,V2 (film, type, center, status, source, question);"
            " several joined by ';' or the option repeated, for AND."
        ),
    ] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="Answer at most N questions.")] = None,
    concurrency: Annotated[int | None, typer.Option(min=1, help="Requests in flight.")] = None,
    budget_usd: Annotated[float | None, typer.Option(help="Stop once this is spent.")] = None,
    budget_tokens: Annotated[
        int | None, typer.Option(help="Stop once this many tokens are spent.")
    ] = None,
    dry_run_only: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            envvar="STORYSCOPE_ANSWER_DRY_RUN",
            help="Print questions, estimated tokens and calls; write nothing.",
        ),
    ] = False,
    background: Annotated[
        bool, typer.Option("--background", help="Run as a background job process and print its id.")
    ] = False,
    executor: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    as_json: JsonOption = False,
) -> None:
    """Answer the selected questions in a setting and store the answers with what each model
    was given."""
    from pipelines.agents.tools import TIERS
    from pipelines.answer import AnswerOptions, answer_questions, dry_run
    from pipelines.answer.options import WHERE_KEYS
    from pipelines.jobs import start_job
    from pipelines.llm.failures import failure_lines, run_failures
    from pipelines.settings import setting_names

    if setting not in setting_names():
        raise fail(f"--setting {setting!r}: expected one of {', '.join(setting_names())}")
    if tier not in TIERS:
        raise fail(f"--tier {tier!r}: expected one of {', '.join(TIERS)}")
    if backend not in ("openai", "offline"):
        raise fail(f"--backend {backend!r}: expected openai or offline")
    if backend == "offline" and setting != "agent":
        raise fail("--backend offline answers only in the agent setting (retrieve-extract-v1)")
    llm = {
        k: v
        for k, v in {
            "model": model,
            "base_url": base_url,
            "concurrency": concurrency,
            "budget_usd": budget_usd,
            "budget_tokens": budget_tokens,
        }.items()
        if v is not None
    }
    context = {
        "context_tokens": context_tokens,
        "answer_tokens": answer_tokens,
        "fps": fps,
        "image_tokens": image_tokens,
        "captioner": captioner,
    }
    if answer_tokens >= context_tokens:
        raise fail("--answer-tokens must be smaller than --context-tokens")
    options = AnswerOptions(
        setting=setting,
        setting_name=setting_name,
        where=parse_where(where, {k: v for k, v in WHERE_KEYS.items()}),
        limit=limit,
        context=context,
        llm=llm,
        tier=tier,
        max_turns=max_turns,
        backend=backend,
    )
    try:
        options.config()
    except ValueError as exc:
        raise fail(str(exc)) from None
    if setting == "agent" and executor != "local":
        raise fail(
            "--setting agent runs on the local executor only: its tools read the store between"
            " the model's turns"
        )
    handle = open_store(store, mode="write")
    if dry_run_only:
        _print_plan(dry_run(handle, options), as_json)
        return
    if api_key and not background:
        os.environ["STORYSCOPE_LLM_API_KEY"] = api_key  # this process only; never stored
    if background:
        env = {"STORYSCOPE_LLM_API_KEY": api_key} if api_key else None
        job_id = start_job(handle, "answer", options.params(), mode="subprocess", env=env)
        typer.echo(f"job {job_id} started (storyscope jobs status {job_id})")
        return
    if executor != "local":
        summary = _on_executor(handle, options, executor, ray_address)
    else:
        summary = answer_questions(handle, options)
    failures = run_failures(handle, summary["run_id"])
    if as_json:
        typer.echo(json.dumps({**summary, "failures": failures}, default=str))
    else:
        typer.echo(
            f"answer run {summary['run_id']} ({summary['setting_id']}): answered"
            f" {summary['answered']} ({summary['truncated']} cut at --answer-tokens),"
            f" failed {summary['failed']},"
            f" already answered {summary['skipped']} of {summary['questions']} questions"
        )
        if "step_limit" in summary:
            typer.echo(f"  ended at the step limit without an answer: {summary['step_limit']}")
        for reason, count in summary["unavailable"].items():
            typer.echo(f"  not answerable ({count}): {reason}")
        for line in failure_lines(failures):
            typer.echo(line)
        if summary["stopped"]:
            typer.echo(f"stopped: {summary['stop_reason']} (run it again to go on)")


def _on_executor(store, options, executor: str, ray_address: str | None) -> dict:
    from pipelines.answer.scaled import answer_on_executor
    from pipelines.cli.scale_options import open_executor, progress_bar

    runner = open_executor(executor, ray_address)
    try:
        return answer_on_executor(store, options, runner, progress_bar("answer"))
    finally:
        runner.close()


def _print_plan(plan: dict, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(plan, default=str))
        return
    typer.echo(
        f"dry run: {plan['model']} in setting {plan['setting']} ({plan['setting_id']}) would answer"
        f" {plan['calls'] + plan['cache_hits']} of {plan['questions']} questions"
        f" ({plan['already_answered']} already answered, {plan['cache_hits']} from the cache)"
    )
    typer.echo(
        f"estimated tokens {plan['est_prompt_tokens']:,} in + up to"
        f" {plan['est_completion_tokens_max']:,} out; {plan['calls']} calls;"
        f" estimated cost ${plan['est_cost_usd']:.4f}; film cut to the budget for {plan['cut']}"
    )
    if "max_calls" in plan:
        typer.echo(
            f"  agent: tokens and calls above are the first turn's; at most {plan['max_calls']}"
            " model calls in all (the step limit), plus the tools' own model calls"
        )
    for reason, count in plan["unavailable"].items():
        typer.echo(f"  not answerable ({count}): {reason}")
