"""The verifier's memos change speed, never results: cold, warm and evicting runs agree."""

from __future__ import annotations

import importlib
import json
from datetime import date
from pathlib import Path

import pytest

from legaldb import StatuteRepository, make_engine
from tests.conftest import SHARED_DIR
from verifier import check, content, lexicon_of, numbers, result_to_json, support
from verifier.lexicon import kept_sqlite_lexicon

AS_OF = date(2023, 8, 1)


def _answers_with_quotes(limit: int) -> list[str]:
    """Real answers that recite text (「…」 or “…”), where quote location runs."""
    path = SHARED_DIR / "eval" / "flzx_dev_answers.jsonl"
    answers = [json.loads(line)["answer"] for line in path.read_text("utf-8").splitlines()]
    return [a for a in answers if "“" in a or "「" in a][:limit]


def _results(repo: StatuteRepository, answers: list[str]) -> list[object]:
    return [result_to_json(check(answer, repo, AS_OF)) for answer in answers]


checking = importlib.import_module("verifier.check")  # the package's `check` is the verb
classifying = importlib.import_module("verifier.classify")


def _forget(repo: StatuteRepository) -> None:
    content._LOCATED.pop(repo, None)
    support._JUDGED.pop(repo, None)
    support._COVERED.pop(repo, None)
    checking._HELD.pop(repo, None)
    classifying._FACTS.pop(repo, None)
    numbers._quantities.cache_clear()
    numbers._article_quantities.cache_clear()


def test_warm_and_evicting_checks_equal_cold_ones(
    statute_repository: StatuteRepository, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = _answers_with_quotes(150)
    _forget(statute_repository)
    cold = _results(statute_repository, answers)
    located = len(content._LOCATED[statute_repository])
    assert located > 20, "the sample must exercise quote location"
    assert _results(statute_repository, answers) == cold  # every location from the memo

    monkeypatch.setattr(content, "LOCATIONS_PER_REPOSITORY", 5)
    monkeypatch.setattr(support, "JUDGED_PER_REPOSITORY", 5)
    monkeypatch.setattr(support, "COVERED_PER_REPOSITORY", 5)
    monkeypatch.setattr(checking, "CLASSIFIED_PER_REPOSITORY", 5)
    monkeypatch.setattr(classifying, "FACTS_PER_REPOSITORY", 5)
    _forget(statute_repository)
    assert _results(statute_repository, answers) == cold  # evicting all the time
    assert len(content._LOCATED[statute_repository]) == 5
    assert len(support._JUDGED[statute_repository]) == 5
    assert len(support._COVERED[statute_repository]) == 5
    assert len(classifying._FACTS[statute_repository]) == 5


def test_location_memo_keeps_the_most_recently_used(
    statute_repository: StatuteRepository, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(content, "LOCATIONS_PER_REPOSITORY", 2)
    _forget(statute_repository)
    law = statute_repository.resolve("民法典")
    assert law is not None
    version = statute_repository.version_in_force(law.id, date(2026, 1, 1))
    assert version is not None
    quotes = [
        "当事人一方不履行合同义务或者履行合同义务不符合约定的，应当承担继续履行、采取补救措施或者赔偿损失等违约责任。",
        "夫妻双方自愿离婚的，应当签订书面离婚协议，并亲自到婚姻登记机关申请离婚登记。",
        "自然人的民事权利能力一律平等。",
    ]
    first = content.located(statute_repository, version.id, quotes[0], 3)
    content.located(statute_repository, version.id, quotes[1], 3)
    content.located(statute_repository, version.id, quotes[0], 3)  # used again: kept
    content.located(statute_repository, version.id, quotes[2], 3)  # pushes out quotes[1]
    memo = content._LOCATED[statute_repository]
    assert [key[1] for key in memo] == [quotes[0], quotes[2]]
    assert first and first[0][0][1] == "第五百七十七条"


def test_quantities_are_fresh_lists() -> None:
    text = "处三年以上七年以下有期徒刑，并处五万元罚金"
    found = numbers.find_quantities(text)
    found.clear()
    assert [(q.kind, q.value) for q in numbers.find_quantities(text)] == [
        ("duration", 3 * 365.0),
        ("duration", 7 * 365.0),
        ("amount", 50_000.0),
    ]


def test_quote_indexes_kept_on_disk_give_the_same_checks(
    corpus_database_url: str, tmp_path: Path
) -> None:
    """Quote indexes and the lexicon read back from beside the statute snapshot check as freshly
    built ones."""
    engine = make_engine(corpus_database_url)
    answers = _answers_with_quotes(60)
    building = StatuteRepository.load(engine, tmp_path)  # builds and keeps the indexes
    assert building.derived_dir is not None
    built = _results(building, answers)
    kept = sorted(building.derived_dir.glob("quotes-*.marshal"))
    assert len(kept) > 3, "the sample must exercise quote location"
    reading = StatuteRepository.load(engine, tmp_path)  # another process, in effect
    assert (building.derived_dir / "lexicon.marshal").is_file()
    assert lexicon_of(reading) == lexicon_of(building)  # read back, not built
    assert _results(reading, answers) == built
    assert _results(StatuteRepository.load(engine), answers) == built  # no cache at all
    engine.dispose()


def test_the_kept_lexicon_is_read_by_the_content_of_a_sqlite_file(
    corpus_database_url: str, tmp_path: Path
) -> None:
    """kept_sqlite_lexicon reads the lexicon kept for a SQLite file's content without its
    statute snapshot; None before one is kept, and for a database that is no SQLite file."""
    assert kept_sqlite_lexicon(corpus_database_url, tmp_path) is None
    engine = make_engine(corpus_database_url)
    built = lexicon_of(StatuteRepository.load(engine, tmp_path))  # kept beside the snapshot
    engine.dispose()
    kept = kept_sqlite_lexicon(corpus_database_url, tmp_path)
    assert kept == (built if corpus_database_url.startswith("sqlite") else None)
