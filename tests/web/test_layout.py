"""No page scrolls sideways: real answers on the check page, and the statute browser, in Chromium
at a desktop width (1280 px) and a phone width (390 px), with every citation panel opened."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from playwright.sync_api import BrowserContext, Page

from tests.conftest import SHARED_DIR
from tests.web.conftest import LiveServer
from tests.web.test_browser import browser, page  # noqa: F401 (fixtures)

WIDTHS = (1280, 390)
STRIDE = 125
"""Every 125th answer of flzx_dev_answers.jsonl: 22 answers from all eleven sources."""
AS_OF = "2023-08-01"  # when the answers were written (../shared/eval/README.md)

# The page's widest point, with each citation panel opened in turn (one at a time, as app.js
# keeps them), as [scrollWidth, where]. Reading scrollWidth lays the page out at once.
WIDEST = """() => {
  const width = () => document.documentElement.scrollWidth;
  let widest = [width(), "closed"];
  for (const badge of document.querySelectorAll("details.badge")) {
    badge.open = true;
    if (width() > widest[0]) { widest = [width(), badge.id]; }
    badge.open = false;
  }
  return widest;
}"""


def _sample() -> list[dict[str, str]]:
    path = SHARED_DIR / "eval" / "flzx_dev_answers.jsonl"
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for number, line in enumerate(lines) if number % STRIDE == 0]


ANSWERS = _sample()


def _assert_fits(tab: Page, what: str) -> None:
    for width in WIDTHS:
        tab.set_viewport_size({"width": width, "height": 900})
        widest, where = tab.evaluate(WIDEST)
        assert widest <= width, f"{what} is {widest} px wide at {width} px ({where})"


@pytest.fixture(scope="module")
def shown(browser: BrowserContext, live_server: LiveServer) -> Iterator[Page]:  # noqa: F811
    """One logged-in tab for the whole module."""
    tab = browser.new_page()
    tab.goto(f"{live_server.url}/login?next=/")
    tab.fill("#key", live_server.checker_key)
    tab.click("button[type=submit]")
    tab.wait_for_url(f"{live_server.url}/")
    yield tab
    tab.close()


def test_real_answers_fit_the_window(shown: Page, live_server: LiveServer) -> None:
    """Each sampled real answer, checked and gated, fits 1280 and 390 px with any panel open;
    the sample holds a rerun with several facts and a content comparison (the wide cases)."""
    most_facts = quote_comparisons = 0
    for answer in ANSWERS:
        shown.set_viewport_size({"width": WIDTHS[0], "height": 900})
        shown.goto(f"{live_server.url}/")
        shown.fill("#question", answer["question"])
        shown.fill("#answer", answer["answer"])
        shown.fill("#as_of", AS_OF)
        shown.click("#check-button")
        shown.wait_for_selector("#summary")
        most_facts = max(most_facts, shown.locator("#gate-facts li").count())
        quote_comparisons += shown.locator("div.support-unsupported, div.support-partly").count()
        _assert_fits(shown, answer["id"])
    assert most_facts >= 2
    assert quote_comparisons >= 1


@pytest.fixture(scope="module")
def law_ids(live_server: LiveServer) -> dict[str, int]:
    """The ids of the long law (民法典) and the repealed one (合同法) in the live database."""
    from legaldb import StatuteRepository, make_engine

    engine = make_engine(live_server.database_url)
    try:
        repo = StatuteRepository.load(engine)
    finally:
        engine.dispose()
    civil, contract = repo.resolve("民法典"), repo.resolve("合同法")
    assert civil is not None and contract is not None
    return {"civil": civil.id, "contract": contract.id}


@pytest.mark.parametrize(
    "path",
    [
        "/laws",
        "/laws?q=法",
        "/laws?level=司法解释",
        "/laws/{civil}",
        "/laws/{civil}/articles/577",
        "/laws/{contract}/articles/107",
        "/laws/{civil}/articles/9999",
        "/login",
    ],
    ids=[
        "browse",
        "search",
        "level",
        "long-law",
        "article",
        "repealed-article",
        "no-article",
        "login",
    ],
)
def test_statute_pages_fit_the_window(
    shown: Page, live_server: LiveServer, law_ids: dict[str, int], path: str
) -> None:
    """The statute browser and the login page fit 1280 and 390 px."""
    shown.set_viewport_size({"width": WIDTHS[0], "height": 900})
    shown.goto(live_server.url + path.format(**law_ids))
    _assert_fits(shown, path)
