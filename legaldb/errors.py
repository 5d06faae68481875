"""Domain exceptions of the statute database; the CLI and web edges turn them into messages."""

from __future__ import annotations


class LegalDBError(Exception):
    """Base of every legaldb error."""


class DatabaseURLError(LegalDBError):
    """The database URL is malformed or names an unsupported backend."""


class MigrationError(LegalDBError):
    """The schema could not be migrated, or is not at the head revision."""


class ImportFailed(LegalDBError):
    """An import was rolled back; what was stored before is intact."""


class RepealedDataError(LegalDBError):
    """repealed_laws.json is malformed or names a successor law that is not in the database."""


class EmptyDatabase(LegalDBError):
    """The database holds no statutes: run `lexgate db init`."""
