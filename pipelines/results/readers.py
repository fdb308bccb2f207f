"""The reader of each format: `READERS[format](path, options) -> OpenedResults`.

Each reader follows its harness's writer code (cited in its module) and imports the harness's
own library, when it needs one, only when called (`inspect_ai` for inspect logs).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from data_access.importers.results.samples import OpenedResults
from pipelines.results import harness_samples, inspect_log, openai_batch, table, vlmevalkit
from pipelines.results.options import ReadOptions

Reader = Callable[[Path, ReadOptions], OpenedResults]

READERS: dict[str, Reader] = {
    "lmms-eval": harness_samples.open_lmms_eval,
    "vlmevalkit": vlmevalkit.open_vlmevalkit,
    "inspect": inspect_log.open_inspect,
    "lm-eval": harness_samples.open_lm_eval,
    "openai-batch": openai_batch.open_openai_batch,
    "table": table.open_table,
}
FORMATS = tuple(READERS)
