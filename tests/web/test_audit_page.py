"""The /audit page and the gate section of `/` on SQLite and PostgreSQL: roles, charts, escaping."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import sqlalchemy as sa

from audit import verify_pack
from audit.recorder import CASE_TABLE
from tests.web.conftest import THREE_CITATIONS, VERIFIED, bearer
from tests.web.recorded import GatedApp
from verifier import today
from web.deps import KEY_COOKIE
from web.middleware import CSP

GOOD_ANSWER = f"依照{VERIFIED}，离婚时，夫妻的共同财产由双方协议处理。"


def _this_quarter() -> str:
    day = today("Asia/Shanghai")
    return f"{day.year}Q{(day.month - 1) // 3 + 1}"


def _as(app: GatedApp, role: str) -> None:
    app.client.cookies.set(KEY_COOKIE, app.keys[role])


def _gate_three(app: GatedApp) -> None:
    """Two rounds, three answers: one rerun (repealed + invented), one pass, one pass."""
    headers = bearer(app.keys["checker"])
    for body in (
        {"answer": THREE_CITATIONS, "session_id": "p-1", "as_of": "2024-01-01"},
        {"answer": GOOD_ANSWER, "session_id": "p-1", "attempt": 2},
        {"answer": GOOD_ANSWER, "session_id": "p-2"},
    ):
        assert app.client.post("/api/v1/gate", json=body, headers=headers).status_code == 200


def _no_inline_code(html: str) -> None:
    """No inline script or style anywhere (the CSP would block it), no raw <script> of input."""
    assert re.findall(r"<script(?![^>]*\bsrc=)", html) == []
    assert " style=" not in html and "<style" not in html
    assert "<script>alert" not in html


def test_audit_page_shows_the_quarter(gated_app: GatedApp) -> None:
    """Decisions, rate histogram, invented articles and repealed laws, as inline SVG and tables."""
    _gate_three(gated_app)
    _as(gated_app, "auditor")
    response = gated_app.client.get("/audit")
    assert response.status_code == 200, response.text
    html = response.text
    assert response.headers["content-security-policy"] == CSP
    _no_inline_code(html)
    quarter = _this_quarter()
    assert f"{quarter}（Asia/Shanghai）：2 个案例 · 3 次作答 · 5 处引用" in html
    for chart in ("chart-decisions", "chart-rate", "chart-invented", "chart-repealed"):
        assert re.search(rf'<svg class="chart" id="{chart}"[^>]*role="img"', html), chart
    decisions = re.search(r'id="table-decisions".*?</table>', html, re.S)
    assert decisions is not None
    today_row = re.search(r"<tr><td>[0-9-]{10}</td>((?:<td>\d+</td>){5})</tr>", decisions.group())
    assert today_row is not None
    assert re.findall(r"\d+", today_row.group(1)) == ["2", "0", "1", "0", "3"]  # pass … total
    rate = re.search(r'id="table-rate".*?</table>', html, re.S)
    assert rate is not None
    assert "<td>30–40%</td><td>1</td>" in rate.group()
    assert "<td>90–100%</td><td>2</td>" in rate.group()
    assert "<td>《中华人民共和国民法典》第一千二百八十九条</td><td>1</td><td>1</td>" in html
    assert "<td>中华人民共和国合同法</td><td>1</td><td>1</td>" in html
    assert f'href="/audit/pack?quarter={quarter}"' in html


def test_audit_page_download_verifies(gated_app: GatedApp, tmp_path: Path) -> None:
    """The page's download link gives the quarter's pack (login cookie), accepted by verify_pack."""
    _gate_three(gated_app)
    _as(gated_app, "admin")
    response = gated_app.client.get("/audit/pack", params={"quarter": _this_quarter()})
    assert response.status_code == 200 and response.headers["content-type"] == "application/zip"
    pack = tmp_path / "pack.zip"
    pack.write_bytes(response.content)
    assert verify_pack(pack).cases == 2


@pytest.mark.parametrize("path", ["/audit", "/audit/pack?quarter=2026Q4"], ids=["page", "pack"])
def test_a_checker_is_refused_the_audit_page(gated_app: GatedApp, path: str) -> None:
    """403 page for a checker's cookie; no cookie: sent to /login."""
    anonymous = gated_app.client.get(path, follow_redirects=False)
    assert anonymous.status_code == 303 and anonymous.headers["location"].startswith("/login")
    _as(gated_app, "checker")
    refused = gated_app.client.get(path, follow_redirects=False)
    assert refused.status_code == 403
    assert "text/html" in refused.headers["content-type"] and "无权访问" in refused.text


@pytest.mark.parametrize(
    "quarter", ["2026Q5", "<script>alert(1)</script>"], ids=["fifth", "script"]
)
def test_a_bad_quarter_on_the_page_is_422_and_escaped(gated_app: GatedApp, quarter: str) -> None:
    """422 page naming the quarter field; the input is shown as text."""
    _as(gated_app, "auditor")
    response = gated_app.client.get("/audit", params={"quarter": quarter})
    assert response.status_code == 422
    assert 'data-field="quarter"' in response.text
    _no_inline_code(response.text)


def test_check_page_shows_the_gate_decision_unrecorded(gated_app: GatedApp) -> None:
    """Below the badges: the decision, the standards and the facts a rerun would inject; the
    answer's <script> is text, and nothing goes to the audit trail."""
    _as(gated_app, "checker")
    response = gated_app.client.post(
        "/", data={"question": "", "answer": THREE_CITATIONS, "as_of": "2024-01-01"}
    )
    assert response.status_code == 200
    html = response.text
    _no_inline_code(html)
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in html
    decision = re.search(r'id="gate-decision"[^>]*><strong>([^<]+)</strong>([^<]*)', html)
    assert decision is not None
    assert decision.group(1) == "需重新作答" and "可核验率 33%（1/3 条）" in decision.group(2)
    facts = re.search(r'<ol class="facts" id="gate-facts">(.*?)</ol>', html, re.S)
    assert facts is not None
    assert "共 1260 条" in facts.group(1) and "已于2021年1月1日废止" in facts.group(1)
    standards = re.findall(r'<li class="(?:passed|failed)" data-standard="\w+">([^<]+)</li>', html)
    assert len(standards) == 7
    assert "✗ 不符合 · 没有引用不存在的条文（1 处）" in standards
    assert not [s for s in standards if re.search(r"[A-Za-z]", s)]  # no code, no English
    with gated_app.engine.connect() as connection:
        assert connection.execute(sa.select(sa.func.count()).select_from(CASE_TABLE)).scalar() == 0


def test_a_passing_answer_shows_no_facts(gated_app: GatedApp) -> None:
    """An answer that passes shows 通过 and no rerun facts."""
    _as(gated_app, "checker")
    response = gated_app.client.post(
        "/", data={"question": "", "answer": GOOD_ANSWER, "as_of": "2024-01-01"}
    )
    assert re.search(r'id="gate-decision"[^>]*><strong>通过</strong>', response.text)
    assert 'id="gate-facts"' not in response.text


def test_audit_nav_link_only_for_auditors(gated_app: GatedApp) -> None:
    """The header links to /audit for an auditor, not for a checker."""
    _as(gated_app, "checker")
    assert 'href="/audit"' not in gated_app.client.get("/").text
    _as(gated_app, "auditor")
    assert 'href="/audit"' in gated_app.client.get("/").text
