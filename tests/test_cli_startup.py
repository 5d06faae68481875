"""What a `lexgate check` process imports: from a fresh statute snapshot of a SQLite file it
answers without SQLAlchemy or pydantic-settings, and says the same as the process that read
the tables."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from legaldb import import_corpus, make_engine, read_repealed, upgrade
from tests.legaldb.factories import COMPANY, small_corpus

ANSWER = (
    f"依据《{COMPANY}》第四条，公司应当依法经营；另见《中华人民共和国民法典》第一千二百六十条。\n"
)


def _check(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = ["-m", "lexgate.cli", "check", "--json", "--as-of", "2024-07-01", "answer.txt"]
    return subprocess.run(
        [sys.executable, *args, *command],
        env=env, capture_output=True, text=True, timeout=120, check=True, cwd=env["WHERE"],
    )  # fmt: skip


def test_a_check_from_a_fresh_snapshot_imports_no_sqlalchemy(tmp_path: Path) -> None:
    """The first check reads the tables (and writes the snapshot); the next one loads the
    snapshot through sqlite3 alone, never importing SQLAlchemy (nor pydantic-settings, the
    statute settings read by lexgate.statute_settings, nor pydantic, its options converted by
    lexgate.cli.PlainValues, nor zoneinfo, today's date not asked when --as-of gives one), and
    prints the same JSON."""
    url = f"sqlite:///{tmp_path / 'statutes.sqlite3'}"
    upgrade(url)
    engine = make_engine(url)
    import_corpus(engine, small_corpus(), repealed=read_repealed())
    engine.dispose()
    (tmp_path / "answer.txt").write_text(ANSWER, encoding="utf-8")
    env = {name: value for name, value in os.environ.items() if not name.startswith("LEXGATE_")}
    env.update(LEXGATE_DATABASE_URL=url, LEXGATE_CACHE_DIR=str(tmp_path / "cache"),
               WHERE=str(tmp_path))  # fmt: skip
    first = _check([], env)
    second = _check(["-X", "importtime"], env)
    imported = {line.rsplit("|", 1)[-1].strip() for line in second.stderr.splitlines()}
    assert not {"sqlalchemy", "legaldb.orm", "pydantic_settings", "pydantic", "zoneinfo"} & imported
    assert "legaldb.index" in imported  # the import list is the one asked for
    assert second.stdout == first.stdout and '"status"' in first.stdout
