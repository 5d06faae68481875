"""The files of a corpus, from a directory or straight from a tar archive (never extracted)."""

from __future__ import annotations

import os
import tarfile
from dataclasses import dataclass
from pathlib import Path

from legaldb.corpus.errors import CorpusError

METADATA_NAME = "db.sqlite3"
SNAPSHOT_HEADER = "LEXGATE.snapshot"  # pax global header of the bundled archive
ARCHIVE_SUFFIXES = (".tar", ".tar.xz", ".txz", ".tar.gz", ".tgz", ".tar.bz2")


@dataclass(frozen=True, slots=True)
class CorpusFiles:
    """The Markdown files and metadata databases of a corpus, paths relative to its root."""

    markdown: tuple[tuple[str, bytes], ...]  # sorted by path
    metadata: tuple[tuple[str, bytes], ...]  # (folder of the db.sqlite3, its bytes)
    snapshot: str | None


def load(source: Path) -> CorpusFiles:
    """Read every .md file and db.sqlite3 of a directory or tar archive into memory."""
    if source.is_dir():
        return _from_directory(source)
    if source.is_file() and source.name.endswith(ARCHIVE_SUFFIXES):
        return _from_archive(source)
    raise CorpusError(f"{source}: neither a corpus directory nor a tar archive")


def _collect(items: list[tuple[str, bytes]], snapshot: str | None) -> CorpusFiles:
    markdown = sorted((p, d) for p, d in items if p.endswith(".md"))
    metadata = sorted(
        (p.rpartition("/")[0], d)
        for p, d in items
        if p == METADATA_NAME or p.endswith("/" + METADATA_NAME)
    )
    return CorpusFiles(tuple(markdown), tuple(metadata), snapshot)


def _from_directory(root: Path) -> CorpusFiles:
    items = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in files:
            if name.endswith(".md") or name == METADATA_NAME:
                path = Path(folder, name)
                items.append((path.relative_to(root).as_posix(), path.read_bytes()))
    return _collect(items, None)


def _from_archive(archive: Path) -> CorpusFiles:
    items = []
    try:
        with tarfile.open(archive) as tar:
            snapshot = tar.pax_headers.get(SNAPSHOT_HEADER)
            for member in tar:
                if not member.isfile():
                    continue
                path = member.name.removeprefix("./")
                if path.endswith(".md") or path.rpartition("/")[2] == METADATA_NAME:
                    handle = tar.extractfile(member)
                    if handle is not None:
                        items.append((path, handle.read()))
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise CorpusError(f"{archive}: cannot read the archive: {exc}") from exc
    return _collect(items, snapshot)
