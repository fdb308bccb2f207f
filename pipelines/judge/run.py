"""Judge a slice of answers (LF-VideoQA §3.3, App. F.2) with a backend of the registry
(`backends.JUDGE_BACKENDS`: `openai`, `lexical`, `minilm-support`), all through one call.

Every answer's rubric claims get one verdict each, written batch by batch under one judging
run, in the same transaction as the job's progress, so a killed job resumed with
`resume_job` skips the answers its run already holds and writes each verdict exactly once.
The judge's name is model + prompt version (`gpt-4o-mini@judge-claims-v1`) or `lexical`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, NamedTuple

from data_access.store import Store
from data_access.tables import judging
from data_access.tables.llm_log import lookup_cache
from data_access.tables.runs import RunSpec, end_run, start_run
from pipelines.judge.backends import judge_backend
from pipelines.judge.prompt import PROMPT_VERSION
from pipelines.judge.verdicts import VerdictWriter
from pipelines.judge.work import Slice, llm_requests, load_slice
from pipelines.llm import Gateway, load_config
from pipelines.scale import make_executor

_OUTPUT_TOKENS_PER_CLAIM = 30  # dry-run estimate: label + one-sentence rationale


class JudgeIdentity(NamedTuple):
    """A judge as the `judges` table records it."""

    judge_id: str
    kind: str  # "llm" or "lexical"
    model: str | None
    prompt_version: str


@dataclass
class JudgeOptions:
    """What to judge and how (all JSON-serialisable: stored as job params, never a key).

    Attributes:
        backend: a name in `backends.JUDGE_BACKENDS` (`openai`, `lexical`, `minilm-support`).
        judge_name: the judge id; default model@prompt_version, or `lexical`.
        llm: gateway overrides (base_url, model, concurrency, budget_usd, ...), no api_key.
        gold: judge each question's reference answer against its own rubric instead.
    """

    backend: str = "lexical"
    judge_name: str | None = None
    prompt_version: str = PROMPT_VERSION
    where: dict[str, list[str]] = field(default_factory=dict)
    limit: int | None = None
    gold: bool = False
    batch_size: int = 32
    llm: dict[str, Any] = field(default_factory=dict)
    executor: str = "local"  # local | ray: where batches run (pipelines.scale, docs/SCALE.md)
    ray_address: str | None = None

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> JudgeOptions:
        return cls(**params)

    def params(self) -> dict[str, Any]:
        return asdict(self)

    def config(self):
        return load_config(self.llm)

    def identity(self) -> JudgeIdentity:
        """Who this judge is: its id, kind, model and prompt version."""
        backend = judge_backend(self.backend)
        if backend.offline:
            version = backend.method_version()
            return JudgeIdentity(self.judge_name or self.backend, backend.kind, None, version)
        model = self.config().model
        return JudgeIdentity(
            judge_id=self.judge_name or f"{model}@{self.prompt_version}",
            kind="llm",
            model=model,
            prompt_version=self.prompt_version,
        )


def dry_run(store: Store, options: JudgeOptions) -> dict[str, Any]:
    """What a run would do: items, claims, cache hits, estimated tokens and cost. Writes nothing."""
    part = load_slice(store, options)
    plan = {
        "judge": options.identity().judge_id,
        "backend": options.backend,
        "answers": len(part.answers),
        "claims": part.n_claims,
        "cache_hits": 0,
        "est_prompt_tokens": 0,
        "est_completion_tokens": 0,
        "est_cost_usd": 0.0,
        "items": part.answers[["answer_id", "question_id", "setting_id"]].to_dict("records"),
    }
    if judge_backend(options.backend).offline:
        return plan
    config = options.config()
    requests = llm_requests(part, options)
    gateway = Gateway(store, config, run_id="dry-run")
    keys = [gateway.key_of(r) for r in requests]
    plan.update(gateway.mode_info())
    hits = lookup_cache(store, keys)
    misses = [r for r, k in zip(requests, keys) if k not in hits]
    prompt = sum(len(str(r.messages)) // 4 for r in misses)
    completion = sum(
        _OUTPUT_TOKENS_PER_CLAIM * len(part.claims[q])
        for q in part.answers.question_id[[k not in hits for k in keys]]
    )
    plan.update(
        cache_hits=len(requests) - len(misses),
        est_prompt_tokens=prompt,
        est_completion_tokens=int(completion),
        est_cost_usd=config.cost(prompt, int(completion)),
    )
    return plan


def _start(store: Store, options: JudgeOptions, total: int, ctx) -> str:
    judge = options.identity()
    params = options.params()
    offline = judge_backend(options.backend).offline
    params["llm"] = {} if offline else options.config().public_dict()
    spec = RunSpec(
        "judge.gold" if options.gold else "judge",
        backend=options.backend,
        model=judge.model,
        prompt_version=judge.prompt_version,
        params=params,
    )
    run_id = start_run(store, spec)
    with store.transaction() as cursor:
        judging.ensure_judge(
            cursor,
            judge.judge_id,
            judge.kind,
            options.backend,
            judge.model,
            judge.prompt_version,
            run_id,
        )
    if ctx is not None:
        ctx.attach_run(run_id, total)
    return run_id


def run_judge(store: Store, options: JudgeOptions, ctx=None, executor=None) -> dict[str, Any]:
    """Judge the slice; with a job context, resume its run and report progress.

    `executor` (pipelines.scale) overrides the one `options.executor` names (benchmarks).

    Returns:
        run_id, judge, answers, done, failed, stopped (and gold_failures in gold mode).
    """
    backend = judge_backend(options.backend)
    part = load_slice(store, options)
    run_id = (
        ctx.run_id
        if ctx is not None and ctx.run_id
        else _start(store, options, len(part.answers), ctx)
    )
    done_before = judging.answers_done_in_run(store, run_id)
    todo = Slice(part.answers[~part.answers.answer_id.isin(done_before)], part.claims)
    writer = VerdictWriter(store, run_id, options.identity().judge_id, len(done_before), ctx)
    # A local run passes no executor: its units run here, and the openai backend's gateway
    # writes as replies come (pipelines.judge.runners).
    owned = executor is None and options.executor != "local" and not todo.answers.empty
    if owned:
        executor = make_executor(options.executor, options.ray_address)
    try:
        backend.run(store, todo, options, writer, executor)
    finally:
        if owned:
            executor.close()
    stopped = writer.stopped
    end_run(
        store,
        run_id,
        "stopped" if stopped else "finished",
        n_items=writer.done,
        n_failed=writer.failed,
    )
    summary = {
        "run_id": run_id,
        "judge": options.identity().judge_id,
        "answers": len(part.answers),
        "done": writer.done,
        "failed": writer.failed,
        "stopped": stopped,
    }
    if options.gold:
        summary["gold_failures"] = judging.gold_core_omissions(store, run_id).to_dict("records")
    return summary
