"""Run as the `lexgate` command, the collector is off through the start-up: until a command
other than `check` or `gate` is built, and for those until their statutes are loaded (then
frozen with what the start-up made); imported by another program, lexgate.cli leaves it on."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from legaldb import import_corpus, make_engine, read_repealed, upgrade
from tests.legaldb.factories import COMPANY, small_corpus

PROGRAM = """
import atexit, gc, runpy, sys
frozen = gc.get_freeze_count()
atexit.register(lambda: print(gc.isenabled(), gc.get_freeze_count() > frozen + 10_000))
sys.argv = ["lexgate", *{line!r}]
runpy.run_module("lexgate.cli", run_name="__main__", alter_sys=True)
"""


def _run(line: list[str], env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM.format(line=line)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )
    return done.stdout.splitlines()[-1]


@pytest.mark.parametrize(
    ("line", "seen"),
    [
        (["db", "--help"], "True True"),  # built, on again, the start-up frozen
        (["--help"], "True True"),  # every command built
        (["check", "--help"], "False False"),  # check alone built: off until a load
        (["gate", "--help"], "False False"),  # and gate
        (["check", "/nonexistent/answer.txt"], "False False"),  # ends before the load
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else value,
)
def test_the_command_holds_the_collector_until_it_is_known(line: list[str], seen: str) -> None:
    """Whether the collector is on, and the start-up frozen, as the process ends."""
    assert _run(line) == seen


def test_a_check_turns_it_on_once_its_statutes_are_loaded(tmp_path: Path) -> None:
    """A check whose statutes are loaded (read from the tables, then from their snapshot)
    ends with the collector on and the start-up frozen."""
    url = f"sqlite:///{tmp_path / 'statutes.sqlite3'}"
    upgrade(url)
    engine = make_engine(url)
    import_corpus(engine, small_corpus(), repealed=read_repealed())
    engine.dispose()
    answer = tmp_path / "answer.txt"
    answer.write_text(f"依据《{COMPANY}》第四条。", encoding="utf-8")
    env = {name: value for name, value in os.environ.items() if not name.startswith("LEXGATE_")}
    env.update(LEXGATE_DATABASE_URL=url, LEXGATE_CACHE_DIR=str(tmp_path / "cache"))
    line = ["check", "--json", "--as-of", "2024-07-01", str(answer)]
    assert [_run(line, env), _run(line, env)] == ["True True", "True True"]
    assert any((tmp_path / "cache").glob("statutes-*.marshal"))  # the second read it


def test_imported_by_another_program_it_stays_on() -> None:
    """`import lexgate.cli` (tests, other programs) leaves the collector on."""
    program = "import gc, lexgate.cli; print(gc.isenabled())"
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "True"
