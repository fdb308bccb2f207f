"""Results files built in code, each to its harness's writer code (cited per writer), and a
store holding the questions they answer.

- lmms-eval: lmms_eval/loggers/evaluation_tracker.py (EvolvingLMMs-Lab/lmms-eval at 4eadb30e):
  `<date>_samples_<task>.jsonl` lines as `save_results_samples` writes them (doc popped,
  `resps` dropped when equal to `filtered_resps`, `target` a string) and `<date>_results.json`.
- lm-evaluation-harness: lm_eval/loggers/evaluation_tracker.py (EleutherAI/lm-evaluation-harness
  at da211969): `samples_<task>_<date>.jsonl` (every response made a string by `sanitize_list`,
  `arguments` as `gen_args_i`/`arg_j`, one line per filter) and `results_<date>.json`.
- VLMEvalKit: the dataset's rows plus `prediction` (vlmeval/inference.py), as .xlsx or .tsv.
- inspect_ai: a real `EvalLog` written by inspect_ai's own `write_eval_log`.
- OpenAI Batch: output lines `{id, custom_id, response: {status_code, request_id, body}, error}`.
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Iterable, Iterator
from pathlib import Path

from data_access.importers import import_lfvqa_dir

DATE = "2026-01-02T03-04-05.678901"
CLAIM = "Ann believes the letter was lost."  # every seeded question's one core claim
LETTERS = "ABCDE"


# -- the store ------------------------------------------------------------------------------
def question_ids(n: int) -> list[str]:
    return [f"q{i:06d}" for i in range(n)]


def mcq_ids(n: int) -> list[str]:
    return [f"m{i:06d}" for i in range(n)]


def _write_jsonl(path: Path, rows: Iterable[dict]) -> Path:
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path


def mcq_gold(index: int) -> str:
    """The correct option of MCQ `index` (cycles A-D)."""
    return LETTERS[index % 4]


def seed_store(store, folder: Path, n_questions: int = 6, n_mcqs: int = 6) -> None:
    """Open-ended questions `q000000...` of film f1 and 4-option MCQs `m000000...` (gold
    `mcq_gold(i)`), imported through the interchange importer."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "manifest.json").write_text(
        json.dumps({"format": "storyscope-lfvqa", "version": 1, "dataset_id": "t", "name": "T"})
    )
    _write_jsonl(folder / "films.jsonl", [{"film_id": "f1", "title": "Film One"}])
    _write_jsonl(
        folder / "questions.jsonl",
        (
            {"question_id": q, "film_id": "f1", "qtype": "Q2", "center": "Ann", "text": f"Why {q}?"}
            for q in question_ids(n_questions)
        ),
    )
    _write_jsonl(
        folder / "rubric_claims.jsonl",
        (
            {"claim_id": f"{q}-c1", "question_id": q, "ord": 1, "role": "core", "text": CLAIM}
            for q in question_ids(n_questions)
        ),
    )
    if n_mcqs:
        choices = ["red", "green", "blue", "black"]
        _write_jsonl(
            folder / "mcq_questions.jsonl",
            (
                {
                    "mcq_id": m,
                    "source": "Movie",
                    "vid": "f1",
                    "question": f"Which colour {m}?",
                    "choices": choices,
                    "option": mcq_gold(i),
                    "gt": choices[LETTERS.index(mcq_gold(i))],
                    "question_type": "P",
                    "story_element": "C",
                }
                for i, m in enumerate(mcq_ids(n_mcqs))
            ),
        )
    import_lfvqa_dir(store, folder)


# -- lmms-eval --------------------------------------------------------------------------------
def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def seeded_store_copy(store_path: Path, seeded_template, n: int):
    """A store at `store_path` seeded like `seed_store(n_questions=n, n_mcqs=n)`: a copy of one
    seeded once per test process (`seeded_template` in tests/conftest.py)."""
    from tests.support.store_files import store_copy

    template = seeded_template(
        f"results-{n}-{n}",
        lambda store, folder: seed_store(store, folder / "seed", n_questions=n, n_mcqs=n),
    )
    return store_copy(template, store_path)


def lmms_eval_line(
    doc_id: int,
    question_id: str | None,
    reply: str,
    filtered: str | None = None,
    task: str = "storyscope_lfvqa",
) -> dict:
    """One line as lmms-eval's `save_results_samples` writes it: the task's metric dict carries
    the doc's id (lmms-eval tasks' convention), `resps` is dropped when filtering changed
    nothing, `doc` is popped."""
    filtered_resps = [filtered if filtered is not None else reply]
    resps = [[reply]]
    line = {
        "doc_id": doc_id,
        "target": "gold",
        "filtered_resps": filtered_resps,
        "resps": resps,
        "doc_hash": _hash(str(doc_id)),
        "prompt_hash": _hash(f"prompt {doc_id}"),
        "target_hash": _hash("gold"),
        f"{task}_score": {"question_id": question_id, "pred": filtered_resps[0]},
        "input": f"prompt {doc_id}",
    }
    if filtered_resps == resps[0]:
        line.pop("resps")
    if question_id is None:
        line.pop(f"{task}_score")
    return line


def write_lmms_eval(
    folder: Path,
    lines: Iterable[dict],
    task: str = "storyscope_lfvqa",
    model: str = "lmms-lab/llava-onevision-qwen2-7b-ov",
) -> Path:
    """`<folder>/<model_sanitized>/<date>_samples_<task>.jsonl` + `<date>_results.json`."""
    out = folder / model.replace("/", "__")
    out.mkdir(parents=True, exist_ok=True)
    results = {
        "results": {task: {"alias": task}},
        "configs": {task: {"task": task, "output_type": "generate_until"}},
        "config": {"model": "llava_onevision", "model_args": f"pretrained={model},conv=qwen"},
        "lmms_eval_version": "0.3.0",
        "model_name": model,
        "model_name_sanitized": model.replace("/", "__"),
    }
    (out / f"{DATE}_results.json").write_text(json.dumps(results, indent=2))
    return _write_jsonl(out / f"{DATE}_samples_{task}.jsonl", lines)


# -- lm-evaluation-harness -------------------------------------------------------------------
def lm_eval_line(
    doc_id: int, doc: dict, loglikelihoods: list[float] | None = None, reply: str | None = None,
    filter_name: str = "none",
) -> dict:  # fmt: skip
    """One `samples_<task>` line: a multiple_choice doc (one [loglikelihood, is_greedy] per
    choice, as strings) or a generate_until one (`reply`)."""
    if loglikelihoods is not None:
        resps = [[[str(ll), "False"]] for ll in loglikelihoods]
        filtered = [[str(ll), "False"] for ll in loglikelihoods]
        arguments = {
            f"gen_args_{i}": {"arg_0": "ctx", "arg_1": f" {c}"} for i, c in enumerate("ABCD")
        }
    else:
        resps, filtered = [[reply]], [reply]
        arguments = {"gen_args_0": {"arg_0": "ctx", "arg_1": {"until": ["\n"]}}}
    return {
        "doc_id": doc_id,
        "doc": doc,
        "target": "0",
        "arguments": arguments,
        "resps": resps,
        "filtered_resps": filtered,
        "filter": filter_name,
        "metrics": ["acc"],
        "doc_hash": _hash(json.dumps(doc)),
        "prompt_hash": _hash("ctx"),
        "target_hash": _hash("0"),
        "acc": 1.0,
    }


def write_lm_eval(
    folder: Path,
    lines: Iterable[dict],
    task: str,
    output_type: str,
    model: str = "EleutherAI/pythia-160m",
) -> Path:
    out = folder / model.replace("/", "__")
    out.mkdir(parents=True, exist_ok=True)
    results = {
        "results": {task: {"acc,none": 0.5}},
        "configs": {task: {"task": task, "output_type": output_type}},
        "config": {"model": "hf", "model_args": f"pretrained={model},dtype=float32"},
        "lm_eval_version": "0.4.9",
        "model_name": model,
    }
    (out / f"results_{DATE}.json").write_text(json.dumps(results, indent=2))
    return _write_jsonl(out / f"samples_{task}_{DATE}.jsonl", lines)


# -- VLMEvalKit ----------------------------------------------------------------------------------
VLMEVAL_COLUMNS = ["index", "mcq_id", "question", "A", "B", "C", "D", "answer", "prediction"]


def vlmevalkit_row(index: int, mcq_id: str, prediction: str) -> list:
    return [index, mcq_id, f"Which colour {mcq_id}?", "red", "green", "blue", "black",
            mcq_gold(index), prediction]  # fmt: skip


def write_vlmevalkit(folder: Path, rows: Iterable[list], suffix: str = ".xlsx",
                     model: str = "Qwen2-VL-7B", dataset: str = "StoryVideoQA",
                     extra: str = "", columns: list[str] = VLMEVAL_COLUMNS) -> Path:  # fmt: skip
    """`<folder>/<model>/<model>_<dataset><extra><suffix>` (extra: `_gpt-4o_result`)."""
    out = folder / model
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{model}_{dataset}{extra}{suffix}"
    if suffix == ".tsv":
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle, delimiter="\t")
            writer.writerow(columns)
            writer.writerows(rows)
        return path
    from openpyxl import Workbook

    book = Workbook(write_only=True)
    sheet = book.create_sheet()
    sheet.append(columns)
    for row in rows:
        sheet.append(row)
    book.save(path)
    return path


# -- inspect_ai ----------------------------------------------------------------------------------
def inspect_sample(sample_id, completion: str, metadata: dict | None = None, epoch: int = 1,
                   error: str | None = None, score_answer: str | None = None):  # fmt: skip
    """An `EvalSample` as inspect_ai's task runner records it."""
    from inspect_ai.log import EvalError, EvalSample
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import Score

    return EvalSample(
        id=sample_id,
        epoch=epoch,
        input="question",
        target="gold",
        output=ModelOutput.from_content("mockllm/model", completion),
        scores={"choice": Score(value="C", answer=score_answer)} if score_answer else None,
        metadata=metadata or {},
        error=EvalError(message=error, traceback="", traceback_ansi="") if error else None,
    )


def write_inspect_log(path: Path, samples: list, task: str = "storyscope_lfvqa",
                      model: str = "openai/smollm2",
                      version: str | None = None) -> Path:  # fmt: skip
    """A complete log written by inspect_ai's `write_eval_log` (`.eval` or `.json` by suffix);
    `version`: the inspect_ai version the log says wrote it (default: the installed one)."""
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSpec, write_eval_log

    spec = EvalSpec(
        created="2026-01-02T03:04:05+00:00",
        task=task,
        dataset=EvalDataset(
            name=task, samples=len(samples), sample_ids=list(dict.fromkeys(s.id for s in samples))
        ),
        model=model,
        model_args={"base_url": "http://127.0.0.1:8080/v1"},
        config=EvalConfig(),
        packages={"inspect_ai": version or inspect_version()},
    )
    log = EvalLog(eval=spec, status="success", samples=samples)
    write_eval_log(log, str(path))
    return path


def inspect_version() -> str:
    from importlib.metadata import version

    return version("inspect_ai")


# -- OpenAI Batch ----------------------------------------------------------------------------------
def batch_output_line(custom_id: str, content: str | None, status: int = 200,
                      model: str = "gpt-4o-mini-2024-07-18") -> dict:  # fmt: skip
    body = (
        {"id": f"chatcmpl-{custom_id}", "object": "chat.completion", "model": model,
         "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                      "finish_reason": "stop"}]}
        if status == 200
        else {"error": {"message": "Rate limit reached", "type": "rate_limit"}}
    )  # fmt: skip
    return {
        "id": f"batch_req_{custom_id}",
        "custom_id": custom_id,
        "response": {"status_code": status, "request_id": f"req_{custom_id}", "body": body},
        "error": None,
    }


def batch_input_line(custom_id: str, question_id: str, model: str = "gpt-4o-mini") -> dict:
    return {
        "custom_id": custom_id,
        "method": "POST",
        "url": "/v1/chat/completions",
        "body": {
            "model": model,
            "messages": [{"role": "user", "content": f"Answer {question_id}"}],
            "metadata": {"question_id": question_id},
        },
    }


def write_jsonl(path: Path, rows: Iterable[dict]) -> Path:
    return _write_jsonl(path, rows)


def many_lmms_lines(n: int, n_known: int) -> Iterator[dict]:
    """`n` lmms-eval lines, the first `n_known` naming stored questions."""
    for i in range(n):
        qid = f"q{i:06d}" if i < n_known else f"x{i:06d}"
        yield lmms_eval_line(i, qid, f"Ann believes the letter {i} was lost.")


def write_big_inspect_log(path: Path, n: int) -> Path:
    """An `.eval` log of `n` MCQ samples (`m000000...`, replies cycling `ANSWER: A-D`), written
    without holding them: inspect_ai writes the log with its first sample (header, summaries),
    then each further sample is added as the member inspect's recorder writes for it
    (`samples/<id>_epoch_<n>.json`, inspect_ai/log/_recorders/eval.py `_sample_filename`),
    serialised from the first sample's own JSON with its id, reply and metadata changed."""
    import zipfile

    ids = mcq_ids(n)
    first = inspect_sample(ids[0], "ANSWER: A", {"mcq_id": ids[0]})
    write_inspect_log(path, [first], task="svqa_mc")
    _set_sample_ids(path, ids)
    template = first.model_dump(mode="json", exclude_none=True)
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_DEFLATED) as archive:
        for i, sample_id in enumerate(ids[1:], start=1):
            reply = f"ANSWER: {LETTERS[i % 4]}"
            template["id"], template["metadata"] = sample_id, {"mcq_id": sample_id}
            template["output"]["choices"][0]["message"]["content"] = reply
            template["output"]["completion"] = reply
            archive.writestr(f"samples/{sample_id}_epoch_1.json", json.dumps(template))
    return path


def _set_sample_ids(path: Path, ids: list[str]) -> None:
    """Rewrite the header's `eval.dataset` to list every sample (inspect's readers need it)."""
    import zipfile

    with zipfile.ZipFile(path) as source:
        members = {info.filename: source.read(info) for info in source.infolist()}
    for name in ("header.json", "_journal/start.json"):
        if name in members:
            header = json.loads(members[name])
            header["eval"]["dataset"].update(samples=len(ids), sample_ids=ids)
            members[name] = json.dumps(header).encode()
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as target:
        for name, data in members.items():
            target.writestr(name, data)
