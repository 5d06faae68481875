"""The web edge: the HTTP API under /api/v1, the pages, API keys and `lexgate serve`."""

from typing import TYPE_CHECKING

from textnorm.lazy import lazy_exports

if TYPE_CHECKING:
    from web.apikeys import authenticate, create_key, list_keys, revoke_key
    from web.app import create_app

__all__ = ["authenticate", "create_app", "create_key", "list_keys", "revoke_key"]

__getattr__ = lazy_exports(
    __name__,
    {
        "web.apikeys": ("authenticate", "create_key", "list_keys", "revoke_key"),
        "web.app": ("create_app",),
    },
)
