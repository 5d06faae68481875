"""Domain exceptions of the audit package; the CLI and the web edge turn them into messages."""

from __future__ import annotations


class AuditError(Exception):
    """Base of every audit error."""


class PseudonymError(AuditError, ValueError):
    """A pseudonymizer was given an unusable secret, key id, kind or raw id."""


class MappingStoreError(AuditError):
    """The pseudonym mapping store cannot be used as asked."""


class MappingStoreMissingError(MappingStoreError):
    """The mapping store file does not exist (trace only works on the server that holds it)."""


class InsecureFileError(MappingStoreError):
    """A private file (mapping store, secret) is readable or writable by group or others."""


class PseudonymConflictError(MappingStoreError):
    """A pseudonym is already recorded for a different (kind, raw id)."""
