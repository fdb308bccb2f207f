"""One registry of the LF-VideoQA settings (§4, Table 3): a setting is a name, what it needs
from the store and one function from (store, film, options) to the film's units. The CLI's
`--setting` choices, the Verdicts page and the exported harness tasks all read this registry,
so StoryScope's own answers and a harness's answers to an exported task get the same input.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pipelines.settings.units import Unit

UnitBuilder = Callable[..., list[Unit]]


@dataclass(frozen=True)
class SettingOptions:
    """How a setting is built (all part of the setting's provenance).

    Attributes:
        context_tokens: the answering model's context window in tokens.
        answer_tokens: tokens kept free for the reply (the request's max_tokens).
        fps: frames per second sampled for the video settings (the paper: 0.2).
        image_tokens: the estimated prompt tokens of one image part (model-dependent: Qwen-VL
            spends about 260 on a 448-pixel frame, Gemma 258 on any image).
        frame_width: the sampled frames' width in pixels.
        captioner: which caption run the caption settings read (its model name); None: the
            latest.
    """

    context_tokens: int = 32768
    answer_tokens: int = 512
    fps: float = 0.2
    image_tokens: int = 258
    frame_width: int = 448
    captioner: str | None = None

    def public(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(frozen=True)
class Setting:
    """One LF-VideoQA setting.

    Attributes:
        source: the `settings.source` value and the CLI's `--setting` name.
        label: how pages and docs name it.
        description: one sentence on what the model is given (§4).
        needs: what of the film the store must hold (screenplay, subtitles, captions, video).
        units: the builder of the film's units, None for the question-only control.
        agent: the model is given no film but tools to search it (§4.3; `pipelines.agents`),
            in a tier (`pipelines.agents.tools.TIERS`).
    """

    source: str
    label: str
    description: str
    needs: tuple[str, ...] = ()
    units: UnitBuilder | None = field(default=None, compare=False)
    agent: bool = False

    @property
    def has_frames(self) -> bool:
        return "video" in self.needs


SETTINGS: dict[str, Setting] = {}


def register_setting(setting: Setting) -> Setting:
    """Add a setting to the registry (its source must be new)."""
    if setting.source in SETTINGS:
        raise ValueError(f"setting {setting.source!r} registered twice")
    SETTINGS[setting.source] = setting
    return setting


def get_setting(source: str) -> Setting:
    """The setting named `source`.

    Raises:
        KeyError: no such setting (the message lists the known ones).
    """
    try:
        return SETTINGS[source]
    except KeyError:
        raise KeyError(f"unknown setting {source!r}; use one of {', '.join(SETTINGS)}") from None


def setting_names() -> list[str]:
    """Every registered setting's name, in registry order."""
    return list(SETTINGS)
