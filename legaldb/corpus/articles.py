"""The body of a corpus file: articles (条), their 款 and 项, and the chapter path.

An article starts a line with its label, `第X条` or `第X条之一`, then a space; it runs to the
next article or heading. Each non-empty line of it is a 款, except lines `（一）…` (项), which
belong to the 款 before them, and lines `1．…` after a 项 (目), which belong to that 项.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from legaldb.corpus.errors import UnparsableFile
from legaldb.corpus.headers import SPACES_RE, collapse_spaces
from legaldb.models import Paragraph, ParsedArticle
from textnorm import article_label, cn_to_int, parse_number

_NUMERAL = r"[零〇一二三四五六七八九十百千两0-9０-９]+"
ARTICLE_RE = re.compile(
    rf"^(?P<label>(?P<first>[第笫])(?P<gap1>\s*)(?P<number>{_NUMERAL})(?P<gap2>\s*)条"
    r"(?P<suffix>之[一二三四五六七八九十]+)?)(?P<rest>.*)$"
)
NUMBERED_RE = re.compile(r"^(?P<number>[一二三四五六七八九十百]+)、(?P<rest>.*)$")
ITEM_RE = re.compile(r"^[（(][一二三四五六七八九十百]+[）)]")
SUB_ITEM_RE = re.compile(r"^(?:[0-9０-９]+[\.．、]|[（(][0-9０-９]+[）)])")
HEADING_RE = re.compile(r"^(#{2,})\s*(.*)$")
DELETED_RE = re.compile(r"^[（(\[【]?(?:删去|删除|已删除)[）)\]】]?[。.]?$")
# Titles of texts that amend another: their 第X条 lines may quote the amended text.
AMENDING_TITLE_RE = re.compile(r"修正案|关于修改.*的决定")


_number = functools.lru_cache(maxsize=8192)(parse_number)  # the same few thousand numerals


@dataclass
class _Draft:
    number: int
    suffix: str | None
    label: str
    chapter_path: tuple[str, ...]
    lines: list[str] = field(default_factory=list)


def split_articles(
    lines: list[str], title: str, subtitle: str | None = None
) -> tuple[tuple[ParsedArticle, ...], tuple[str, ...]]:
    """The articles of a file body and the notes on what was read or dropped.

    Raises UnparsableFile when an article number repeats with a different text."""
    notes: list[str] = []
    lines = [line.strip() for line in SPACES_RE.sub(" ", "\n".join(lines)).splitlines()]
    amending = bool(AMENDING_TITLE_RE.search(title))
    drafts = _labelled(lines, subtitle, amending, notes)
    if not drafts:
        drafts = _numbered(lines, subtitle)
        if drafts:
            notes.append("no 第X条 lines: paragraphs numbered 一、二、… read as 第一条, 第二条 …")
    articles = _deduplicated([_article(draft) for draft in drafts], notes)
    return tuple(articles), tuple(notes)


def _labelled(
    lines: list[str], subtitle: str | None, amending: bool, notes: list[str]
) -> list[_Draft]:
    drafts: list[_Draft] = []
    orphans = 0
    current: _Draft | None = None
    for chapter_path, line in _under_headings(lines, subtitle):
        if line is None:
            current = None
            continue
        match = ARTICLE_RE.match(line) if line[0] in "第笫" else None
        start = _article_start(match, drafts[-1] if drafts else None, amending) if match else None
        if match and start:
            number, suffix, typo = start
            label = match.group("label")
            if typo:
                label = re.sub(r"\s", "", label).replace("笫", "第")
                notes.append(f"label {match.group('label')!r} read as {label}")
            previous = drafts[-1] if drafts else None
            if previous and not suffix and number > previous.number + 1:
                notes.append(_gap_note(previous.number, number))
            current = _open(drafts, _Draft(number, suffix, label, chapter_path), match)
        elif current is not None:
            current.lines.append(line)
        else:
            orphans += 1
    if orphans and drafts:
        notes.append(f"{orphans} lines outside any article (preamble, headings' notes) ignored")
    return drafts


def _under_headings(
    lines: list[str], subtitle: str | None
) -> Iterator[tuple[tuple[str, ...], str | None]]:
    """Each non-blank line with the chapter path it stands under (the subtitle, then the
    headings); a heading itself comes as None, for it ends the article before it."""
    chapters: list[tuple[int, str]] = []
    chapter_path: tuple[str, ...] = (subtitle,) if subtitle else ()
    for line in lines:
        if not line:
            continue
        if line[0] == "#" and (heading := HEADING_RE.match(line)):
            _enter_heading(chapters, len(heading.group(1)), heading.group(2))
            chapter_path = ((subtitle,) if subtitle else ()) + tuple(t for _, t in chapters)
            yield chapter_path, None
        else:
            yield chapter_path, line


def _open(drafts: list[_Draft], draft: _Draft, match: re.Match[str]) -> _Draft:
    """draft appended to drafts, with the text after its label on the line as its first line."""
    drafts.append(draft)
    rest = match.group("rest").strip()
    if rest:
        draft.lines.append(rest)
    return draft


def _article_start(
    match: re.Match[str] | None, previous: _Draft | None, amending: bool
) -> tuple[int, str | None, bool] | None:
    """(number, suffix, label had a typo) when the line starts an article, else None."""
    if not match:
        return None
    number = _number(match.group("number"))
    if number is None or number == 0:
        return None
    suffix = match.group("suffix")
    rest = match.group("rest")
    clean = rest == "" or rest[0].isspace()
    typo = match.group("first") == "笫" or bool(match.group("gap1") or match.group("gap2"))
    if previous is None:  # 民法典's 物权编 starts at 第二百零五条, a 宪法修正案 at 第三十二条
        return (number, suffix, typo) if (clean and not typo) or number == 1 else None
    expected = _is_next(previous, number, suffix)
    if typo:  # 笫五十四条, 第一百二十八 条: only where that article is expected
        return (number, suffix, True) if expected else None
    if not clean:
        return None
    if amending and not expected:  # a 修正案 quoting the amended law's articles
        return None
    return number, suffix, False


def _is_next(previous: _Draft, number: int, suffix: str | None) -> bool:
    if suffix:
        return number == previous.number and _suffix_rank(suffix) == (
            _suffix_rank(previous.suffix) + 1
        )
    return number == previous.number + 1


def _suffix_rank(suffix: str | None) -> int:
    return cn_to_int(suffix[1:]) if suffix else 0


def _gap_note(previous: int, number: int) -> str:
    first, last = article_label(previous + 1), article_label(number - 1)
    missing = first if number - previous == 2 else f"{first} to {last}"
    return f"not in the source text: {missing}"


def _enter_heading(chapters: list[tuple[int, str]], depth: int, text: str) -> None:
    text = collapse_spaces(text)
    if not text:
        return
    while chapters and chapters[-1][0] >= depth:
        chapters.pop()
    chapters.append((depth, text))


def _numbered(lines: list[str], subtitle: str | None) -> list[_Draft]:
    """Articles of a text numbered 一、二、… (修正案, 批复): only in sequence from 一."""
    drafts: list[_Draft] = []
    current: _Draft | None = None
    for chapter_path, line in _under_headings(lines, subtitle):
        if line is None:
            current = None
            continue
        match = NUMBERED_RE.match(line)
        if match and _number(match.group("number")) == len(drafts) + 1:
            number = len(drafts) + 1
            current = _open(
                drafts, _Draft(number, None, article_label(number), chapter_path), match
            )
        elif current is not None:
            current.lines.append(line)
    return drafts


def _article(draft: _Draft) -> ParsedArticle:
    paragraphs: list[tuple[str, list[str]]] = []
    table = False
    for line in draft.lines:
        is_table = line.startswith("|")
        if ITEM_RE.match(line):
            if not paragraphs:
                paragraphs.append(("", []))
            paragraphs[-1][1].append(line)
        elif paragraphs and paragraphs[-1][1] and (SUB_ITEM_RE.match(line) or (table and is_table)):
            paragraphs[-1][1][-1] += "\n" + line
        elif paragraphs and table and is_table:
            text, items = paragraphs[-1]
            paragraphs[-1] = (text + "\n" + line, items)
        else:
            paragraphs.append((line, []))
        table = is_table
    text = "\n".join(draft.lines)
    return ParsedArticle(
        number=draft.number,
        suffix=draft.suffix,
        label=draft.label,
        text=text,
        paragraphs=tuple(Paragraph(body, tuple(items)) for body, items in paragraphs),
        deleted=bool(DELETED_RE.match(text.strip())),
        chapter_path=draft.chapter_path,
    )


def _deduplicated(articles: list[ParsedArticle], notes: list[str]) -> list[ParsedArticle]:
    """Drop an article repeated with the same text; a repeat with another text is fatal."""
    seen: dict[tuple[int, str], ParsedArticle] = {}
    kept = []
    for article in articles:
        key = (article.number, article.suffix or "")
        first = seen.get(key)
        if first is None:
            seen[key] = article
            kept.append(article)
        elif first.text == article.text:
            notes.append(f"{article.label} appears twice with the same text: kept once")
        else:
            raise UnparsableFile(
                f"{article.label} appears twice with different texts "
                f"({_preview(first.text)} / {_preview(article.text)})"
            )
    return kept


def _preview(text: str) -> str:
    return text[:20] + ("…" if len(text) > 20 else "")
