"""Frozen data types of the web edge: roles, permissions and API keys (never ORM rows)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

Role = Literal["checker", "auditor", "admin", "reviewer"]
Permission = Literal["check", "gate", "premise", "laws", "audit", "admin", "review"]

ROLES: tuple[Role, ...] = ("checker", "auditor", "admin", "reviewer")

# What each role may do: checker < auditor < admin.
ROLE_PERMISSIONS: dict[Role, frozenset[Permission]] = {
    "checker": frozenset({"check", "gate", "premise", "laws"}),
    "auditor": frozenset({"check", "gate", "premise", "laws", "audit"}),
    "admin": frozenset({"check", "gate", "premise", "laws", "audit", "admin", "review"}),
    # reviewer: a checker who also decides the model judge's review queue (/review).
    "reviewer": frozenset({"check", "gate", "premise", "laws", "review"}),
}


@dataclass(frozen=True, slots=True)
class ApiKeyInfo:
    """A stored API key without its secret: who it is, what it may do."""

    key_id: str
    role: Role
    name: str | None
    created_at: datetime | None
    revoked_at: datetime | None = None

    def may(self, permission: Permission) -> bool:
        """True when the key's role grants the permission (a revoked key grants nothing)."""
        return self.revoked_at is None and permission in ROLE_PERMISSIONS[self.role]


# The caller of a page when LEXGATE_WEB_PUBLIC_PAGES is on and no key was given.
ANONYMOUS_CHECKER = ApiKeyInfo(key_id="anonymous", role="checker", name=None, created_at=None)


@dataclass(frozen=True, slots=True)
class CreatedKey:
    """A new key: the full secret (shown once, never stored) and what was stored."""

    key: str
    info: ApiKeyInfo
