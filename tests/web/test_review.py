"""The review page /review: reviewer role, the queue with claim, article text and
probabilities, decisions recorded in the audit trail; and in Chromium against `lexgate serve`."""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, expect
from sqlalchemy.orm import Session

from audit import record_result
from audit.mapping_store import MappingStore
from audit.pseudonyms import Pseudonymizer
from audit.review import decide, enqueue, get, pending
from gate import assess_answer
from legaldb import StatuteRepository, make_engine
from lexgate.llm import ClientOptions, OpenAIJudge, OpenAIRegenerator
from lexgate.settings import Settings
from tests.llm_server import LLMServer, Reply
from tests.web.conftest import SCREENSHOTS, LiveServer, client_for
from tests.web.test_browser import browser  # noqa: F401  (the Chromium fixture)
from web import create_key
from web.deps import KEY_COOKIE

ONLY_SQLITE_STATUTES = pytest.mark.parametrize("corpus_database_url", ["sqlite"], indirect=True)
AS_OF = date(2024, 1, 1)
ANSWER = (
    "个人撤回同意后，撤回前的处理活动也随之无效（《中华人民共和国个人信息保护法》第十五条第二款）。"
)
UNSURE = {"B": math.log(0.6), "A": math.log(0.3), "C": math.log(0.1)}


def queue_one(database_url: str, repo: StatuteRepository, server: LLMServer, private: Path) -> int:
    """The answer judged unsure by the model on loopback, recorded and queued: its review id."""
    server.script(Reply.chat("B", top_logprobs=UNSURE))
    with OpenAIRegenerator(
        base_url=server.base_url, model="judge-m", options=ClientOptions(max_retries=0)
    ) as client:
        assessment = assess_answer(ANSWER, repo=repo, judge=OpenAIJudge(client), as_of=AS_OF)
    engine = make_engine(database_url)
    try:
        case_id = record_result(
            engine,
            ANSWER,
            assessment,
            repo=repo,
            pseudonymizer=Pseudonymizer(b"the web review tests' secret 32b", "k1"),
            store=MappingStore(private / "map.sqlite3"),
            session_id="web-review",
        )
        (review_id,) = enqueue(engine, case_id, 1, assessment.result.judged, as_of=AS_OF)
    finally:
        engine.dispose()
    return review_id


def key_of(database_url: str, role: str) -> str:
    engine = make_engine(database_url)
    with Session(engine) as session:
        key = create_key(session, role, name=f"web-{role}").key
    engine.dispose()
    return key


@ONLY_SQLITE_STATUTES
def test_reviewer_sees_and_decides_the_queue(
    migrated_url: str,
    statute_repository: StatuteRepository,
    llm_server: LLMServer,
    tmp_path: Path,
) -> None:
    """A reviewer's page lists the item with its texts and probabilities; a decision is
    recorded under the reviewer's key id, once, and the item leaves the queue."""
    review_id = queue_one(migrated_url, statute_repository, llm_server, tmp_path)
    reviewer = key_of(migrated_url, "reviewer")
    with client_for(Settings(database_url=migrated_url)) as client:
        client.cookies.set(KEY_COOKIE, reviewer)
        page = client.get("/review")
        assert page.status_code == 200
        html = page.text
        for text in ("《中华人民共和国个人信息保护法》第十五条第二款", "撤回前的处理活动也随之无效",
                     "不影响撤回前基于个人同意已进行的个人信息处理活动的效力", "60.0%", "30.0%",
                     "10.0%", "确认：矛盾", "改为：支持", "改为：未作规定"):  # fmt: skip
            assert text in html
        bad = client.post(f"/review/{review_id}", data={"decision": "maybe"})
        assert bad.status_code == 422
        done = client.post(
            f"/review/{review_id}", data={"decision": "supports"}, follow_redirects=False
        )
        assert done.status_code == 303 and done.headers["location"] == f"/review?done={review_id}"
        again = client.post(f"/review/{review_id}", data={"decision": "contradicts"})
        assert again.status_code == 422
        assert "没有待复核的条目" in client.get("/review").text
        assert client.post("/review/99999", data={"decision": "supports"}).status_code == 404
    engine = make_engine(migrated_url)
    decided = get(engine, review_id)
    engine.dispose()
    assert (decided.decision, decided.outcome) == ("supports", "overridden")
    assert decided.reviewer is not None and decided.reviewer.startswith(reviewer.split("_")[1])


@pytest.mark.parametrize(
    ("role", "status"),
    [("checker", 403), ("auditor", 403), ("admin", 200), ("reviewer", 200)],
    ids=["checker", "auditor", "admin", "reviewer"],
)
def test_only_reviewers_and_admins_may_review(migrated_url: str, role: str, status: int) -> None:
    """The page needs the review permission; without a key it asks to log in."""
    with client_for(Settings(database_url=migrated_url)) as client:
        anonymous = client.get("/review", follow_redirects=False)
        assert anonymous.status_code == 303 and anonymous.headers["location"].startswith("/login")
        client.cookies.set(KEY_COOKIE, key_of(migrated_url, role))
        assert client.get("/review").status_code == status
        assert client.post("/review/1", data={"decision": "supports"}).status_code in (
            (403,) if status == 403 else (404,)
        )


# --- In the browser ---


@pytest.fixture
def queued(
    live_server: LiveServer, live_repository_for_review: StatuteRepository, llm_server: LLMServer,
    tmp_path: Path,
) -> int:  # fmt: skip
    """One unsure item in the live server's queue (cleared of earlier ones)."""
    engine = make_engine(live_server.database_url)
    for item in pending(engine):
        decide(engine, item.id, item.judge_relation, reviewer="cleanup")
    engine.dispose()
    return queue_one(live_server.database_url, live_repository_for_review, llm_server, tmp_path)


@pytest.fixture(scope="module")
def live_repository_for_review(live_server: LiveServer) -> Iterator[StatuteRepository]:
    engine = make_engine(live_server.database_url)
    yield StatuteRepository.load(engine)
    engine.dispose()


def test_review_page_in_chromium(
    browser: BrowserContext,  # noqa: F811
    live_server: LiveServer,
    queued: int,
) -> None:
    """A reviewer logs in, reads the item, overrides the judge; the decision is recorded."""
    tab = browser.new_page()
    problems: list[str] = []
    tab.on("console", lambda m: problems.append(m.text) if "Content Security" in m.text else None)
    try:
        tab.goto(f"{live_server.url}/login?next=/review")
        tab.fill("#key", key_of(live_server.database_url, "reviewer"))
        tab.click("button[type=submit]")
        tab.wait_for_url(f"{live_server.url}/review")
        item = tab.locator(f"#review-{queued}")
        expect(item.locator("blockquote.claim")).to_contain_text("撤回前的处理活动也随之无效")
        expect(item.locator("blockquote.article-text")).to_contain_text("不影响撤回前")
        top = item.locator("tr.top")
        expect(top).to_have_attribute("data-relation", "contradicts")
        expect(top.locator(".probability")).to_have_text("60.0%")
        assert item.locator("meter").count() == 3
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=str(SCREENSHOTS / "review-page.png"), full_page=True)
        item.locator("input[name=note]").fill("条文第二款明确不影响撤回前的效力")
        item.locator("button.override", has_text="改为：支持").click()
        tab.wait_for_url(f"{live_server.url}/review?done={queued}")
        expect(tab.locator("#review-done")).to_be_visible()
        expect(tab.locator(f"#review-{queued}")).to_have_count(0)
    finally:
        tab.close()
    engine = make_engine(live_server.database_url)
    decided = get(engine, queued)
    engine.dispose()
    assert (decided.decision, decided.outcome) == ("supports", "overridden")
    assert decided.note == "条文第二款明确不影响撤回前的效力"
    assert problems == []
