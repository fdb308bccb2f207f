"""The gateway's fast keys for one family of requests (`RequestShaper.key_family`): equal to
its own key of each request in every mode where it offers them, and never a wrong key."""

import pytest
from pydantic import BaseModel

from pipelines.llm import Gateway, LLMConfig, LLMRequest
from pipelines.llm.shaping import RequestShaper


class Reply(BaseModel):
    label: str


def _request(user: str, system: str = "You judge.", **extra) -> LLMRequest:
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    return LLMRequest("i", messages, schema=Reply, params={"temperature": 0}, **extra)


@pytest.mark.parametrize("mode", ["json_schema", "json_object", "none"])
def test_a_familys_keys_are_the_gateways_own(mode):
    shaper = RequestShaper(LLMConfig(model="m", base_url="http://x", max_tokens=300))
    family = shaper.key_family(_request("first"), mode)
    assert family is not None
    for text in ("first", "second", "ünïcode ✓", ""):
        request = _request(text)
        assert family.key(request.messages) == shaper.key(request, mode)


def test_a_family_refuses_what_is_not_its_own():
    shaper = RequestShaper(LLMConfig(model="m", base_url="http://x"))
    family = shaper.key_family(_request("first"), "json_schema")
    other_system = _request("first", system="You grade.")
    assert family.key(other_system.messages) is None
    assert family.key([{"role": "user", "content": "first"}]) is None  # one message short
    assert family.key([*other_system.messages[:1], {"role": "assistant", "content": "x"}]) is None


def test_prompt_mode_offers_no_family_because_it_rewrites_the_messages():
    config = LLMConfig(model="m", base_url="http://x", structured="prompt")
    gateway = Gateway(None, config, "r")
    assert gateway.key_family(_request("first")) is None
    config = LLMConfig(model="m", base_url="http://x", structured="json_schema")
    gateway = Gateway(None, config, "r")
    request = _request("first")
    assert gateway.key_family(request).key(request.messages) == gateway.key_of(request)
