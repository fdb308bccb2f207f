"""The "Bring your results" section of docs/FORMAT.md (rendered by importers/format_doc.py): the
formats, their `--map` fields and letter rules come from the format registry (formats.py)."""

# ruff: noqa: E501 -- a markdown table row is one line of the document

from data_access.importers.results.formats import MAP_FIELDS, RESULTS_FORMATS, format_table

_TEMPLATE = """## Bring your results (`storyscope import results`)

`storyscope import results FILE_OR_DIR [--format auto|{format_choices}] [--setting NAME] [--map FIELD=COLUMN ...] [--source SOURCE]
[--batch-input FILE] [--model NAME] [--dry-run] [--json]` imports one harness run's per-sample outputs, linked
to questions already in the store: samples that name an LF-VideoQA question become **answers**
of one setting, samples that name a StoryVideoQA MCQ become **predictions** of one method
(whichever kind more samples name). They are ordinary rows: judged, compared, exported and
counted on Verdicts and Distributions like any other. The Runs page's upload panel does the
same (`pipelines.results.import_results`); it takes several files at once, read as the
harness's run folder, so lmms-eval's samples file and its `<date>_results.json` go in together.

**The model** is what the harness's own file says: lmms-eval and lm-eval keep it only in the
results summary beside the samples (`model_name`, else the model in `config.model_args` by
their `_get_model_name` rule, else `config.model`). A samples file imported without its summary
reports `model unknown` with a note naming the summary the harness wrote for it; `--model NAME`
(the panel's Model box) names it then, recorded as typed (`model_typed` in the run's params).
A file that names its model keeps it: a different `--model` is refused.

{format_table}

`--map FIELD=COLUMN` (repeatable) names where a field is, or says what the file cannot:

{map_fields}

Each format takes the fields its reader uses ({format_fields}); any other is refused, as is a
mapped place the file's first record does not have. In JSONL formats a column
is a dotted path (`doc.qid`, `storyscope_accuracy.question_id`). `--format auto` tells the
harness from the file name and its first record (a file of one harness given as another's is
refused: `written by lm-evaluation-harness, not lmms-eval: use --format lm-eval`). Harness
files are read as their writers write them (Python's `json`, so a `NaN` metric is accepted);
every file is streamed record by record (an inspect `.eval` log sample by sample; a `.json` log,
like the one-document samples files of lmms-eval ≤ 0.2.2 and lm-eval 0.4.0–0.4.2, is read
whole), so a 100k-sample file needs a few MB.

**Which rule gives each letter.** A harness's own verdict first, wherever the file has one: a
VLMEvalKit scored file's `hit` / `log` (its judge model's reading included), an lmms-eval task's
parse in its metric dict, an inspect scorer's `Score.answer`. Otherwise the harness's rule at
the version that wrote the file (VLMEvalKit's `can_infer` by the run folder's date; lm-eval's
loglikelihoods by the task's `output_type`), and for lmms-eval lines without a parse
StoryScope's export rule — the one function (`storyscope_letter`) that `export-task --harness
lmms-eval` copies into the task it writes, so export and import read a reply alike. The model's
reply stays the answer text. The report counts letters per rule (`letters by ...: n, m gave no
option letter`), names the field samples were linked by, and shows the accuracy the harness's
own summary states (lmms-eval / lm-eval `results_*.json`, VLMEvalKit `*_acc.csv`) with a note
whenever the imported predictions score differently, and why.

**Samples left out** are a report, never silence: counts per reason with the first sample ids
— `unknown id` (names no question or MCQ in the store), `other question kind`, `empty answer`,
`harness error` (inspect `error`, lmms-eval `success: false`, VLMEvalKit's `Failed to obtain
answer via API`, a Batch `error` or non-2xx status), `repeated sample` (a later epoch, filter or
repeat of a sample already read). An MCQ reply without a letter by the harness's rule is
imported with no option and scored wrong, as the harness scores it. `--dry-run` prints the
report and writes nothing, not even a schema upgrade (the store is read read-only; a store of an
older schema is upgraded in a temporary copy, and the report says the import upgrades it first).
When the real import would be refused it says so and why (`the import would be refused: ...`),
naming the fix where there is one (samples sharing an id: `--map question_id=doc_id`; nothing
linked: the link field and the ids looked up), and the command exits 2 as the import would.

**Refused** (one `error:` line naming file, record and field; exit 2; the store exactly as it
was): a file that is not what `--format` says (`line 1, field 'doc_id': missing`), a truncated
file, a results summary without the samples' task, two first records of one sample id, two
samples for one question, a file none of whose samples names a stored question ("samples
of another task"), and a `--setting` (or MCQ method) that something other than a results
import made (the paper's import, `storyscope answer`): an import never adds to another
source's results. Text tables (`.csv`, `.tsv`) must be UTF-8 (a Latin-1 row names its row
and column; UTF-16 is refused), without NUL bytes, with every quote closed and every field
within Python csv's field limit; JSON nests at most 100 levels; a Parquet column read as text
(answer, ids, option, error) must not be binary.

**Bounds**, checked before anything is read (pipelines/results/bounded.py): only regular files
are read (a device such as `/dev/zero`, a FIFO or socket is refused unread, also as
`--batch-input`); a zip (an inspect `.eval`, an `.xlsx`) is refused when a member would expand
past 256 MB, all members past 4 GB, or a member over 1 MB more than 100 times its compressed
size (a zip bomb); a file read whole (a results summary, an inspect `.json` log) is at most
512 MB; a record (a JSONL line, a CSV row) at most 64 MB; a Parquet row group at most 256 MB
uncompressed. The upload panel reads through the same bounds.

**Provenance**: the import is a run of step `import.results` (backend = harness, model = the
model) and a `result_imports` row: harness, harness version, model, model arguments, task,
the file's sha256, sample and match counts (VLMEvalKit's version is the commit its run folder
names; a Batch run's model is the one its replies name). The setting is `--setting NAME`, else
`<harness>:<model>:<task>` (a model given as a local path by its last folder; an exported agent
task's log adds `:agent-<tier>`), labelled `<model> via <harness> (<task>)`, with `--source`
(default `video`; an agent task's log: `agent` and its tier) as what the model saw. The
same file under the same name again is a no-op, also when both imports run at once (the check
is made in the importing transaction).
A changed file is a new run: its answers become setting `NAME@<sha8>` (answers are one per
question and setting), its predictions a new run of method `NAME`, which Distributions shows
as the method's current run.
"""

RESULTS_SECTION = _TEMPLATE.format(
    format_table=format_table(),
    format_choices="|".join(RESULTS_FORMATS),
    map_fields="\n".join(f"- `{name}`: {what}" for name, what in MAP_FIELDS.items()),
    format_fields="; ".join(
        f"`{f.name}`: {', '.join(f.map_fields)}" for f in RESULTS_FORMATS.values()
    ),
)
