"""The one configuration object, read from LEXGATE_* environment variables."""

from __future__ import annotations

from functools import lru_cache

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Every setting of LexGate; each field is documented in docs/configuration.md."""

    model_config = SettingsConfigDict(env_prefix="LEXGATE_", extra="ignore")

    database_url: str = Field(
        default="sqlite:///var/lexgate.sqlite3",
        description="SQLAlchemy URL of the statute and audit database "
        "(sqlite:///… embedded default, postgresql+psycopg://… in production).",
    )
    timezone: str = Field(
        default="Asia/Shanghai",
        description="Timezone in which 'today' (the default as-of date) is taken.",
    )
    sql_echo: bool = Field(default=False, description="Log every SQL statement (debugging).")


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once from the environment."""
    return Settings()
