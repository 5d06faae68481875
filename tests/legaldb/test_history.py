"""One history per statute from every source: the flk reader, the merge, repeal events."""

from __future__ import annotations

import io
import json
import tarfile
from datetime import date
from pathlib import Path

import pytest

from legaldb import StatuteRepository
from legaldb.corpus.bundle import build_flk_archive
from legaldb.corpus.flk import parse_text, read_flk
from legaldb.models import CorpusRead


def _seed(provisions: list[dict[str, str]], **extra: str) -> dict[str, object]:
    return {"id": "x1", "title": "中华人民共和国测试法", "status": "in_force",
            "issued_date": "2020-01-02", "in_force_date": "", "provisions": provisions} | extra  # fmt: skip


def test_flk_之一_stored_under_its_base_number_is_read_back() -> None:
    """flk stores 第一百三十三条之一 as provision 133 with content 之一\u3000…: read as 之一."""
    text = parse_text(
        _seed(
            [
                {"provision_ref": "133", "chapter": "第二章 罪", "content": "违反交通运输管理法规"},
                {
                    "provision_ref": "133",
                    "chapter": "第二章 罪",
                    "content": "之一\u3000在道路上驾驶机动车：\n（一）追逐竞驶，情节恶劣的；",
                },
                {"provision_ref": "134", "chapter": "第二章 罪", "content": "（删去）"},
            ]
        )
    )
    labels = [a.label for a in text.articles]
    assert labels == ["第一百三十三条", "第一百三十三条之一", "第一百三十四条"]
    first_of = text.articles[1]
    assert first_of.suffix == "之一" and first_of.text.startswith("在道路上驾驶机动车")
    assert first_of.paragraphs[0].items == ("（一）追逐竞驶，情节恶劣的；",)
    assert first_of.chapter_path == ("第二章 罪",)
    assert text.articles[2].deleted
    assert text.in_force is None and text.issued == date(2020, 1, 2)


def test_flk_archive_is_reproducible_and_read_back(tmp_path: Path) -> None:
    """The same census and seed give the same bytes; read_flk reads the census and texts."""
    census = tmp_path / "census.json"
    census.write_text(json.dumps({"entries": [
        {"bbbs": "x1", "title": "中华人民共和国测试法", "law_type": "法律", "issuing_body": None,
         "publish_date": "2020-01-02", "effective_date": "2020-03-01", "status": "repealed"}
    ]}, ensure_ascii=False), "utf-8")  # fmt: skip
    seed = tmp_path / "seed.tar"
    with tarfile.open(seed, "w") as tar:
        data = json.dumps(_seed([{"provision_ref": "1", "content": "本法自公布之日起施行。"}]))
        info = tarfile.TarInfo("seed/x1.json")
        info.size = len(data.encode())
        tar.addfile(info, io.BytesIO(data.encode()))
    first, second = tmp_path / "a.tar.xz", tmp_path / "b.tar.xz"
    assert build_flk_archive(census, seed, first) == 2
    build_flk_archive(census, seed, second)
    assert first.read_bytes() == second.read_bytes()
    read = read_flk(first)
    assert [e.status for e in read.census] == ["repealed"]
    assert read.census[0].effective == date(2020, 3, 1)
    assert [t.bbbs for t in read.texts] == ["x1"]


def _law(corpus: CorpusRead, short_name: str):  # type: ignore[no-untyped-def]
    return next(law for law in corpus.laws if law.short_name == short_name)


@pytest.mark.parametrize(
    ("law", "label", "promulgated", "effective_from", "source"),
    [
        ("刑法", "2009年修正", "2009-08-27", "2009-08-27", "flk:"),
        ("刑法", "2020年修正", "2020-12-26", "2021-03-01", "lawrefbook-history:刑法/"),
        ("公司法", "2013年修正", "2013-12-28", "2014-03-01", "flk:"),
        ("民事诉讼法", "2017年修正", "2017-06-27", "2017-07-01", "flk:"),
        ("食品安全法", "2025年修正", "2025-09-12", "2025-12-01", "flk:"),
        ("劳动合同法", "2007年", "2007-06-29", "2008-01-01", "lawrefbook-history:社会法/"),
    ],
    ids=["刑法2009", "刑法2020", "公司法2013", "民诉法2017", "食品安全法2025", "劳动合同法2007"],
)
def test_every_version_with_its_dates_and_sources(
    bundled_corpus: CorpusRead, law: str, label: str, promulgated: str, effective_from: str,
    source: str,
) -> None:  # fmt: skip
    """Versions from the history and flk join the law's chain, each naming its sources."""
    version = next(v for v in _law(bundled_corpus, law).versions if v.label == label)
    assert str(version.promulgated) == promulgated
    assert str(version.effective_from) == effective_from
    assert version.sources[0].startswith(source)
    assert version.articles


def test_chain_and_same_version_from_two_sources(bundled_corpus: CorpusRead) -> None:
    """刑法 2020 comes from the history and flk: one version, both sources, chained 2024-03-01."""
    versions = _law(bundled_corpus, "刑法").versions
    assert [v.label for v in versions] == ["2009年修正", "2020年修正", "2023年修正"]
    assert [v.effective_to for v in versions] == [date(2021, 3, 1), date(2024, 3, 1), None]
    assert [s.split(":")[0] for s in versions[1].sources] == ["lawrefbook-history", "flk"]
    assert all(" / flk:" in line for line in bundled_corpus.differences)


def test_repeals_from_clauses_census_and_interpretations(bundled_corpus: CorpusRead) -> None:
    """同时废止 clauses date repeals by the repealing text; interpretations follow their law."""
    repeals = {fact.law_name: fact for fact in bundled_corpus.repeals}
    jv = repeals["中华人民共和国中外合资经营企业法"]
    assert (jv.repealed_on, jv.repealed_by, jv.successor, jv.source) == (
        date(2020, 1, 1), "《中华人民共和国外商投资法》第四十二条", "中华人民共和国外商投资法",
        "clause",
    )  # fmt: skip
    assert repeals["中华人民共和国学位条例"].repealed_on == date(2025, 1, 1)
    assert repeals["中华人民共和国执业医师法"].successor == "中华人民共和国医师法"
    guarantee = repeals["最高人民法院关于适用《中华人民共和国担保法》若干问题的解释"]
    assert (guarantee.repealed_on, guarantee.source) == (date(2021, 1, 1), "interpretation")
    assert "法释〔2020〕16号" in (guarantee.repealed_by or "")
    # The nine laws of repealed_laws.json stay with that dataset.
    assert "中华人民共和国合同法" not in repeals
    # A repealed law's versions end on the repeal date.
    noise = _law(bundled_corpus, "环境噪声污染防治法").versions
    assert noise[-1].effective_to == date(2022, 6, 5)
    # A law known only from its repeal is a law without text.
    jv_law = _law(bundled_corpus, "中外合资经营企业法")
    assert all(not v.articles for v in jv_law.versions)
    assert "census" in {fact.source for fact in bundled_corpus.repeals}


def test_undated_versions_each_say_why(bundled_corpus: CorpusRead) -> None:
    """Every version still undated is listed with its reason; none of them is guessed."""
    assert bundled_corpus.undated
    assert all(": " in line for line in bundled_corpus.undated)
    dated_by_decision = [
        v for law in bundled_corpus.laws for v in law.versions
        if v.effective_rule == "amending-decision"
    ]  # fmt: skip
    assert dated_by_decision
    assert all(v.effective_from == v.promulgated or v.promulgated == date(2014, 2, 19)
               for v in dated_by_decision)  # fmt: skip


@pytest.mark.parametrize(
    ("law", "number", "expected"),
    [
        ("公司法", 16, [("2013年修正", "appeared", 16), ("2018年修正", "unchanged", 16),
                        ("2023年修订", "moved", 15)]),
        ("民事诉讼法", 119, [("2017年修正", "appeared", 119), ("2021年修正", "moved", 122),
                             ("2023年修正", "unchanged", 122)]),
        ("刑法", 199, [("2009年修正", "appeared", 199), ("2020年修正", "deleted", 199)]),
    ],
    ids=["公司法16", "民诉法119", "刑法199"],
)  # fmt: skip
def test_article_history_follows_the_article_through_its_versions(
    statute_repository: StatuteRepository, law: str, number: int,
    expected: list[tuple[str, str, int]],
) -> None:  # fmt: skip
    """An article's history: where it appeared, stayed, moved (aligned) or was deleted."""
    found = statute_repository.resolve(law)
    assert found is not None
    history = statute_repository.article_history(found.id, number)
    assert [(e.version.label, e.event, e.number) for e in history] == expected
    for event in history:  # each step checked against the text it names
        text = statute_repository.article_text(event.version.id, event.number)
        assert text is not None
        assert ("删去" in text.text) == (event.event == "deleted")
