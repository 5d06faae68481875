"""The head of a corpus file: title, subtitle and the dated history lines before INFO END.

A history line is `2021年8月20日 …会议通过`; a line without a leading date continues the line
before it (`1984年4月4日 国务院` / `中央军委发布` / `发布之日施行`). One line may hold several
events (`…第一次修订  2012年10月16日…第二次修订）`): it is split at every date that is not an
effective date inside an event (`该修正自2021年4月15日施行`).
"""

from __future__ import annotations

import re
from datetime import date

from legaldb.corpus.dates import DATE_RE, make_date
from legaldb.corpus.errors import UnparsableFile
from legaldb.corpus.models import (
    ADOPTED,
    AMENDED,
    APPROVED,
    ENACTING,
    IN_FORCE,
    OTHER,
    PUBLISHED,
    REVISED,
    Header,
    HistoryEvent,
)

INFO_END = "<!-- INFO END -->"
ZERO_WIDTH_RE = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad]")
COMMENT_RE = re.compile(r"<!--.*?-->", re.S)
SPACES_RE = re.compile(r"[^\S\r\n]+")  # any whitespace but line breaks (\u3000, \u2002 …)
TITLE_RE = re.compile(r"^#(?!#)\s*(.*)$")
HEADING_RE = re.compile(r"^#{2,}")
ARTICLE_START_RE = re.compile(r"^[第笫]\s*[零〇一二三四五六七八九十百千两0-9]+\s*条")
ENTRY_START_RE = re.compile(rf"^[（(\s]*{DATE_RE.pattern}")
# A date preceded by one of these is a date inside an event, not the start of another event.
INNER_DATE_PREFIX = "自于至起在到"
IN_FORCE_ONLY_RE = re.compile(r"^[\s（）()。，,；;、]*起?(?:施行|实施|生效)[\s（）()。，,；;、]*$")
STATED_EFFECTIVE_RE = re.compile(rf"{DATE_RE.pattern}\s*起?(?:施行|实施|生效)")
ON_PUBLICATION_RE = re.compile(r"(?:公布|发布|颁布|印发)(?:之日)?起?(?:施行|实施|生效)")
ACT_RE = re.compile(r"《([^《》]+)》")
PUBLISH_RE = re.compile(r"公布|发布|颁布|印发|公告")
BODY_NOISE_RE = re.compile(
    r"第[一二三四五六七八九十百千零〇0-9]+[届次]|会议|审议|讨论|通过|并经|由|[\s（）()，,、。]"
)


def collapse_spaces(text: str) -> str:
    """Runs of spaces (ASCII, full-width, no-break) as one ASCII space, trimmed."""
    return SPACES_RE.sub(" ", text).strip()


def split_file(text: str) -> tuple[list[str], list[str]]:
    """(header lines, body lines), both cleaned; without INFO END the header stops at the
    first `##` heading or article line."""
    text = ZERO_WIDTH_RE.sub("", text)
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":  # YAML front matter (template, _index files)
        closing = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), 0)
        lines = lines[closing + 1 :]
    text = "\n".join(lines)
    head, found, body = text.partition(INFO_END)
    if not found:
        head_lines = head.splitlines()
        cut = next(
            (
                i
                for i, line in enumerate(head_lines)
                if HEADING_RE.match(line) or ARTICLE_START_RE.match(line.strip())
            ),
            len(head_lines),
        )
        head, body = "\n".join(head_lines[:cut]), "\n".join(head_lines[cut:])
    return COMMENT_RE.sub("", head).splitlines(), COMMENT_RE.sub("", body).splitlines()


def parse_header(lines: list[str]) -> Header:
    """Title, subtitle, history lines and their events; UnparsableFile without a title."""
    titles: list[str] = []
    entries: list[str] = []
    notes: list[str] = []
    for raw in lines:
        line = collapse_spaces(raw)
        if not line:
            continue
        title = TITLE_RE.match(line)
        if title:
            if title.group(1).strip():
                titles.append(collapse_spaces(title.group(1)))
            continue
        if HEADING_RE.match(line):
            continue
        if not titles:
            notes.append(f"line before the title ignored: {line!r}")
        elif ENTRY_START_RE.match(line):
            entries.append(line)
        elif entries:
            entries[-1] += line
        elif line.replace(" ", "") in titles[0].replace(" ", ""):
            notes.append(f"header line {line!r} repeats part of the title: ignored")
        else:
            entries.append(line)
    if not titles:
        raise UnparsableFile("no `# title` line before the articles")
    events = _events(entries, notes)
    return Header(
        title=titles[0],
        subtitle=titles[1] if len(titles) > 1 else None,
        history=tuple(entries),
        events=events,
        notes=tuple(notes),
    )


def _events(entries: list[str], notes: list[str]) -> tuple[HistoryEvent, ...]:
    events: list[HistoryEvent] = []
    for entry in entries:
        starts = [
            (match, on)
            for match in DATE_RE.finditer(entry)
            if (on := make_date(*match.groups())) and _starts_event(entry, match.start())
        ]
        if not starts:
            notes.append(f"history line without a date: {entry!r}")
            continue
        for index, (match, on) in enumerate(starts):
            end = starts[index + 1][0].start() if index + 1 < len(starts) else len(entry)
            events.append(_event(on, entry[match.end() : end].strip(), events))
    return tuple(events)


def _starts_event(entry: str, position: int) -> bool:
    before = entry[:position].rstrip()
    return not before or before[-1] not in INNER_DATE_PREFIX


def _event(on: date, text: str, earlier: list[HistoryEvent]) -> HistoryEvent:
    act_match = ACT_RE.search(text)
    act = act_match.group(1) if act_match else None
    stated = STATED_EFFECTIVE_RE.search(text)
    effective = make_date(*stated.groups()) if stated else None
    if effective is None and ON_PUBLICATION_RE.search(text):
        effective = on
    if IN_FORCE_ONLY_RE.match(text):
        return HistoryEvent(on, IN_FORCE, text, effective=on)
    if "修订" in text:
        kind = REVISED
    elif "修正" in text or "修改" in text:
        kind = AMENDED
    elif "通过" in text:
        # After the adoption, 通过的《刑法修正案（十二）》 is an amending act, and another 通过 by
        # the same body (最高人民法院审判委员会, 2014 then 2020) adopts an amendment.
        enacted = any(event.kind in ENACTING for event in earlier)
        again = any(e.kind == ADOPTED and _body(e.text) == _body(text) for e in earlier)
        kind = AMENDED if (act and enacted and "通过的《" in text) or again else ADOPTED
    elif "批准" in text:
        kind = APPROVED
    elif PUBLISH_RE.search(text):
        kind = PUBLISHED
    else:
        kind = OTHER
    return HistoryEvent(on, kind, text, effective=effective, act=act)


def _body(text: str) -> str:
    """The body an event names: 最高人民法院审判委员会, 全国人民代表大会常务委员会 …"""
    return BODY_NOISE_RE.sub("", text.split("《", 1)[0])
