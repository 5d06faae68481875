"""The collection's own metadata (db.sqlite3): a hint for level, publish and valid_from.

Read from bytes with sqlite3's deserialize, so it works the same from a directory or straight
from the archive, and nothing is written to disk.
"""

from __future__ import annotations

import posixpath
import sqlite3
from collections import defaultdict
from datetime import date

from legaldb.corpus.dates import FILE_DATE_RE, iso_date
from legaldb.corpus.models import MetadataRow

QUERY = """
SELECT law.name, law.level, law.publish, law.valid_from, law.expired, category.folder,
       law.filename
FROM law LEFT JOIN category ON category.id = law.category_id
"""


class Metadata:
    """The rows of one db.sqlite3, found by a file's folder and name."""

    def __init__(self, root: str, rows: list[tuple[MetadataRow, str | None]]) -> None:
        self.root = root  # the database's folder relative to the corpus root ("" at the top)
        self._by_name: dict[tuple[str, str], list[MetadataRow]] = defaultdict(list)
        for row, filename in rows:
            self._by_name[(row.folder, row.name)].append(row)
            if filename and filename != row.name:
                self._by_name[(row.folder, filename)].append(row)

    def covers(self, path: str) -> bool:
        """True when path lies under this database's folder."""
        return not self.root or path.startswith(self.root + "/")

    def find(self, path: str, file_date: date | None) -> MetadataRow | None:
        """The row of a file: same folder and name, and same publish date when there are
        several; None when there is none or the choice is ambiguous."""
        relative = path[len(self.root) + 1 :] if self.root else path
        folder, name = posixpath.split(relative)
        stem = FILE_DATE_RE.sub("", name).removesuffix(".md")
        candidates = self._by_name.get((folder, stem), [])
        if file_date:
            dated = [row for row in candidates if row.publish == file_date]
            if len(dated) == 1:
                return dated[0]
        return candidates[0] if len(candidates) == 1 else None


def read_metadata(root: str, data: bytes) -> Metadata:
    """Parse db.sqlite3 bytes; an unreadable or foreign database gives an empty Metadata."""
    rows: list[tuple[MetadataRow, str | None]] = []
    connection = sqlite3.connect(":memory:")
    try:
        connection.deserialize(data)
        for name, level, publish, valid_from, expired, folder, filename in connection.execute(
            QUERY
        ):
            row = MetadataRow(
                name=name,
                level=level,
                publish=iso_date(publish),
                valid_from=iso_date(valid_from),
                expired=bool(expired),
                folder=folder or "",
            )
            rows.append((row, filename))
    except sqlite3.DatabaseError:
        rows = []
    finally:
        connection.close()
    return Metadata(root, rows)
