"""GET /api/v1/audit/export on SQLite and PostgreSQL: a pack verify_pack accepts, roles, errors."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from audit import verify_pack
from audit.signing import fingerprint, load_signing_key, verify_signature
from tests.web.conftest import THREE_CITATIONS, VERIFIED, bearer, client_for
from tests.web.recorded import GatedApp, gate_settings
from verifier import today

GOOD_ANSWER = f"依照{VERIFIED}，离婚时，夫妻的共同财产由双方协议处理。"


def _this_quarter() -> str:
    day = today("Asia/Shanghai")
    return f"{day.year}Q{(day.month - 1) // 3 + 1}"


@pytest.mark.parametrize("role", ["auditor", "admin"], ids=str)
def test_export_downloads_a_pack_that_verifies(
    gated_app: GatedApp, role: str, tmp_path: Path
) -> None:
    """Two gated rounds (three answers) come back as this quarter's pack; verify_pack accepts it."""
    headers = bearer(gated_app.keys["checker"])
    first = {"answer": THREE_CITATIONS, "session_id": "a-1", "as_of": "2024-01-01"}
    assert gated_app.client.post("/api/v1/gate", json=first, headers=headers).status_code == 200
    second = {"answer": GOOD_ANSWER, "session_id": "a-1", "attempt": 2}
    assert gated_app.client.post("/api/v1/gate", json=second, headers=headers).status_code == 200
    single = {"answer": GOOD_ANSWER, "session_id": "a-2"}
    assert gated_app.client.post("/api/v1/gate", json=single, headers=headers).status_code == 200

    quarter = _this_quarter()
    response = gated_app.client.get(
        "/api/v1/audit/export", params={"quarter": quarter}, headers=bearer(gated_app.keys[role])
    )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/zip"
    name = f"lexgate-audit-{quarter}.zip"
    assert f'filename="{name}"' in response.headers["content-disposition"]
    pack = tmp_path / name
    pack.write_bytes(response.content)
    summary = verify_pack(pack)
    assert (summary.period, summary.cases, summary.attempts) == (quarter, 2, 3)
    assert summary.citations == 3 + 1 + 1
    # Signed with the server's key: the .sig file, base64, in X-LexGate-Signature.
    signature = base64.b64decode(response.headers["x-lexgate-signature"])
    server_key = load_signing_key(gated_app.settings.audit_signing_key_path)
    signer = verify_signature(response.content, signature, server_key.public_key())
    assert signer == fingerprint(server_key.public_key())


def test_export_of_an_empty_quarter_verifies(gated_app: GatedApp, tmp_path: Path) -> None:
    """A quarter with no case is still a valid pack (zero cases)."""
    response = gated_app.client.get(
        "/api/v1/audit/export",
        params={"quarter": "2001Q1"},
        headers=bearer(gated_app.keys["auditor"]),
    )
    assert response.status_code == 200
    pack = tmp_path / "empty.zip"
    pack.write_bytes(response.content)
    assert verify_pack(pack).cases == 0


def test_a_checker_may_not_export(gated_app: GatedApp) -> None:
    """403 for a checker key, 401 without a key."""
    params = {"quarter": "2026Q4"}
    forbidden = gated_app.client.get(
        "/api/v1/audit/export", params=params, headers=bearer(gated_app.keys["checker"])
    )
    assert forbidden.status_code == 403 and forbidden.json()["error"]["code"] == "forbidden"
    missing = gated_app.client.get("/api/v1/audit/export", params=params)
    assert missing.status_code == 401


BAD_QUARTERS = [
    ("fifth quarter", "2026Q5"),
    ("dash", "2026-Q4"),
    ("lower case", "2026q4"),
    ("path", "../../etc/passwd"),
    ("path after a quarter", "2026Q4/../../x"),
    ("empty", ""),
    ("before 1980", "1979Q4"),
]


@pytest.mark.parametrize("quarter", [q[1] for q in BAD_QUARTERS], ids=[q[0] for q in BAD_QUARTERS])
def test_a_bad_quarter_is_422_naming_quarter(gated_app: GatedApp, quarter: str) -> None:
    """422 invalid_input, field quarter: the file name is built from a parsed quarter only."""
    response = gated_app.client.get(
        "/api/v1/audit/export",
        params={"quarter": quarter},
        headers=bearer(gated_app.keys["auditor"]),
    )
    assert response.status_code == 422
    assert response.json()["error"]["field"] == "quarter"


def test_a_missing_quarter_is_422(gated_app: GatedApp) -> None:
    """No quarter at all: 422 naming quarter."""
    response = gated_app.client.get(
        "/api/v1/audit/export", headers=bearer(gated_app.keys["auditor"])
    )
    assert response.status_code == 422 and response.json()["error"]["field"] == "quarter"


def test_export_when_the_database_is_down_is_503(tmp_path: Path) -> None:
    """An unreachable database: 503 database_unavailable, JSON."""
    settings = gate_settings("postgresql+psycopg://nobody@127.0.0.1:9/none", tmp_path)
    with client_for(settings) as client:
        response = client.get(
            "/api/v1/audit/export",
            params={"quarter": "2026Q4"},
            headers=bearer("lgk_0123456789ab_x"),
        )
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "database_unavailable"


def test_an_unusable_signing_key_is_503_naming_it(gated_app: GatedApp) -> None:
    """A signing key readable by others: no pack is sent unsigned; 503 saying why."""
    path = gated_app.settings.audit_signing_key_path
    path.chmod(0o644)
    response = gated_app.client.get(
        "/api/v1/audit/export",
        params={"quarter": "2001Q1"},
        headers=bearer(gated_app.keys["auditor"]),
    )
    assert response.status_code == 503
    error = response.json()["error"]
    assert error["code"] == "audit_unavailable" and "mode 0644" in error["message"]


def test_a_missing_signing_key_is_503_naming_the_command(gated_app: GatedApp) -> None:
    """No signing key: no pack, and no key made on the fly; 503 naming the path and the command
    that makes it."""
    path = gated_app.settings.audit_signing_key_path
    path.unlink()
    response = gated_app.client.get(
        "/api/v1/audit/export",
        params={"quarter": "2001Q1"},
        headers=bearer(gated_app.keys["auditor"]),
    )
    assert response.status_code == 503
    message = response.json()["error"]["message"]
    assert str(path) in message and "`lexgate audit init`" in message
    assert not path.exists()
