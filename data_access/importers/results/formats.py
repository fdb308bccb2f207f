"""The results formats `storyscope import results` reads: one entry per harness format, with
everything the rest of StoryScope derives from it — the CLI's `--format` choices, the Runs
page's upload types, the `--map` fields each reader uses and its row of docs/FORMAT.md.

Each reader in pipelines/results/ registers itself against its entry here
(`@register_reader(LMMS_EVAL)`, in the manner of lm-eval's `@register_model`), so a new format
is one entry and one decorated reader; the lists below are never written out elsewhere.
"""

# ruff: noqa: E501 -- a markdown table cell is one line of the document

from __future__ import annotations

from dataclasses import dataclass

# The fields a column map (--map FIELD=COLUMN) may name, and what each is.
MAP_FIELDS = {
    "question_id": "the id the sample links to (a question_id or mcq_id of the store)",
    "answer": "the answer text",
    "option": "the chosen MCQ letter, when the file has it apart from the text",
    "id": "the harness's own sample id (reported for samples left out)",
    "error": "a harness error; a sample with one is left out",
    "letters": "the labels the model answered with, in option order (`1234` or `1,2,3,4`: 1 is A)",
    "output_type": "lm-eval's output type when no results summary says it (`multiple_choice`, `generate_until`)",
}


@dataclass(frozen=True)
class ResultsFormat:
    """One harness format.

    Attributes:
        name: the `--format` value.
        extensions: the file name endings it reads (the Runs page's upload types).
        map_fields: the `--map` fields its reader uses (others are refused, never ignored).
        reads: what it reads (the harness's own writer), for the document.
        sample_id: the field of the harness's own sample id.
        linked_by: the fields a sample links by, first found.
        letters: which rule gives an MCQ letter, per harness version.
    """

    name: str
    extensions: tuple[str, ...]
    map_fields: tuple[str, ...]
    reads: str
    sample_id: str
    linked_by: str
    letters: str

    def doc_row(self) -> str:
        cells = (f"`{self.name}`", self.reads, self.sample_id, self.linked_by, self.letters)
        return "| " + " | ".join(cells) + " |"


LMMS_EVAL = ResultsFormat(
    "lmms-eval",
    ("jsonl", "json"),
    ("question_id", "answer", "option"),
    "`--log_samples`: `<date>_samples_<task>.jsonl` with `<date>_results.json` beside it (model, `model_args`, version, the task's scores; 0.2.4 on), `samples_<task>_<date>.jsonl` with `results_<date>.json` (0.2.3), `<task>.json` holding `logs` with `results.json` (to 0.2.2); text = `filtered_resps`, else `resps`",
    "`doc_id`",
    "`doc.question_id`, `doc.mcq_id`, `doc.id`, a metric field's `question_id` (lmms-eval tasks put the doc id in their metric dict), `doc_id`",
    "the task's own parse in its metric dict (`pred_letter`, `pred_answer`, `parsed_pred`, `extracted_answer`, `parsed_answer`, `pred_ans`: every lmms-eval version writes it); a line without one: StoryScope's export rule (`storyscope_letter`, the rule of the exported task's `utils.py`)",
)
LM_EVAL = ResultsFormat(
    "lm-eval",
    ("jsonl", "json"),
    ("question_id", "answer", "output_type"),
    "lm-evaluation-harness `samples_<task>_<date>.jsonl` (≥ 0.4.3) or `.json` (its JSON-lines writer of May–June 2024) with `results_<date>.json` (the task's `output_type`), or 0.4.0–0.4.2's JSON array `<model_args>_<task>.jsonl` with `results.json`; one line per filter: the first filter is imported",
    "`doc_id`",
    "as lmms-eval",
    "`multiple_choice`: the choice with the highest loglikelihood; generative: the filtered reply when it is a bare letter; output type unknown (no summary): refused unless `--map output_type=...`",
)
VLMEVALKIT = ResultsFormat(
    "vlmevalkit",
    ("xlsx", "tsv"),
    ("question_id", "answer"),
    "`<model>_<dataset>.xlsx` / `.tsv` (`index`, `question`, `A`…, `answer`, `prediction`) in `<model>/`, `<model>/T<date>_G<commit>/` (2024-11 to 2026-04) or `<model>/T<date>-<time>/` with `status.json`; a folder's scored `*_<judge>_result.xlsx` is preferred",
    "`index`",
    "a `question_id` or `mcq_id` column, `index`",
    "a scored file: its own outcome (`hit` 1: the row's `answer`; `hit` 0: the letter its match `log` gives, else none); a prediction file: `can_infer` of the run's date (before 2025-08-04: one option letter among the words, else one option's text; from c3371551, 2025-08-04: the letter only among the last four words, the text only in a short reply; from a67ace50, 2026-06-17: then `the answer is X`); no dated folder: the current rule",
)
INSPECT = ResultsFormat(
    "inspect",
    ("eval", "json"),
    ("question_id", "answer"),
    "inspect_ai logs `.eval` / `.json` (any status: a cancelled run's samples are read), read with `inspect_ai.log` (`pip install 'storyscope[harness]'`); a log of an exported agent task (`export-task --setting agent`) also brings each sample's tool calls and results back as the answer's evidence trail (`agent_steps`, `agent_answers`; the setting's source `agent` and tier from the task's metadata)",
    "`id` (epoch 1; later epochs are repeats)",
    "`metadata.question_id`, `metadata.mcq_id`, `id`",
    "a scorer's `Score.answer` (`choice()`), else `parse_answers` of the log's inspect_ai version: before 0.3.42 the first `ANSWER: X` anywhere; 0.3.42–0.3.220 the first `ANSWER: X` line, else anywhere, capital letters only; from 0.3.221 the last one, any case",
)
OPENAI_BATCH = ResultsFormat(
    "openai-batch",
    ("jsonl",),
    ("question_id", "letters"),
    "Batch API output JSONL (`custom_id`, `response.body.choices[0].message.content`, `error`), joined to `--batch-input` when given (the model is the one the replies name)",
    "`custom_id`",
    "the input's `body.metadata.question_id` / `mcq_id`, `custom_id`",
    "a bare letter (`B`, `(B)`, `B.`) or `ANSWER: B`; with `--map letters=1234`, a bare label",
)
TABLE = ResultsFormat(
    "table",
    ("csv", "jsonl", "parquet"),
    ("question_id", "answer", "option", "id", "error", "letters"),
    "any `.csv`, `.jsonl`, `.parquet`",
    "`id`",
    "`question_id` or `mcq_id` column",
    "the `option` column, else as `openai-batch`",
)

# In the order the CLI and the page offer them.
RESULTS_FORMATS: dict[str, ResultsFormat] = {
    f.name: f for f in (LMMS_EVAL, VLMEVALKIT, INSPECT, LM_EVAL, OPENAI_BATCH, TABLE)
}
FORMAT_NAMES = tuple(RESULTS_FORMATS)


def upload_types() -> list[str]:
    """Every file ending some format reads (the upload panel's accepted types)."""
    return list(dict.fromkeys(ext for f in RESULTS_FORMATS.values() for ext in f.extensions))


def format_table() -> str:
    """The formats as the markdown table of docs/FORMAT.md."""
    head = [
        "| `--format` | what it reads (the harness's own writer) | sample id | linked by (first found) | MCQ letter |",
        "|---|---|---|---|---|",
    ]
    return "\n".join(head + [f.doc_row() for f in RESULTS_FORMATS.values()])
