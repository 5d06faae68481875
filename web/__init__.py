"""The web edge: the HTTP API under /api/v1, the pages, API keys and `lexgate serve`."""

from web.apikeys import authenticate, create_key, list_keys, revoke_key
from web.app import create_app

__all__ = ["authenticate", "create_app", "create_key", "list_keys", "revoke_key"]
