"""An endpoint that refuses the key or redirects elsewhere stops the run: the
gateway trusts the server no further.

Against the scripted server on loopback: a 401 / 403 stops the run after the first request,
says the key was refused without printing it, and the judge job ends `failed` with that reason
(the CLI exits non-zero); a redirect to another loopback port (another origin) is never
followed — the other server receives nothing — and is recorded as `redirect refused`.
"""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel
from typer.testing import CliRunner

from data_access.tables.runs import RunSpec, start_run
from pipelines.cli import app, load_commands
from pipelines.llm import Gateway, LLMRequest
from pipelines.llm.calls import EndpointRefused
from tests.support.fake_llm import TEST_KEY
from tests.support.fake_server import FakeReply
from tests.support.lfvqa_rows import build_slice, scripted_judge

load_commands()
RUNNER = CliRunner()


class Label(BaseModel):
    label: str


def _requests(n: int) -> list[LLMRequest]:
    return [
        LLMRequest(f"item{i}", [{"role": "user", "content": f"q{i}"}], schema=Label)
        for i in range(n)
    ]


def _gateway(store, config) -> tuple[Gateway, str]:
    run_id = start_run(store, RunSpec("test.llm", backend="openai", model=config.model))
    return Gateway(store, config, run_id), run_id


def _calls(store, run_id):
    return store.df(
        "SELECT item_id, status, reason, error FROM llm_calls WHERE run_id = ? ORDER BY item_id",
        [run_id],
    )


@pytest.mark.parametrize("status", [401, 403])
def test_refused_key_stops_the_run_at_the_first_refusal(store, store_path, fake_llm, status):
    # The refusal echoes the key back, as some servers do.
    server = fake_llm(lambda body, n: FakeReply(status=status, content=f"bad key {TEST_KEY}"))
    gateway, run_id = _gateway(store, fake_llm.config(server, concurrency=4))
    with pytest.raises(EndpointRefused) as caught:
        gateway.run(_requests(8))
    message = str(caught.value)
    assert f"refused the API key (HTTP {status})" in message and server.base_url[:-3] in message
    assert TEST_KEY not in message and "SECRET" not in message
    assert len(server.log.bodies) == 1  # one request, although four slots were free
    calls = _calls(store, run_id)
    assert calls.status.tolist() == ["failed"] and calls.reason.tolist() == ["key refused"]
    assert "SECRET" not in calls.error[0]
    assert b"SECRET" not in store_path.read_bytes()


def test_redirect_to_another_origin_is_not_followed(store, fake_llm):
    elsewhere = fake_llm(lambda body, n: '{"label": "stolen"}')
    target = elsewhere.base_url + "/chat/completions"  # another loopback port
    server = fake_llm(lambda body, n: FakeReply(status=307, location=target))
    gateway, run_id = _gateway(store, fake_llm.config(server, concurrency=4))
    with pytest.raises(EndpointRefused) as caught:
        gateway.run(_requests(5))
    assert not elsewhere.log.bodies  # no prompt reached the host the user did not configure
    assert len(server.log.bodies) == 1
    assert f"redirected the request to http://127.0.0.1:{elsewhere.port}" in str(caught.value)
    calls = _calls(store, run_id)
    assert calls.reason.tolist() == ["redirect refused"]
    assert store.scalar("SELECT count(*) FROM llm_cache") == 0


def test_redirect_within_the_endpoint_is_followed(store, fake_llm):
    def handler(body, n):
        if n == 0:  # the same server under another path
            return FakeReply(status=307, location=f"{server.base_url}/v2/chat/completions")
        return '{"label": "ok"}'

    server = fake_llm(handler)
    gateway, _ = _gateway(store, fake_llm.config(server, concurrency=1))
    results = gateway.run(_requests(1))
    assert results[0].ok and len(server.log.bodies) == 2


def test_judge_job_with_a_refused_key_fails_with_the_reason(store, store_path, fake_llm):
    build_slice(store)
    calls = []

    def handler(body, n):
        calls.append(n)
        return FakeReply(status=401, content="invalid key") if n == 0 else scripted_judge(body, n)

    server = fake_llm(handler)
    command = ["judge", "--backend", "openai", "--base-url", server.base_url, "--model", "m"]
    result = RUNNER.invoke(
        app,
        [*command, "--store", str(store_path)],
        env={"STORYSCOPE_LLM_API_KEY": TEST_KEY, "STORYSCOPE_LLM_CONCURRENCY": "4"},
    )
    assert result.exit_code != 0
    assert "refused the API key (HTTP 401)" in result.output
    assert TEST_KEY not in result.output and "SECRET" not in result.output
    assert calls == [0]  # nothing was sent after the refusal
    job = store.df("SELECT state, error FROM jobs").iloc[0]
    assert job.state == "failed" and "refused the API key" in job.error
    assert "SECRET" not in json.dumps(
        store.df("SELECT * FROM jobs").to_dict("records"), default=str
    )


def test_a_command_outside_jobs_says_the_key_was_refused_without_a_traceback(
    store, store_path, fake_llm
):
    import os
    import subprocess
    import sys

    from tests.support.paths import REPO_ROOT
    from tests.support.qgen_film import build_film

    film = build_film(store)
    server = fake_llm(lambda body, n: FakeReply(status=401, content=f"no: {TEST_KEY}"))
    env = {
        **os.environ,
        "STORYSCOPE_LLM_BASE_URL": server.base_url,
        "STORYSCOPE_LLM_API_KEY": TEST_KEY,
        "STORYSCOPE_LLM_STRUCTURED": "none",
    }
    command = ["generate", "--film", film, "--backend", "openai", "--n", "2"]
    done = subprocess.run(
        [sys.executable, "-m", "pipelines", *command, "--store", str(store_path)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2, done.stderr
    assert "error: the endpoint" in done.stderr and "refused the API key (HTTP 401)" in done.stderr
    assert "Traceback" not in done.stderr and TEST_KEY not in done.stderr + done.stdout
    assert len(server.log.bodies) == 1
