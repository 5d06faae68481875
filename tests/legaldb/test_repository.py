"""StatuteRepository on a small hand-built corpus, on both backends (read-only here)."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from legaldb.engine import make_engine
from legaldb.importer import import_corpus
from legaldb.migrate import upgrade
from legaldb.models import ArticleInfo, ArticleText, Paragraph
from legaldb.repealed import read_repealed
from legaldb.repository import StatuteRepository, _article_text, _VersionTexts
from tests.conftest import BACKENDS, create_postgres_database
from tests.legaldb.factories import CIVIL_CODE, COMPANY, LOCAL, small_corpus
from tests.strategies import law_name_spellings


@pytest.fixture(scope="module", params=BACKENDS)
def repository(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[StatuteRepository]:
    """The small corpus plus the repealed laws, imported once per backend for this module."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('repo') / 'repo.sqlite3'}"
    else:
        admin = request.getfixturevalue("postgres_admin_url")
        url = create_postgres_database(admin, f"repo_{uuid.uuid4().hex[:12]}")
    upgrade(url)
    engine = make_engine(url)
    import_corpus(engine, small_corpus(), repealed=read_repealed())
    yield StatuteRepository.load(engine)
    engine.dispose()


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        (COMPANY, COMPANY),
        ("测试公司法", COMPANY),
        ("《中华人民共和国测试公司法》", COMPANY),
        ("测试公司法典", COMPANY),
        ("民法典", CIVIL_CODE),
        ("中华人民共和国合同法", "中华人民共和国合同法"),
        ("合同法", "中华人民共和国合同法"),
        (LOCAL, LOCAL),
        ("中华人民共和国" + LOCAL, LOCAL),
        ("不存在法", None),
    ],
    ids=[
        "canonical",
        "short",
        "title-marks",
        "alias",
        "civil-code",
        "repealed",
        "repealed-short",
        "local",
        "spurious-prefix",
        "unknown",
    ],
)
def test_resolve(repository: StatuteRepository, written: str, expected: str | None) -> None:
    """Names, short names, aliases and title marks resolve to the canonical law."""
    law = repository.resolve(written)
    assert (law.name if law else None) == expected


@given(law_name_spellings(COMPANY))
def test_resolve_any_spelling(repository: StatuteRepository, written: str) -> None:
    """However the company law is spelled (marks, spaces, prefix), it resolves to it."""
    law = repository.resolve(written)
    assert law is not None and law.name == COMPANY


@pytest.mark.parametrize(
    ("as_of", "label"),
    [
        (date(2018, 10, 25), None),
        (date(2018, 10, 26), "2018年修正"),
        (date(2024, 6, 30), "2018年修正"),
        (date(2024, 7, 1), "2023年修订"),
        (date(2030, 1, 1), "2023年修订"),
    ],
    ids=["before-first", "first-day", "day-before-switch", "switch-day", "future"],
)
def test_version_in_force(repository: StatuteRepository, as_of: date, label: str | None) -> None:
    """The version in force changes exactly on the new version's effective date."""
    law = repository.resolve(COMPANY)
    assert law is not None
    version = repository.version_in_force(law.id, as_of)
    assert (version.label if version else None) == label


def test_versions_and_counts(repository: StatuteRepository) -> None:
    """Versions oldest first, chained; the article count is the last article's number."""
    company = repository.resolve(COMPANY)
    code = repository.resolve(CIVIL_CODE)
    assert company is not None and code is not None
    old, new = repository.versions(company.id)
    assert old.effective_to == new.effective_from == date(2024, 7, 1)
    assert repository.latest_version(company.id) == new
    assert repository.article_count(new.id) == 6
    latest_code = repository.latest_version(code.id)
    assert latest_code is not None and repository.article_count(latest_code.id) == 1260


def test_lookup_article_in_force(repository: StatuteRepository) -> None:
    """lookup gives law, version in force and the article's structure (款, 项)."""
    found = repository.lookup("测试公司法", 6, None, date(2024, 7, 1))
    assert found.law is not None and found.law.name == COMPANY
    assert found.version is not None and found.version.label == "2023年修订"
    assert found.article is not None
    assert (found.article.paragraph_count, found.article.item_counts) == (2, (0, 2))
    assert found.article.label == "第六条"
    assert found.repeal is None


def test_lookup_suffix_deleted_and_missing(repository: StatuteRepository) -> None:
    """之一 articles are found by suffix, deleted ones are marked, absent ones are None."""
    suffixed = repository.lookup(COMPANY, 4, "之一", date(2025, 1, 1)).article
    assert suffixed is not None and suffixed.label == "第四条之一"
    deleted = repository.lookup(COMPANY, 4, None, date(2020, 1, 1)).article
    assert deleted is not None and deleted.deleted
    missing = repository.lookup(COMPANY, 7, None, date(2025, 1, 1))
    assert missing.law is not None and missing.version is not None and missing.article is None
    assert repository.lookup(COMPANY, 4, "之二", date(2025, 1, 1)).article is None


def test_lookup_not_yet_in_force(repository: StatuteRepository) -> None:
    """Before its effective date a law has no version in force; its article is still found."""
    found = repository.lookup("民法典", 1087, None, date(2020, 12, 31))
    assert found.law is not None and found.version is None and found.repeal is None
    assert found.article_version is not None
    assert found.article_version.effective_from == date(2021, 1, 1)
    assert found.article is not None and found.article.number == 1087


def test_lookup_repealed_law_and_successor(repository: StatuteRepository) -> None:
    """合同法 as of 2026: no version in force, repealed 2021-01-01, 第一百零七条 -> 民法典第五百七十七条."""
    found = repository.lookup("合同法", 107, None, date(2026, 1, 1))
    assert found.law is not None and found.version is None
    assert found.repeal is not None and found.repeal.repealed_on == date(2021, 1, 1)
    code = repository.resolve(CIVIL_CODE)
    assert code is not None and found.repeal.successor_law_id == code.id
    assert found.article_version is not None and not found.article_version.has_text
    in_force = repository.lookup("合同法", 107, None, date(2020, 12, 31))
    assert in_force.version is not None and in_force.version.article_count == 428
    (successor,) = repository.successors(found.law.id, 107)
    assert (successor.to_law_id, successor.to_number, successor.kind) == (code.id, 577, "curated")


def test_aligned_successors(repository: StatuteRepository) -> None:
    """Old 第三条 of the company law moved to 第四条 in the revision."""
    company = repository.resolve(COMPANY)
    assert company is not None
    old, new = repository.versions(company.id)
    (moved,) = repository.successors(company.id, 3, version_id=old.id)
    assert (moved.to_number, moved.to_version_id, moved.kind) == (4, new.id, "aligned")
    assert repository.successors(company.id, 3, version_id=new.id) == []


def test_unknown_law_lookup(repository: StatuteRepository) -> None:
    """An unknown name gives an empty lookup."""
    found = repository.lookup("中华人民共和国不存在法", 1, None, date(2024, 1, 1))
    assert (found.law, found.version, found.article, found.repeal) == (None, None, None, None)


def test_article_text_is_lazy_and_cached(repository: StatuteRepository) -> None:
    """article_text reads the text and 款/项 once, then serves the cached object."""
    company = repository.resolve(COMPANY)
    assert company is not None
    new = repository.latest_version(company.id)
    assert new is not None
    text = repository.article_text(new.id, 6)
    assert text is not None
    assert text.paragraphs[1].items == ("（一）接受政府监督；", "（二）接受社会公众监督；")
    assert text.text.startswith("公司应当接受监督。")
    assert repository.article_text(new.id, 6) is text
    assert repository.article_text(new.id, 99) is None


def test_articles_text_of_a_version(repository: StatuteRepository) -> None:
    """All articles of a version, in order, 之一 after its base article."""
    company = repository.resolve(COMPANY)
    assert company is not None
    new = repository.latest_version(company.id)
    assert new is not None
    labels = [a.info.label for a in repository.articles_text(new.id)]
    assert labels == ["第一条", "第二条", "第三条", "第四条", "第四条之一", "第五条", "第六条"]


def test_lexicon_and_search(repository: StatuteRepository) -> None:
    """The lexicon maps aliases and keys to canonical names; search finds by substring."""
    lexicon = repository.lexicon()
    assert lexicon["测试公司法"] == COMPANY
    assert lexicon["合同法"] == "中华人民共和国合同法"
    assert repository.search_laws("公司法", 5)[0].name == COMPANY
    assert repository.search_laws("物业管理", 5)[0].name == LOCAL
    assert repository.search_laws("", 5) == []


def test_manifest_and_coverage(repository: StatuteRepository) -> None:
    """The manifest carries source, snapshot, skipped files and the levels covered completely."""
    manifest = repository.manifest()
    assert manifest.snapshot == "test-snapshot"
    assert "测试/坏文件.md: no title" in manifest.skipped
    assert repository.covers_completely("法律")
    assert not repository.covers_completely("地方性法规")
    assert manifest.counts["laws"] == 3


@pytest.mark.parametrize(
    ("name", "level"),
    [
        ("中华人民共和国未知法", "法律"),
        ("中华人民共和国未知法实施条例", "行政法规"),
        ("国务院关于某事的条例", "行政法规"),
        ("最高人民法院关于审理某类案件适用法律若干问题的解释", "司法解释"),
        ("最高人民检察院关于办理某案件的规定", "司法解释"),
        ("广东省未知管理条例", "地方性法规"),
        ("深圳市未知条例", "地方性法规"),
        ("深圳经济特区未知条例", "地方性法规"),
        ("未知管理条例", "行政法规"),
        ("中华人民共和国宪法", "宪法"),
        ("国家监察委员会关于某事的规定", "监察法规"),
        ("交通运输部未知管理办法", "部门规章"),
        ("城市房地产管理法", "法律"),
        ("某种指南", "其他"),
        (LOCAL, "地方性法规"),
        ("合同法", "法律"),
        ("中华人民共和国户口登记管理办法", "其他"),
        ("社会保险稽核办法", "其他"),
    ],
    ids=[
        "prc-law",
        "implementing-regulation",
        "state-council",
        "spc-interpretation",
        "spp-rule",
        "province",
        "city",
        "special-zone",
        "bare-regulation",
        "constitution",
        "supervision",
        "ministry",
        "city-in-title",
        "other",
        "known-local",
        "known-repealed",
        "prc-measures-are-not-a-law",
        "measures-are-not-a-law",
    ],
)
def test_guess_level(repository: StatuteRepository, name: str, level: str) -> None:
    """A name's level: from the database when known, else from its form."""
    assert repository.guess_level(name) == level


def test_loading_an_empty_database(tmp_path: Path) -> None:
    """A migrated but empty database loads into an empty repository."""
    url = f"sqlite:///{tmp_path / 'empty.sqlite3'}"
    upgrade(url)
    engine = make_engine(url)
    try:
        repository = StatuteRepository.load(engine)
    finally:
        engine.dispose()
    assert repository.resolve("民法典") is None
    assert repository.manifest().source == ""
    assert not repository.covers_completely("法律")


def test_a_bundled_import_under_older_rules_is_imported_again(
    database_url: str, corpus_database_url: str
) -> None:
    """`db init` imports again when the stored bundled source lacks the current IMPORT_RULES
    (a database built before the rules changed), not when it is current."""
    from datetime import UTC, datetime

    from sqlalchemy.orm import Session

    from legaldb import orm
    from legaldb.corpus.statutes import BUNDLED_STATUTES_SOURCE, IMPORT_RULES
    from legaldb.reading import bundled_import_outdated

    current = make_engine(corpus_database_url)
    try:
        assert not bundled_import_outdated(current)
    finally:
        current.dispose()
    assert BUNDLED_STATUTES_SOURCE.endswith(f"({IMPORT_RULES})")
    upgrade(database_url)
    older = make_engine(database_url)
    try:
        with Session(older) as session, session.begin():
            session.add(orm.DatasetManifest(
                dataset="lawrefbook", snapshot="s", imported_at=datetime.now(UTC), counts={},
                complete_levels=[], skipped=[], undated=[],
                source=BUNDLED_STATUTES_SOURCE.removesuffix(f" ({IMPORT_RULES})"),
            ))  # fmt: skip
        assert bundled_import_outdated(older)
    finally:
        older.dispose()


_TEXT_ROWS = st.lists(
    st.tuples(
        st.integers(1, 6),
        st.sampled_from([None, "之一", "之二"]),
        st.text(max_size=30),
        st.lists(
            st.tuples(st.text(max_size=10), st.lists(st.text(max_size=8), max_size=3).map(tuple)),
            max_size=3,
        ).map(tuple),
    ),
    max_size=12,
)


@given(_TEXT_ROWS)
def test_packed_version_texts_give_the_rows(rows: list[tuple]) -> None:
    """A version's texts packed and read back give each article's row as a dict of the rows
    did (the last of equal keys, in the first one's place), and no row for another key."""
    expected = {(number, suffix): (text, paragraphs) for number, suffix, text, paragraphs in rows}
    texts = _VersionTexts(*_VersionTexts.pack(rows))
    assert list(texts.items()) == list(expected.items())
    for number in range(8):
        for suffix in (None, "之一", "之三"):
            assert texts.get((number, suffix)) == expected.get((number, suffix))


@given(
    st.text(max_size=20),
    st.lists(st.tuples(st.text(max_size=8), st.lists(st.text(max_size=5), max_size=3)), max_size=3),
)
def test_article_text_made_in_bulk_is_the_dataclass(text: str, paragraphs: list) -> None:
    """An article text made from a kept row equals, hashes and prints as the dataclasses made
    by their constructors, is of their types and frozen."""
    info = ArticleInfo(1, 6, None, "第六条", False, 1, (0,))
    made = _article_text(info, text, paragraphs)
    built = ArticleText(info, text, tuple(Paragraph(t, tuple(items)) for t, items in paragraphs))
    assert type(made) is ArticleText and all(type(p) is Paragraph for p in made.paragraphs)
    assert made == built and hash(made) == hash(built) and repr(made) == repr(built)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.__setattr__("text", "")
    for paragraph in made.paragraphs:
        with pytest.raises(dataclasses.FrozenInstanceError):
            paragraph.__setattr__("text", "")
