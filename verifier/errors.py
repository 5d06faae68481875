"""The verifier's domain errors; the CLI and the web edge turn them into messages and codes."""


class VerifierError(Exception):
    """Base of the verifier's errors."""


class InputError(VerifierError, ValueError):
    """Bad input to a check (a date, a JSON line, a file), naming what is wrong."""
