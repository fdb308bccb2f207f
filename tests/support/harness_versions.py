"""Results files shaped as each harness's writer wrote them at several versions, built in code
(the writers were read, not copied; file and commit per shape below), for the version-dependent
readings of `import results`: where a file sits, what a line holds, which rule read its letter.

VLMEvalKit (open-compass/VLMEvalKit):
- `flat`: `<model>/<model>_<dataset>.xlsx`, run.py before 7739374c (2024-11-21);
- `dated`: `<model>/T<YYYYMMDD>_G<commit8>/...`, run.py from 7739374c (`eval_id =
  f"T{date}_G{commit_id}"`) until a9343a1e (2026-04-09);
- `timestamped`: `<model>/T<YYYYMMDD-HHMMSS>/...` with `status.json` (`commit`), vlmeval/smp/
  file.py `build_eval_id` and vlmeval/smp/status_report.py `upsert_run_status` from a9343a1e;
- the scored copy `<model>_<dataset>_<judge>_result.xlsx` (rows + `hit`, `log` = `Match Log:
  <text the letter was read from>. `) and `<model>_<dataset>_acc.csv` (`split`, `Overall` = mean
  of `hit`): vlmeval/dataset/image_mcq.py `evaluate_heuristic`, vlmeval/dataset/utils/
  multiple_choice.py `extract_answer_from_item`, `eval_vanilla`, `mcq_vanilla_eval`,
  `report_acc` at e8e78f05.
lmms-eval (EvolvingLMMs-Lab/lmms-eval, lmms_eval/loggers/evaluation_tracker.py
`save_results_samples`; before it lmms_eval/__main__.py):
- `0.2.0`: tag v0.2.0 (2024-06-13, lmms_eval/__main__.py `cli_evaluate`) — one JSON document
  `<task>.json` = `{"args", "model_configs", "logs": [samples sorted by doc_id], "time"}` beside
  `results.json`; samples as lmms_eval/evaluator.py builds them (`doc`, `arguments` kept);
- `0.2.3`: tag v0.2.3 (2024-09-01) — lm-eval's naming (`samples_<task>_<date>.jsonl`,
  `results_<date>.json`), `arguments` kept as `gen_args_i`/`arg_j`, `doc` kept;
- `0.3`: 4eadb30e — `filtered_resps` a list, `resps` nested, `doc` and `arguments` popped, the
  task's `process_results` dict kept;
- `2026`: 75571cfe — a one-request line flattened (`filtered_resps` a bare string);
- task metric dicts with the task's own parse: videomme `pred_answer` (lmms_eval/tasks/videomme/
  utils.py `videomme_process_results`), MME's `mme_perception_score` with a `question_id` shared
  by an image's two questions (lmms_eval/tasks/mme/utils.py `mme_process_results`), and
  StoryScope's own exported task (its utils.py, run here as lmms-eval runs it).
lm-evaluation-harness (EleutherAI/lm-evaluation-harness, lm_eval/loggers/evaluation_tracker.py
`save_results_samples`):
- `0.4.0`: tags v0.4.0-v0.4.2 (lm_eval/__main__.py) — one JSON array (indent 2) named
  `<model_args with / and = as __>_<task>.jsonl` beside `results.json`; samples unsanitised
  (`filtered_resps` `[[-1.2, false], ...]`, `arguments` lists), lm_eval/evaluator.py;
- `2024-05`: f4f59251 — JSON lines named `samples_<task>_<date>.json`;
- `0.4.3+`: 3850e21a (2024-06-13) on — `samples_<task>_<date>.jsonl`.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from tests.support import harness_fixtures as hf

# -- VLMEvalKit --------------------------------------------------------------------------------
VLMEVAL_SHAPES = {
    "flat": None,
    "dated": "T20250428_G1ff966c3",
    "timestamped": "T20260417-093000",
}
TIMESTAMPED_COMMIT = "5e7a1c02"


def vlmevalkit_run_folder(root: Path, model: str, shape: str) -> Path:
    """The folder VLMEvalKit writes one run's files to, at the version `shape` names."""
    folder = root / model
    eval_id = VLMEVAL_SHAPES[shape]
    if eval_id:
        folder = folder / eval_id
    folder.mkdir(parents=True, exist_ok=True)
    if shape == "timestamped":
        status = {"eval_id": eval_id, "commit": TIMESTAMPED_COMMIT, "model_name": model,
                  "created_at": "2026-04-17T09:30:00+00:00", "mode": "all"}  # fmt: skip
        (folder / "status.json").write_text(json.dumps(status, indent=2))
    return folder


def write_xlsx(path: Path, columns: list[str], rows: list[list]) -> Path:
    from openpyxl import Workbook

    book = Workbook(write_only=True)
    sheet = book.create_sheet()
    sheet.append(columns)
    for row in rows:
        sheet.append(row)
    book.save(path)
    return path


def write_vlmevalkit_predictions(folder: Path, model: str, dataset: str, predictions: list[str],
                                 mcq_ids: list[str]) -> Path:  # fmt: skip
    """`<model>_<dataset>.xlsx`: the dataset's rows plus `prediction`."""
    rows = [hf.vlmevalkit_row(i, m, p) for i, (m, p) in enumerate(zip(mcq_ids, predictions))]
    return write_xlsx(folder / f"{model}_{dataset}.xlsx", hf.VLMEVAL_COLUMNS, rows)


def write_vlmevalkit_scored(folder: Path, model: str, dataset: str, judged: list[tuple],
                            mcq_ids: list[str], judge: str = "openai") -> Path:  # fmt: skip
    """The prediction file, its scored copy and its `_acc.csv`, as `evaluate_heuristic` leaves
    them. `judged`: per row (prediction, the text the letter was read from — the prediction
    when `can_infer` read it, else the judge model's reply or VLMEvalKit's random-pick message —
    and hit 0/1)."""
    write_vlmevalkit_predictions(folder, model, dataset, [j[0] for j in judged], mcq_ids)
    rows = [
        [*hf.vlmevalkit_row(i, m, prediction), hit, f"Match Log: {log}. "]
        for i, (m, (prediction, log, hit)) in enumerate(zip(mcq_ids, judged))
    ]
    path = folder / f"{model}_{dataset}_{judge}_result.xlsx"
    write_xlsx(path, [*hf.VLMEVAL_COLUMNS, "hit", "log"], rows)
    overall = sum(j[2] for j in judged) / len(judged)
    with (folder / f"{model}_{dataset}_acc.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["split", "Overall"])
        writer.writerow(["none", overall])
    return path


# -- lmms-eval -----------------------------------------------------------------------------------
def exported_lmms_utils() -> dict:
    """StoryScope's exported lmms-eval task utils.py, loaded from a file as lmms-eval loads it
    (`!function utils.<name>` imports the module beside the task YAML)."""
    import importlib.util
    import tempfile

    from pipelines.export_task.writers import lmms_eval_utils

    path = Path(tempfile.mkdtemp(prefix="storyscope-task-")) / "utils.py"
    path.write_text(lmms_eval_utils(), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("storyscope_task_utils", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return vars(module)


def lmms_line(doc_id: int, reply: str, metric: str, value: dict, version: str = "0.3") -> dict:
    """One `--log_samples` line of a generate_until task whose `process_results` returned
    `{metric: value}`."""
    line = {
        "doc_id": doc_id,
        "target": str(value.get("answer", "")),
        "filtered_resps": [reply],
        "resps": [[reply]],
        "doc_hash": f"d{doc_id}",
        "prompt_hash": f"p{doc_id}",
        "target_hash": "t",
        metric: value,
        "input": f"prompt {doc_id}",
    }
    if version == "2026":  # one request: flattened, then `resps` dropped as equal
        line["filtered_resps"] = reply
        line.pop("resps")
    elif version in ("0.2.0", "0.2.3"):  # nothing popped; arguments as lm-eval sanitises them
        line["doc"] = {"question": f"prompt {doc_id}"}
        line["arguments"] = {"gen_args_0": {"arg_0": f"prompt {doc_id}", "arg_1": {}}}
    else:
        line.pop("resps")  # equal to filtered_resps
    return line


def write_lmms_run(folder: Path, task: str, lines: list[dict], scores: dict,
                   model: str = "lmms-lab/llava-onevision-qwen2-7b-ov",
                   version: str = "0.3.0") -> Path:  # fmt: skip
    """`<model>/<date>_samples_<task>.jsonl` and `<date>_results.json` with the task's scores
    (`results[task]["<metric>,none"]`, as `save_results_aggregated` writes them); version
    0.2.3 named them `samples_<task>_<date>.jsonl` and `results_<date>.json`."""
    out = folder / model.replace("/", "__")
    out.mkdir(parents=True, exist_ok=True)
    results = {
        "results": {task: {"alias": task, **{f"{k},none": v for k, v in scores.items()}}},
        "configs": {task: {"task": task, "output_type": "generate_until"}},
        "config": {"model": "llava_onevision", "model_args": f"pretrained={model}"},
        **({"lmms_eval_version": version} if version not in ("0.2.0", "0.2.3") else {}),
        "model_name": model,
    }
    if version == "0.2.3":
        (out / f"results_{hf.DATE}.json").write_text(json.dumps(results, indent=2))
        return hf.write_jsonl(out / f"samples_{task}_{hf.DATE}.jsonl", lines)
    if version == "0.2.0":
        (out / "results.json").write_text(json.dumps(results, indent=4))
        for line in lines:
            line["arguments"] = [[line["input"]]]
        document = {"args": {"model": "llava_onevision", "tasks": task}, "model_configs": {},
                    "logs": sorted(lines, key=lambda x: x["doc_id"]), "time": hf.DATE}  # fmt: skip
        path = out / f"{task}.json"
        path.write_text(json.dumps(document, indent=4), encoding="utf-8")
        return path
    (out / f"{hf.DATE}_results.json").write_text(json.dumps(results, indent=2))
    return hf.write_jsonl(out / f"{hf.DATE}_samples_{task}.jsonl", lines)


def storyscope_task_run(folder: Path, replies: list[str], mcq_ids: list[str],
                        version: str = "0.3") -> tuple[Path, float]:  # fmt: skip
    """An lmms-eval run of StoryScope's exported MCQ task: each line's metric dict made by the
    exported `process_results`, the summary's score by its `aggregate_score`."""
    utils = exported_lmms_utils()
    choices = ["red", "green", "blue", "black"]
    values = []
    lines = []
    for i, (mcq, reply) in enumerate(zip(mcq_ids, replies, strict=True)):
        doc = {"id": mcq, "mcq_id": mcq, "input": "Which colour?", "choices": choices,
               "target": hf.mcq_gold(i)}  # fmt: skip
        result = utils["process_results"](doc, [reply])
        values.append(result["storyscope_accuracy"])
        lines.append(lmms_line(i, reply, "storyscope_accuracy", result["storyscope_accuracy"],
                               version))  # fmt: skip
    accuracy = utils["aggregate_score"](values)
    path = write_lmms_run(folder, "storyscope_svqa", lines, {"storyscope_accuracy": accuracy})
    return path, accuracy


# -- lm-evaluation-harness -----------------------------------------------------------------------
def write_lm_eval_run(folder: Path, lines: list[dict], task: str, output_type: str | None,
                      shape: str = "0.4.3+", summary: bool = True,
                      acc: float = 0.5) -> Path:  # fmt: skip
    """`samples_<task>_<date>.json[l]` (by `shape`) and, when `summary`, `results_<date>.json`."""
    model = "EleutherAI/pythia-160m"
    out = folder / model.replace("/", "__")
    out.mkdir(parents=True, exist_ok=True)
    if summary:
        config = {"task": task}
        if output_type:
            config["output_type"] = output_type
        results = {
            "results": {task: {"acc,none": acc}},
            "configs": {task: config},
            "config": {"model": "hf", "model_args": f"pretrained={model}"},
            "model_name": model,
        }
        (out / f"results_{hf.DATE}.json").write_text(json.dumps(results, indent=2))
    if shape == "0.4.0":
        if summary:
            (out / f"results_{hf.DATE}.json").rename(out / "results.json")
        for line in lines:  # unsanitised: numbers and booleans, argument lists
            line["filtered_resps"] = [[float(a), b == "True"] for a, b in line["filtered_resps"]]
            line["resps"] = [[item] for item in line["filtered_resps"]]
            line["arguments"] = [list(g.values()) for g in line["arguments"].values()]
            line.pop("filter", None)
        path = out / f"pretrained__{model.replace('/', '__')}_{task}.jsonl"
        path.write_text(json.dumps(lines, indent=2), encoding="utf-8")
        return path
    suffix = ".json" if shape == "2024-05" else ".jsonl"
    return hf.write_jsonl(out / f"samples_{task}_{hf.DATE}{suffix}", lines)
