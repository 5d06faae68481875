"""The statute browser: /laws by level and by initial, a long law's table of contents, and the
successor of a repealed law's article as a link."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date

import pytest
from pypinyin import lazy_pinyin

from legaldb import StatuteRepository
from legaldb.models import ArticleInfo, ArticleText
from lexgate.settings import Settings
from tests.web.conftest import TestClient, client_for
from web.browse import outline


@pytest.fixture(scope="module")
def client(corpus_database_url: str) -> Iterator[TestClient]:
    """The pages open without a key (as `make run` serves them)."""
    with client_for(Settings(database_url=corpus_database_url, web_public_pages=True)) as opened:
        yield opened


def _article(number: int, *path: str) -> ArticleText:
    info = ArticleInfo(1, number, None, f"第{number}条", False, 1, (0,), tuple(path))
    return ArticleText(info=info, text="……")


def test_the_civil_code_outline_numbers_its_parts(statute_repository: StatuteRepository) -> None:
    """民法典's parts, which the data names 总则, 物权编 …, read 第一编 总则 … 第七编 侵权责任,
    then 附则; the first heading is 第一编 总则 and the next 第一章 基本规定."""
    civil = statute_repository.resolve("民法典")
    assert civil is not None
    version = statute_repository.version_in_force(civil.id, date(2024, 1, 1))
    assert version is not None
    contents, opening = outline(statute_repository.articles_text(version.id))
    assert [h.title for h in contents[:2]] == ["第一编 总则", "第一章 基本规定"]
    parts = [h.title for h in contents if h.depth == 0]
    assert parts == [
        "第一编 总则", "第二编 物权", "第三编 合同", "第四编 人格权", "第五编 婚姻家庭",
        "第六编 继承", "第七编 侵权责任", "附则",
    ]  # fmt: skip
    assert len({h.anchor for h in contents}) == len(contents)
    assert [h.title for h in opening[0]] == ["第一编 总则", "第一章 基本规定"]
    assert sum(len(here) for here in opening) == len(contents)


def test_an_outline_already_numbered_is_kept() -> None:
    """Headings that carry their numbers, and chapters without parts, are shown as written;
    each heading opens once, where its first article is."""
    articles = [
        _article(1, "第一编 总则", "第一章 任务"),
        _article(2, "第一编 总则", "第一章 任务"),
        _article(3, "第一编 总则", "第二章 犯罪", "第一节 犯罪和刑事责任"),
        _article(4, "第二编 分则", "第一章 危害国家安全罪"),
    ]
    contents, opening = outline(articles)
    assert [(h.depth, h.title) for h in contents] == [
        (0, "第一编 总则"), (1, "第一章 任务"), (1, "第二章 犯罪"), (2, "第一节 犯罪和刑事责任"),
        (0, "第二编 分则"), (1, "第一章 危害国家安全罪"),
    ]  # fmt: skip
    assert [len(here) for here in opening] == [2, 0, 2, 2]
    assert outline([_article(1, "第一章 总则"), _article(2, "第二章 附则")])[0][0].title == (
        "第一章 总则"
    )


def test_laws_browse_by_level_and_initial(
    client: TestClient, statute_repository: StatuteRepository
) -> None:
    """/laws offers every level with its count; a level and an initial list exactly the laws of
    that level whose short name's pinyin starts with it, in pinyin order."""
    page = client.get("/laws").text
    levels = dict(
        re.findall(r'href="/laws\?level=[^"]+"[^>]*>(\w+) <span class="muted">(\d+)', page)
    )
    expected: dict[str, int] = {}
    for law in statute_repository.laws():
        expected[law.level] = expected.get(law.level, 0) + 1
    assert {level: int(count) for level, count in levels.items()} == expected
    assert list(levels)[:3] == ["宪法", "法律", "行政法规"]

    shown = client.get("/laws", params={"level": "法律", "initial": "M"}).text
    listed = re.findall(r'<li><a href="/laws/\d+">([^<]+)</a>', shown)
    wanted = [
        law
        for law in statute_repository.laws()
        if law.level == "法律" and lazy_pinyin(law.short_name)[0][:1].upper() == "M"
    ]
    assert sorted(listed) == sorted(law.name for law in wanted)
    assert "中华人民共和国民法典" in listed
    keys = [" ".join(lazy_pinyin(name.removeprefix("中华人民共和国"))) for name in listed]
    assert keys == sorted(keys)


def test_a_long_law_has_a_table_of_contents_with_anchors(
    client: TestClient, statute_repository: StatuteRepository
) -> None:
    """民法典's page opens with a table of contents whose every link reaches a heading."""
    civil = statute_repository.resolve("民法典")
    assert civil is not None
    page = client.get(f"/laws/{civil.id}").text
    toc = re.search(r'<details class="toc" id="toc" open>(.*?)</details>', page, re.S)
    assert toc is not None
    links = re.findall(r'<a href="#(h\d+)">([^<]+)</a>', toc.group(1))
    assert links[0][1] == "第一编 总则" and links[1][1] == "第一章 基本规定"
    for anchor, title in links:
        assert f'id="{anchor}">{title}</h3>' in page
    assert 'id="art-577"' in page


def test_the_successor_of_a_repealed_article_is_a_link(
    client: TestClient, statute_repository: StatuteRepository
) -> None:
    """合同法第一百零七条's page links its successor, 民法典第五百七十七条, and the successor law."""
    contract = statute_repository.resolve("合同法")
    civil = statute_repository.resolve("民法典")
    assert contract is not None and civil is not None
    page = client.get(f"/laws/{contract.id}/articles/107").text
    assert (
        f'<a href="/laws/{civil.id}/articles/577">《中华人民共和国民法典》第五百七十七条</a>'
        in page
    )
    assert f'<a href="/laws/{civil.id}">《中华人民共和国民法典》</a>' in page
