"""Every numeric option of every command, from the command line or its env var, and every numeric
env var read outside the options, is range-checked before anything uses it: one `error:` line
naming the option (and the variable that set it), exit 2: no traceback,
nothing out of range accepted silently, no setting that makes a wait hang."""

from __future__ import annotations

import math

import pytest
import typer.main
from typer.testing import CliRunner

from pipelines.cli import app, load_commands
from pipelines.numeric_settings import (
    ENV_RANGES,
    OPTION_RANGES,
    NumberRange,
    SettingOutOfRange,
    check_environment,
    parse_env_number,
)

runner = CliRunner()


def _numeric_options():
    load_commands()
    root = typer.main.get_command(app)

    def walk(command, path):
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, f"{path} {name}")
        for param in getattr(command, "params", ()):
            if getattr(param.type_descriptor, "annotation", None) in (int, float):
                yield path.strip(), param

    return list(walk(root, ""))


def _run(args: list[str], env: dict[str, str] | None = None):
    load_commands()
    return runner.invoke(app, args, env=env)


def _refused(result, *words: str) -> str:
    assert result.exit_code == 2, result.output
    line = result.output.strip()
    assert line.startswith("error:") and "\n" not in line, result.output
    assert "Traceback" not in result.output
    for word in words:
        assert word in line, (word, line)
    return line


def test_every_numeric_option_carries_a_range_check():
    options = _numeric_options()
    assert len(options) > 25
    for command, param in options:
        assert getattr(param, "range_checked", False), (command, param.name)
    named = {param.name for _, param in options}
    assert set(OPTION_RANGES) <= named, set(OPTION_RANGES) - named  # no entry for nothing


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["judge", "--limit", "-1"], ("--limit", "at least 1, got -1")),
        (["judge", "--limit", "0"], ("--limit", "at least 1, got 0")),
        (["judge", "--concurrency", "0"], ("--concurrency", "at least 1")),
        (["judge", "--concurrency", "-4"], ("--concurrency", "at least 1")),
        (["judge", "--limit", str(2**64)], ("--limit", "at most 9223372036854775807")),
        (["judge", "--budget-usd", "nan"], ("--budget-usd", "finite")),
        (["judge", "--budget-usd", "1e400"], ("--budget-usd", "finite")),
        (["import", "fables", "x.json", "--books", "-1"], ("--books", "at least 1")),
        (["compare", "--resamples", "99999999999"], ("--resamples", "at most 1000000")),
        (["metrics", "--seed", "-1"], ("--seed", "at least 0")),
        (["plottree", "build", "--leaf-seconds", "0"], ("--leaf-seconds", "greater than 0")),
        (["judge", "--limit", "abc"], ("--limit", "valid integer")),
    ],
)
def test_out_of_range_options_stop_before_the_command_runs(tmp_path, args, words):
    result = _run([*args, "--store", str(tmp_path / "none.duckdb")])
    _refused(result, *words)
    assert not (tmp_path / "none.duckdb").exists()


def test_an_env_var_out_of_range_is_named(tmp_path):
    store = ["--store", str(tmp_path / "none.duckdb")]
    line = _refused(_run(["judge", *store], {"STORYSCOPE_JUDGE_LIMIT": "-5"}))
    assert "--limit must be at least 1, got -5 (set by STORYSCOPE_JUDGE_LIMIT)" in line
    line = _refused(_run(["judge", *store], {"STORYSCOPE_JUDGE_CONCURRENCY": "0"}))
    assert "STORYSCOPE_JUDGE_CONCURRENCY" in line
    # a bound the command declares itself (typer's min=) is one line too, naming the variable
    line = _refused(
        _run(["beliefs", "import", "hitom", "x", *store], {"STORYSCOPE_BELIEFS_IMPORT_LIMIT": "0"})
    )
    assert "--limit: " in line and "(set by STORYSCOPE_BELIEFS_IMPORT_LIMIT)" in line


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("STORYSCOPE_LLM_TIMEOUT", "nan", "must be a finite number"),
        ("STORYSCOPE_LLM_TIMEOUT", "-1", "greater than 0"),
        ("STORYSCOPE_LLM_TIMEOUT", "1e12", "at most 3600"),
        ("STORYSCOPE_LLM_TIMEOUT", "inf", "finite"),
        ("STORYSCOPE_LLM_CONCURRENCY", "0", "at least 1"),
        ("STORYSCOPE_LLM_CONCURRENCY", "two", "a whole number"),
        ("STORYSCOPE_LLM_MAX_RETRIES", "-1", "at least 0"),
        ("STORYSCOPE_LOCK_TIMEOUT", "nan", "finite"),
        ("STORYSCOPE_TORCH_THREADS", "0", "at least 1"),
    ],
)
def test_numeric_env_vars_outside_the_options_are_checked_by_name(tmp_path, name, value, words):
    result = _run(["jobs", "list", "--store", str(tmp_path / "none.duckdb")], {name: value})
    _refused(result, name, words)


def test_the_range_rules():
    count = NumberRange(1, 10)
    assert count.problem(1) is None and count.problem(10) is None
    assert count.problem(0) == "must be at least 1, got 0"
    assert count.problem(11) == "must be at most 10, got 11"
    assert NumberRange().problem(math.nan) == "must be a finite number, got nan"
    assert NumberRange(0, low_open=True).problem(0.0) == "must be greater than 0, got 0"
    assert parse_env_number("STORYSCOPE_LLM_TIMEOUT", "30") == 30.0
    assert parse_env_number("STORYSCOPE_LLM_CONCURRENCY", "8") == 8
    with pytest.raises(SettingOutOfRange, match="STORYSCOPE_LLM_BUDGET_USD must be at least 0"):
        check_environment({"STORYSCOPE_LLM_BUDGET_USD": "-0.5"})
    check_environment({name: "" for name in ENV_RANGES})  # unset (empty) is fine


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("STORYSCOPE_LLM_TIMEOUT", "nan"),
        ("STORYSCOPE_LLM_TIMEOUT", "-5"),
        ("STORYSCOPE_LLM_CONCURRENCY", "0"),
    ],
)
def test_the_gateway_config_checks_its_env_vars(monkeypatch, tmp_path, name, value):
    """The app's judge button reads the config without the CLI: the same ranges hold there."""
    from pipelines.llm.config import load_config

    monkeypatch.setenv(name, value)
    with pytest.raises(SettingOutOfRange, match=name):
        load_config(secrets_path=tmp_path / "none.toml")
    monkeypatch.delenv(name)
    assert load_config(secrets_path=tmp_path / "none.toml").timeout_s > 0


@pytest.mark.parametrize("value", ["nan", "-1", "inf", "1e9", "soon"])
def test_the_store_checks_its_lock_timeout_outside_the_cli_too(monkeypatch, value):
    """The app and library callers read STORYSCOPE_LOCK_TIMEOUT without the CLI's check: the
    store refuses a wait that would never expire, with the CLI's range."""
    from data_access.store import MAX_LOCK_TIMEOUT_S, default_lock_timeout
    from data_access.store.health import StoreProblem
    from pipelines.numeric_settings import WAIT_SECONDS

    assert (WAIT_SECONDS.low, WAIT_SECONDS.high) == (0, MAX_LOCK_TIMEOUT_S)
    monkeypatch.setenv("STORYSCOPE_LOCK_TIMEOUT", value)
    with pytest.raises(StoreProblem, match="STORYSCOPE_LOCK_TIMEOUT"):
        default_lock_timeout()
    monkeypatch.setenv("STORYSCOPE_LOCK_TIMEOUT", "2.5")
    assert default_lock_timeout() == 2.5
