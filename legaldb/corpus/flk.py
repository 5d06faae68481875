"""The national database's capture (flk.npc.gov.cn): census entries and texts article by article.

Pure: reads the bundled archive (census.json and seed/<bbbs>.json) in memory. Each text's
provisions become lawrefbook-style lines (`## chapter`, `第X条 text`) read by the same article
splitter as the Markdown files, so 款 and 项 follow one set of rules. The capture's 之一 quirk
(an 之一/之二 article stored under its base number, its content starting with the suffix) is
undone here.
"""

from __future__ import annotations

import json
import re
import tarfile
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from legaldb.corpus.articles import split_articles
from legaldb.corpus.errors import CorpusError, UnparsableFile
from legaldb.corpus.sources import SNAPSHOT_HEADER
from legaldb.models import ParsedArticle
from textnorm import article_label

BUNDLED_FLK = Path(__file__).resolve().parent.parent / "data" / "flk-national.tar.xz"
FLK_SOURCE = "flk"
CENSUS_NAME = "census.json"
SUFFIX_RE = re.compile(r"^(之[一二三四五六七八九十]+)[\s\u3000]*")
# 中华人民共和国宪法（2018年修正文本）: the edition in brackets is not part of the law's name.
EDITION_RE = re.compile(r"（\d{4}年[^（）]*文本）$")
STATUSES = ("in_force", "amended", "repealed", "not_yet_in_force")


@dataclass(frozen=True, slots=True)
class CensusEntry:
    """One row of the census: a statute (or one version of it) and its status at the capture."""

    bbbs: str  # the database's id
    title: str
    law_type: str  # 宪法 | 法律 | 行政法规
    issuer: str | None
    published: date | None
    effective: date | None
    status: str  # in_force | amended (superseded) | repealed | not_yet_in_force


@dataclass(frozen=True, slots=True)
class FlkText:
    """One text of the capture, its articles read like a lawrefbook file's."""

    bbbs: str
    title: str
    status: str
    issued: date | None
    in_force: date | None
    issuer: str | None
    articles: tuple[ParsedArticle, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class FlkRead:
    """The census, the texts, and the texts that could not be read (bbbs, reason)."""

    census: tuple[CensusEntry, ...]
    texts: tuple[FlkText, ...]
    skipped: tuple[tuple[str, str], ...]
    snapshot: str


def law_title(title: str) -> str:
    """The law's name without the edition in brackets: 中华人民共和国宪法（2018年修正文本） -> …宪法."""
    return EDITION_RE.sub("", title.strip())


def _date(value: object) -> date | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


def read_flk(source: Path = BUNDLED_FLK) -> FlkRead:
    """Read the census and every text of an flk archive; a text that cannot be read is skipped."""
    census: list[CensusEntry] = []
    texts: list[FlkText] = []
    skipped: list[tuple[str, str]] = []
    try:
        with tarfile.open(source) as tar:
            snapshot = tar.pax_headers.get(SNAPSHOT_HEADER, "flk")
            for member in tar:
                handle = tar.extractfile(member) if member.isfile() else None
                if handle is None:
                    continue
                raw = json.loads(handle.read())
                if member.name == CENSUS_NAME:
                    census = [_entry(item) for item in raw["entries"]]
                    continue
                try:
                    texts.append(parse_text(raw))
                except UnparsableFile as exc:
                    skipped.append((str(raw.get("id", member.name)), exc.reason))
    except (tarfile.TarError, OSError, EOFError, ValueError, KeyError) as exc:
        raise CorpusError(f"{source}: cannot read the flk archive: {exc}") from exc
    return FlkRead(tuple(census), tuple(texts), tuple(skipped), snapshot)


def _entry(item: dict[str, object]) -> CensusEntry:
    return CensusEntry(
        bbbs=str(item["bbbs"]),
        title=str(item["title"]),
        law_type=str(item.get("law_type") or ""),
        issuer=str(item["issuing_body"]) if item.get("issuing_body") else None,
        published=_date(item.get("publish_date")),
        effective=_date(item.get("effective_date")),
        status=str(item.get("status") or ""),
    )


def parse_text(raw: dict[str, object]) -> FlkText:
    """One seed text -> FlkText; UnparsableFile when it holds no article."""
    title = str(raw["title"])
    provisions = raw.get("provisions") or []
    if not isinstance(provisions, list):
        raise UnparsableFile("provisions is not a list")
    lines: list[str] = []
    chapter = None
    notes = []
    for provision in provisions:
        ref = str(provision.get("provision_ref") or "")
        content = str(provision.get("content") or "").strip()
        if not ref.isdigit() or not content:
            continue
        if provision.get("chapter") != chapter:
            chapter = provision.get("chapter")
            for depth, heading in enumerate(str(chapter or "").split(" > "), start=2):
                if heading.strip():
                    lines.append("#" * depth + " " + heading.strip())
        suffix = None
        quirk = SUFFIX_RE.match(content)
        if quirk:  # 之一 stored under the base number (刑法 "133": "之一\u3000在道路上…")
            suffix = quirk.group(1)
            content = content[quirk.end() :]
            notes.append(f"{article_label(int(ref), suffix)} stored as {ref} + {suffix}: read back")
        first, *rest = content.split("\n")
        lines.append(f"{article_label(int(ref), suffix)} {first}")
        lines += rest
    articles, split_notes = split_articles(lines, title)
    if not articles:
        raise UnparsableFile("no provisions with an article number")
    return FlkText(
        bbbs=str(raw["id"]),
        title=title,
        status=str(raw.get("status") or ""),
        issued=_date(raw.get("issued_date")),
        in_force=_date(raw.get("in_force_date")),
        issuer=str(raw["issuing_body"]) if raw.get("issuing_body") else None,
        articles=articles,
        notes=(*dict.fromkeys(notes), *split_notes),
    )
