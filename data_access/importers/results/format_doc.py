"""The "Bring your results" section of docs/FORMAT.md (rendered by importers/format_doc.py)."""

# ruff: noqa: E501 -- a markdown table row is one line of the document

RESULTS_SECTION = """## Bring your results (`storyscope import results`)

`storyscope import results FILE_OR_DIR [--format auto|lmms-eval|vlmevalkit|inspect|lm-eval|
openai-batch|table] [--setting NAME] [--map FIELD=COLUMN ...] [--source SOURCE]
[--batch-input FILE] [--dry-run] [--json]` imports one harness run's per-sample outputs, linked
to questions already in the store: samples that name an LF-VideoQA question become **answers**
of one setting, samples that name a StoryVideoQA MCQ become **predictions** of one method
(whichever kind more samples name). They are ordinary rows: judged, compared, exported and
counted on Verdicts and Distributions like any other. The Runs page's upload panel does the
same (`pipelines.results.import_results`).

| `--format` | what it reads (the harness's own writer) | sample id | linked by (first found) | MCQ letter |
|---|---|---|---|---|
| `lmms-eval` | `--log_samples`: `<date>_samples_<task>.jsonl` with `<date>_results.json` beside it (model, `model_args`, version); text = `filtered_resps`, else `resps` | `doc_id` | `doc.question_id`, `doc.mcq_id`, `doc.id`, a metric field's `question_id` (lmms-eval tasks put the doc id in their metric dict), `doc_id` | lmms-eval's `extract_characters_regex` (videomme): answer prefixes removed, first capital A–E |
| `lm-eval` | lm-evaluation-harness `samples_<task>_<date>.jsonl` with `results_<date>.json`; one line per filter: the first filter is imported | `doc_id` | as lmms-eval | `multiple_choice`: the choice with the highest loglikelihood; generative: the filtered reply when it is a bare letter |
| `vlmevalkit` | `<model>_<dataset>.xlsx` / `.tsv` (`index`, `question`, `A`…, `answer`, `prediction`); a folder's scored `*_result.xlsx` is preferred | `index` | a `question_id` or `mcq_id` column, `index` | VLMEvalKit's `can_infer`: exactly one option letter among the words, else exactly one option text in the reply |
| `inspect` | inspect_ai logs `.eval` / `.json`, read with `inspect_ai.log` (`pip install 'storyscope[harness]'`) | `id` (epoch 1; later epochs are repeats) | `metadata.question_id`, `metadata.mcq_id`, `id` | a scorer's `Score.answer` (`choice()`), else inspect's `ANSWER: X` parsing |
| `openai-batch` | Batch API output JSONL (`custom_id`, `response.body.choices[0].message.content`, `error`), joined to `--batch-input` when given | `custom_id` | the input's `body.metadata.question_id` / `mcq_id`, `custom_id` | a bare letter (`B`, `(B)`, `B.`) or `ANSWER: B` |
| `table` | any `.csv`, `.jsonl`, `.parquet` | `id` | `question_id` or `mcq_id` column | the `option` column, else as `openai-batch` |

`--map FIELD=COLUMN` (repeatable) names where a field is: `question_id` (the link), `answer`,
`option`, `id`, `error`; in JSONL formats a column is a dotted path (`doc.qid`,
`storyscope_accuracy.question_id`). `--format auto` tells the harness from the file name and
its first record. Harness files are read as their writers write them (Python's `json`, so a
`NaN` metric is accepted); every file is streamed record by record (an inspect `.eval` log
sample by sample; a `.json` log is one document and is read whole), so a 100k-sample file
needs a few MB.

**Samples left out** are a report, never silence: counts per reason with the first sample ids
— `unknown id` (names no question or MCQ in the store), `other question kind`, `empty answer`,
`harness error` (inspect `error`, lmms-eval `success: false`, VLMEvalKit's `Failed to obtain
answer via API`, a Batch `error` or non-2xx status), `repeated sample` (a later epoch, filter or
repeat of a sample already read). An MCQ reply without a letter by the harness's rule is
imported with no option and scored wrong, as the harness scores it. `--dry-run` prints the
report and writes nothing, not even a schema upgrade (the store is read read-only; a store of an
older schema is upgraded in a temporary copy, and the report says the import upgrades it first);
it refuses what the import refuses, with the same `error:` line and exit code.

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
the file's sha256, sample and match counts. The setting is `--setting NAME`, else
`<harness>:<model>:<task>`, labelled `<model> via <harness> (<task>)`, with `--source`
(default `video`) as what the model saw. The same file under the same name again is a no-op,
also when both imports run at once (the check is made in the importing transaction).
A changed file is a new run: its answers become setting `NAME@<sha8>` (answers are one per
question and setting), its predictions a new run of method `NAME`, which Distributions shows
as the method's current run.
"""
