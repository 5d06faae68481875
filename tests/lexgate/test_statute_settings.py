"""The statute settings read without pydantic-settings are the ones `Settings` reads."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lexgate.settings import Settings
from lexgate.statute_settings import StatuteSettings, statute_settings

CASES = {
    "defaults": {},
    "home": {"LEXGATE_HOME": "{tmp}/home"},
    "relative home": {"LEXGATE_HOME": "home"},
    "relative database": {
        "LEXGATE_HOME": "{tmp}",
        "LEXGATE_DATABASE_URL": "sqlite:///db/x.sqlite3",
    },
    "database with a query": {"LEXGATE_DATABASE_URL": "sqlite:///x.sqlite3?timeout=5"},
    "absolute database": {"LEXGATE_DATABASE_URL": "sqlite:///{tmp}/y.sqlite3"},
    "postgresql": {"LEXGATE_DATABASE_URL": "postgresql+psycopg://u:p@db.example/lexgate"},
    "in memory": {"LEXGATE_DATABASE_URL": "sqlite:///:memory:"},
    "no cache": {"LEXGATE_CACHE_DIR": ""},
    "relative cache": {"LEXGATE_HOME": "{tmp}", "LEXGATE_CACHE_DIR": "c/d"},
    "absolute cache": {"LEXGATE_CACHE_DIR": "{tmp}/cache"},
    "cache under ~": {"LEXGATE_CACHE_DIR": "~/cache"},
    "timezone": {"LEXGATE_TIMEZONE": "Europe/Berlin"},
    "lower case": {"lexgate_timezone": "UTC", "Lexgate_Cache_Dir": "k"},
    "others set": {"LEXGATE_WEB_PORT": "9000", "LEXGATE_HOMEWARD": "x", "HOME_DIR": "y"},
}


@pytest.mark.parametrize("environment", CASES.values(), ids=CASES.keys())
def test_the_statute_settings_are_the_settings(
    environment: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """database_url, cache_dir and timezone as `Settings()` gives them, from the same
    environment (defaults, home, relative and absolute paths, names in any case)."""
    for name in list(os.environ):
        if name.upper().startswith("LEXGATE_"):
            monkeypatch.delenv(name)
    for name, value in environment.items():
        monkeypatch.setenv(name, value.format(tmp=tmp_path))
    monkeypatch.chdir(tmp_path)
    settings = Settings()
    expected = StatuteSettings(settings.database_url, settings.cache_dir, settings.timezone)
    assert statute_settings() == expected


def test_a_setting_given_twice_is_left_to_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two variables naming the same setting in different cases: no answer (Settings decides)."""
    monkeypatch.setenv("LEXGATE_TIMEZONE", "UTC")
    monkeypatch.setenv("lexgate_timezone", "Europe/Berlin")
    assert statute_settings() is None
