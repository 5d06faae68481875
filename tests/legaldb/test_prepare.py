"""`legaldb.prepare`: every version's derived files made at once are the ones first use makes."""

from __future__ import annotations

import marshal
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from legaldb.engine import make_engine
from legaldb.importer import import_corpus
from legaldb.migrate import upgrade
from legaldb.models import ParsedLaw
from legaldb.prepare import Derivations, prepare
from legaldb.repealed import read_repealed
from legaldb.repository import VERSION_TEXTS_FORMAT, StatuteRepository
from tests.legaldb.factories import article, law, small_corpus, version
from textnorm.marshalled import read_marshalled
from verifier.content import QUOTE_INDEX_FORMAT, keep_version_index, version_index
from verifier.lexicon import lexicon_of

# What `lexgate db prepare` makes beside the texts (lexgate.cli assembles the same).
VERIFIER = Derivations(per_version=(keep_version_index,), whole=(lexicon_of,))


def _extra_laws() -> tuple[ParsedLaw, ...]:
    """Enough small laws for several chunks of versions, so that two workers share them."""
    laws = []
    for k in range(1, 13):
        name = f"测试第{k}号条例"
        articles = tuple(
            article(n, f"{name}第{n}条：当事人应当遵守本条例第{n}项规定，违者罚款{n}千元。")
            for n in range(1, 6 + k)
        )
        laws.append(law(name, (version(name, "2020年", date(2020, 1, 1), None, articles),)))
    return tuple(laws)


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """A fresh database on each backend holding the small corpus and a dozen small laws."""
    upgrade(database_url)
    made = make_engine(database_url)
    import_corpus(made, small_corpus(extra_laws=_extra_laws()), repealed=read_repealed())
    yield made
    made.dispose()


def _first_use(engine: Engine, cache: Path) -> Path:
    """The files that checks make as they go: each version's texts and quote index, and the
    lexicon, asked for the first time."""
    repo = StatuteRepository.load(engine, cache)
    lexicon_of(repo)
    for statute in repo.laws():
        for v in repo.versions(statute.id):
            if v.has_text:
                repo.articles_text(v.id)
                version_index(repo, v.id)
    assert repo.derived_dir is not None
    return repo.derived_dir


def _files(directory: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(directory.iterdir())}


@pytest.mark.parametrize("jobs", [1, 2], ids=["here", "two-workers"])
def test_prepared_files_are_what_first_use_makes(engine: Engine, tmp_path: Path, jobs: int) -> None:
    """prepare makes, for every version with text, the texts and quote index files byte for
    byte as first use makes them, and the lexicon; nothing else."""
    lazy = _files(_first_use(engine, tmp_path / "lazy"))
    repo = StatuteRepository.load(engine, tmp_path / "prepared")
    done = prepare(repo, VERIFIER, jobs=jobs)
    assert done.directory == repo.derived_dir and done.directory is not None
    with_text = [v for s in repo.laws() for v in repo.versions(s.id) if v.has_text]
    assert done.versions == len(with_text) > 12
    assert done.made == 2 * len(with_text)
    assert done.workers == jobs
    prepared = _files(done.directory)
    assert sorted(prepared) == sorted(lazy)
    assert len(prepared) == 2 * len(with_text) + 1  # texts, quotes, and the lexicon
    assert prepared == lazy
    assert done.size_bytes == sum(len(data) for data in prepared.values())


def test_a_second_prepare_makes_nothing(engine: Engine, tmp_path: Path) -> None:
    """Files already there in their current format are kept as they are."""
    first = prepare(StatuteRepository.load(engine, tmp_path), VERIFIER, jobs=2)
    assert first.directory is not None and first.made
    before = {p.name: p.stat().st_mtime_ns for p in first.directory.iterdir()}
    again = prepare(StatuteRepository.load(engine, tmp_path), VERIFIER, jobs=2)
    assert (again.made, again.versions) == (0, first.versions)
    assert {p.name: p.stat().st_mtime_ns for p in first.directory.iterdir()} == before


def test_a_corrupt_or_old_format_file_is_made_again(engine: Engine, tmp_path: Path) -> None:
    """A truncated texts file and a quote index of an older format are made again, as they
    were; the others are kept."""
    done = prepare(StatuteRepository.load(engine, tmp_path), VERIFIER, jobs=1)
    assert done.directory is not None
    whole = _files(done.directory)
    texts = sorted(done.directory.glob("texts-*.marshal"))[0]
    quotes = sorted(done.directory.glob("quotes-*.marshal"))[-1]
    texts.write_bytes(whole[texts.name][: len(whole[texts.name]) // 2])
    kept = read_marshalled(quotes)
    assert isinstance(kept, tuple) and kept[0] == QUOTE_INDEX_FORMAT
    quotes.write_bytes(marshal.dumps((QUOTE_INDEX_FORMAT - 1, kept[1])))
    again = prepare(StatuteRepository.load(engine, tmp_path), VERIFIER, jobs=1)
    assert again.made == 2
    assert _files(done.directory) == whole


def test_a_texts_file_of_the_first_format_is_read_as_its_tables(
    engine: Engine, tmp_path: Path
) -> None:
    """A version's texts kept in the first format (every row in one list, as made before the
    rows were marshalled one by one) are not read as the current format: the version's texts
    come from the tables, the same as a fresh repository's, and the file is made again."""
    done = prepare(StatuteRepository.load(engine, tmp_path), VERIFIER, jobs=1)
    assert done.directory is not None
    whole = _files(done.directory)
    fresh = StatuteRepository.load(engine, tmp_path / "fresh")
    texts = sorted(done.directory.glob("texts-*.marshal"))[0]
    version_id = int(texts.stem.removeprefix("texts-"))
    expected = fresh.articles_text(version_id)
    assert expected
    rows = [(a.info.number, a.info.suffix, a.text, tuple((p.text, p.items) for p in a.paragraphs))
            for a in expected]  # fmt: skip
    texts.write_bytes(marshal.dumps((1, rows)))
    assert VERSION_TEXTS_FORMAT != 1
    read = StatuteRepository.load(engine, tmp_path)
    assert read.articles_text(version_id) == expected
    assert _files(done.directory) == whole


class Interrupted(Exception):
    """What stops the run below half-way."""


def _interrupting(stop_at: int) -> Derivations:
    """The verifier's steps, and one that stops the run at version stop_at."""

    def interrupt(repo: StatuteRepository, version_id: int) -> bool:
        if version_id == stop_at:
            raise Interrupted(version_id)
        return False

    return Derivations(per_version=(*VERIFIER.per_version, interrupt), whole=VERIFIER.whole)


@pytest.mark.parametrize("jobs", [1, 2], ids=["here", "two-workers"])
def test_an_interrupted_prepare_leaves_whole_files_only(
    engine: Engine, tmp_path: Path, jobs: int
) -> None:
    """A run stopped half-way leaves every file whole and in its format (each is written to
    a temporary file and renamed) and no temporary file; the next run makes the rest."""
    repo = StatuteRepository.load(engine, tmp_path)
    ids = sorted(v.id for s in repo.laws() for v in repo.versions(s.id) if v.has_text)
    with pytest.raises(Interrupted):
        prepare(repo, _interrupting(ids[len(ids) // 2]), jobs=jobs)
    assert repo.derived_dir is not None
    left = sorted(repo.derived_dir.iterdir())
    assert left and not [p.name for p in left if p.name.startswith(".")]
    for path in left:
        kept = read_marshalled(path)
        assert isinstance(kept, tuple), path.name
        if path.name.startswith("texts-"):
            assert kept[0] == VERSION_TEXTS_FORMAT
        elif path.name.startswith("quotes-"):
            assert kept[0] == QUOTE_INDEX_FORMAT
    rest = prepare(StatuteRepository.load(engine, tmp_path), VERIFIER, jobs=jobs)
    assert rest.made == 2 * len(ids) - (len(left) - 1)  # the lexicon was made first
    assert _files(repo.derived_dir) == _files(_first_use(engine, tmp_path / "lazy"))


def test_without_a_cache_directory_nothing_is_prepared(engine: Engine) -> None:
    """A repository keeping no derived files (no cache directory) has nothing to prepare."""
    done = prepare(StatuteRepository.load(engine), VERIFIER)
    assert (done.directory, done.versions, done.made) == (None, 0, 0)
