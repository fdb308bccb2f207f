"""`docs/FORMAT.md`, generated from the interchange models (`storyscope format-doc`).

The models in data_access/formats/lfvqa_records.py are the single source of truth; this module only
renders them, with the same `FieldSpec` reading the importer validates against, so the document
says exactly what the importer checks.
"""

from __future__ import annotations

import inspect
import json

from data_access.formats import lfvqa_records
from data_access.formats.lfvqa_records import FORMAT_NAME, FORMAT_VERSION, Manifest, Record
from data_access.formats.table_files import TABLE_FILES
from data_access.formats.task_doc import QUESTIONS_OUT_SECTION
from data_access.importers.fields import FieldSpec, field_specs, type_words
from data_access.importers.results.results_doc import RESULTS_SECTION

HEADER = f"""# StoryScope interchange format — `{FORMAT_NAME}` version {FORMAT_VERSION}

<!-- Generated from data_access/formats/lfvqa_records.py by `storyscope format-doc`. Do not edit by
hand: change the models, then run `storyscope format-doc` (a test checks this file is current). -->
"""

RULES = """## Files and encoding

- A dataset is a folder with `manifest.json` and any subset of the table files below, each
  either `<table>.jsonl` (one JSON object per line, UTF-8) or `<table>.parquet` — never both.
  Other `.jsonl`/`.parquet` names are rejected, so a misspelt file name cannot be skipped;
  so is any other data-looking name (`films.json`, `films.JSONL`, `films.ndjson`,
  `films.jsonl.gz`, `extra.csv`): the error names the file and the name expected. Files that
  are not data (`README.md`, `notes.txt`) and hidden entries (`.DS_Store`) are ignored.
- Every table file (and `manifest.json`) must be a regular, readable file: a folder, a FIFO,
  a socket, a dangling or looping symlink is refused before anything is read.
- JSONL: blank lines are ignored (line numbers in errors still count them); a UTF-8 byte-order
  mark at the very start of a file is ignored (RFC 8259 §8.1), anywhere else it is an error;
  text in any other encoding (e.g. Latin-1) is an error that names the line and field.
  `null` and an absent key mean the same: the field's default.
- Parquet: column names are the field names; column types must fit the field type (any
  integer type for integers, any numeric type for numbers, string lists as `LIST<VARCHAR>`).
  Parquet obeys the JSONL rules: string values must be UTF-8 (an error names row and field)
  and a list item cannot be null (`[1, null]` is refused in both formats).
- Every JSON file any importer reads (`manifest.json`, StoryVideoQA golden/script/meta files,
  FABLES, StorySumm, the ToM datasets, prediction files; `data_access/importers/json_files.py`)
  follows one rule set: UTF-8 (a leading BOM tolerated), no key twice in one object (Python
  would keep the last one silently), at most 100 levels of nesting, RFC 8259 values. An
  error names the file, its line (or `end of file` for a cut file) and the field.
- An empty table file is an error: leave the file out when a table has no rows.

## Values

- JSON is RFC 8259 JSON: `NaN`, `Infinity`, `-Infinity` and trailing commas (`{"a": 1,}`,
  `[1, 2,]`) are errors, though common readers accept them. Number fields must be finite in
  Parquet too (a NaN would pass every `>`/`≥` bound).
- Integers must fit 64 bits, and the store column where it is narrower (`ord`, `scene_index`
  are 32-bit): the error names the record and field instead of failing mid-insert.
- The manifest is read strictly: `version` is the JSON integer 1 (not `true`, `1.0` or
  `"1"`), `reported_by_paper` a JSON boolean.
- Rubric claims: `ord` is unique within a question (in the file and the store). Question
  evidence: every `claim_ords` item is the `ord` of a claim of that question (this import or
  the store), each named once.
- MCQs: `option` names one of the `choices` and `gt` is that choice's text — the same rules
  (`McqQuestion.ROW_RULES`) the StoryVideoQA release importer applies.

## Subtitle times (`.srt` files, StoryVideoQA cue sheets)

A cue time's minutes and seconds are below 60 (`99:99:99,999` is an error). A cue that starts
more than 1 s before an earlier cue of the file jumps back in time: an error, or skipped and
reported with `--lenient-subtitles`. A file whose cues mostly run backwards is reported as
reversed in either mode, and so is a file whose cues all start at one time (its timings were
lost: there is no timeline to align).

## What an import checks

Everything runs inside one store transaction: on any problem nothing is written. A clean
import reads each file once, checking as it writes; when a check fails, the import is rolled
back and run again with every record numbered to name the faults, so a faulty import takes
about twice as long as a clean one.

1. The manifest validates against the model below.
2. Every record is a JSON object whose keys are fields of its table (unknown fields are
   errors, with the closest field name suggested).
3. Every value has its field's JSON type (no silent coercion: `"600"` is not a number).
4. Required fields are present; enums, bounds (`≥`, `>`, `≤`), minimum lengths hold;
   `end_s ≥ start_s` in tables that have both.
5. Keys are unique within the file and, for tables keyed without a run, not already in the
   store. Tables whose store key includes the run (scenes, lines, cues, beliefs, ...)
   append a new version instead: the "current" views show the latest finished run.
6. References name a record of this import or one already in the store.

Errors name the file, the record (`line N` for JSONL, `row N` for Parquet, `(schema)`,
`(file)`, `(manifest)`) and the field, e.g.

    films.jsonl, line 2, field 'year': must be an integer (got "nineteen")
    rubric_claims.jsonl, line 7, field 'question_id': unknown question_id 'q404': not in
    questions.jsonl of this import nor in the store

Every imported row carries the import's `run_id` (step `import.lfvqa`, backend `import`);
the manifest's `reported_by_paper` is recorded on that run.

## Ids across sources, newer stores, output files

- A `dataset_id` names one dataset. A folder whose manifest gives the `dataset_id` of a
  dataset already in the store with another `name`, `kind`, `source`, `licence` or
  `reported_by_paper` is refused (`manifest.json, (manifest), field 'dataset_id'`): give it its
  own `dataset_id`. The same manifest again is a further batch of that dataset.
- A film id belongs to the dataset that brought it: an imported film id already in the store
  is refused (rule 5), and `storyscope film ingest` never replaces a film of another dataset
  (choose another id with `--film-id ID`).
- A store whose `_migrations` holds a number this StoryScope does not know was written by a
  newer version: imports and every other write refuse it, naming the number; read commands and
  the app open it read-only, with a warning.
- `storyscope export --out` (and `--interchange`) never writes the store, its `.wal` or a path
  leading to them (symlink, `..`, hard link), and replaces an existing file only with
  `--force`. `--interchange` writes no file for a table with no rows (an empty table file is
  refused on import), and with `--force` removes the one an earlier export left.
"""


def _constraints(spec: FieldSpec) -> str:
    parts = []
    for attr, word in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<")):
        if getattr(spec, attr) is not None:
            parts.append(f"{word} {getattr(spec, attr):g}")
    if spec.min_length is not None:
        unit = "items" if spec.is_list else "chars"
        parts.append(f"at least {spec.min_length} {unit}")
    return ", ".join(parts)


def _default(spec: FieldSpec) -> str:
    if spec.required:
        return "**required**"
    if spec.default is None:
        return "null"
    return f"`{json.dumps(spec.default)}`"


def _cell(text: str | None) -> str:
    return (text or "").replace("|", "\\|").replace("\n", " ")


def field_table(model: type[Record]) -> str:
    """The markdown table of one model's fields."""
    lines = ["| field | type | default | constraints | description |", "|---|---|---|---|---|"]
    for spec in field_specs(model):
        kind = type_words(spec) + (" or null" if spec.nullable else "")
        description = model.model_fields[spec.name].description
        lines.append(
            f"| `{spec.name}` | {_cell(kind)} | {_default(spec)} |"
            f" {_cell(_constraints(spec))} | {_cell(description)} |"
        )
    return "\n".join(lines)


def _table_section(table) -> str:
    facts = [f"store table `{table.table}`"]
    if table.key:
        facts.append("key " + " + ".join(f"`{k}`" for k in table.key))
    for column, ref_file, ref_column in table.references:
        facts.append(f"`{column}` → `{ref_file}.{ref_column}`")
    doc = (
        inspect.cleandoc(table.model.__doc__ or "") if table.model.__doc__ != Record.__doc__ else ""
    )
    body = [f"### `{table.name}.jsonl` / `{table.name}.parquet`", "", "; ".join(facts) + ".", ""]
    if doc:
        body += [doc, ""]
    return "\n".join(body + [field_table(table.model), ""])


def format_doc() -> str:
    """The whole of docs/FORMAT.md."""
    intro = inspect.cleandoc(lfvqa_records.__doc__ or "")
    order = ", ".join(f"`{t.name}`" for t in TABLE_FILES)
    parts = [
        HEADER,
        intro,
        "",
        RULES,
        "## `manifest.json`",
        "",
        field_table(Manifest),
        "",
        "## Table files",
        "",
        f"Imported in this order (references point backwards): {order}.",
        "",
    ]
    parts += [_table_section(table) for table in TABLE_FILES]
    parts.append(RESULTS_SECTION)  # harness results in
    parts.append(QUESTIONS_OUT_SECTION)  # and questions out to the harnesses
    return "\n".join(parts).rstrip() + "\n"
