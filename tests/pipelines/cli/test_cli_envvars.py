"""Every CLI option reads an env var (app.py's docstring): its own `envvar`, else
`STORYSCOPE_<COMMAND>_<OPTION>` through click's auto_envvar_prefix."""

from __future__ import annotations

import json

import pytest
import typer.main
from typer.core import TyperOption
from typer.testing import CliRunner

from data_access.store import Store
from pipelines.cli import app, load_commands


def _commands(command, ctx):
    """(context, command) for every leaf command of the tree, with the contexts typer makes
    (a subcommand's context derives its env prefix from its parent's)."""
    subcommands = getattr(command, "commands", None)
    if subcommands is None:
        yield ctx, command
        return
    for name, sub in subcommands.items():
        yield from _commands(sub, type(ctx)(sub, info_name=name, parent=ctx))


def _every_option():
    load_commands()
    root = typer.main.get_command(app)
    # the app's own context settings: this is where the STORYSCOPE prefix must come from
    top = root.context_class(root, info_name="storyscope", **root.context_settings)
    for ctx, command in _commands(root, top):
        for param in command.params:
            if isinstance(param, TyperOption) and param.name != "help":
                yield ctx, param


def _env_name(ctx, option) -> str:
    if option.envvar:
        return option.envvar if isinstance(option.envvar, str) else option.envvar[0]
    return f"{ctx.auto_envvar_prefix}_{option.name.upper()}"


def test_the_cli_has_many_options_and_each_has_an_env_name():
    options = list(_every_option())
    assert len(options) > 80
    for ctx, option in options:
        assert _env_name(ctx, option).startswith("STORYSCOPE_"), (ctx.command_path, option.name)


def test_every_option_reads_its_env_var(monkeypatch):
    for ctx, option in _every_option():
        name = _env_name(ctx, option)
        monkeypatch.setenv(name, "1")
        assert option.resolve_envvar_value(ctx) == "1", f"{ctx.command_path} --{option.name}"
        monkeypatch.delenv(name)


def test_an_auto_env_name_is_the_command_and_the_flag():
    """Without its own envvar, an option's variable is named by its flag (click names it by the
    parameter, so the two must agree): `--dry-run` of `judge` is STORYSCOPE_JUDGE_DRY_RUN."""
    for ctx, option in _every_option():
        if not option.envvar:
            flag = max(option.opts, key=len).lstrip("-").replace("-", "_")
            assert flag == option.name, f"{ctx.command_path} {option.opts}: give it an envvar"


def test_an_auto_env_var_reaches_the_command(tmp_path, monkeypatch):
    """End to end: STORYSCOPE_GENERATE_N sets `generate --n` (0 is refused, naming --n)."""
    monkeypatch.setenv("STORYSCOPE_GENERATE_N", "0")
    result = CliRunner().invoke(
        app, ["generate", "--film", "any", "--store", str(tmp_path / "s.duckdb")]
    )
    assert result.exit_code == 2
    assert "--n must be at least 1, got 0" in result.output


def test_one_json_switch_for_every_command(tmp_path, monkeypatch):
    monkeypatch.setenv("STORYSCOPE_JSON", "1")
    Store(tmp_path / "s.duckdb").rows("SELECT 1")  # `stats` only reads: it opens, never creates
    result = CliRunner().invoke(app, ["stats", "--store", str(tmp_path / "s.duckdb")])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["tables"]["films"] == 0


@pytest.mark.parametrize("value", ["0", "false"])
def test_a_false_env_value_leaves_a_flag_off(tmp_path, monkeypatch, value):
    monkeypatch.setenv("STORYSCOPE_JSON", value)
    Store(tmp_path / "s.duckdb").rows("SELECT 1")  # `stats` only reads: it opens, never creates
    result = CliRunner().invoke(app, ["stats", "--store", str(tmp_path / "s.duckdb")])
    assert result.exit_code == 0, result.output
    assert not result.output.lstrip().startswith("{")
