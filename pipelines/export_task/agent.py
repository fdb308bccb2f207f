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
# the sample-store key the exported tools record their calls' intervals under
TRAIL_KEY = "storyscope_trail"


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


def film_indexes(store, film_ids: list[str], tier: str) -> dict:
    """Each film's tool index for `tier` (`FilmIndex.load`, as StoryScope's loop loads it).

    Raises:
        AgentExportError: a film's index cannot be built in this tier (the film lacks what the
            tier's tools read); the message names the film and the tier.
    """
    from pipelines.agents.tools import FilmIndex, ToolError
    from pipelines.settings import SettingUnavailable

    indexes = {}
    for film_id in sorted(set(film_ids)):
        try:
            indexes[film_id] = FilmIndex.load(store, film_id, tier)
        except (ToolError, SettingUnavailable) as exc:
            raise AgentExportError(
                f"film {film_id!r}: its {tier} tier index cannot be built: {exc}"
            ) from None
    return indexes


def agent_samples(samples: list[TaskSample], tier: str, indexes: dict) -> list[TaskSample]:
    """The questions as agent samples: the input is the first user message of StoryScope's
    loop (the film's name and length and the question; the film itself is reached through the
    tools); the metadata says the setting and the tier, so an import of the log files its
    answers under an agent setting of that tier."""
    from pipelines.agents.loop import start_conversation

    agent = []
    for sample in samples:
        film_id = sample.metadata["film_id"]
        question = {
            "question_id": sample.id,
            "film_id": film_id,
            "title": sample.metadata["title"],
            "text": sample.metadata["question"],
        }
        index = indexes[film_id]
        opening = start_conversation(question, index, index.duration_s).messages
        metadata = {**sample.metadata, "setting": AGENT_SETTING, "tier": tier}
        agent.append(replace(sample, input=opening[-1]["content"], metadata=metadata))
    return agent


def index_names(n_films: int) -> list[str]:
    """The index files of `n_films` films, relative to the task folder, in film order."""
    return [f"{INDEX_DIR}/{number:04d}.json" for number in range(n_films)]


def write_indexes(folder: Path, indexes: dict) -> dict[str, str]:
    """Each film's index as `indexes/<n>.json` (`FilmIndex.to_dict`); returns film id -> path
    relative to the task folder (file names are numbers: a film id may be any text)."""
    paths = {}
    for relative, (film_id, index) in zip(index_names(len(indexes)), sorted(indexes.items())):
        _write_json(folder / relative, index.to_dict())
        paths[film_id] = relative
    return paths


def _write_json(path: Path, data: dict) -> None:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    replace_atomically(path, lambda temporary: temporary.write_text(text, encoding="utf-8"))


def agent_manifest(tier: str, step_limit: int, indexes: dict[str, str]) -> dict:
    """The manifest's `agent` entry: what task.py's agent reads (the loop's instruction and
    last-turn prompt, so the exported agent is prompted as StoryScope's own)."""
    from pipelines.agents.loop import AGENT_INSTRUCTION, AGENT_PROMPT_VERSION, LAST_TURN
    from pipelines.agents.tools import tool_names

    return {
        "tier": tier,
        "step_limit": step_limit,
        "prompt_version": AGENT_PROMPT_VERSION,
        "instruction": AGENT_INSTRUCTION,
        "last_turn": LAST_TURN,
        "tools": tool_names(),
        "tools_digest": tools_digest(),
        "trail_key": TRAIL_KEY,
        "indexes": indexes,
    }
