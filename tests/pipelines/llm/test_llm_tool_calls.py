"""Tool calls through the gateway: OpenAI `tools` when the server takes them, the prompt-level
fallback when it refuses them (negotiated once, remembered), cached turns replayed offline."""

from __future__ import annotations

import json

import pytest

from data_access.tables.runs import RunSpec, start_run
from pipelines.llm import Gateway, LLMRequest
from pipelines.llm.tool_calls import (
    NATIVE,
    PROMPT,
    ToolCall,
    ToolReply,
    assistant_message,
    parse_tool_reply,
    prompt_messages,
    tool_message,
)
from tests.support.fake_server import Dialect, FakeReply

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "subtitle_search",
            "description": "Subtitle cues matching a query.",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string"}},
                "required": ["query"],
            },
        },
    }
]


def _turn(question: str = "Why does Sam lie?") -> LLMRequest:
    return LLMRequest(
        "q1#t0",
        [
            {"role": "system", "content": "Answer the question about the film."},
            {"role": "user", "content": question},
        ],
        params={"temperature": 0},
        tools=TOOLS,
    )


def _gateway(store, config) -> Gateway:
    run_id = start_run(store, RunSpec("test.tools", backend="openai", model=config.model))
    return Gateway(store, config, run_id)


def test_native_tool_calls_are_sent_parsed_and_replayed_offline(store, fake_llm):
    server = fake_llm(
        lambda body, n: FakeReply(
            tool_calls=[{"name": "subtitle_search", "arguments": {"query": "the letter"}}]
        )
    )
    config = fake_llm.config(server)
    [result] = _gateway(store, config).run([_turn()])
    assert result.ok and result.mode == NATIVE
    assert result.parsed.calls == (
        ToolCall("call-0-0", "subtitle_search", json.dumps({"query": "the letter"})),
    )
    sent = server.log.bodies[0]
    assert sent["tools"] == TOOLS and sent["tool_choice"] == "auto"
    server.stop()  # the endpoint is gone: the same turn replays from the cache
    [again] = _gateway(store, config).run([_turn()])
    assert again.cached and again.parsed == result.parsed


def test_a_server_refusing_tools_moves_to_the_prompt_fallback_once_and_remembers(store, fake_llm):
    def handler(body, n):
        assert "tools" not in body
        return '{"tool_calls": [{"name": "subtitle_search", "arguments": {"query": "x"}}]}'

    server = fake_llm(Dialect("no_tools", handler))
    config = fake_llm.config(server)
    [result] = _gateway(store, config).run([_turn()])
    assert result.ok and result.mode == PROMPT
    assert result.parsed.calls[0].name == "subtitle_search"
    assert len(server.log.bodies) == 2  # one refusal, one fallback request; no retries
    system = server.log.bodies[1]["messages"][0]["content"]
    assert "subtitle_search" in system and '{"answer": "<your answer>"}' in system
    remembered = store.df("SELECT tool_mode, reason FROM llm_endpoint_tool_modes")
    assert remembered.tool_mode.tolist() == [PROMPT]
    assert "tools rejected" in remembered.reason[0]
    # A new run starts in the remembered mode: no second refusal.
    [second] = _gateway(store, config).run([_turn("Why does Ann leave?")])
    assert second.mode == PROMPT and len(server.log.bodies) == 3


def test_a_pinned_native_mode_fails_the_item_instead_of_falling_back(store, fake_llm):
    server = fake_llm(Dialect("no_tools", lambda body, n: "unused"))
    config = fake_llm.config(server, tool_calls="native")
    [result] = _gateway(store, config).run([_turn()])
    assert result.status == "failed" and "tools rejected" in result.error
    assert len(server.log.bodies) == 1


def test_an_answer_without_calls_is_the_reply_text(store, fake_llm):
    server = fake_llm(lambda body, n: "Sam lies to protect Ann.")
    [result] = _gateway(store, fake_llm.config(server)).run([_turn()])
    assert result.parsed == ToolReply("Sam lies to protect Ann.")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("He hides it.", ToolReply("He hides it.")),
        ('{"answer": "He hides it."}', ToolReply("He hides it.")),
        ('```json\n{"answer": "A"}\n```', ToolReply("A")),
        (
            'I will search.\n{"tool_calls": [{"name": "vqa", "arguments": {"start": 1}}]}',
            ToolReply("", (ToolCall("call-0", "vqa", '{"start": 1}'),)),
        ),
        (
            '{"name": "browse_clip", "arguments": {"start": 0, "end": 9}}',
            ToolReply("", (ToolCall("call-0", "browse_clip", '{"start": 0, "end": 9}'),)),
        ),
    ],
)
def test_tool_replies_parse_in_either_mode(text, expected):
    assert parse_tool_reply(text) == expected


def test_a_tool_call_cut_short_is_malformed():
    with pytest.raises(ValueError, match="malformed tool call"):
        parse_tool_reply('{"tool_calls": [{"name": "vqa", "argu')


def test_the_fallback_renders_a_native_history_as_plain_messages():
    call = ToolCall("c1", "subtitle_search", '{"query": "letter"}')
    history = [
        {"role": "system", "content": "Answer."},
        {"role": "user", "content": "Why?"},
        assistant_message(ToolReply("", (call,))),
        tool_message(call, "[00:01:02] I never got your letter."),
    ]
    rendered = prompt_messages(history, TOOLS)
    assert [m["role"] for m in rendered] == ["system", "user", "assistant", "user"]
    assert json.loads(rendered[2]["content"]) == {
        "tool_calls": [{"name": "subtitle_search", "arguments": {"query": "letter"}}]
    }
    assert rendered[3]["content"].endswith("I never got your letter.")
    assert "tool_calls" not in rendered[2]
