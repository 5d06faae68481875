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


class SecretMissingError(MappingStoreError):
    """The pseudonym secret file is missing while the mapping store holds pseudonyms made
    with it: a new secret would give every known id a new pseudonym."""


class PseudonymConflictError(MappingStoreError):
    """A pseudonym is already recorded for a different (kind, raw id)."""


class AuditWriteError(AuditError):
    """A gated answer could not be recorded; nothing of it was written to the audit tables."""


class CaseMismatchError(AuditWriteError, ValueError):
    """A round does not continue the recorded case it names (another session, another answer)."""


class CaseMovedOnError(CaseMismatchError):
    """The case already holds the round's new answer's place: another answer of the session
    was recorded meanwhile (the caller sends its answer again, on the round as it is now)."""


class SealError(AuditError):
    """A sealed value cannot be sealed or opened: no key, an unknown key id, an altered value."""


class TraceError(AuditError):
    """A pseudonym cannot be traced: malformed, or not recorded in this server's mapping store."""


class ExportError(AuditError):
    """An evidence pack cannot be made (a bad quarter, a file that fails its schema)."""


class SigningKeyError(ExportError):
    """The pack signing key cannot be made or read (its file, its mode, its contents)."""


class SigningKeyMissingError(SigningKeyError):
    """There is no pack signing key yet; it is made by `lexgate audit init`, never on the fly."""


class PackInvalidError(AuditError):
    """A received evidence pack fails verification; the message names what is wrong."""


class PackSignatureError(PackInvalidError):
    """A pack's signature is missing or malformed, made by another key, or does not verify."""


class ReviewError(AuditError):
    """A review-queue operation is refused: an unknown item, one already decided, a bad value."""


class ReviewNotFoundError(ReviewError):
    """No review item with that id."""


class AlreadyDecidedError(ReviewError):
    """The review item was already decided; a decision is recorded once."""
