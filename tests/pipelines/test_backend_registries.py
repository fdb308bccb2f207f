"""Every place that names the judge's or the belief annotation's backends reads its registry
(`pipelines.judge.backends`, `pipelines.beliefs.backends`): the CLI's choices and help, the
dispatchers, gold-eval, the pages' notes and the docs' tables."""

import re

import pytest
from typer.testing import CliRunner

from pipelines.beliefs import backends as belief_registry
from pipelines.cli import app, load_commands
from pipelines.judge import backends as judge_registry
from tests.support.paths import REPO_ROOT

load_commands()
RUNNER = CliRunner()


def _doc_block(path: str, marker: str) -> str:
    text = (REPO_ROOT / path).read_text()
    found = re.search(rf"<!-- {marker}:[^>]*-->\n(.*?)\n<!-- /{marker} -->", text, re.DOTALL)
    assert found, f"{path} lacks its generated {marker} table"
    return found.group(1)


def _option(*command: str, name: str = "backend"):
    """The click option `name` of a CLI command (its help and choices, as `--help` shows)."""
    import typer

    found = typer.main.get_command(app)
    for part in command:
        found = found.commands[part]
    return next(p for p in found.params if p.name == name)


# -- judge --------------------------------------------------------------------------------


def test_the_judge_registry_holds_the_three_backends_and_each_resolves():
    names = judge_registry.backend_names()
    assert names == ("openai", "lexical", "minilm-support")
    for backend in judge_registry.JUDGE_BACKENDS.values():
        assert callable(judge_registry._resolve(backend.runner))
        if backend.offline:
            assert callable(backend.unit_function())
            assert isinstance(backend.method_version(), str)


def test_the_judge_cli_offers_and_checks_the_registrys_backends():
    assert _option("judge").help == " | ".join(judge_registry.backend_names())
    result = RUNNER.invoke(app, ["judge", "--backend", "nope", "--store", "/nonexistent/x"])
    assert result.exit_code != 0
    assert f"expected one of {', '.join(judge_registry.backend_names())}" in result.output


@pytest.mark.parametrize("name", ["lexical", "minilm-support"])
def test_an_offline_judges_identity_comes_from_the_registry(name):
    from pipelines.judge import JudgeOptions

    identity = JudgeOptions(backend=name).identity()
    backend = judge_registry.judge_backend(name)
    assert (identity.judge_id, identity.kind) == (name, backend.kind)
    assert identity.prompt_version == backend.method_version()


def test_an_unknown_judge_backend_is_refused_by_name():
    from pipelines.judge import run_judge

    with pytest.raises(ValueError, match="unknown judge backend 'nope'"):
        run_judge(None, __import__("pipelines.judge").judge.JudgeOptions(backend="nope"))


def test_the_judge_eval_offers_the_judges_backends():
    from pipelines.agreement.storysumm_eval import BACKENDS

    assert set(BACKENDS) == set(judge_registry.backend_names())


def test_docs_judge_table_is_the_registrys():
    assert _doc_block("docs/JUDGE.md", "judge-backends") == judge_registry.backends_table()


# -- beliefs ------------------------------------------------------------------------------


def test_the_belief_registry_holds_the_three_backends_and_each_resolves():
    assert belief_registry.backend_names() == ("rules", "asymmetry", "openai")
    assert belief_registry.offline_backend_names() == ("rules", "asymmetry")
    for backend in belief_registry.BELIEF_BACKENDS.values():
        assert callable(backend.annotate_function())
        if backend.offline:
            assert callable(backend.rows_function())
        else:
            assert callable(backend.many_function())


def test_the_belief_cli_offers_the_registrys_backends():
    from pipelines.cli.cmd_beliefs import Backend  # `annotate --backend`'s choices

    assert tuple(b.value for b in Backend) == belief_registry.backend_names()
    for command in (("beliefs", "annotate"), ("beliefs", "annotate-many")):
        assert _option(*command).help == belief_registry.backends_help(), command
    result = RUNNER.invoke(app, ["beliefs", "annotate-many", "--backend", "nope", "--films", "f"])
    assert result.exit_code != 0


def test_the_dispatcher_gold_eval_and_notes_read_the_belief_registry():
    from pipelines.beliefs.annotate import AnnotateError, annotate
    from pipelines.beliefs.backend_notes import OFFLINE, SCOPE
    from pipelines.goldeval import BELIEF_BACKENDS

    offline = belief_registry.offline_backend_names()
    assert offline == BELIEF_BACKENDS
    assert set(offline) <= set(OFFLINE)
    assert set(belief_registry.backend_names()) <= set(SCOPE)  # every backend says its scope
    with pytest.raises(AnnotateError, match="use rules, asymmetry, openai"):
        annotate(None, "f", backend="nope")


def test_docs_belief_table_is_the_registrys():
    block = _doc_block("docs/BELIEFS_ASYMMETRY.md", "belief-backends")
    assert block == belief_registry.backends_table()


# -- pages --------------------------------------------------------------------------------


def _constant(path: str, name: str) -> str:
    """A string a page module sets (a page runs when imported, so its source is read)."""
    import ast

    tree = ast.parse((REPO_ROOT / path).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return node.value.value
        if isinstance(node, ast.keyword) and node.arg == name:
            return node.value.value
    raise AssertionError(f"{path} sets no {name}")


def test_the_pages_offer_registered_backends():
    """The judge panel's offline choice and the belief page's suggested backend are names the
    registries hold (and offline ones): a renamed backend cannot leave a page offering a name
    the CLI refuses."""
    judge_offline = _constant("ui/judge_button.py", "offline_backend")
    assert judge_registry.judge_backend(judge_offline).offline
    belief_offline = _constant("ui/beliefs_page.py", "OFFLINE_BACKEND")
    assert belief_offline in belief_registry.offline_backend_names()
