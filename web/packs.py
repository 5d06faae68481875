"""A quarter's evidence pack as a download: `audit.export_pack` into a private temporary
directory, signed, streamed, then deleted. The file name is built from the parsed quarter,
never taken from the request."""

from __future__ import annotations

import base64
import shutil
import tempfile
from pathlib import Path

from sqlalchemy.engine import Engine
from starlette.background import BackgroundTask
from starlette.responses import FileResponse

from audit import export_pack
from audit.errors import ExportError, SigningKeyError
from audit.export import default_pack_name, quarter_period
from audit.models import Period, PseudonymScheme
from audit.signing import load_signing_key, signature_path
from lexgate.settings import Settings
from web.errors import AuditUnavailable, InvalidInput

QUARTER_PATTERN = r"^[0-9]{4}Q[1-4]$"
SIGNATURE_HEADER = "X-LexGate-Signature"


def parse_quarter(quarter: str, timezone: str) -> Period:
    """The quarter (2026Q4) in the configured timezone; InvalidInput naming `quarter`."""
    try:
        return quarter_period(quarter, timezone)
    except ExportError as error:
        raise InvalidInput(f"quarter: {error}", field="quarter") from None


def pack_download(
    engine: Engine, quarter: str, *, settings: Settings, scheme: PseudonymScheme
) -> FileResponse:
    """The pack of the quarter (2026Q4, in the configured timezone) as a zip attachment (the
    temporary copy is removed after), its detached signature (the .sig file, base64) in the
    header X-LexGate-Signature."""
    period = parse_quarter(quarter, settings.timezone)
    timezone = settings.timezone
    try:
        signing_key = load_signing_key(settings.audit_signing_key_path)
    except SigningKeyError as error:
        raise AuditUnavailable(f"evidence packs cannot be signed: {error}") from error
    directory = Path(tempfile.mkdtemp(prefix="lexgate-pack-"))  # mode 0700
    name = default_pack_name(period.label)
    try:
        export_pack(
            engine,
            period.label,
            directory / name,
            timezone=timezone,
            scheme=scheme,
            signing_key=signing_key,
        )
        signature = signature_path(directory / name).read_bytes()
    except BaseException:
        shutil.rmtree(directory, ignore_errors=True)
        raise
    return FileResponse(
        directory / name,
        media_type="application/zip",
        filename=name,
        headers={SIGNATURE_HEADER: base64.b64encode(signature).decode("ascii")},
        background=BackgroundTask(shutil.rmtree, directory, ignore_errors=True),
    )
