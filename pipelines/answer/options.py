"""What an answer run is asked to do (`AnswerOptions`: JSON-serialisable job parameters, never a
key) and how its setting and answers are named; read by the settings' runner
(`pipelines.answer.run`) and the agent loop (`pipelines.agents.run`) alike."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import PurePath
from typing import Any

from data_access.queries import task_questions
from pipelines.llm import load_config
from pipelines.settings import SettingOptions, get_setting

STEP = "answer"
WHERE_KEYS = task_questions.OPEN_ENDED_FILTERS


@dataclass
class AnswerOptions:
    """What to answer, in which setting, with which model (JSON-serialisable job params; never
    a key).

    Attributes:
        setting: a registered setting's source (`pipelines.settings.setting_names()`).
        setting_name: the setting id to write under (default: derived from model and setting).
        where: question filters (`task_questions.OPEN_ENDED_FILTERS` columns -> values).
        limit: at most this many questions (the first by film and id).
        context: the setting's build options (`SettingOptions` fields).
        llm: gateway overrides (base_url, model, concurrency, budgets); no api_key.
        tier: the agent setting's tier (regular, fast, oracle; §4.3).
        backend: the agent setting's orchestrator: `openai` (the model behind the gateway) or
            `offline` (`pipelines.agents.offline`, a named model-free baseline).
        max_turns: the agent setting's step limit (model turns per question).
    """

    setting: str = "question-only"
    setting_name: str | None = None
    where: dict[str, list[str]] = field(default_factory=dict)
    limit: int | None = None
    context: dict[str, Any] = field(default_factory=dict)
    llm: dict[str, Any] = field(default_factory=dict)
    batch_size: int = 8
    temperature: float = 0.0
    executor: str = "local"  # local | ray (pipelines.scale): where the calls are made
    ray_address: str | None = None
    tier: str = "regular"
    max_turns: int = 12
    backend: str = "openai"

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> AnswerOptions:
        return cls(**params)

    def params(self) -> dict[str, Any]:
        return asdict(self)

    def config(self):
        return load_config(self.llm)

    def setting_options(self) -> SettingOptions:
        return SettingOptions(**self.context)

    def answerer(self) -> str:
        """Who answers: the model's name, or the offline agent's."""
        if self.backend == "offline":
            from pipelines.agents.offline import OFFLINE_AGENT

            return OFFLINE_AGENT
        return model_label(self.config().model)

    def answer_tokens(self) -> int:
        """The reply's max_tokens."""
        return self.setting_options().answer_tokens

    def setting_row(self, run_id: str) -> dict:
        """The `settings` row the answers are written under."""
        model = self.answerer()
        setting = get_setting(self.setting)
        options = self.setting_options()
        captioner = options.captioner if "captions" in setting.needs else None
        if setting.agent:
            default = f"storyscope:{model}:agent-{self.tier}:turns{self.max_turns}"
            offline = " (offline baseline, no model)" if self.backend == "offline" else ""
            label = f"{model}{offline} · agent, {self.tier} tier"
        else:
            default = default_setting_id(model, setting.source, options)
            label = f"{model} · {setting.label}"
        return {
            "setting_id": self.setting_name or default,
            "source": setting.source,
            "answerer": model,
            "captioner": captioner,
            "tier": self.tier if setting.agent else None,
            "label": label,
            "run_id": run_id,
        }


def model_label(model: str) -> str:
    """A model's name as settings show it: a local file path is shortened to its file name, so
    no setting id carries a machine's directories."""
    return PurePath(model).name if "/" in model and model.startswith(("/", "~", ".")) else model


def default_setting_id(model: str, source: str, options: SettingOptions) -> str:
    """`storyscope:<model>:<setting>`, with the window (and frame rate) when the film is cut to
    them, so answers built under different budgets never share a setting."""
    parts = ["storyscope", model, source]
    if source != "question-only":
        parts.append(f"ctx{options.context_tokens}")
    if "video" in source and options.fps != 0.2:
        parts.append(f"fps{options.fps:g}")
    return ":".join(parts)


def answer_id(setting_id: str, question_id: str) -> str:
    """A stable answer id per (setting, question)."""
    return "ans-" + hashlib.sha256(f"{setting_id}\x00{question_id}".encode()).hexdigest()[:20]


def reason_counts(unavailable: dict[str, str]) -> dict[str, int]:
    """How many questions each reason left unanswerable (question id -> reason in)."""
    return dict(Counter(unavailable.values()))
