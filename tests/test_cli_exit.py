"""`lexgate.cli.exit_at_once` ends a process as Python's own exit would (what was written
flushed, the atexit handlers run, the status given), and leaves the exit to Python when that
would differ."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROGRAM = """
import atexit, sys, threading
from lexgate.cli import exit_at_once
atexit.register(lambda: print("handler", file=sys.stderr))
print("written", end="")
sys.stderr.write("said")
{before}
exit_at_once({code})
print(" returned", end="")
"""


def _run(code: str, before: str = "") -> subprocess.CompletedProcess[str]:
    program = PROGRAM.format(code=code, before=before)
    return subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.parametrize(("code", "status"), [("None", 0), ("0", 0), ("3", 3)], ids=str)
def test_exits_with_the_output_flushed_and_handlers_run(code: str, status: int) -> None:
    """The status given, standard output and error written, the atexit handler run once."""
    done = _run(code)
    assert (done.returncode, done.stdout, done.stderr) == (status, "written", "saidhandler\n")


@pytest.mark.parametrize(
    "code, before",
    [
        ("'message'", ""),
        ("0", "threading.Thread(target=__import__('time').sleep, args=(0.2,)).start()"),
    ],
    ids=["a message", "a thread alive"],
)
def test_leaves_the_exit_to_python_when_it_would_differ(code: str, before: str) -> None:
    """A code that is a message, or another thread alive: exit_at_once returns."""
    done = _run(code, before)
    assert (done.returncode, done.stdout) == (0, "written returned")
    assert done.stderr == "saidhandler\n"
