"""The corpus reader on temporary corpora: broken files, progress, archives, the bundle script."""

from __future__ import annotations

import sqlite3
import tarfile
from datetime import date
from pathlib import Path

import pytest

from legaldb.corpus import read_corpus
from legaldb.corpus.bundle import build_archive, main
from legaldb.corpus.errors import CorpusError

GOOD_LAW = """# 中华人民共和国示例法

2020年1月1日 第十三届全国人民代表大会常务委员会第十五次会议通过

<!-- INFO END -->

## 第一章 总则

第一条 为了示例，制定本法。

第二条 有下列情形之一的，适用本法：

（一）甲；

（二）乙。

第三条 本法自2020年7月1日起施行。
"""

BROKEN_FILES: list[tuple[str, bytes, str]] = [
    ("民法商法/无标题(2020-01-01).md", "第一条 没有标题。\n".encode(), "no `# title`"),
    ("民法商法/乱码.md", bytes(range(256)) * 4, "binary content"),
    ("民法商法/非UTF8.md", "# 示例条例\n\n第一条 正文。\n".encode("gb18030"), "not UTF-8"),
    ("民法商法/空文件.md", b"", "no `# title`"),
    ("民法商法/只有标题.md", "# 某规定\n\n<!-- INFO END -->\n".encode(), "empty"),
    ("民法商法/无条文.md", "# 某通知\n\n<!-- INFO END -->\n\n通知如下。\n".encode(), "no articles"),
    (
        "民法商法/重复条文.md",
        "# 某办法\n\n<!-- INFO END -->\n\n第一条 甲。\n\n第二条 乙。\n\n第一条 丙。\n".encode(),
        "第一条 appears twice with different texts",
    ),
    ("案例/某案.md", "# 某案\n\n<!-- INFO END -->\n\n案情。\n".encode(), "court case"),
]


def write_corpus(root: Path, files: list[tuple[str, bytes]]) -> Path:
    """A lawrefbook-format tree under root with the given files."""
    for path, data in files:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return root


@pytest.fixture
def broken_corpus(tmp_path: Path) -> Path:
    """One good law among broken files, plus the section index and template to ignore."""
    files = [(path, data) for path, data, _ in BROKEN_FILES]
    files += [
        ("民法商法/示例法(2020-01-01).md", GOOD_LAW.encode()),
        ("民法商法/_index.md", b"---\nbookCollapseSection: true\n---"),
        ("法律法规模版.md", "# 模版\n\n第一条 xxxxx\n".encode()),
    ]
    return write_corpus(tmp_path / "corpus", files)


def test_good_law_is_read_among_broken_files(broken_corpus: Path) -> None:
    """The one good file becomes a law with its dates, the others do not stop the read."""
    read = read_corpus(broken_corpus)
    assert [law.name for law in read.laws] == ["中华人民共和国示例法"]
    (version,) = read.laws[0].versions
    assert version.effective_from == date(2020, 7, 1)
    assert version.effective_rule == "final-article"
    assert [len(a.paragraphs[0].items) for a in version.articles] == [0, 2, 0]
    assert version.articles[0].chapter_path == ("第一章 总则",)


@pytest.mark.parametrize(
    ("path", "reason"),
    [(path, reason) for path, _, reason in BROKEN_FILES],
    ids=[path for path, _, _ in BROKEN_FILES],
)
def test_broken_file_is_skipped_with_its_reason(
    broken_corpus: Path, path: str, reason: str
) -> None:
    """Every broken file is reported by its path with the reason it was not read."""
    skipped = {s.path: s.reason for s in read_corpus(broken_corpus).skipped}
    assert reason in skipped[path]


def test_index_and_template_are_not_reported(broken_corpus: Path) -> None:
    """Section indexes and the root template are not statutes and are not listed."""
    skipped = {s.path for s in read_corpus(broken_corpus).skipped}
    assert skipped == {path for path, _, _ in BROKEN_FILES}


def test_progress_is_called_per_file(broken_corpus: Path) -> None:
    """progress(done, total) runs once per candidate file, done counting up to total."""
    calls: list[tuple[int, int]] = []
    read_corpus(broken_corpus, lambda done, total: calls.append((done, total)))
    total = len(BROKEN_FILES) + 1
    assert calls == [(done, total) for done in range(1, total + 1)]


def test_missing_source_is_a_corpus_error(tmp_path: Path) -> None:
    """A path that is neither a directory nor an archive raises CorpusError."""
    with pytest.raises(CorpusError):
        read_corpus(tmp_path / "missing")
    (tmp_path / "not-a-tar.tar.xz").write_bytes(b"not xz")
    with pytest.raises(CorpusError):
        read_corpus(tmp_path / "not-a-tar.tar.xz")


def metadata_db(rows: list[tuple[str, str, str | None, str | None]]) -> bytes:
    """A db.sqlite3 of the collection's schema with (folder, name, publish, valid_from) rows."""
    connection = sqlite3.connect(":memory:")
    connection.executescript(
        """
        CREATE TABLE category (id TEXT PRIMARY KEY, name TEXT, folder TEXT, isSubFolder INT);
        CREATE TABLE law (id TEXT PRIMARY KEY, level TEXT, name TEXT, filename TEXT,
            publish DATE, expired INT, "order" INT, subtitle TEXT, valid_from DATE, ver INT,
            tags TEXT, category_id TEXT);
        """
    )
    for index, (folder, name, publish, valid_from) in enumerate(rows):
        connection.execute(
            "INSERT OR IGNORE INTO category VALUES (?, ?, ?, 0)", (folder, folder, folder)
        )
        connection.execute(
            "INSERT INTO law VALUES (?, '法律', ?, NULL, ?, 0, NULL, NULL, ?, 1, NULL, ?)",
            (str(index), name, publish, valid_from, folder),
        )
    data = connection.serialize()
    connection.close()
    return data


ADOPTION = "2010年1月1日 第十一届全国人民代表大会常务委员会第十二次会议通过"
AMENDMENT = (
    "2015年4月24日 第十二届全国人民代表大会常务委员会第十四次会议"
    "《关于修改〈中华人民共和国示例法〉的决定》修正"
)
BODY = "第一条 为了示例，制定本法。\n\n第二条 本法自2010年7月1日起施行。\n"
ORIGINAL_LAW = f"# 中华人民共和国示例法\n\n{ADOPTION}\n\n<!-- INFO END -->\n\n{BODY}"
AMENDED_LAW = f"# 中华人民共和国示例法\n\n{ADOPTION}\n\n{AMENDMENT}\n\n<!-- INFO END -->\n\n{BODY}"


def test_metadata_dates_an_amendment_and_versions_chain(tmp_path: Path) -> None:
    """An amendment's old final article is not used; metadata valid_from dates it, and the
    first version ends when the amendment starts."""
    root = write_corpus(
        tmp_path / "corpus",
        [
            ("民法商法/示例法(2010-01-01).md", ORIGINAL_LAW.encode()),
            ("民法商法/示例法(2015-04-24).md", AMENDED_LAW.encode()),
            ("db.sqlite3", metadata_db([("民法商法", "示例法", "2015-04-24", "2015-05-01")])),
        ],
    )
    (first, second) = read_corpus(root).laws[0].versions
    assert (first.label, first.effective_from, first.effective_rule) == (
        "2010年",
        date(2010, 7, 1),
        "final-article",
    )
    assert first.effective_to == date(2015, 5, 1)
    assert (second.label, second.effective_from, second.effective_rule) == (
        "2015年修正",
        date(2015, 5, 1),
        "metadata",
    )
    assert any("dates an earlier text" in note for note in second.notes)


def test_undated_amendment_is_listed(tmp_path: Path) -> None:
    """Without metadata an amendment has no effective date and is listed for a person."""
    root = write_corpus(tmp_path / "corpus", [("民法商法/示例法.md", AMENDED_LAW.encode())])
    read = read_corpus(root)
    (version,) = read.laws[0].versions
    assert version.effective_from is None and version.effective_rule is None
    assert len(read.undated) == 1
    assert read.undated[0].startswith("中华人民共和国示例法 2015年修正: ")


def test_archive_reads_like_its_directory(tmp_path: Path, broken_corpus: Path) -> None:
    """The bundle of a tree, read from the archive, equals the tree read as a directory
    (without 案例/, which the bundle leaves out)."""
    archive = tmp_path / "bundle.tar.xz"
    build_archive(broken_corpus, archive, snapshot="test snapshot")
    from_archive = read_corpus(archive)
    from_directory = read_corpus(broken_corpus)
    assert from_archive.laws == from_directory.laws
    assert [s for s in from_directory.skipped if not s.path.startswith("案例/")] == list(
        from_archive.skipped
    )
    assert from_archive.snapshot == "test snapshot"
    assert read_corpus(broken_corpus, snapshot="given").snapshot == "given"


def test_bundle_is_reproducible(tmp_path: Path, broken_corpus: Path) -> None:
    """Two builds of one tree are byte-identical; members are sorted, with fixed owner and
    mtime, and DLC/ and 案例/ are left out."""
    write_corpus(broken_corpus, [("DLC/某省/地方性法规/某条例.md", GOOD_LAW.encode())])
    first, second = tmp_path / "first.tar.xz", tmp_path / "second.tar.xz"
    assert main([str(broken_corpus), str(first)]) == 0
    build_archive(broken_corpus, second)
    assert first.read_bytes() == second.read_bytes()
    with tarfile.open(first) as tar:
        members = tar.getmembers()
    names = [m.name for m in members]
    assert names == sorted(names)
    assert not any(name.startswith(("DLC/", "案例/")) for name in names)
    assert {(m.mtime, m.uid, m.gid, m.uname, m.mode) for m in members} == {
        (1745020800, 0, 0, "", 0o644)
    }
