"""The evidence trail read from an inspect sample (pipelines/results/inspect_trail.py) on samples
built in code with inspect's own classes: the cases a scripted run does not reach — arguments
that were not JSON, a call whose result never came, a log whose tools recorded no intervals
(another agent's log), a sample the harness failed, a final reply that is empty."""

from __future__ import annotations

import pytest

pytest.importorskip("inspect_ai", reason="inspect_ai is in the test extra (make test)")

TASK = {
    "setting": "agent",
    "tier": "fast",
    "step_limit": 4,
    "tools": ["subtitle_search", "find_clips", "vqa", "browse_clip", "character_presence"],
    "trail_key": "storyscope_trail",
}


def _sample(messages, store=None, error=None, completion="It was Kit."):
    from inspect_ai.log import EvalError, EvalSample
    from inspect_ai.model import ModelOutput

    return EvalSample(
        id="q1",
        epoch=1,
        input="Question?",
        target="Kit",
        messages=messages,
        output=ModelOutput.from_content("m", completion),
        store=store or {},
        error=None if error is None else EvalError(message=error, traceback="", traceback_ansi=""),
    )


def _assistant(*calls, text=""):
    from inspect_ai.model import ChatMessageAssistant
    from inspect_ai.tool import ToolCall

    return ChatMessageAssistant(
        content=text,
        tool_calls=[
            ToolCall(id=f"c{i}", function=name, arguments=args, parse_error=parse)
            for i, (name, args, parse) in enumerate(calls)
        ]
        or None,
    )


def _result(call_id: str, function: str, text: str):
    from inspect_ai.model import ChatMessageTool

    return ChatMessageTool(content=text, tool_call_id=call_id, function=function)


def _trail(sample, completion="It was Kit."):
    from pipelines.results.inspect_trail import sample_trail

    return sample_trail(sample, TASK, completion, "run.eval", "sample 1")


def test_calls_without_a_record_touch_the_interval_they_asked_about_or_nothing():
    from inspect_ai.model import ChatMessageUser

    messages = [
        ChatMessageUser(content="Question?"),
        _assistant(
            ("browse_clip", {"start": 5, "end": 25.5}, None),
            ("subtitle_search", {"query": "ledger"}, None),
            ("vqa", {}, "Expecting value: line 1 column 1"),
            ("find_clips", {"query": "boat"}, None),
        ),
        _result("c0", "browse_clip", "Kit walks in."),
        _result("c1", "subtitle_search", "[00:01] the ledger"),
        _result("c3", "find_clips", "[00:10-00:20] the boat"),
        _assistant(text="It was Kit."),
    ]
    recorded = {'["find_clips", {"query": "boat"}]': [[10, 20]]}
    trail = _trail(_sample(messages, {"storyscope_trail": recorded}))
    steps = trail["steps"]
    assert [s["intervals"] for s in steps] == [[[5.0, 25.5]], [], [], [[10.0, 20.0]]]
    assert [s["turn"] for s in steps] == [0, 0, 0, 0]
    assert steps[2]["error"] == "bad arguments for vqa: Expecting value: line 1 column 1"
    assert steps[0]["result_text"] == "Kit walks in." and steps[0]["result_chars"] == 13
    assert trail["outcome"] == "answered" and trail["turns"] == 2 and trail["tool_calls"] == 4


def test_a_call_whose_result_never_came_and_a_failed_sample():
    messages = [_assistant(("find_clips", {"query": "boat"}, None))]
    trail = _trail(_sample(messages, error="the sandbox died"), completion="")
    (step,) = trail["steps"]
    assert step["error"].startswith("tool failed: no result") and step["intervals"] == []
    assert step["result_text"] == f"error: {step['error']}"
    assert trail["outcome"] == "failed" and "the sandbox died" in trail["failure"]


def test_an_empty_final_reply_is_a_failure_and_a_bad_record_is_refused():
    from data_access.importers import ImportFailure

    trail = _trail(_sample([_assistant(text="")], completion=""), completion="")
    assert trail["outcome"] == "failed" and "neither tools nor an answer" in trail["failure"]

    messages = [
        _assistant(("browse_clip", {"start": 0, "end": 9}, None)),
        _result("c0", "browse_clip", "x"),
    ]
    for bad in ([[1, "two"]], [[float("inf"), 3]], [[1, 2, 3]], "0-9", [[True, 2]]):
        store = {"storyscope_trail": {'["browse_clip", {"end": 9, "start": 0}]': bad}}
        with pytest.raises(ImportFailure) as refused:
            _trail(_sample(messages, store))
        assert "run.eval" in str(refused.value.first) and "sample 1" in str(refused.value.first)
