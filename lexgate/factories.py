"""The `from_settings` factories: the configured HTTP clients and the audit's pseudonymizer.

The core packages take these objects ready-made; only this edge (and the web app, the CLI)
reads `Settings`.
"""

from __future__ import annotations

import logging
from dataclasses import fields

from audit.mapping_store import load_or_create_secret, secret_path_for
from audit.pseudonyms import Pseudonymizer, ensure_secret
from audit.sealing import KeyRing, parse_keys, read_key_file
from gate.errors import RegeneratorConfigError
from lexgate.llm import ClientOptions, OpenAIJudge, OpenAIRegenerator
from lexgate.settings import Settings

log = logging.getLogger("lexgate.audit")


def regenerator_from_settings(settings: Settings) -> OpenAIRegenerator:
    """The client configured by the llm_* settings; RegeneratorConfigError if unset."""
    if not settings.llm_base_url or not settings.llm_model:
        raise RegeneratorConfigError(
            "no language model configured: set LEXGATE_LLM_BASE_URL and LEXGATE_LLM_MODEL"
        )
    return OpenAIRegenerator(
        base_url=settings.llm_base_url,
        model=settings.llm_model,
        api_key=settings.llm_api_key,
        options=ClientOptions(
            **{
                field.name: getattr(settings, f"llm_{field.name}")
                for field in fields(ClientOptions)
            }
        ),
    )


def judge_client_from_settings(settings: Settings) -> OpenAIJudge:
    """The judge of the judge_* settings (model, base URL and key default to the llm_* ones).

    RegeneratorConfigError when neither names a model and base URL.
    """
    configured = settings.model_copy(
        update={
            "llm_base_url": settings.judge_base_url or settings.llm_base_url,
            "llm_model": settings.judge_model or settings.llm_model,
            "llm_api_key": settings.judge_api_key or settings.llm_api_key,
        }
    )
    return OpenAIJudge(
        regenerator_from_settings(configured), top_logprobs=settings.judge_top_logprobs
    )


def judge_from_settings(settings: Settings) -> OpenAIJudge | None:
    """The configured judge, None unless judge_enabled."""
    return judge_client_from_settings(settings) if settings.judge_enabled else None


def pseudonymizer_from_settings(settings: Settings) -> Pseudonymizer:
    """The deployment's pseudonymizer: settings.audit_secret, else the secret file kept next
    to the mapping store. A fresh instance (no store yet) gets a new secret, logged with its
    path; a store without its secret is refused (`audit.pseudonyms.ensure_secret`)."""
    if settings.audit_secret is not None:
        secret = settings.audit_secret.get_secret_value().encode("utf-8")
    else:
        if ensure_secret(settings.mapping_store_path):
            log.warning(
                "new pseudonym secret %s (mode 0600): keep it with the mapping store",
                secret_path_for(settings.mapping_store_path),
            )
        secret = load_or_create_secret(secret_path_for(settings.mapping_store_path))
    return Pseudonymizer(secret, settings.audit_key_id)


def store_keys_from_settings(settings: Settings) -> KeyRing:
    """The key ring sealing what the database keeps of the private stores: store_key when
    set, else the key file store_key_path (SealError when missing: keys are made by
    `lexgate audit init`, never on the fly, since every host must share them)."""
    if settings.store_key is not None:
        return KeyRing(parse_keys(settings.store_key.get_secret_value()))
    return KeyRing(read_key_file(settings.store_key_path))


__all__ = [
    "judge_client_from_settings",
    "judge_from_settings",
    "pseudonymizer_from_settings",
    "regenerator_from_settings",
    "store_keys_from_settings",
]
