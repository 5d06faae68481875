"""`lexgate` run from another directory: it finds the instance's home from LEXGATE_HOME (default:
the project root of this checkout), never from the current directory, makes no state there,
never makes a key on the fly, and says what to run when the database is not set up."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lexgate.settings import Settings
from tests.conftest import REPO_ROOT

LEXGATE = str(Path(sys.executable).parent / "lexgate")
ANSWER = "依据《中华人民共和国民法典》第五百七十七条，当事人应当承担违约责任。\n"


def _run(args: list[str], cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """`lexgate ARGS` in cwd with LEXGATE_HOME=home and no other LEXGATE_ setting."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("LEXGATE_")}
    env.update(LEXGATE_HOME=str(home), COLUMNS="80")
    return subprocess.run(
        [LEXGATE, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def test_the_default_home_is_the_checkout_wherever_one_stands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without LEXGATE_HOME the home is this checkout's root, from any directory; relative
    paths (the SQLite database, the private files) are taken from it."""
    monkeypatch.delenv("LEXGATE_HOME", raising=False)
    for name in ("DATABASE_URL", "MAPPING_STORE_PATH", "AUDIT_SIGNING_KEY_PATH"):
        monkeypatch.delenv(f"LEXGATE_{name}", raising=False)
    monkeypatch.chdir(tmp_path)
    settings = Settings()
    assert settings.home == REPO_ROOT
    assert settings.database_url == f"sqlite:///{REPO_ROOT}/var/lexgate.sqlite3"
    assert settings.mapping_store_path == REPO_ROOT / "var" / "pseudonym-map.sqlite3"
    assert settings.audit_signing_key_path == REPO_ROOT / "var" / "audit-signing-key.pem"
    elsewhere = Settings(home=tmp_path / "home", database_url="sqlite:///db/x.sqlite3")
    assert elsewhere.database_url == f"sqlite:///{tmp_path}/home/db/x.sqlite3"
    absolute = Settings(database_url=f"sqlite:///{tmp_path}/y.sqlite3")
    assert absolute.database_url == f"sqlite:///{tmp_path}/y.sqlite3"


def test_commands_from_another_directory_use_the_home(tmp_path: Path) -> None:
    """From a directory that is not the home: no key is made on the fly (the message names the
    path and `lexgate audit init`), `check` on a database never set up says to run
    `lexgate db init` (no SQL), `audit init` makes the keys in the home, and two directories
    then print the same public key. Nothing is ever written where the command was run."""
    home, here, there = tmp_path / "home", tmp_path / "here", tmp_path / "there"
    for directory in (home, here, there):
        directory.mkdir()
    (here / "answer.txt").write_text(ANSWER, encoding="utf-8")
    key_path = home / "var" / "audit-signing-key.pem"

    missing = _run(["audit", "public-key"], here, home)
    assert missing.returncode == 1, missing.stderr
    assert f"no pack signing key at {key_path}" in missing.stderr
    assert "`lexgate audit init`" in missing.stderr
    assert not key_path.exists()

    unset = _run(["check", "answer.txt"], here, home)
    assert unset.returncode == 1
    assert "holds no statutes yet: run `lexgate db init`" in unset.stderr
    assert str(home / "var" / "lexgate.sqlite3") in unset.stderr
    assert "SELECT" not in unset.stderr and "sqlalche.me" not in unset.stderr

    made = _run(["audit", "init"], here, home)
    assert made.returncode == 0, made.stderr
    assert f"pack signing key: created {key_path}" in made.stdout
    assert f"pseudonym secret: created {home / 'var' / 'pseudonym-map.secret'}" in made.stdout
    again = _run(["audit", "init"], there, home)
    assert "pack signing key: present" in again.stdout

    first = _run(["audit", "public-key"], here, home)
    second = _run(["audit", "public-key"], there, home)
    assert first.returncode == second.returncode == 0
    assert first.stdout.startswith("-----BEGIN PUBLIC KEY-----")
    assert first.stdout == second.stdout
    assert sorted(p.name for p in here.iterdir()) == ["answer.txt"]
    assert list(there.iterdir()) == []
