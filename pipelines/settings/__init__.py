"""LF-VideoQA settings (§4, Table 3): what a model is given with a question.

    from pipelines.settings import InputBuilder, SettingOptions, get_setting, openai_messages
    builder = InputBuilder(store, get_setting("subtitles"), SettingOptions(context_tokens=8192))
    messages = openai_messages(builder.build(question_row))

One registry (`SETTINGS`, `setting_names()`) serves `storyscope answer`, the Verdicts page and
`storyscope export-task --setting`; the budget rule is in `pipelines.settings.budget`.
"""

from pipelines.settings import definitions as _definitions  # noqa: F401 (registers the settings)
from pipelines.settings.build import (
    ANSWER_INSTRUCTION,
    GivenInput,
    InputBuilder,
    content_parts,
    jpeg_data_url,
    openai_messages,
    user_text,
)
from pipelines.settings.registry import (
    SETTINGS,
    Setting,
    SettingOptions,
    get_setting,
    setting_names,
)
from pipelines.settings.sources import SettingUnavailable

__all__ = [
    "ANSWER_INSTRUCTION",
    "SETTINGS",
    "GivenInput",
    "InputBuilder",
    "content_parts",
    "Setting",
    "SettingOptions",
    "SettingUnavailable",
    "get_setting",
    "jpeg_data_url",
    "openai_messages",
    "setting_names",
    "user_text",
]
