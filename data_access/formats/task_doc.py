"""The "Questions out" section of docs/FORMAT.md (rendered by importers/format_doc.py): the task
folders `storyscope export-task` writes for inspect_ai and lmms-eval (pipelines/export_task/)."""

# ruff: noqa: E501 -- a markdown table row is one line of the document

QUESTIONS_OUT_SECTION = """## Questions out (`storyscope export-task`)

`storyscope export-task --harness inspect|lmms-eval [--questions lfvqa|mcq] [--where KEY=V1,V2]
[--limit N] [--task NAME] --out DIR [--force]` writes a question set of the store as a task the
harness runs as it is. `--questions lfvqa` takes open-ended LF-VideoQA questions (`--where` keys
`film`, `type`, `center`, `status`, `source`, `question`), each as a reviewer last left it (the
latest revision's text and gold answer); `--questions mcq` takes StoryVideoQA multiple-choice
questions (`source`, `set`, `vid`, `type`, `element`, `question`). Existing files in DIR are
replaced only with `--force`, and DIR is never the store. `--force` writes each file new and
moves it into place: a task file that is a symlink or a hard link is replaced as a link (the
command says so), never written through, so what it pointed to elsewhere stays as it was. A
`--task` name is a Python identifier, not a keyword (`class`, `None`), not a dunder, and for
inspect not a name `task.py` already uses (`Task`, `json_dataset`, `MANIFEST`, ...): such a name
is refused with the reason. Every folder also holds
`storyscope_task.json`: the harness, the kind, the task name, the filter, the sample count and
the time of the export.

**Ids survive the trip.** Every sample carries its StoryScope id (`question_id` or `mcq_id`), so
`storyscope import results` links the harness's output back to the same questions:

| harness | files | the id travels as | run it |
|---|---|---|---|
| `inspect` | `task.py` (a `@task` named after the task: `multiple_choice()` + `choice()` for MCQs; a system instruction, `generate()` and the paper's claim judge for open-ended questions, with `storyscope_judge.json`), `dataset.jsonl` (one `Sample` per line: `id`, `input`, `target`, `choices`, `metadata`) | `Sample.id` (and `metadata.question_id` / `metadata.mcq_id`) | `cd DIR && inspect eval task.py --model PROVIDER/MODEL` |
| `lmms-eval` | `<task>.yaml` (its task schema: `dataset_path: json` with the data file in `dataset_kwargs.data_files.test`, `!function utils.*` for visuals, prompt and scoring), `<task>.jsonl` (one document per line), `utils.py` | the document's `id`, and the `question_id` inside each sample's metric value (recent lmms-eval drops `doc` from `--log_samples`) | `lmms-eval --model M --tasks <task> --include_path DIR --log_samples --output_path OUT` |

A sample's fields: `input` (open-ended: `Film: <title> (<year>)` and the question, or with
`--setting S` the film as that LF-VideoQA setting gives it — screenplay, subtitles, captions or
frames within the `--context-tokens` budget, exactly what `storyscope answer` sends, frames in
`frames/` as image content (inspect) or through `doc_to_visual` (lmms-eval), docs/SETTINGS.md;
MCQ: the question), `target` (the reference answer, or the rubric's claims joined when there is none; MCQ:
the correct letter), `choices` (MCQ, in released order A, B, ...), and the metadata: film,
question type, center character, anchor time, revision and the rubric's claims (`ord`, `role`,
`text`) for open-ended questions; source, video id, set, question type and story element, the
correct choice's text and the evidence times for MCQs. The harness's own score is a quick
number for lmms-eval (token F1, or the letter's accuracy). The inspect task scores open-ended
answers with the paper's claim judge (LF-VideoQA §3.3): a judge model (`-T judge_model=`, default
the answerer) labels every rubric claim with StoryScope's judge prompt, and the task reports
Eq. 1's recall, precision, F1 and contradiction (and `judged`, the share of readable judge
replies); `storyscope judge` on the imported answers gives the same measures in StoryScope.

**Videos are yours.** Each sample names its video in `video` (lmms-eval documents) or
`metadata.video` (inspect): the film's registered video (`storyscope film video`) when there is
one, else `<film_id>.mp4`; `<vid>.mp4` for StoryVideoQA (`BigBang-S01E01.mp4`). The lmms-eval
task's `doc_to_visual` returns `[STORYSCOPE_VIDEO_DIR/<video>]` (an absolute `video` as it is,
refused when the file is missing) and `[]` without STORYSCOPE_VIDEO_DIR, a text-only run; a
video model in lmms-eval needs nothing else from the document. The inspect task sends text only:
a video model reads `metadata.video` in its own solver.
"""
