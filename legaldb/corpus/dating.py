"""Version label, promulgation and effective date of one version, with the rule that gave it.

The rules, in order (docs/data.md explains each with an example):
`correction` (legaldb/data/corrections.json), `header` (a history line `2021年11月1日 施行`),
`amending-act` (an amendment's own act, 《刑法修正案（十二）》, read from the corpus),
`final-article` (本法自2024年7月1日起施行) and `on-publication` (本条例自公布之日起施行), both for
an original text or a revision only, then `metadata` (db.sqlite3 valid_from).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from importlib import resources

from legaldb.corpus.dates import DATE_RE, make_date
from legaldb.corpus.models import (
    ADOPTED,
    AMENDED,
    AMENDMENT,
    APPROVED,
    ENACTING,
    ORIGINAL,
    PUBLISHED,
    REVISED,
    REVISION,
    Dating,
    HistoryEvent,
    ParsedFile,
)
from legaldb.models import ParsedArticle
from textnorm import normalize_name, strip_prc_prefix

CORRECTION = "correction"
HEADER = "header"
AMENDING_ACT = "amending-act"
FINAL_ARTICLE = "final-article"
ON_PUBLICATION = "on-publication"
METADATA = "metadata"
RULES = (CORRECTION, HEADER, AMENDING_ACT, FINAL_ARTICLE, ON_PUBLICATION, METADATA)

EFFECTIVE_CLAUSE_RE = re.compile(
    rf"本[\u4e00-\u9fff]{{0,8}}?自\s*(?:{DATE_RE.pattern}|(?P<publication>公布|发布|颁布|印发)之日)"
    r"\s*起?\s*(?:施行|实施|生效|执行)"
)

CUT_OFF_RE = re.compile(r"根据[）)]?$")

# (act name as a header line names it, the amendment's date) -> the act's effective date
ActLookup = Callable[[str, date], date | None]


@dataclass(frozen=True, slots=True)
class Correction:
    """A reviewed effective date that overrides every derived one."""

    law: str
    promulgated: date
    effective_from: date
    source: str
    note: str = ""


def load_corrections(text: str | None = None) -> dict[tuple[str, date], Correction]:
    """corrections.json (or the given JSON text) keyed by (law key, promulgation date)."""
    if text is None:
        text = (resources.files("legaldb") / "data" / "corrections.json").read_text("utf-8")
    table = {}
    for entry in json.loads(text):
        correction = Correction(
            law=entry["law"],
            promulgated=date.fromisoformat(entry["promulgated"]),
            effective_from=date.fromisoformat(entry["effective_from"]),
            source=entry["source"],
            note=entry.get("note", ""),
        )
        table[(law_key(correction.law), correction.promulgated)] = correction
    return table


def law_key(name: str) -> str:
    """The key laws are grouped and matched by: normalised, without 中华人民共和国."""
    return normalize_name(strip_prc_prefix(normalize_name(name)))


def describe(file: ParsedFile) -> tuple[str, str, date | None, list[str]]:
    """(kind, label, promulgated, notes) of a file, from its history lines."""
    events = file.header.events
    notes: list[str] = []
    changes = [e for e in events if e.kind in (AMENDED, REVISED)]
    enacting = [e for e in events if e.kind in ENACTING]
    if changes:
        last = changes[-1]
        label = f"{last.on.year}年{last.kind}"
        if last.kind == REVISED and not (last.act and last.act.endswith("决定")):
            kind = REVISION
        else:
            kind = AMENDMENT
            if last.kind == REVISED:
                notes.append(f"修订 by 《{last.act}》 is an amendment: the old final article stays")
    else:
        kind = ORIGINAL
        first = next((e for e in events if e.kind in (ADOPTED, APPROVED, PUBLISHED)), None)
        fallback = file.file_date or (file.metadata.publish if file.metadata else None)
        year = first.on.year if first else (fallback.year if fallback else None)
        label = f"{year}年" if year else "日期不详"
    if enacting:
        promulgated: date | None = max(e.on for e in enacting)
    elif file.file_date:
        promulgated = file.file_date
        notes.append(f"promulgation {promulgated} from the file name (no dated history line)")
    elif file.metadata and file.metadata.publish:
        promulgated = file.metadata.publish
        notes.append(f"promulgation {promulgated} from metadata publish (no dated history)")
    else:
        promulgated = None
        notes.append("promulgation date unknown")
    history = file.header.history
    cut_off = bool(history) and bool(CUT_OFF_RE.search(history[-1]))
    if cut_off and file.file_date and promulgated and file.file_date > promulgated:
        # …第四次修订 根据 — the line naming the last change is missing; the file name has it.
        word = changes[-1].kind if changes else AMENDED
        notes.append(
            f"history cut off after 根据: the change of {file.file_date} (file name) is missing"
        )
        kind, label, promulgated = AMENDMENT, f"{file.file_date.year}年{word}", file.file_date
    elif enacting and file.file_date and promulgated and file.file_date != promulgated:
        notes.append(f"file name date {file.file_date} differs from the history ({promulgated})")
    return kind, label, promulgated, notes


def establish(
    law_name: str,
    file: ParsedFile,
    articles: Sequence[ParsedArticle],
    corrections: dict[tuple[str, date], Correction],
    act_lookup: ActLookup | None = None,
) -> Dating:
    """Apply the rules in order; the first that gives a date wins, the others leave notes."""
    kind, label, promulgated, notes = describe(file)
    amending_act = _amending_act(file.header.events) if kind == AMENDMENT else None

    def dating(effective: date | None, rule: str | None) -> Dating:
        return Dating(kind, label, promulgated, effective, rule, tuple(notes), amending_act)

    if promulgated:
        correction = corrections.get((law_key(law_name), promulgated))
        if correction:
            notes.append(f"effective date corrected: {correction.source}")
            return dating(correction.effective_from, CORRECTION)

    stated = _header_date(file.header.events, promulgated, notes)
    if stated:
        return dating(stated, HEADER)

    if kind == AMENDMENT and amending_act and act_lookup:
        amendment_date = max(e.on for e in file.header.events if e.kind in (AMENDED, REVISED))
        by_act = act_lookup(amending_act, amendment_date)
        if by_act and (promulgated is None or by_act >= promulgated):
            notes.append(f"effective date of the amending act 《{amending_act}》")
            return dating(by_act, AMENDING_ACT)

    clause = _final_clause(articles)
    if clause:
        article, stated_date, on_publication = clause
        if kind == AMENDMENT:
            what = "on publication" if on_publication else str(stated_date)
            notes.append(f"{article} ({what}) dates an earlier text: not used for an amendment")
        elif on_publication:
            if promulgated:
                notes.append(f"{article}: in force on publication")
                return dating(promulgated, ON_PUBLICATION)
        elif stated_date and promulgated and stated_date < promulgated:
            notes.append(f"{article} states {stated_date}, before promulgation: rejected")
        elif stated_date:
            return dating(stated_date, FINAL_ARTICLE)

    valid_from = file.metadata.valid_from if file.metadata else None
    if valid_from and promulgated and valid_from < promulgated:
        notes.append(f"metadata valid_from {valid_from} precedes promulgation: rejected")
    elif valid_from:
        return dating(valid_from, METADATA)
    else:
        notes.append("metadata has no valid_from")
    return dating(None, None)


def _header_date(
    events: tuple[HistoryEvent, ...], promulgated: date | None, notes: list[str]
) -> date | None:
    """The last effective date the history states (施行 line, 公布施行, 该修正自…施行)."""
    stated = [e.effective for e in events if e.effective]
    if not stated:
        return None
    last = stated[-1]
    if promulgated and last < promulgated:
        notes.append(f"history states 施行 {last}, before promulgation {promulgated}: rejected")
        return None
    return last


def _amending_act(events: tuple[HistoryEvent, ...]) -> str | None:
    changes = [e for e in events if e.kind in (AMENDED, REVISED)]
    return changes[-1].act if changes else None


def _final_clause(
    articles: Sequence[ParsedArticle],
) -> tuple[str, date | None, bool] | None:
    """(article label, stated date, in force on publication) of the last effective clause."""
    for article in reversed(articles):
        match = EFFECTIVE_CLAUSE_RE.search(article.text)
        if match:
            if match.group("publication"):
                return article.label, None, True
            stated = make_date(*match.group(1, 2, 3))
            if stated:
                return article.label, stated, False
    return None
