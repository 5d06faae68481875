"""The pages over the corpus: login by key, badges, escaping, CSP, the statute browser."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from legaldb import StatuteRepository
from lexgate.settings import Settings
from tests.web.conftest import THREE_CITATIONS, TestClient, client_for
from web.deps import KEY_COOKIE
from web.forms import form_limits
from web.models import ROLES
from web.routes.login import safe_next


@pytest.fixture(scope="module")
def public_client(corpus_database_url: str) -> Iterator[TestClient]:
    """The app with LEXGATE_WEB_PUBLIC_PAGES on (what `make run` does)."""
    with client_for(Settings(database_url=corpus_database_url, web_public_pages=True)) as client:
        yield client


def _badges(html: str) -> list[tuple[str, str]]:
    """(kind, label) of every badge, in order."""
    return re.findall(
        r'<details class="badge badge-(\w+)[^"]*".*?<span class="label-text">([^<]+)</span>',
        html,
        re.S,
    )


def test_pages_need_a_key_unless_public(corpus_client: TestClient) -> None:
    """Without the cookie (and public pages off) the pages send the browser to /login."""
    for path in ("/", "/laws", "/laws/1"):
        response = corpus_client.get(path, follow_redirects=False)
        assert response.status_code == 303
        assert response.headers["location"] == f"/login?next={path}"


def test_login_sets_a_strict_cookie_and_logout_clears_it(
    corpus_database_url: str, corpus_keys: dict[str, str]
) -> None:
    """A good key is kept in an HttpOnly SameSite=Strict cookie; a bad one is refused."""
    with client_for(Settings(database_url=corpus_database_url)) as client:
        bad = client.post("/login", data={"key": "lgk_000000000000_nope", "next": "/laws"})
        assert bad.status_code == 401 and "密钥无效" in bad.text
        good = client.post(
            "/login", data={"key": corpus_keys["checker"], "next": "/laws"}, follow_redirects=False
        )
        assert good.status_code == 303 and good.headers["location"] == "/laws"
        cookie = good.headers["set-cookie"]
        assert cookie.startswith(f"{KEY_COOKIE}=")
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
        assert client.get("/", follow_redirects=False).status_code == 200
        client.post("/logout", follow_redirects=False)
        assert client.get("/", follow_redirects=False).status_code == 303


@pytest.mark.parametrize(
    ("target", "expected"),
    [("/laws?q=民法典", "/laws?q=民法典"), ("//evil.example/", "/"), ("https://evil.example/", "/"),
     ("/\\evil.example", "/"), ("", "/"), (None, "/")],
    ids=["same-site", "scheme-relative", "absolute", "backslash", "empty", "none"],
)  # fmt: skip
def test_login_never_redirects_off_site(target: str | None, expected: str) -> None:
    """`next` is followed only when it is a path on this site."""
    assert safe_next(target) == expected


def test_check_page_badges(public_client: TestClient) -> None:
    """Three citations, three badges: green 现行有效, red 已废止 with successor, grey 未能核验."""
    response = public_client.post("/", data={"answer": THREE_CITATIONS, "as_of": "2024-01-01"})
    assert response.status_code == 200
    html = response.text
    assert _badges(html) == [
        ("verified", "现行有效"),
        ("repealed", "已废止"),
        ("unverified", "未能核验"),
    ]
    assert "已校对 3 条 · 现行有效 1 · 已废止 1 · 尚未生效 0 · 未能核验 1" in html
    assert "2021-01-01废止 → 民法典第577条" in html
    assert html.count('<img class="icon" src="/static/icons/') >= 3 + 5  # badges and legend


def test_content_mark_beside_a_green_status(public_client: TestClient) -> None:
    """现行有效 with another article's content: a separate red 内容不符 mark beside the green
    status, and the panel holds the evidence passage and where the content clearly is."""
    answer = (
        "《中华人民共和国劳动合同法》第八十二条规定：“经济补偿按劳动者在本单位工作的年限，"
        "每满一年支付一个月工资的标准向劳动者支付。”"
    )
    html = public_client.post("/", data={"answer": answer, "as_of": "2023-08-01"}).text
    assert _badges(html) == [("verified", "现行有效")]
    assert 'class="badge badge-verified content-unsupported"' in html
    assert '<span class="support-label support-unsupported">' in html
    assert ">内容不符</span>" in html
    assert "该条最接近的内容" in html and "应当向劳动者每月支付二倍的工资" in html
    assert "该内容见于：《中华人民共和国劳动合同法》第四十七条" in html


def test_answer_is_escaped(public_client: TestClient) -> None:
    """An answer holding markup renders as text: no script element but our own file."""
    html = public_client.post(
        "/",
        data={
            "answer": THREE_CITATIONS + '<img src=x onerror="alert(1)">',
            "question": "<b>问</b>",
        },
    ).text
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=" in html and "&lt;b&gt;问&lt;/b&gt;" in html
    assert re.findall(r"<script[^>]*>", html) == ['<script src="/static/app.js" defer>']


@pytest.mark.parametrize(
    ("form", "field"),
    [({"answer": "  "}, "answer"), ({"answer": "民法典第一条", "as_of": "2024-02-30"}, "as_of")],
    ids=["empty-answer", "bad-date"],
)
def test_check_page_form_errors(
    public_client: TestClient, form: dict[str, str], field: str
) -> None:
    """A bad form comes back 422 with the form filled in and the field marked."""
    response = public_client.post("/", data=form)
    assert response.status_code == 422
    assert f'data-field="{field}"' in response.text
    assert 'aria-invalid="true"' in response.text


PAGES = ["/", "/laws?q=民法典", "/login", "/docs"]


@pytest.mark.parametrize("path", PAGES, ids=PAGES)
def test_pages_are_self_contained(public_client: TestClient, path: str) -> None:
    """CSP without inline script; no inline script or style; nothing loaded from elsewhere."""
    response = public_client.get(path)
    assert response.status_code == 200
    csp = response.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp
    assert "unsafe-inline" not in csp.split("style-src")[0]  # never for scripts
    html = response.text
    assert all("src=" in tag for tag in re.findall(r"<script[^>]*>", html))
    assert " style=" not in html
    assert not re.search(r'(?:src|href)="(?:https?:)?//', html)
    assert response.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize(
    "asset",
    ["/static/style.css", "/static/app.js", "/static/docs.js", "/static/icons/repealed.svg",
     "/static/swagger-ui/swagger-ui-bundle.js", "/static/swagger-ui/swagger-ui.css"],
    ids=lambda a: a.rsplit("/", 1)[-1],
)  # fmt: skip
def test_assets_are_served_locally(public_client: TestClient, asset: str) -> None:
    """CSS, scripts, icons and Swagger UI come from this server."""
    assert public_client.get(asset).status_code == 200


def test_law_and_article_pages(
    public_client: TestClient, statute_repository: StatuteRepository
) -> None:
    """Search, the version timeline with dates, an article in each version with its changes."""
    company = statute_repository.resolve("公司法")
    assert company is not None
    search = public_client.get("/laws", params={"q": "公司法"}).text
    assert f'href="/laws/{company.id}"' in search
    law = public_client.get(f"/laws/{company.id}").text
    for version in statute_repository.versions(company.id):
        assert version.label in law
        assert str(version.effective_from) in law
    article = public_client.get(
        f"/laws/{company.id}/articles/20", params={"as_of": "2020-01-01"}
    ).text
    assert "2020-01-01 施行的文本" in article
    assert "<del>" in article or "<ins>" in article
    contract = statute_repository.resolve("合同法")
    assert contract is not None
    repealed = public_client.get(f"/laws/{contract.id}").text
    assert "已于 2021-01-01 废止" in repealed and "中华人民共和国民法典" in repealed


def test_timeline_shows_every_version_its_sources_and_the_repeal(
    public_client: TestClient, statute_repository: StatuteRepository
) -> None:
    """刑法's timeline names each version's sources; 中外合资经营企业法's ends in its repeal."""
    criminal = statute_repository.resolve("刑法")
    assert criminal is not None
    page = public_client.get(f"/laws/{criminal.id}").text
    timeline = page.split('id="timeline"', 1)[1].split("</table>", 1)[0]
    for version in statute_repository.versions(criminal.id):
        assert version.label in timeline and str(version.effective_from) in timeline
    assert "国家法律法规数据库" in timeline and "法规汇编历史文本" in timeline
    venture = statute_repository.resolve("中外合资经营企业法")
    assert venture is not None
    repealed = public_client.get(f"/laws/{venture.id}").text
    row = repealed.split('id="timeline-repeal"', 1)[1].split("</tr>", 1)[0]
    assert "2020-01-01" in row and "《中华人民共和国外商投资法》第四十二条" in row
    assert "新法的废止条款" in row and "外商投资法" in row
    assert "（无条文）" in repealed


def test_page_errors_are_pages(public_client: TestClient) -> None:
    """A missing law or a bad id is an HTML error page with the right status, not JSON."""
    missing = public_client.get("/laws/99999999")
    assert missing.status_code == 404 and "text/html" in missing.headers["content-type"]
    assert "404" in missing.text
    bad = public_client.get("/laws/abc")
    assert bad.status_code == 422 and "text/html" in bad.headers["content-type"]


def test_law_page_shows_a_chosen_version(
    public_client: TestClient, statute_repository: StatuteRepository
) -> None:
    """?version= shows that version's articles; a version of another law is 404."""
    company, civil = statute_repository.resolve("公司法"), statute_repository.resolve("民法典")
    assert company is not None and civil is not None
    oldest = statute_repository.versions(company.id)[0]
    page = public_client.get(f"/laws/{company.id}", params={"version": oldest.id})
    assert page.status_code == 200 and f"条文（{oldest.label}）" in page.text
    other = statute_repository.versions(civil.id)[0]
    assert public_client.get(f"/laws/{company.id}", params={"version": other.id}).status_code == 404


def test_page_body_over_the_limit_is_an_html_413(public_client: TestClient) -> None:
    """A pasted answer over the limit gets the Chinese error page, status 413."""
    response = public_client.post("/", data={"answer": "民" * 100_000})
    assert response.status_code == 413
    assert "text/html" in response.headers["content-type"] and "内容过长" in response.text


def test_the_size_limit_is_stated_in_characters_and_holds(public_client: TestClient) -> None:
    """The form says, before anything is pasted, how many characters it takes (and enforces it
    with maxlength); a question and an answer at those limits, all Chinese, are never a 413."""
    limits = form_limits(Settings().web_max_body_bytes)
    page = public_client.get("/").text
    assert f"回答（最多 {limits.answer_chars:,} 字）" in page
    assert f'maxlength="{limits.answer_chars}"' in page
    assert f'maxlength="{limits.question_chars}"' in page
    form = {"question": "问" * limits.question_chars, "answer": "法" * limits.answer_chars,
            "as_of": "2024-01-01"}  # fmt: skip
    assert public_client.post("/", data=form).status_code == 200
    refused = public_client.post("/", data={"answer": "民" * 100_000})
    assert refused.status_code == 413
    assert f"回答约 {limits.answer_chars:,} 字" in refused.text and "bytes" not in refused.text


@pytest.mark.parametrize(
    ("path", "sentence"),
    [
        ("/laws/{company}/articles/999", "《中华人民共和国公司法》的各个版本都没有第九百九十九条"),
        ("/laws/999999", "本库没有编号为 999999 的法规。"),
        ("/laws/abc", "输入有误：law_id 的值无效。"),
        ("/no-such-page", "没有找到要访问的页面或条目。"),
    ],
    ids=["no-article", "no-law", "bad-id", "unknown-page"],
)
def test_error_pages_speak_chinese(
    public_client: TestClient, statute_repository: StatuteRepository, path: str, sentence: str
) -> None:
    """An error page states its cause in Chinese, never the API's English message."""
    company = statute_repository.resolve("公司法")
    assert company is not None
    response = public_client.get(path.format(company=company.id))
    assert response.status_code in (404, 422)
    assert sentence in response.text
    assert not re.search(r"\b(has no|no law|not found|Input should)\b", response.text)


def test_gate_standards_are_named_in_chinese(public_client: TestClient) -> None:
    """The gate's standards on the check page carry Chinese names, not the API's identifiers."""
    page = public_client.post("/", data={"answer": THREE_CITATIONS, "as_of": "2024-01-01"}).text
    standards = re.search(r'<ul class="standards" id="gate-standards">(.*?)</ul>', page, re.S)
    assert standards is not None
    shown = re.sub(r"<[^>]+>", "", standards.group(1))
    assert "没有引用不存在的条文（1 处）" in shown
    assert not re.search(r"[a-z_]{4,}", shown)


def test_login_says_which_role_opens_which_page(public_client: TestClient) -> None:
    """/login names, per role, the pages its key opens (a checker key does not open /audit)."""
    page = public_client.get("/login").text
    table = re.search(r'<table class="timeline roles" id="roles">(.*?)</table>', page, re.S)
    assert table is not None
    rows = dict(re.findall(r"<tr><td><code>(\w+)</code></td><td>([^<]+)</td></tr>", table.group(1)))
    assert set(rows) == set(ROLES)
    assert "审计" not in rows["checker"] and "审计" in rows["auditor"]


def test_date_fields_say_their_format(
    public_client: TestClient, statute_repository: StatuteRepository
) -> None:
    """Pages are lang="zh-CN"; each date field takes 年-月-日 text (not the browser's locale
    format, 07/01/2024 in an English browser) and says so beside it."""
    civil = statute_repository.resolve("民法典")
    assert civil is not None
    for path in ("/", f"/laws/{civil.id}/articles/577"):
        page = public_client.get(path).text
        assert '<html lang="zh-CN">' in page
        field = re.search(r'<input id="as_of"[^>]*>', page)
        assert field is not None
        assert (
            'type="text"' in field.group()
            and 'pattern="[0-9]{4}-[0-9]{2}-[0-9]{2}"' in field.group()
        )
        assert 'aria-describedby="as_of-hint"' in field.group()
        assert re.search(r'<span class="hint" id="as_of-hint">格式：年-月-日', page)
