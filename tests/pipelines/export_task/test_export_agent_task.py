"""The agent setting as an exported inspect task (LF-VideoQA §4.3), proved with real parts:
`storyscope export-task --setting agent --tier ...` writes the task, `inspect eval` (a
subprocess, inspect's own command line) runs it against the scripted OpenAI-compatible server,
whose model calls the tools (valid calls, arguments that fail a tool's schema, a tool it made
up), then answers or never does (the step limit); the claim judge scores; and the log imports
back with every tool call as the answer's evidence trail. What the tools returned and touched is
checked against the tools run on the store's own index."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipelines.cli import app, load_commands
from tests.support.fake_server import FakeReply
from tests.support.gold_film import GOLD_FILM_ID, with_gold_film

pytest.importorskip("inspect_ai", reason="inspect_ai is in the test extra (make test)")
load_commands()
# inspect's OpenAI-compatible provider reads <SERVICE>_BASE_URL and <SERVICE>_API_KEY
SERVICE = "scripted"
MODEL = f"openai-api/{SERVICE}/fake-model"
ANSWER = "Kit moved the boat log to the lamp room; Mara does not know it yet."
# question id -> the calls of each turn (a turn after the last: the answer)
SCRIPTS = {
    "keepers-gold-N1-a": [
        [
            {"name": "find_clips", "arguments": {"query": "the boat log in the boatyard"}},
            {"name": "subtitle_search", "arguments": {"query": "log"}},
        ],
        [
            {"name": "character_presence", "arguments": {"start": 10, "end": "later"}},
            {"name": "watch_the_film", "arguments": {}},
        ],
    ],
    # never answers: calls a tool on every turn, until the step limit
    "keepers-gold-N1-b": [[{"name": "browse_clip", "arguments": {"start": 0, "end": 60}}]] * 9,
}
STEP_LIMIT = 3
VQA = {"start": 30, "end": 90, "question": "Who carries the ledger?"}


def _question_of(body: dict) -> str:
    users = [m for m in body["messages"] if m["role"] == "user"]
    text = json.dumps(users[0]["content"])
    return next(q for q, _ in _QUESTION_TEXTS.items() if _ in text)


_QUESTION_TEXTS: dict[str, str] = {}  # question id -> its text (filled from the store)


def _verdicts(body: dict) -> str:
    text = body["messages"][-1]["content"]
    claims = text.split("RUBRIC CLAIMS:")[1].split("CANDIDATE ANSWER:")[0].strip().splitlines()
    labels = ["asserted"] + ["omitted"] * (len(claims) - 1)
    return json.dumps({"verdicts": [{"claim": i + 1, "label": x} for i, x in enumerate(labels)]})


def scripted(body: dict, number: int) -> FakeReply | str:
    """The agent's turns by its question's script; the judge labels claim 1 asserted; a tool's
    model question (regular-tier vqa) is answered in one line."""
    last = json.dumps(body["messages"][-1].get("content"))
    if "RUBRIC CLAIMS:" in last:
        return _verdicts(body)
    if not body.get("tools"):
        return "The frames show Kit carrying a ledger up the lighthouse stairs."
    turn = sum(m["role"] == "assistant" for m in body["messages"])
    script = SCRIPTS[_question_of(body)]
    if turn < len(script):
        return FakeReply(tool_calls=script[turn])
    return ANSWER


@pytest.fixture
def gold_store(store):
    with_gold_film(store)
    rows = store.df("SELECT question_id, text FROM questions")
    _QUESTION_TEXTS.update(zip(rows["question_id"], rows["text"]))
    return store


def _cli(*args) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def _export(store, out: Path, tier: str, *args) -> None:
    printed = _cli("export-task", "--store", str(store.path), "--out", str(out), "--setting",
                   "agent", "--tier", tier, "--json", *args)  # fmt: skip
    files = json.loads(printed)["files"]
    assert Path(files["indexes"]) == out.resolve() / "indexes"
    manifest = json.loads((out / "storyscope_task.json").read_text())
    assert manifest["setting"] == "agent" and manifest["agent"]["tier"] == tier
    for film_id, relative in manifest["agent"]["indexes"].items():
        index = json.loads((out / relative).read_text())
        assert index["film_id"] == film_id and index["tier"] == tier


def _inspect_eval(server, task: Path, logs: Path, *args) -> Path:
    env = {
        **os.environ,
        f"{SERVICE.upper()}_BASE_URL": server.base_url,
        f"{SERVICE.upper()}_API_KEY": "local-test-key",
        "NO_PROXY": "*",
        "PYTHONPATH": str(Path(__file__).resolve().parents[1]),  # StoryScope's tools
    }
    command = [sys.executable, "-m", "inspect_ai", "eval", "task.py", "--model", MODEL]
    command += ["--log-dir", str(logs), "--display", "none", *args]
    ran = subprocess.run(command, cwd=task, env=env, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr[-3000:]
    (log,) = sorted(logs.glob("*.eval"))
    return log


def _records(frame) -> list[dict]:
    return frame.astype(object).where(frame.notna(), None).to_dict("records")


def _steps(store, setting: str, question: str):
    return _records(
        store.df(
            "SELECT turn, call_index, tool, arguments, intervals, result_chars, result_text,"
            " error FROM agent_steps WHERE setting_id = ? AND question_id = ?"
            " ORDER BY turn, call_index",
            [setting, question],
        )
    )


def test_exported_agent_runs_in_inspect_and_its_trail_imports_back(gold_store, fake_llm, tmp_path):
    from inspect_ai.log import read_eval_log

    from pipelines.agents.tools import FilmIndex, call_tool
    from pipelines.results import import_results

    server = fake_llm(scripted)
    task = tmp_path / "task"
    _export(gold_store, task, "oracle", "--where", "question=keepers-gold-N1-a,keepers-gold-N1-b")
    log_path = _inspect_eval(server, task, tmp_path / "logs", "-T", f"step_limit={STEP_LIMIT}")
    log = read_eval_log(str(log_path))
    assert log.status == "success", log.error
    assert log.eval.metadata["storyscope"]["tier"] == "oracle"
    scores = {s.id: next(iter(s.scores.values())).value for s in log.samples}
    assert scores["keepers-gold-N1-a"]["judged"] == 1.0  # the claim judge scored the answer
    assert scores["keepers-gold-N1-a"]["recall"] is not None
    before = gold_store.scalar("SELECT count(*) FROM agent_steps")
    _prompted_as_the_loop(server.log.bodies, gold_store)
    _damaged_and_dry_imports_write_nothing(gold_store, log_path, tmp_path)

    report = import_results(gold_store, log_path)
    assert report.kind == "answers" and report.n_matched == 1  # N1-b never answered
    assert report.n_trails == 2 and report.trail_outcomes == {"answered": 1, "step_limit": 1}
    setting = report.setting_id
    assert setting == f"inspect_ai:{MODEL}:storyscope_lfvqa:agent-oracle"
    row = gold_store.df("SELECT source, tier FROM settings WHERE setting_id = ?", [setting])
    assert row.to_dict("records") == [{"source": "agent", "tier": "oracle"}]
    answer = gold_store.scalar(
        "SELECT text FROM answers WHERE setting_id = ? AND question_id = ?",
        [setting, "keepers-gold-N1-a"],
    )
    assert answer == ANSWER

    index = FilmIndex.load(gold_store, GOLD_FILM_ID, "oracle")
    steps = _steps(gold_store, setting, "keepers-gold-N1-a")
    script = SCRIPTS["keepers-gold-N1-a"]
    called = [(turn, i, call["name"]) for turn, calls in enumerate(script)
              for i, call in enumerate(calls)]  # fmt: skip
    assert [(s["turn"], s["call_index"], s["tool"]) for s in steps] == called
    for step, (turn, i, _) in zip(steps[:2], called[:2], strict=True):
        arguments = script[turn][i]["arguments"]
        assert json.loads(step["arguments"]) == arguments and step["error"] is None
        expected = call_tool(index, step["tool"], arguments)  # the store's own index
        assert step["result_text"] == expected.text
        assert step["result_chars"] == len(expected.text)
        assert json.loads(step["intervals"]) == [list(span) for span in expected.intervals]
        assert expected.intervals  # a search that found something touched the film
    bad, unknown = steps[2], steps[3]
    assert bad["error"].startswith("bad arguments") and json.loads(bad["intervals"]) == []
    assert json.loads(bad["arguments"]) == {"start": 10, "end": "later"}
    assert unknown["error"].startswith("unknown tool") and "watch_the_film" in unknown["error"]

    never = _steps(gold_store, setting, "keepers-gold-N1-b")
    assert [(s["turn"], s["tool"]) for s in never] == [(t, "browse_clip") for t in range(3)]
    browse = call_tool(index, "browse_clip", {"start": 0, "end": 60})
    assert all(json.loads(s["intervals"]) == [list(x) for x in browse.intervals] for s in never)
    answers = _records(
        gold_store.df(
            "SELECT question_id, answer_id, tier, outcome, turns, tool_calls, tool_mode,"
            " failure, prompt_tokens FROM agent_answers WHERE setting_id = ?"
            " ORDER BY question_id",
            [setting],
        )
    )
    assert [(a["question_id"], a["outcome"], a["turns"], a["tool_calls"]) for a in answers] == [
        ("keepers-gold-N1-a", "answered", 3, 4),
        ("keepers-gold-N1-b", "step_limit", STEP_LIMIT, STEP_LIMIT),
    ]
    assert answers[0]["answer_id"] == f"{setting}/keepers-gold-N1-a"
    assert answers[1]["answer_id"] is None and str(STEP_LIMIT) in answers[1]["failure"]
    assert {a["tier"] for a in answers} == {"oracle"} and {a["tool_mode"] for a in answers} == {
        "harness"
    }
    assert all(a["prompt_tokens"] > 0 for a in answers)
    assert gold_store.scalar("SELECT count(*) FROM agent_steps") == before + 4 + STEP_LIMIT
    _same_trail_as_storyscopes_own_loop(gold_store, fake_llm.config(server), setting)


def _prompted_as_the_loop(bodies: list[dict], store) -> None:
    """The exported agent's turns carry StoryScope's loop's instruction and first message, and
    its last turn the loop's last-turn prompt."""
    from data_access.queries.task_questions import open_ended_questions
    from pipelines.agents.loop import AGENT_INSTRUCTION, LAST_TURN, start_conversation
    from pipelines.agents.tools import FilmIndex

    index = FilmIndex.load(store, GOLD_FILM_ID, "oracle")
    rows = {q["question_id"]: q for q in open_ended_questions(store, {}, None).to_dict("records")}
    turns = [b for b in bodies if b.get("tools")]
    assert {len(b["tools"]) for b in turns} == {5}
    for body in turns:
        expected = start_conversation(rows[_question_of(body)], index, index.duration_s).messages
        assert body["messages"][:2] == expected
    never = [b for b in turns if _question_of(b) == "keepers-gold-N1-b"]
    assert len(never) == STEP_LIMIT
    told = [b["messages"][-1]["content"] == LAST_TURN for b in never]
    assert told == [False] * (STEP_LIMIT - 1) + [True]
    assert never[0]["messages"][0]["content"] == AGENT_INSTRUCTION


def test_a_regular_tier_tool_asks_inspects_model(gold_store, fake_llm, tmp_path):
    """vqa in the regular tier asks the evaluated model (the tools' `ask` hook), and what it
    answered is the call's result in the imported trail."""
    from pipelines.results import import_results

    question = "keepers-gold-N1-a"
    server = fake_llm(lambda body, n: _regular(body))
    task = tmp_path / "task"
    _export(gold_store, task, "regular", "--where", f"question={question}")
    log_path = _inspect_eval(server, task, tmp_path / "logs")
    report = import_results(gold_store, log_path)
    (step,) = _steps(gold_store, report.setting_id, question)
    assert step["tool"] == "vqa" and step["error"] is None
    assert "Kit carrying a ledger" in step["result_text"]
    tool_requests = [b for b in server.log.bodies if not b.get("tools")]
    assert any("Who carries the ledger?" in json.dumps(b["messages"]) for b in tool_requests)


def _regular(body: dict):
    last = json.dumps(body["messages"][-1].get("content"))
    if "RUBRIC CLAIMS:" in last:
        return _verdicts(body)
    if not body.get("tools"):
        return "The frames show Kit carrying a ledger up the lighthouse stairs."
    turn = sum(m["role"] == "assistant" for m in body["messages"])
    return FakeReply(tool_calls=[{"name": "vqa", "arguments": VQA}]) if turn == 0 else ANSWER


def _rewrite_store(log_path: Path, out: Path, change) -> Path:
    """A copy of an .eval log with each sample's store changed by `change` (a damaged log)."""
    with zipfile.ZipFile(log_path) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename.startswith("samples/"):
                sample = json.loads(data)
                change(sample["store"])
                data = json.dumps(sample).encode()
            target.writestr(item, data)
    return out


def _trail_of(store, setting: str) -> dict:
    """question -> (its calls as the trail shows them, how its loop ended)."""
    from data_access.queries.agent_trail_view import trail_answers, trail_steps

    trail = {}
    for row in trail_answers(store).query("setting_id == @setting").itertuples():
        steps = trail_steps(store, row.question_id).query("setting_id == @setting")
        calls = [
            (s.turn, s.call_index, s.tool, json.loads(s.arguments),
             [[float(x) for x in span] for span in s.intervals],
             s.result_text if s.error is None else None, (s.error or "").split(":")[0])
            for s in steps.astype(object).where(steps.notna(), None).itertuples()
        ]  # fmt: skip
        trail[row.question_id] = (calls, row.outcome, row.turns, row.tool_calls)
    return trail


def _same_trail_as_storyscopes_own_loop(store, config, imported: str) -> None:
    """StoryScope's own agent loop, driven by the same scripted model on the same questions,
    leaves the same evidence trail as the inspect run imported: the same calls, arguments,
    intervals and results, the same errors (up to the validator's wording) and outcomes, and
    the trail view (Verdicts' queries) reads both alike."""
    from pipelines.answer import AnswerOptions, answer_questions

    where = {"question_id": list(SCRIPTS)}
    options = AnswerOptions(setting="agent", tier="oracle", where=where,
                            llm=config.public_dict(), max_turns=STEP_LIMIT)  # fmt: skip
    summary = answer_questions(store, options)
    assert summary["answered"] == 1 and summary["step_limit"] == 1
    ours = _trail_of(store, summary["setting_id"])
    theirs = _trail_of(store, imported)
    assert set(ours) == set(theirs) == set(SCRIPTS)
    assert ours == theirs


def _damaged_and_dry_imports_write_nothing(store, log_path: Path, tmp_path: Path) -> None:
    """A recorded interval that is not one refuses the import, naming file, sample and field;
    a dry run counts the trail; neither writes anything."""
    from data_access.importers import ImportFailure
    from pipelines.results import import_results

    def backwards(sample_store: dict) -> None:
        for key in sample_store["storyscope_trail"]:
            sample_store["storyscope_trail"][key] = [[50.0, 10.0]]

    damaged = _rewrite_store(log_path, tmp_path / "damaged.eval", backwards)
    counts = (
        "SELECT (SELECT count(*) FROM agent_steps), (SELECT count(*) FROM agent_answers),"
        " (SELECT count(*) FROM answers), (SELECT count(*) FROM settings)"
    )
    before = store.df(counts).values.tolist()
    with pytest.raises(ImportFailure) as refused:
        import_results(store, damaged)
    problem = str(refused.value.first)
    assert "damaged.eval" in problem and "sample 1" in problem
    assert "storyscope_trail" in problem and "[50.0, 10.0]" in problem
    assert store.df(counts).values.tolist() == before  # the store as it was

    dry = import_results(store, log_path, dry_run=True)
    assert dry.n_matched == 1 and dry.n_trails == 2 and dry.n_trail_calls == 4 + STEP_LIMIT
    assert store.df(counts).values.tolist() == before


def test_export_refuses_what_the_agent_setting_cannot_be(gold_store, tmp_path):
    runner = CliRunner()
    base = ["export-task", "--store", str(gold_store.path), "--out", str(tmp_path / "t")]
    cases = {
        ("--setting", "agent"): "--tier",
        ("--setting", "agent", "--tier", "psychic"): "--tier",
        ("--setting", "screenplay", "--tier", "fast"): "--setting agent",
        ("--harness", "lmms-eval", "--setting", "agent", "--tier", "fast"): "--harness inspect",
    }
    for args, told in cases.items():
        result = runner.invoke(app, base + list(args))
        assert result.exit_code != 0 and told in result.output, (args, result.output)
    assert not (tmp_path / "t").exists()  # nothing written


def test_a_moved_video_is_found_in_video_dir_and_its_frames_reach_the_model(
    gold_store, fake_llm, tmp_path
):
    """The index names the video where StoryScope had it; where inspect runs it may be
    elsewhere: `-T video_dir` finds it by name, and regular-tier vqa sends its frames as
    images to the model."""
    from data_access.tables.films import set_film_video
    from pipelines.results import import_results
    from tests.support.video_fixtures import mp4v_video

    (tmp_path / "films").mkdir()
    video = mp4v_video(tmp_path / "films" / "ledger.mp4", seconds=120, fps=1)
    set_film_video(gold_store, GOLD_FILM_ID, str(video), 1.0)
    server = fake_llm(lambda body, n: _regular(body))
    task = tmp_path / "task"
    _export(gold_store, task, "regular", "--where", "question=keepers-gold-N1-a")
    moved = tmp_path / "elsewhere"
    video.parent.rename(moved)  # not where the index says any more
    log_path = _inspect_eval(server, task, tmp_path / "logs", "-T", f"video_dir={moved}")
    report = import_results(gold_store, log_path)
    (step,) = _steps(gold_store, report.setting_id, "keepers-gold-N1-a")
    assert step["error"] is None and "Kit carrying a ledger" in step["result_text"]
    (asked,) = [b for b in server.log.bodies if "Who carries" in json.dumps(b["messages"])
                and not b.get("tools")]  # fmt: skip
    parts = [p for m in asked["messages"] if isinstance(m["content"], list) for p in m["content"]]
    images = [p for p in parts if p["type"] == "image_url"]
    assert images and all(p["image_url"]["url"].startswith("data:image/") for p in images)
