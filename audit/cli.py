"""`lexgate audit trace|export|verify`: trace a pseudonym, write and check evidence packs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Protocol

import typer

from audit.errors import AuditError, MappingStoreError, PackInvalidError, TraceError

if TYPE_CHECKING:
    from pydantic import SecretStr
    from sqlalchemy.engine import Engine

    from audit.mapping_store import PseudonymStore
    from audit.models import PackSummary, Trace

QUESTION_SHOWN = 80


def _fail(message: str, code: int = 1) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


class AuditSettings(Protocol):
    """What the audit commands read of the deployment's settings (given by the CLI's edge)."""

    @property
    def database_url(self) -> str: ...

    @property
    def sql_echo(self) -> bool: ...

    @property
    def timezone(self) -> str: ...

    @property
    def mapping_store_path(self) -> Path: ...

    @property
    def audit_signing_key_path(self) -> Path: ...

    @property
    def audit_secret(self) -> SecretStr | None: ...

    @property
    def audit_key_id(self) -> str: ...

    @property
    def store_key(self) -> SecretStr | None: ...

    @property
    def store_key_path(self) -> Path: ...


def _on_postgresql(settings: AuditSettings) -> bool:
    """Whether the database is PostgreSQL: its pseudonym mapping is then in the database."""
    from legaldb.engine import normalize_url

    return normalize_url(settings.database_url).get_backend_name() == "postgresql"


def _mapping_store(settings: AuditSettings, engine: Engine) -> PseudonymStore:
    """The store trace reads: the database's (sealed) on PostgreSQL, else the private file."""
    from audit.mapping_store import DatabaseMappingStore, MappingStore

    if not _on_postgresql(settings):
        return MappingStore(settings.mapping_store_path, create=False)
    from audit.sealing import KeyRing, parse_keys, read_key_file

    if settings.store_key is not None:
        keys = parse_keys(settings.store_key.get_secret_value())
    else:
        keys = read_key_file(settings.store_key_path)
    return DatabaseMappingStore(engine, KeyRing(keys))


def _engine(settings: AuditSettings) -> Engine:
    from legaldb import make_engine

    return make_engine(settings.database_url, echo=settings.sql_echo)


def _summary_line(summary: PackSummary) -> str:
    return (
        f"pack {summary.pack_id}, {summary.period}: {summary.cases} cases, "
        f"{summary.attempts} answers, {summary.citations} citations; "
        f"{summary.size_bytes} bytes, sha256 {summary.sha256}"
    )


def _trace_json(found: Trace) -> dict[str, Any]:
    from audit.pack import utc_text

    entry = found.entry
    return {
        "pseudonym": entry.pseudonym,
        "kind": entry.kind,
        "id": entry.raw_id,
        "first_seen": utc_text(entry.first_seen),
        "cases": [
            {
                "case_id": case.case_id,
                "recorded_at": utc_text(case.recorded_at),
                "subject": case.subject,
                "session": case.session,
                "as_of": case.as_of.isoformat(),
                "state": case.state,
                "delivery": case.delivery,
                "question": case.question,
                "attempts": [
                    {
                        "attempt": a.attempt,
                        "recorded_at": utc_text(a.recorded_at),
                        "decision": a.decision,
                        "verifiable_rate": a.verifiable_rate,
                        "answer_sha256": a.answer_sha256,
                        "answer": a.answer,
                    }
                    for a in case.attempts
                ],
            }
            for case in found.cases
        ],
    }


def _print_trace(found: Trace, timezone: str) -> None:
    from zoneinfo import ZoneInfo  # here: every command's start-up imports this module

    from audit.pack import utc_text

    entry = found.entry
    zone = ZoneInfo(timezone)
    kind = {"subj": "subject", "sess": "session"}.get(entry.kind, entry.kind)
    typer.echo(
        f"{entry.pseudonym} is {kind} {entry.raw_id!r} (first seen {utc_text(entry.first_seen)})"
    )
    typer.echo(f"{len(found.cases)} case(s):")
    for case in found.cases:
        shown = (case.question or "").replace("\n", " ")
        if len(shown) > QUESTION_SHOWN:
            shown = shown[: QUESTION_SHOWN - 1] + "…"
        typer.echo(
            f"- {case.case_id}  {case.recorded_at.astimezone(zone):%Y-%m-%d %H:%M %Z}  "
            f"as of {case.as_of}  {case.state}" + (f" → {case.delivery}" if case.delivery else "")
        )
        typer.echo(f"    session {case.session}  subject {case.subject or '-'}")
        if shown:
            typer.echo(f"    question: {shown}")
        for attempt in case.attempts:
            rate = "-" if attempt.verifiable_rate is None else f"{attempt.verifiable_rate:.2f}"
            typer.echo(
                f"    attempt {attempt.attempt}: {attempt.decision} (rate {rate}) "
                f"answer sha256 {attempt.answer_sha256[:16]}…"
            )


def register(app: typer.Typer, settings_loader: Callable[[], AuditSettings]) -> None:
    """Add `audit trace|export|verify` to the root command."""
    audit_app = typer.Typer(
        help="The audit trail: trace a pseudonym, export and verify quarterly evidence packs.",
        no_args_is_help=True,
    )
    app.add_typer(audit_app, name="audit")

    @audit_app.command("init")
    def init_command() -> None:
        """Make this server's pseudonym secret and pack signing key (mode 0600) where the
        settings say, if missing, and with PostgreSQL the store key file; say where they are.
        Never replaces any."""
        from audit.mapping_store import secret_path_for
        from audit.pseudonyms import ensure_secret
        from audit.sealing import create_key_file
        from audit.signing import create_signing_key, fingerprint, load_signing_key

        settings = settings_loader()
        key_path = settings.audit_signing_key_path
        try:
            if settings.audit_secret is not None:
                secret_line = "pseudonym secret: LEXGATE_AUDIT_SECRET (from the environment)"
            else:
                made = ensure_secret(settings.mapping_store_path)
                where = secret_path_for(settings.mapping_store_path)
                secret_line = f"pseudonym secret: {'created' if made else 'present'} {where}"
            key_made = create_signing_key(key_path)
            key = load_signing_key(key_path)
            store_line = None
            if _on_postgresql(settings):
                if settings.store_key is not None:
                    store_line = "store key: LEXGATE_STORE_KEY (from the environment)"
                else:
                    made_key = create_key_file(settings.store_key_path)
                    store_line = (
                        f"store key: {'created' if made_key else 'present'} "
                        f"{settings.store_key_path} (every host needs this same file)"
                    )
        except AuditError as error:
            raise _fail(str(error)) from None
        typer.echo(secret_line)
        if store_line is not None:
            typer.echo(store_line)
        typer.echo(
            f"pack signing key: {'created' if key_made else 'present'} {key_path} "
            f"({fingerprint(key.public_key())})"
        )

    @audit_app.command("trace")
    def trace_command(
        pseudonym: Annotated[str, typer.Argument(help="A subject or session pseudonym.")],
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        """Resolve a pseudonym to its real id and list its cases (needs the mapping store)."""
        from sqlalchemy.exc import SQLAlchemyError

        from audit.recorder import trace

        settings = settings_loader()
        try:
            from audit.mapping_store import MappingStore

            engine = _engine(settings)
            try:
                found = trace(engine, pseudonym, _mapping_store(settings, engine))
            except TraceError:
                if not (_on_postgresql(settings) and settings.mapping_store_path.exists()):
                    raise
                # Recorded before the mapping moved into the database: the server's old file.
                old = MappingStore(settings.mapping_store_path, create=False)
                found = trace(engine, pseudonym, old)
        except MappingStoreError as error:
            raise _fail(str(error)) from None
        except AuditError as error:
            raise _fail(str(error)) from None
        except SQLAlchemyError as error:
            from legaldb.engine import describe_error

            raise _fail(f"the audit tables cannot be read: {describe_error(error)}") from None
        if as_json:
            typer.echo(json.dumps(_trace_json(found), ensure_ascii=False, indent=2))
        else:
            _print_trace(found, settings.timezone)

    @audit_app.command("export")
    def export_command(
        quarter: Annotated[str, typer.Option("--quarter", help="The quarter, e.g. 2026Q4.")],
        out: Annotated[
            str | None,
            typer.Option("--out", help="The zip to write (default lexgate-audit-QUARTER.zip)."),
        ] = None,
        force: Annotated[bool, typer.Option("--force", help="Replace an existing file.")] = False,
    ) -> None:
        """Write the quarter's evidence pack (quarter boundaries in LEXGATE_TIMEZONE)."""
        from sqlalchemy.exc import SQLAlchemyError

        from audit.export import export_pack
        from audit.pseudonyms import scheme_of
        from audit.signing import load_signing_key, signature_path

        settings = settings_loader()
        try:
            summary = export_pack(
                _engine(settings),
                quarter,
                out,
                timezone=settings.timezone,
                scheme=scheme_of(settings.audit_key_id),
                overwrite=force,
                signing_key=load_signing_key(settings.audit_signing_key_path),
            )
        except AuditError as error:
            raise _fail(str(error)) from None
        except SQLAlchemyError as error:
            from legaldb.engine import describe_error

            raise _fail(
                f"the audit tables cannot be read ({describe_error(error)}); "
                "run `lexgate db init` first"
            ) from None
        typer.echo(f"wrote {summary.path}: {_summary_line(summary)}")
        typer.echo(f"signed: {signature_path(summary.path)} by key {summary.signer}")
        typer.echo(
            "Auditors check it with `lexgate audit verify PACK --public-key KEY.pem`, the key "
            "from `lexgate audit public-key`, given to them once by another channel."
        )

    @audit_app.command("verify")
    def verify_command(
        file: Annotated[str, typer.Argument(help="The evidence pack (zip) to check.")],
        public_key: Annotated[
            str | None,
            typer.Option(
                "--public-key",
                help="The exporting server's public key (PEM): also check the pack's signature.",
            ),
        ] = None,
        signature: Annotated[
            str | None,
            typer.Option("--signature", help="The signature file (default: FILE.sig)."),
        ] = None,
    ) -> None:
        """Check a pack: members, checksums, schemas, counts, layout, and with --public-key its
        signature; exit 1 naming a problem."""
        from audit.pack import verify_pack
        from audit.signing import check_pack_signature, signature_path, signer_of

        try:
            summary = verify_pack(file)
            if public_key is not None:
                signer = check_pack_signature(file, public_key, signature)
                note = f"signature OK: signed by the given key {signer}"
            else:
                beside = Path(signature) if signature else signature_path(file)
                note = (
                    f"signature by key {signer_of(beside.read_bytes())} not checked: give the "
                    "server's public key with --public-key"
                    if beside.is_file()
                    else "no signature beside it"
                )
        except PackInvalidError as error:
            typer.echo(f"INVALID {file}: {error}", err=True)
            raise typer.Exit(1) from None
        typer.echo(f"OK {file}: {_summary_line(summary)}")
        typer.echo(note)

    @audit_app.command("public-key")
    def public_key_command() -> None:
        """Print the public key that signs this server's evidence packs (PEM), for auditors;
        its fingerprint goes to standard error. No key yet: says so (`lexgate audit init`)."""
        from audit.signing import fingerprint, load_signing_key, public_key_pem

        settings = settings_loader()
        try:
            key = load_signing_key(settings.audit_signing_key_path)
        except AuditError as error:
            raise _fail(str(error)) from None
        typer.echo(public_key_pem(key), nl=False)
        typer.echo(f"fingerprint {fingerprint(key.public_key())}", err=True)


__all__ = ["register"]
