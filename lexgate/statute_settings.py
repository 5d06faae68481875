"""The settings a command that only reads the statutes needs, without pydantic-settings.

`lexgate check`, `gate` and `extract` need the database, the snapshot's directory and the
timezone; importing pydantic-settings and validating every setting took a fifth of such a
command's start-up. `statute_settings()` reads these four LEXGATE_* variables as `Settings`
does (names in any case, the same defaults, paths taken from the home through the same
functions, which `Settings` uses too); `Settings` stays the one definition of every setting.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

ENV_PREFIX = "LEXGATE_"
DEFAULT_DATABASE_URL = "sqlite:///var/lexgate.sqlite3"
DEFAULT_CACHE_DIR = Path("var/cache")
DEFAULT_TIMEZONE = "Asia/Shanghai"

_RELATIVE_SQLITE = re.compile(
    r"(?P<scheme>sqlite(?:\+\w+)?:///)(?P<database>(?!/|:memory:|file:)[^?]+)(?P<query>\?.*)?"
)
"""A SQLite URL whose file path is relative (sqlite:///var/x.sqlite3; not sqlite:////abs)."""

SOURCE_ROOT = Path(__file__).resolve().parents[1]
"""The checkout this package runs from, when it runs from one (pyproject.toml beside it)."""


def default_home() -> Path:
    """Where an instance keeps its state by default: the project root of a source checkout
    (`make install` installs it editable), else $XDG_DATA_HOME/lexgate (~/.local/share/lexgate);
    never the current directory."""
    if (SOURCE_ROOT / "pyproject.toml").is_file():
        return SOURCE_ROOT
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home) / "lexgate"


def under_home(path: Path, home: Path) -> Path:
    """A setting's path: as given when absolute (after ~), else taken from the home."""
    path = path.expanduser()
    return path if path.is_absolute() else home / path


def database_under_home(url: str, home: Path) -> str:
    """A SQLite URL of a relative file taken from the home; any other URL as given."""
    relative = _RELATIVE_SQLITE.fullmatch(url)
    if relative is None:
        return url
    scheme, database, query = relative.group("scheme", "database", "query")
    return f"{scheme}{home / database}{query or ''}"


@dataclass(frozen=True)
class StatuteSettings:
    """`Settings`' database_url, cache_dir and timezone, home applied."""

    database_url: str
    cache_dir: Path | None
    timezone: str


def statute_settings() -> StatuteSettings | None:
    """The statute settings from the environment, as `Settings()` would give them; None when
    the environment sets one of them twice (names differing in case): `Settings` decides."""
    wanted = ("home", "database_url", "cache_dir", "timezone")
    given: dict[str, str] = {}
    for name, value in os.environ.items():
        lowered = name.lower()
        field = lowered[len(ENV_PREFIX) :]
        if lowered.startswith(ENV_PREFIX.lower()) and field in wanted:
            if field in given:
                return None
            given[field] = value
    home = Path(given["home"]) if "home" in given else default_home()
    home = home.expanduser().resolve()
    cache_dir = Path(given["cache_dir"]) if "cache_dir" in given else DEFAULT_CACHE_DIR
    return StatuteSettings(
        database_url=database_under_home(given.get("database_url", DEFAULT_DATABASE_URL), home),
        cache_dir=None if given.get("cache_dir") == "" else under_home(cache_dir, home),
        timezone=given.get("timezone", DEFAULT_TIMEZONE),
    )
