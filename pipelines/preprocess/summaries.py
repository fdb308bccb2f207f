"""Scene summaries (LF-VideoQA App. C: "The model summarizes every scene in a few sentences",
Table 16; Table 25: "a short neutral summary from an independent pass").

Two backends, each named on every row it writes (`scene_summaries.backend`):
- `extractive` (offline, ours): the scene's first stage-direction sentences (up to
  `EXTRACT_WORDS` words) and who speaks in it. Not a model summary: it copies text.
- `openai`: any OpenAI-compatible endpoint through the gateway, prompt
  `pipelines/prompts/scene_summary_v1.txt` (version `scene-summary-v1`). Table 16's text is not
  in our copy of the paper, so the template is written from App. C's description; a changed
  template is a new version file.

The summaries reach Stage 1 scene cards and Stage 3's story context through `current_scenes`
(migration 740), where the paper's verifier "sees a summary of every scene" (App. F.2).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

import pandas as pd
from pydantic import BaseModel, Field

from data_access.store import Store
from data_access.tables.runs import RunSpec, end_run, finish_run, insert_run, start_run
from data_access.tables.scene_summaries import film_scene_lines, write_scene_summaries

STEP = "preprocess.summaries"
EXTRACTIVE = "extractive"
PROMPT_VERSION = "scene-summary-v1"
EXTRACT_WORDS = 45
# A scene's text sent to the model is capped so one long scene cannot blow the context.
MAX_SCENE_CHARS = 12_000
BACKENDS = (EXTRACTIVE, "openai")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


class SummaryReply(BaseModel):
    summary: str = Field(min_length=1)


@dataclass
class SummaryReport:
    film_id: str
    run_id: str
    backend: str
    scenes: int
    failed: int


def extractive_summary(lines: pd.DataFrame) -> str:
    """First stage-direction sentences (≤ EXTRACT_WORDS words) and the scene's speakers."""
    directions = " ".join(lines.loc[lines["kind"] == "direction", "text"].dropna().astype(str))
    words, picked = 0, []
    for sentence in _SENTENCE_END.split(" ".join(directions.split())):
        if not sentence or (picked and words + len(sentence.split()) > EXTRACT_WORDS):
            break
        picked.append(sentence)
        words += len(sentence.split())
    speakers = list(dict.fromkeys(lines.loc[lines["kind"] == "dialogue", "character"].dropna()))
    parts = [" ".join(picked)] if picked else []
    if speakers:
        parts.append("Speaking: " + ", ".join(speakers) + ".")
    return " ".join(parts)


def scene_text(lines: pd.DataFrame) -> str:
    """The scene as the model reads it: directions as written, dialogue as CHARACTER: line."""
    rows = []
    for line in lines.itertuples():
        if not isinstance(line.text, str):
            continue
        rows.append(f"{line.character}: {line.text}" if line.kind == "dialogue" else line.text)
    return "\n".join(rows)[:MAX_SCENE_CHARS]


def summary_messages(heading: str | None, text: str) -> list[dict]:
    """System = instructions and rules; user = the Input Information block (as App. J)."""
    template = resources.files("pipelines").joinpath("prompts", "scene_summary_v1.txt")
    head, rest = template.read_text().split("# Input Information", 1)
    inputs, rules = rest.split("# Rules", 1)
    return [
        {"role": "system", "content": head.strip() + "\n\n# Rules" + rules.rstrip()},
        {"role": "user", "content": inputs.strip().format(heading=heading or "", text=text)},
    ]


def summarise_film(
    store: Store, film_id: str, backend: str = EXTRACTIVE, llm: dict | None = None
) -> SummaryReport:
    """Summarise every scene of a film as one run of `backend`.

    Raises:
        ValueError: unknown backend, or the film has no scenes.
    """
    if backend not in BACKENDS:
        raise ValueError(f"--backend {backend!r}: expected one of {', '.join(BACKENDS)}")
    lines = film_scene_lines(store, film_id)
    if lines.empty:
        raise ValueError(f"film {film_id!r} has no scenes in this store")
    scenes = list(lines.groupby("scene_index", sort=True))
    if backend == EXTRACTIVE:
        return _extractive_run(store, film_id, scenes)
    return _llm_run(store, film_id, scenes, llm or {})


def _extractive_run(store: Store, film_id: str, scenes) -> SummaryReport:
    spec = RunSpec(STEP, backend=EXTRACTIVE, params={"words": EXTRACT_WORDS}, source=film_id)
    rows = [(int(i), text, EXTRACTIVE) for i, part in scenes if (text := extractive_summary(part))]
    with store.transaction() as cursor:
        run_id = insert_run(cursor, spec)
        write_scene_summaries(cursor, run_id, film_id, rows)
        finish_run(cursor, run_id, n_items=len(rows))
    return SummaryReport(film_id, run_id, EXTRACTIVE, len(rows), 0)


def llm_run_spec(config, film_id: str) -> RunSpec:
    """The run of one film's LLM summaries (the call log and the summaries are filed under it)."""
    return RunSpec(
        STEP,
        backend="openai",
        model=config.model,
        prompt_version=PROMPT_VERSION,
        params=config.public_dict(),
        source=film_id,
    )


def summary_requests(film_id: str, scenes) -> list:
    """One request per (scene index, its lines) of `scenes`; item ids are `film:scene`."""
    from pipelines.llm import LLMRequest

    return [
        LLMRequest(
            item_id=f"{film_id}:{int(index)}",
            messages=summary_messages(part["heading"].iloc[0], scene_text(part)),
            schema=SummaryReply,
            params={"temperature": 0},
        )
        for index, part in scenes
    ]


def summary_rows(results, label: str) -> list[tuple[int, str, str]]:
    """(scene index, summary, backend label) of each answered request."""
    return [
        (int(r.item_id.rsplit(":", 1)[1]), r.parsed.summary.strip(), label) for r in results if r.ok
    ]


def _llm_run(store: Store, film_id: str, scenes, overrides: dict) -> SummaryReport:
    from pipelines.llm import Gateway, load_config

    config = load_config(overrides)
    backend = f"{config.model}@{PROMPT_VERSION}"
    run_id = start_run(store, llm_run_spec(config, film_id))

    def write(cursor, batch) -> None:
        write_scene_summaries(cursor, run_id, film_id, summary_rows(batch, backend))

    results = Gateway(store, config, run_id).run(summary_requests(film_id, scenes), on_batch=write)
    failed = sum(not r.ok for r in results)
    end_run(store, run_id, n_items=len(results) - failed, n_failed=failed)
    return SummaryReport(film_id, run_id, backend, len(results) - failed, failed)
