"""Browser tests: Playwright drives Debian's Chromium against a real `lexgate serve`.

Chromium comes from the system (LEXGATE_TEST_CHROMIUM, default /usr/bin/chromium; `.ci/run`
installs it with apt), never from `playwright install`. Screenshots go to var/screenshots/.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect, sync_playwright

from legaldb import StatuteRepository, make_engine
from tests.web.conftest import SCREENSHOTS, THREE_CITATIONS, LiveServer

CHROMIUM = Path(os.environ.get("LEXGATE_TEST_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Badge label -> (kind, text colour, background) as style.css draws them.
BADGES = {
    "现行有效": ("verified", "rgb(26, 127, 55)", "rgb(218, 251, 225)"),
    "已废止": ("repealed", "rgb(179, 38, 30)", "rgb(255, 227, 224)"),
    "未能核验": ("unverified", "rgb(75, 83, 93)", "rgb(230, 234, 239)"),
}


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserContext]:
    """Headless Chromium with a fresh profile."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"no Chromium at {CHROMIUM}: apt-get install chromium, or set LEXGATE_TEST_CHROMIUM"
        )
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            user_data_dir=tmp_path_factory.mktemp("chromium-profile"),
            executable_path=CHROMIUM,
            args=CHROMIUM_ARGS,
            headless=True,
            viewport={"width": 1100, "height": 900},
            locale="zh-CN",
        )
        yield context
        context.close()


@pytest.fixture(scope="module")
def live_repository(live_server: LiveServer) -> Iterator[StatuteRepository]:
    """The server's statutes, read directly, for the expected texts."""
    engine = make_engine(live_server.database_url)
    yield StatuteRepository.load(engine)
    engine.dispose()


@pytest.fixture
def page(browser: BrowserContext, live_server: LiveServer) -> Iterator[Page]:
    """A tab logged in with a checker key; CSP violations and dialogs are collected."""
    tab = browser.new_page()
    tab.problems = []  # type: ignore[attr-defined]
    tab.on(
        "console",
        lambda m: tab.problems.append(m.text) if "Content Security Policy" in m.text else None,
    )  # type: ignore[attr-defined]
    tab.on("dialog", lambda d: (tab.problems.append(f"dialog: {d.message}"), d.dismiss()))  # type: ignore[attr-defined]
    tab.goto(f"{live_server.url}/login?next=/")
    tab.fill("#key", live_server.checker_key)
    tab.click("button[type=submit]")
    tab.wait_for_url(f"{live_server.url}/")
    yield tab
    tab.close()


def _check(page: Page, answer: str, as_of: str) -> None:
    page.fill("#answer", answer)
    page.fill("#as_of", as_of)
    page.click("#check-button")
    page.wait_for_selector("#summary")


def test_three_badges_and_the_article_text(page: Page, live_repository: StatuteRepository) -> None:
    """Verified, repealed, invented: three labelled, coloured badges; a click shows the text."""
    _check(page, THREE_CITATIONS, "2024-01-01")
    assert (
        page.inner_text("#summary")
        == "已校对 3 条 · 现行有效 1 · 已废止 1 · 尚未生效 0 · 未能核验 1"
    )
    badges = page.locator("details.badge")
    assert badges.count() == 3
    for index, label in enumerate(["现行有效", "已废止", "未能核验"]):
        badge = badges.nth(index)
        kind, colour, background = BADGES[label]
        assert (badge.get_attribute("class") or "").split()[:2] == ["badge", f"badge-{kind}"]
        label_box = badge.locator(".badge-label")
        assert badge.locator(".label-text").inner_text() == label
        assert label_box.evaluate("e => getComputedStyle(e).color") == colour
        assert label_box.evaluate("e => getComputedStyle(e).backgroundColor") == background
        assert badge.locator("img.icon").evaluate("i => i.complete && i.naturalWidth > 0")

    civil = live_repository.resolve("民法典")
    assert civil is not None
    version = live_repository.version_in_force(civil.id, date(2024, 1, 1))
    assert version is not None
    article = live_repository.article_text(version.id, 1087)
    assert article is not None
    verified_panel = badges.nth(0).locator(".panel")
    expect(verified_panel).to_be_hidden()
    badges.nth(0).locator("summary").click()
    expect(verified_panel).to_be_visible()
    shown = verified_panel.inner_text()
    assert article.text.splitlines()[0] in shown
    assert version.label in shown and str(version.effective_from) in shown
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "check-verified-open.png"), full_page=True)

    badges.nth(1).locator("summary").click()  # app.js closes the other panel
    expect(verified_panel).to_be_hidden()
    repealed_panel = badges.nth(1).locator(".panel")
    expect(repealed_panel).to_be_visible()
    assert "2021-01-01" in repealed_panel.inner_text()
    assert "第五百七十七条" in repealed_panel.inner_text()
    assert "→ 民法典第577条" in badges.nth(1).locator(".badge-label").inner_text()
    page.screenshot(path=str(SCREENSHOTS / "check-page.png"), full_page=True)
    page.keyboard.press("Escape")
    expect(repealed_panel).to_be_hidden()

    assert "该法共1260条" in badges.nth(2).inner_text()
    assert page.problems == []  # type: ignore[attr-defined]


def test_script_in_an_answer_stays_text(page: Page) -> None:
    """`<script>` in an answer is shown, not run (no dialog, no CSP report)."""
    _check(page, THREE_CITATIONS + "<img src=x onerror=alert(2)>", "2024-01-01")
    text = page.inner_text("#answer-view")
    assert "<script>alert('x')</script>" in text and "<img src=x onerror=alert(2)>" in text
    assert page.locator("#answer-view script, #answer-view img:not(.icon)").count() == 0
    assert page.problems == []  # type: ignore[attr-defined]


def test_from_badge_to_the_article_page(page: Page, live_server: LiveServer) -> None:
    """The panel links to the article's page: its text in each version."""
    _check(page, THREE_CITATIONS, "2024-01-01")
    page.locator("details.badge").nth(0).locator("summary").click()
    page.locator("details.badge").nth(0).locator(".more a").click()
    page.wait_for_selector("#in-force")
    assert "第一千零八十七条" in page.inner_text("h1")
    assert "2024-01-01 施行的文本" in page.inner_text("#in-force")
    page.screenshot(path=str(SCREENSHOTS / "article-page.png"), full_page=True)
    assert page.problems == []  # type: ignore[attr-defined]


def test_swagger_ui_renders_offline(page: Page, live_server: LiveServer) -> None:
    """/docs draws the API from local files under the CSP (no CDN)."""
    page.goto(f"{live_server.url}/docs")
    expect(page.locator(".opblock-summary-path", has_text="/api/v1/check")).to_be_visible(
        timeout=20_000
    )
    assert page.problems == []  # type: ignore[attr-defined]


def test_gate_decision_below_the_badges(page: Page) -> None:
    """The check page shows the gate's decision and the facts a rerun would inject."""
    _check(page, THREE_CITATIONS, "2024-01-01")
    expect(page.locator("#gate-decision strong")).to_have_text("需重新作答")
    facts = page.locator("#gate-facts li")
    assert facts.count() == 2
    assert "共 1260 条" in page.inner_text("#gate-facts")
    assert page.problems == []  # type: ignore[attr-defined]


def test_audit_page_refuses_a_checker(page: Page, live_server: LiveServer) -> None:
    """A checker's login gets the 403 page at /audit, and no link to it."""
    assert page.locator("header a[href='/audit']").count() == 0
    response = page.goto(f"{live_server.url}/audit")
    assert response is not None and response.status == 403
    assert "无权访问" in page.inner_text("main")
    assert page.locator("svg.chart").count() == 0


def _record_cases(database_url: str, private: Path) -> None:
    """Three gated answers recorded in the live server's database (as POST /gate would)."""
    from audit import MappingStore, Pseudonymizer, record_result
    from gate import assess_answer

    engine = make_engine(database_url)
    repo = StatuteRepository.load(engine)
    answers = [
        THREE_CITATIONS,
        "依照《中华人民共和国民法典》第一千零八十七条，协议处理。",
        "对方应当赔偿。",
    ]
    for number, answer in enumerate(answers):
        assessment = assess_answer(answer, repo=repo, as_of=date(2024, 1, 1))
        record_result(engine, answer, assessment, repo=repo,
                      pseudonymizer=Pseudonymizer(b"browser test secret, 32 bytes!!", "k1"),
                      store=MappingStore(private / "map.sqlite3"), session_id=f"b-{number}")  # fmt: skip
    engine.dispose()


def test_audit_page_for_an_auditor(
    browser: BrowserContext, live_server: LiveServer, tmp_path: Path
) -> None:
    """An auditor sees the quarter's charts drawn as SVG (no script needed, CSP respected)."""
    from sqlalchemy.orm import Session

    from web import create_key

    _record_cases(live_server.database_url, tmp_path)
    engine = make_engine(live_server.database_url)
    with Session(engine) as session:
        key = create_key(session, "auditor", name="browser-auditor").key
    engine.dispose()
    tab = browser.new_page()
    problems: list[str] = []
    tab.on("console", lambda m: problems.append(m.text) if "Content Security" in m.text else None)
    tab.goto(f"{live_server.url}/login?next=/audit")
    tab.fill("#key", key)
    tab.click("button[type=submit]")
    tab.wait_for_url(f"{live_server.url}/audit")
    for chart in ("#chart-decisions", "#chart-rate", "#chart-invented", "#chart-repealed"):
        expect(tab.locator(chart)).to_be_visible()
    assert tab.locator("#chart-decisions rect").count() >= 1
    assert tab.locator("#chart-rate rect").count() == 11
    assert "第一千二百八十九条" in tab.inner_text("#table-invented")
    assert "中华人民共和国合同法" in tab.inner_text("#table-repealed")
    expect(tab.locator("#pack-download")).to_be_visible()
    assert tab.locator("header a[href='/audit']").count() == 1
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SCREENSHOTS / "audit-page.png"), full_page=True)
    assert problems == []
    tab.close()
