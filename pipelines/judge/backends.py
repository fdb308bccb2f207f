"""The one registry of judge backends: a name, what kind of judge it records, and its runner.

The CLI's `--backend` choices and help, the job's validation and the judge's identity (kind,
version) all read `JUDGE_BACKENDS`; adding a backend is one `register_backend` here. Runners,
unit functions and versions are named as "module:attribute" and imported on first use (as
`pipelines.jobs.JOB_KINDS` does), so reading the registry costs no import of the gateway, the
HTTP clients or MiniLM (the CLI's help and the pages read it).

A runner is `runner(store, part, options, writer, executor)`: it judges the slice `part`
(`work.Slice`) on `executor` (`pipelines.scale`, the local one by default), writing every
verdict through `writer` (`verdicts.VerdictWriter`).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class JudgeBackend:
    """One judge backend.

    Attributes:
        name: the `--backend` value and the `judges.backend` column.
        kind: the `judges.kind` it records: `llm`, or `lexical` for offline, non-LLM methods.
        description: one line for the CLI's help and the docs.
        runner: "module:function" judging a slice (see the module docstring).
        version: "module:CONSTANT" of an offline method's version (the judge's prompt_version
            column); None for an LLM judge, whose version is its prompt's.
        unit: "module:function" of an offline backend's pure batch function (a work unit).
    """

    name: str
    kind: str
    description: str
    runner: str
    version: str | None = None
    unit: str | None = None

    @property
    def offline(self) -> bool:
        return self.kind != "llm"

    def run(self, store, part, options, writer, executor) -> None:
        _resolve(self.runner)(store, part, options, writer, executor)

    def unit_function(self):
        return _resolve(self.unit) if self.unit else None

    def method_version(self) -> str | None:
        return _resolve(self.version) if self.version else None


JUDGE_BACKENDS: dict[str, JudgeBackend] = {}


def register_backend(backend: JudgeBackend) -> JudgeBackend:
    """Add a backend to the registry (its name must be new)."""
    if backend.name in JUDGE_BACKENDS:
        raise ValueError(f"judge backend {backend.name!r} registered twice")
    JUDGE_BACKENDS[backend.name] = backend
    return backend


def judge_backend(name: str) -> JudgeBackend:
    """The backend called `name`.

    Raises:
        ValueError: no such backend (the message lists the known ones).
    """
    found = JUDGE_BACKENDS.get(name)
    if found is None:
        raise ValueError(f"unknown judge backend {name!r} ({' | '.join(JUDGE_BACKENDS)})")
    return found


def backend_names() -> tuple[str, ...]:
    return tuple(JUDGE_BACKENDS)


def backends_table() -> str:
    """The docs' table of the backends (docs/JUDGE.md holds it; a test keeps it current)."""
    rows = ["| backend | kind | what it is |", "|---|---|---|"]
    rows += [f"| `{b.name}` | {b.kind} | {b.description} |" for b in JUDGE_BACKENDS.values()]
    return "\n".join(rows)


def _resolve(target: str) -> Any:
    module, name = target.split(":", 1)
    return getattr(importlib.import_module(module), name)


register_backend(
    JudgeBackend(
        "openai",
        "llm",
        "any OpenAI-compatible endpoint, through the gateway (LF-VideoQA App. F.2 prompt)",
        runner="pipelines.judge.runners:judge_llm",
    )
)
register_backend(
    JudgeBackend(
        "lexical",
        "lexical",
        "offline lexical overlap judge (no LLM)",
        runner="pipelines.judge.runners:judge_offline",
        version="pipelines.judge.lexical:LEXICAL_VERSION",
        unit="pipelines.judge.work:lexical_batch",
    )
)
register_backend(
    JudgeBackend(
        "minilm-support",
        "lexical",
        "offline MiniLM sentence-support judge (no LLM)",
        runner="pipelines.judge.runners:judge_offline",
        version="pipelines.judge.support:SUPPORT_VERSION",
        unit="pipelines.judge.work:support_batch",
    )
)
