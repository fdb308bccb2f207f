"""OpenAI Batch API output files, optionally joined to the batch input file.

Followed the documented file format (OpenAI Batch API guide, "batch output file"; the `openai`
package's `BatchRequestOutput` / `BatchRequestOutputResponse` types): one JSON line per request,
`{"id", "custom_id", "response": {"status_code", "request_id", "body"}, "error"}`, in any order;
`body` is the endpoint's response (`/v1/chat/completions`: `choices[0].message.content`;
`/v1/responses`: `output[*].content[*].text`). A failed request has `error` set or a non-2xx
`status_code`. The input file has `{"custom_id", "method", "url", "body"}` per request.

Linking: `--map question_id=FIELD` of the input line (e.g. `body.metadata.question_id`), else the
input's `body.metadata.question_id` / `mcq_id`, else `custom_id`. MCQ letter: a reply that is a
bare letter or `ANSWER: X` (no harness scored it; letters.py `plain_letter`); with
`--map letters=1234` a reply that is one of those labels (the first names option A).
The model is the one the replies name (`response.body.model`, the served snapshot), not the
alias the input requested.
"""

from __future__ import annotations

from pathlib import Path

from data_access.importers.errors import fail
from data_access.importers.results import formats
from data_access.importers.results.samples import HarnessRun, OpenedResults, ResultSample
from pipelines.results.letters import (
    BARE_LETTER,
    MAPPED_LETTERS,
    labelled_letter,
    parse_labels,
    plain_letter,
)
from pipelines.results.options import ReadOptions
from pipelines.results.readers import register_reader
from pipelines.results.records import as_id, dig, iter_jsonl, require

WHAT = "an OpenAI Batch output line"
INPUT_LINKS = ("body.metadata.question_id", "body.metadata.mcq_id")


def _reply_text(body) -> str | None:
    content = dig(body, "choices.0.message.content")
    if isinstance(content, str):
        return content
    texts = [
        part.get("text")
        for item in (dig(body, "output") or [])
        if isinstance(item, dict)
        for part in (item.get("content") or [])
        if isinstance(part, dict) and isinstance(part.get("text"), str)
    ]
    return "".join(texts) if texts else None


def _error(line: dict) -> str | None:
    error = line.get("error")
    if error:
        return str(dig(error, "message") or error)
    status = dig(line, "response.status_code")
    if isinstance(status, int) and status >= 300:
        message = dig(line, "response.body.error.message")
        return f"HTTP {status}" + (f": {message}" if message else "")
    return None


def read_batch_input(path: Path, options: ReadOptions) -> tuple[dict[str, str], str | None]:
    """custom_id -> link id, and the model the requests named (first line's `body.model`).

    Only the ids are kept (not the prompts), so the map is small next to the file.
    """
    links: dict[str, str] = {}
    model = None
    mapped = options.mapped("question_id")
    for record, line in iter_jsonl(path):
        custom_id = as_id(require(line, "custom_id", path.name, record, "a Batch input line"))
        if custom_id in links:
            raise fail(path.name, record, "custom_id", f"duplicated custom_id {custom_id!r}")
        fields = (mapped,) if mapped else INPUT_LINKS
        link = next((v for f in fields if (v := as_id(dig(line, f))) is not None), None)
        links[custom_id] = link or custom_id
        model = model or as_id(dig(line, "body.model"))
    return links, model


def letter_reader(options: ReadOptions):
    """(rule, text -> letter): the `--map letters` labels when given, else a bare letter."""
    spec = options.mapped("letters")
    if spec:
        labels = parse_labels(spec)
        return MAPPED_LETTERS, lambda text: labelled_letter(text, labels)
    return BARE_LETTER, plain_letter


def _samples(path: Path, links: dict[str, str] | None, input_name: str | None, options):
    rule, letter_of = letter_reader(options)
    for record, line in iter_jsonl(path):
        custom_id = as_id(require(line, "custom_id", path.name, record, WHAT))
        if "response" not in line and "error" not in line:
            if "body" in line and ("url" in line or "method" in line):
                raise fail(
                    path.name,
                    record,
                    "response",
                    "this is a Batch input file (custom_id, method, url, body): import the"
                    " output file, with this one as --batch-input",
                )
            require(line, "response", path.name, record, WHAT)
        if links is not None and custom_id not in links:
            raise fail(path.name, record, "custom_id", f"{custom_id!r} is not in {input_name}")
        text = _reply_text(dig(line, "response.body"))
        yield ResultSample(
            record,
            custom_id or "?",
            links[custom_id] if links is not None else custom_id,
            text,
            letter_of(text) if text else None,
            _error(line),
            None,
            rule if text else None,
        )


def _first_model(path: Path) -> str | None:
    """The model the first successful reply names (the output has no header)."""
    models = (as_id(dig(line, "response.body.model")) for _, line in iter_jsonl(path))
    return next((model for model in models if model), None)


@register_reader(formats.OPENAI_BATCH)
def open_openai_batch(path: Path, options: ReadOptions) -> OpenedResults:
    """A Batch output JSONL (joined to `options.batch_input` when given)."""
    if options.mapped("question_id") and options.batch_input is None:
        raise fail(
            path.name,
            "(option)",
            "--map",
            "question_id names a field of the Batch input lines: give --batch-input too",
        )
    links, requested = (None, None)
    files = [path]
    if options.batch_input is not None:
        links, requested = read_batch_input(options.batch_input, options)
        files.append(options.batch_input)
    served = _first_model(path)
    run = HarnessRun("openai-batch", model=served or requested)
    if served and requested and served != requested:
        run.notes.append(f"the input requested model {requested}; the replies name {served}")
    return OpenedResults(
        format="openai-batch",
        files=files,
        label=path.name,
        run=run,
        samples=_samples(
            path, links, options.batch_input.name if links is not None else None, options
        ),
        id_field="custom_id",
        link_field="custom_id" if links is None else "custom_id (batch input)",
    )
