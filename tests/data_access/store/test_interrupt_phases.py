"""Ctrl-C at every moment of a command (pipelines/cli_signals.py): while it starts (imports, the
command line), during a store upgrade, inside its work, and as it finishes. Every time: exit
130 and one `error:` line, never a traceback and never a death by the signal (exit -2)."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time

import duckdb
import pytest

from data_access.store import Store
from data_access.store.migrations import all_migrations, recorded_migrations
from tests.support.asymmetry_film import FILM
from tests.support.asymmetry_film import fixture_film as fixture_film  # noqa: F401
from tests.support.interrupts import LONG_QUERY, default_sigint, send_interrupt
from tests.support.old_store import build_old_store
from tests.support.paths import REPO_ROOT


def _one_interrupted_line(code: int, stderr: str) -> str:
    assert code == 130, (code, stderr)
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: interrupted"), stderr
    return lines[0]


def _signal_after(args: list[str], delay_s: float | None) -> tuple[int, str]:
    """Run `python -m pipelines ARGS`, SIGINT it `delay_s` after it starts unless it ended
    (None: never)."""
    child = subprocess.Popen(
        [sys.executable, "-m", "pipelines", *args],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )
    try:
        if delay_s is not None:
            time.sleep(delay_s)
            if child.poll() is None:
                child.send_signal(signal.SIGINT)
        _, stderr = child.communicate(timeout=300)
        return child.returncode, stderr
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()


# -- starting: the first second, the imports, the command line -----------------------------------
# (from 0.3 s: before that, Python itself is still starting, with its own handling)
@pytest.mark.parametrize("delay_s", [0.3, 0.6, 1.0, 1.5, 2.5])
def test_ctrl_c_while_a_command_starts(tmp_path, delay_s):
    missing = tmp_path / "no-store.duckdb"
    code, stderr = _signal_after(["stats", "--store", str(missing)], delay_s)
    if code == 2 and "no store at" in stderr:
        return  # it had started and refused the path before the signal: no interrupt to see
    line = _one_interrupted_line(code, stderr)
    assert "starting: nothing was done" in line or "rolled back" in line, line
    assert not missing.exists()


# -- a store upgrade -------------------------------------------------------------------------------
_UPGRADE_SCRIPT = """
    import sys
    from dataclasses import replace
    from data_access.store import migrations
    original = migrations.all_migrations
    def slowed():
        steps = original()
        k = next(i for i, step in enumerate(steps) if step.number > {old}) + 1
        def slow(connection, step=steps[k]):
            print("inside", flush=True)
            connection.execute({query!r}).fetchall()
            step.apply(connection)
        return [replace(s, apply=slow) if i == k else s for i, s in enumerate(steps)]
    migrations.all_migrations = slowed
    from pipelines.cli import main
    sys.argv = ["storyscope", {command!r}, "--store", {store!r}]
    main()
"""


@pytest.mark.parametrize(("command", "delay_s"), [("migrate", 0.0), ("stats", 0.5)])
def test_ctrl_c_during_a_store_upgrade_says_where_the_store_was_left(tmp_path, command, delay_s):
    path = tmp_path / "old.duckdb"
    build_old_store(path, up_to=30)
    script = _UPGRADE_SCRIPT.format(old=30, query=LONG_QUERY, command=command, store=str(path))
    code, stderr = send_interrupt(textwrap.dedent(script), delay_s)
    line = _one_interrupted_line(code, stderr)
    assert "during the store upgrade" in line and "run the command again" in line, line
    with duckdb.connect(str(path), read_only=True) as connection:
        reached = max(recorded_migrations(connection))
    assert f"is at migration {reached} " in line, (line, reached)
    # the rest of the upgrade runs next time, and nothing was lost on the way
    assert Store(path).scalar("SELECT count(*) FROM answers") == 4
    assert max(recorded_migrations(duckdb.connect(str(path)))) == all_migrations()[-1].number


# -- finishing: the work is done, the process is shutting down -------------------------------------
# armed first, as the console script does (`pipelines.cli_entry.run_cli`); then a library's
# slow `atexit` callback
_FINISHING_SCRIPT = """
    import atexit, sys, time
    from pipelines import cli_signals
    cli_signals.starting()
    def slow_shutdown():
        print("inside", flush=True)
        time.sleep(60)
    atexit.register(slow_shutdown)
    from pipelines.cli import main
    sys.argv = ["storyscope", *{args!r}]
    main()
"""


def test_ctrl_c_as_beliefs_annotate_finishes_keeps_its_work(fixture_film):  # noqa: F811
    args = ["beliefs", "annotate", "--film", FILM, "--store", str(fixture_film.path)]
    code, stderr = send_interrupt(textwrap.dedent(_FINISHING_SCRIPT.format(args=args)), 0.2)
    line = _one_interrupted_line(code, stderr)
    assert "finishing: its work was done and kept" in line
    runs = Store(fixture_film.path).scalar(
        "SELECT count(*) FROM runs WHERE step LIKE 'beliefs%' AND status = 'finished'"
    )
    assert runs == 1


def test_ctrl_c_at_any_moment_of_beliefs_annotate(fixture_film):  # noqa: F811
    """The whole run, signalled at moments spread from its first second to past its end."""
    args = ["beliefs", "annotate", "--film", FILM, "--store", str(fixture_film.path)]
    started = time.perf_counter()
    code, stderr = _signal_after(args, None)  # not signalled: how long a whole run takes
    assert code == 0, stderr
    whole = time.perf_counter() - started
    for fraction in (0.1, 0.3, 0.6, 0.85, 0.9, 0.95, 0.98, 1.0, 1.03):
        code, stderr = _signal_after(args, max(0.3, whole * fraction))
        if code != 0:
            _one_interrupted_line(code, stderr)
