"""The one configuration object, read from LEXGATE_* environment variables."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from gate.policy import Delivery, Policy
from lexgate.client_options import MAX_TOP_LOGPROBS, MIN_TOP_LOGPROBS, ClientOptions
from lexgate.statute_settings import (
    DEFAULT_CACHE_DIR,
    DEFAULT_DATABASE_URL,
    DEFAULT_TIMEZONE,
    ENV_PREFIX,
    database_under_home,
    default_home,
    under_home,
)

_CLIENT = ClientOptions()
"""The client's defaults, which the llm_* settings take."""


class Settings(BaseSettings):
    """Every setting of LexGate; each field is documented in docs/configuration.md."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="ignore")

    home: Path = Field(
        default_factory=default_home,
        description="The instance's home: relative paths of the other settings (the SQLite "
        "database, the mapping store, the keys, the round store, the cache) are taken from here, never "
        "from the current directory. Default: the project root of a source checkout, else "
        "$XDG_DATA_HOME/lexgate.",
    )
    database_url: str = Field(
        default=DEFAULT_DATABASE_URL,
        description="SQLAlchemy URL of the statute and audit database "
        "(sqlite:///… embedded default, a relative path under LEXGATE_HOME; "
        "postgresql+psycopg://… in production).",
    )
    statute_database_url: str | None = Field(
        default=None,
        description="SQLAlchemy URL of a read replica of the database that `lexgate serve` and "
        "`lexgate gateway` workers read the statutes from (their index at start, article "
        "texts on demand); everything else (API keys, audit, rounds) stays on database_url. "
        "Unset: database_url.",
    )
    timezone: str = Field(
        default=DEFAULT_TIMEZONE,
        description="Timezone in which 'today' (the default as-of date) is taken.",
    )
    sql_echo: bool = Field(default=False, description="Log every SQL statement (debugging).")
    cache_dir: Path | None = Field(
        default=DEFAULT_CACHE_DIR,
        description="Directory of the statute index snapshot (legaldb.snapshot): read from the "
        "database once, then loaded by every command and web worker while the statutes are "
        "unchanged. Empty: no snapshot, each process reads the tables.",
    )
    llm_base_url: str | None = Field(
        default=None,
        description="Base URL of an OpenAI-compatible API (e.g. https://api.openai.com/v1); "
        "requests go to {base}/chat/completions. Unset: no language model, the caller reruns.",
    )
    llm_model: str | None = Field(default=None, description="Model name sent with each request.")
    llm_api_key: SecretStr | None = Field(
        default=None, description="Bearer key of the API; never logged. Unset: no header sent."
    )
    llm_timeout_s: float = Field(
        default=_CLIENT.timeout_s,
        gt=0,
        description="Timeout of one request (connect, read, write), seconds.",
    )
    llm_max_retries: int = Field(
        default=_CLIENT.max_retries,
        ge=0,
        description="Retries after the first request on 429, 5xx, timeouts "
        "and connection errors (other 4xx are never retried).",
    )
    llm_backoff_s: float = Field(
        default=_CLIENT.backoff_s,
        ge=0,
        description="First retry delay, seconds; doubles on each retry, "
        "with jitter (each delay is drawn between half and all of it).",
    )
    llm_backoff_max_s: float = Field(
        default=_CLIENT.backoff_max_s,
        ge=0,
        description="Upper bound of one backoff delay, seconds.",
    )
    llm_max_retry_after_s: float = Field(
        default=_CLIENT.max_retry_after_s,
        ge=0,
        description="Longest Retry-After the client waits for; a server "
        "asking for longer ends the request with an error instead.",
    )
    judge_enabled: bool = Field(
        default=False,
        description="Ask a model judge whether each correctly cited article supports the claim "
        "drawn from it (docs/judge.md). Off: the gate never calls it.",
    )
    judge_threshold: float = Field(
        default=0.8,
        ge=0.0,
        le=1.0,
        description="Confidence (top probability) at or above which a judgement stands; "
        "below it the citation goes to the review queue and decides nothing.",
    )
    judge_base_url: str | None = Field(
        default=None, description="OpenAI-compatible base URL of the judge; unset: llm_base_url."
    )
    judge_model: str | None = Field(
        default=None, description="Model of the judge; unset: llm_model."
    )
    judge_api_key: SecretStr | None = Field(
        default=None, description="Bearer key of the judge's API; unset: llm_api_key."
    )
    judge_top_logprobs: int = Field(
        default=10,
        ge=MIN_TOP_LOGPROBS,
        le=MAX_TOP_LOGPROBS,
        description="Alternatives asked for the judge's one token (the options A/B/C must be "
        "among them).",
    )
    audit_secret: SecretStr | None = Field(
        default=None,
        description="Secret key (at least 16 bytes) of the HMAC-SHA256 pseudonyms of subject "
        "and session ids; never logged. Unset: generated on first use into a mode-0600 file "
        "beside the mapping store (mapping_store_path with suffix .secret).",
    )
    audit_key_id: str = Field(
        default="k1",
        pattern=r"^[a-z0-9]{1,16}$",
        description="Name of the audit secret, shown in every pseudonym (subj_k1_…) and in "
        "evidence packs; give a new secret a new key id.",
    )
    mapping_store_path: Path = Field(
        default=Path("var/pseudonym-map.sqlite3"),
        description="Private SQLite file (mode 0600) mapping pseudonyms back to real ids; "
        "server-local, read only by `lexgate audit trace`.",
    )
    store_key: SecretStr | None = Field(
        default=None,
        description="AES-256 keys sealing the raw ids and answers that the pseudonym mapping "
        "and the open rounds keep in a PostgreSQL database: `key_id:base64` items separated "
        "by commas, the first sealing, all opening; never logged. Unset: store_key_path.",
    )
    store_key_path: Path = Field(
        default=Path("var/store.key"),
        description="Private file (mode 0600) of the store keys, one `key_id:base64` per line, "
        "the first sealing (made by `lexgate audit init` with PostgreSQL, rotated by "
        "`lexgate store-key rotate`); every host of a deployment needs the same file.",
    )
    audit_signing_key_path: Path = Field(
        default=Path("var/audit-signing-key.pem"),
        description="Private Ed25519 key (PEM, mode 0600, made on first use) signing every "
        "evidence pack; give auditors its public half (`lexgate audit public-key`).",
    )
    web_host: str = Field(
        default="127.0.0.1", description="Address `lexgate serve` listens on (loopback by default)."
    )
    web_port: int = Field(default=8000, ge=1, le=65535, description="Port of `lexgate serve`.")
    web_workers: int = Field(
        default=1,
        ge=1,
        description="Server processes of `lexgate serve` (each loads the statutes).",
    )
    web_max_body_bytes: int = Field(
        default=256 * 1024,
        ge=1024,
        description="Largest request body accepted, bytes (counted while reading); larger: 413.",
    )
    web_public_pages: bool = Field(
        default=False,
        description="Open the pages / and /laws without an API key (as role checker). "
        "`make run` turns it on for its loopback server; the API always needs a key.",
    )
    web_keep_alive_s: int = Field(
        default=75,
        ge=1,
        description="Seconds `lexgate serve` keeps an idle client connection open; longer than "
        "the proxy's or client's own idle timeout (nginx upstream: 60 s), so that the server "
        "never closes a connection a new request is being sent on.",
    )
    web_key_cache_s: float = Field(
        default=10.0,
        ge=0,
        description="Seconds a worker trusts an API key it has verified without reading the "
        "database again; a revoked key stops within this time. 0: read on every request.",
    )
    web_round_store_path: Path = Field(
        default=Path("var/open-rounds.sqlite3"),
        description="Private SQLite file (mode 0600) keeping the open rounds of POST /api/v1/gate "
        "between requests (raw answers, deleted when the round ends or after 24 h idle).",
    )
    web_forwarded_allow_ips: str = Field(
        default="127.0.0.1",
        description="Proxies whose X-Forwarded-For/-Proto `lexgate serve` trusts "
        "(comma-separated addresses, or * behind a private network only).",
    )
    gateway_upstream_url: str | None = Field(
        default=None,
        description="Base URL of the OpenAI-compatible API `lexgate gateway` forwards to "
        "(e.g. https://api.openai.com/v1). Unset: the gateway answers 503.",
    )
    gateway_upstream_key: SecretStr | None = Field(
        default=None,
        description="Bearer key of the upstream API; sent only to the upstream, never to the "
        "app, never logged. Unset: no header sent.",
    )
    gateway_models: dict[str, str] = Field(
        default_factory=dict,
        description="Model names the app may ask for → the upstream's model (JSON object). "
        "Empty: any name is passed through and GET /v1/models relays the upstream's list.",
    )
    gateway_timeout_s: float = Field(
        default=60.0,
        gt=0,
        description="Longest wait for one whole upstream answer (streamed or not), seconds; "
        "then the app gets a 504. The gateway never retries: the app's client does.",
    )
    gateway_max_attempts: int = Field(
        default=Policy.model_fields["max_attempts"].default,
        ge=1,
        description="Answers asked of the upstream per completion, the first included "
        "(1: gate only, no rerun).",
    )
    gateway_on_exhausted: Delivery = Field(
        default=Policy.model_fields["on_exhausted"].default,
        description="The last answer of a round that ends exhausted: delivered with its "
        "`lexgate` verdicts, or refused with a 422 error body.",
    )
    gateway_citation_note: bool = Field(
        default=False,
        description="Append a short Chinese citation note to each delivered answer "
        "(〔引用核验：已核验 3 条 · 已废止 1 条 → 民法典第577条〕).",
    )
    gateway_host: str = Field(
        default="127.0.0.1", description="Address `lexgate gateway` listens on."
    )
    gateway_port: int = Field(
        default=8100, ge=1, le=65535, description="Port of `lexgate gateway`."
    )

    @field_validator("cache_dir", mode="before")
    @classmethod
    def _empty_is_none(cls, value: object) -> object:
        """LEXGATE_CACHE_DIR= (empty) turns the snapshot off."""
        return None if value == "" else value

    @model_validator(mode="after")
    def _paths_under_home(self) -> Settings:
        """Relative file paths, and a relative SQLite database, are taken from `home`
        (lexgate.statute_settings, which reads the statute settings alike)."""
        home = self.home.expanduser().resolve()
        self.home = home
        for name in (
            "mapping_store_path",
            "audit_signing_key_path",
            "web_round_store_path",
            "store_key_path",
        ):
            setattr(self, name, under_home(getattr(self, name), home))
        if self.cache_dir is not None:
            self.cache_dir = under_home(self.cache_dir, home)
        self.database_url = database_under_home(self.database_url, home)
        return self


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once from the environment."""
    return Settings()
