"""The agent setting as an exported inspect_ai task (LF-VideoQA §4.3): inspect's own ReAct agent
with StoryScope's five tools, over each film's index exported beside the task.

What the task reads where inspect runs, and why:

- **an exported index per film** (`indexes/<n>.json`, `FilmIndex.to_dict()` of the tier), not
  a copy of the store: a film's index is the few rows the tools search (cues, clips, scenes,
  presence), a store is every film, question and run, and DuckDB would have to be installed
  and the file copied (and kept from being written) where inspect runs. The index is what the
  tools read in StoryScope's own loop too (`FilmIndex.load`), so both see the same rows.
- **StoryScope's own tool code, imported** (`pipelines.agents.tools`), not a copy of its source
  beside the task: the tools rank with the project's embedding model and lexical ranker, so
  their code needs StoryScope's dependencies anyway, and one installed package cannot drift
  from a copied file. The manifest records a digest of the tools' source (`tools_digest`) so
  an import can say when the log's tools were not the importing StoryScope's.

Tool calls and the film intervals each touched are recorded by the task in inspect's sample
store (`TRAIL_KEY`), so `storyscope import results` brings the evidence trail back without
re-running a tool (pipelines/results/inspect_trail.py).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path

from pipelines.export_task.samples import TaskSample
from pipelines.output_guard import replace_atomically

AGENT_SETTING = "agent"
INDEX_DIR = "indexes"
# StoryScope's agent loop's default: at most this many model turns per question
DEFAULT_STEP_LIMIT = 12
# the sample-store key the exported tools record their calls' intervals under
TRAIL_KEY = "storyscope_trail"

# §4.3: the agent "gets tools to iteratively search the movie, inspect selected intervals, and
# accumulate evidence before producing its final answer"; the paper prints no prompt.
AGENT_INSTRUCTION = (
    "You answer a question about a film you cannot watch directly. Use the tools to search"
    " the film (subtitles, clips, what happens in an interval, who appears in it) and gather"
    " evidence; times are in seconds from the film's start. When you have enough evidence,"
    " reply with your final answer as plain text, without calling a tool."
)


class AgentExportError(ValueError):
    """The agent task cannot be exported as asked; the message says why."""


def check_tier(tier: str | None) -> str:
    """The tier, checked against the tools' tiers.

    Raises:
        AgentExportError: no tier, or not one of the tools' tiers.
    """
    from pipelines.agents.tools import TIERS

    if tier not in TIERS:
        raise AgentExportError(f"--setting agent needs --tier, one of {', '.join(TIERS)}")
    return tier


def tools_digest() -> str:
    """A digest of the tool package's source files (which code the exported tools ran)."""
    import pipelines.agents.tools as package

    digest = hashlib.sha256()
    folder = Path(package.__file__).parent
    for path in sorted(folder.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def agent_samples(samples: list[TaskSample], tier: str) -> list[TaskSample]:
    """The questions as agent samples: the input is the film's title and the question (the
    film itself is reached through the tools); the metadata says the setting and the tier, so
    an import of the log files its answers under an agent setting of that tier."""
    return [
        replace(sample, metadata={**sample.metadata, "setting": AGENT_SETTING, "tier": tier})
        for sample in samples
    ]


def index_names(n_films: int) -> list[str]:
    """The index files of `n_films` films, relative to the task folder, in film order."""
    return [f"{INDEX_DIR}/{number:04d}.json" for number in range(n_films)]


def write_indexes(store, folder: Path, film_ids: list[str], tier: str) -> dict[str, str]:
    """Each film's tool index for `tier` as `indexes/<n>.json`; returns film id -> path
    relative to the task folder (file names are numbers: a film id may be any text).

    Raises:
        AgentExportError: a film's index cannot be built in this tier (the film lacks what the
            tier's tools read); the message names the film and the tier.
    """
    from pipelines.agents.tools import ToolError
    from pipelines.agents.tools.index import FilmIndex

    paths = {}
    for number, film_id in enumerate(sorted(set(film_ids))):
        try:
            data = FilmIndex.load(store, film_id, tier).to_dict()
        except (ToolError, KeyError, ValueError) as exc:
            raise AgentExportError(
                f"film {film_id!r}: its {tier} tier index cannot be built: {exc}"
            ) from None
        relative = index_names(number + 1)[-1]
        _write_json(folder / relative, data)
        paths[film_id] = relative
    return paths


def _write_json(path: Path, data: dict) -> None:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    replace_atomically(path, lambda temporary: temporary.write_text(text, encoding="utf-8"))


def agent_manifest(tier: str, step_limit: int, indexes: dict[str, str]) -> dict:
    """The manifest's `agent` entry: what task.py's agent reads."""
    from pipelines.agents.tools import tool_names

    return {
        "tier": tier,
        "step_limit": step_limit,
        "instruction": AGENT_INSTRUCTION,
        "tools": tool_names(),
        "tools_digest": tools_digest(),
        "trail_key": TRAIL_KEY,
        "indexes": indexes,
    }
