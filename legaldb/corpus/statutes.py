"""One history per statute from every source: lawrefbook (with its history) and flk.

Pure: takes what the readers returned and gives one CorpusRead. The rules (docs/data.md,
"One history from several sources"):
- A version is a law and a promulgation date. An flk text is the same version as a lawrefbook
  one with the same date, else with the nearest date within 60 days (adoption and publication
  of one text differ by up to weeks); the two are compared article by article and every
  difference is reported. The lawrefbook text is kept (its Markdown keeps 款 and 项 as
  published); flk's text is used only for versions lawrefbook lacks.
- Dates: a lawrefbook rule other than `metadata` first; then the census's effective date
  (`census`), then the flk text's own in_force_date (`flk`), then `metadata`.
- Repeals: every "…同时废止" sentence of a text names the statutes it repeals, on the date the
  repealing text takes effect; the census's repealed entries (no date); a judicial
  interpretation of a repealed law that was not reissued after the repeal is repealed with it.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import replace
from datetime import date
from importlib import resources
from pathlib import Path

from legaldb.corpus.aliases import assign_aliases, load_abbreviations
from legaldb.corpus.chain import chain_versions
from legaldb.corpus.dating import (
    CORRECTION,
    FINAL_ARTICLE,
    METADATA,
    ON_PUBLICATION,
    law_key,
    load_corrections,
)
from legaldb.corpus.flk import (
    BUNDLED_FLK,
    FLK_SOURCE,
    CensusEntry,
    FlkRead,
    FlkText,
    law_title,
    read_flk,
)
from legaldb.corpus.reader import (
    BUNDLED_ARCHIVE,
    BUNDLED_HISTORY,
    HISTORY_PREFIX,
    Progress,
    read_corpus,
)
from legaldb.index import guess_level_of_name
from legaldb.models import (
    LEVELS,
    CorpusRead,
    ParsedArticle,
    ParsedLaw,
    ParsedVersion,
    RepealedData,
    RepealFact,
    SkippedFile,
)
from textnorm import strip_prc_prefix

CENSUS = "census"
FLK = "flk"
NEAR_DAYS = 60
CLAUSE, CENSUS_REPEAL, INTERPRETATION = "clause", "census", "interpretation"
# The Supreme People's Court's clean-up of 2020-12-29, in force with 民法典 on 2021-01-01.
CIVIL_CODE_CLEANUP = (
    date(2021, 1, 1),
    "最高人民法院关于废止部分司法解释及相关规范性文件的决定（法释〔2020〕16号）",
)
REPEAL_SENTENCE_RE = re.compile(r"[^。；]*同时废止")
TITLE_RE = re.compile(r"《([^《》]+)》")
INNER_TITLE_RE = re.compile(r"[《〈]([^《》〈〉]+)[》〉]")
STATED_RE = re.compile(
    r"自\s*(\d{4})年(\d{1,2})月(\d{1,2})日起?\s*(?:施行|实施|生效|执行)"
    r"|自(?P<pub>公布|发布)之日起?施行"
)
AMENDING_DECISION = "amending-decision"
DATE_IN_LINE_RE = re.compile(r"\d{4}年\d{1,2}月\d{1,2}日")
KNOWN_LEVELS = set(LEVELS)
# The revision of the import rules, recorded with the source: raise it when a rule changes what
# is stored from the same files, so that `db init` imports the bundled data again (2: the version
# before an undated one ends on its promulgation).
IMPORT_RULES = "import rules 2"
# What read_statutes() of the bundled data records as its source (`db init` compares it).
BUNDLED_STATUTES_SOURCE = (
    "legaldb/data/lawrefbook-national.tar.xz + legaldb/data/lawrefbook-history.tar.xz"
    f" + legaldb/data/flk-national.tar.xz ({IMPORT_RULES})"
)


def merge_sources(
    corpus: CorpusRead, flk: FlkRead | None, repealed: RepealedData | None = None
) -> CorpusRead:
    """corpus (lawrefbook + history) with flk's versions, dates and repeals merged in."""
    versions: dict[str, list[ParsedVersion]] = {
        law_key(law.name): list(law.versions) for law in corpus.laws
    }
    info: dict[str, ParsedLaw] = {law_key(law.name): law for law in corpus.laws}
    versions = {key: [_with_own_source(v) for v in items] for key, items in versions.items()}
    differences: list[str] = []
    skipped = list(corpus.skipped)
    census: dict[str, list[CensusEntry]] = defaultdict(list)
    elsewhere = {law_key(law.name) for law in repealed.laws} if repealed else set()
    if flk is not None:
        for entry in flk.census:
            census[law_key(law_title(entry.title))].append(entry)
        corrections = load_corrections()
        for text in sorted(flk.texts, key=lambda t: (t.issued or date.min, t.bbbs)):
            key = law_key(law_title(text.title))
            if key in elsewhere:
                continue
            _merge_text(key, text, versions, info, census, corrections, differences)
        skipped += [SkippedFile(f"{FLK_SOURCE}:{bbbs}", reason) for bbbs, reason in flk.skipped]
        decisions = load_amending_decisions()
        for key, items in versions.items():
            versions[key] = [
                _decision_dated(_census_dated(v, census.get(key, ())), decisions) for v in items
            ]
        for key, entries in census.items():
            if key not in versions and key not in elsewhere:
                versions[key] = [_census_version(e) for e in sorted(entries, key=_entry_order)]
    repeals = _repeals(versions, census, repealed, elsewhere)
    laws = _laws(versions, info, repeals)
    undated = tuple(
        sorted(
            f"{law.name} {v.label}: {'; '.join(_why_undated(v))}"
            for law in laws
            for v in law.versions
            if v.effective_from is None and v.articles
        )
    )
    return CorpusRead(
        laws=laws,
        skipped=tuple(sorted(skipped, key=lambda s: s.path)),
        undated=undated,
        source=corpus.source,
        snapshot=corpus.snapshot,
        repeals=tuple(repeals.values()),
        differences=tuple(differences),
    )


def _source_name(path: str) -> str:
    if path.startswith(HISTORY_PREFIX):
        return f"lawrefbook-history:{path.removeprefix(HISTORY_PREFIX)}"
    return f"lawrefbook:{path}"


def _with_own_source(version: ParsedVersion) -> ParsedVersion:
    return replace(version, sources=version.sources or (_source_name(version.source),))


def _entry_order(entry: CensusEntry) -> tuple[date, str]:
    return (entry.published or date.min, entry.bbbs)


# --- flk texts ------------------------------------------------------------------------------


def _merge_text(
    key: str,
    text: FlkText,
    versions: dict[str, list[ParsedVersion]],
    info: dict[str, ParsedLaw],
    census: dict[str, list[CensusEntry]],
    corrections: dict,  # type: ignore[type-arg]
    differences: list[str],
) -> None:
    items = versions.setdefault(key, [])
    source = f"{FLK_SOURCE}:{text.bbbs}"
    same = _same_version(items, text)
    if same is not None:
        index, version = same
        differences += _compare(version, text)
        notes = version.notes
        if version.promulgated != text.issued:
            notes += (f"flk {text.bbbs} dates this text {text.issued}: the same version",)
        updated = replace(version, sources=(*version.sources, source), notes=notes)
        if updated.effective_from is None and text.in_force:
            updated = replace(
                updated,
                effective_from=text.in_force,
                effective_rule=FLK,
                notes=(*updated.notes, f"effective date from flk {text.bbbs}"),
            )
        items[index] = updated
        return
    law = info.get(key)
    name = law.name if law else law_title(text.title)
    earlier = any((v.promulgated or date.max) < (text.issued or date.min) for v in items) or any(
        (e.published or date.max) < (text.issued or date.min) for e in census.get(key, ())
    )
    label = _label_from_history(items, text.issued) or _label(text, earlier)
    effective, rule, notes = _flk_dates(name, text, label, corrections, census.get(key, ()))
    level = law.level if law else _level(text, census.get(key, ()))
    items.append(
        ParsedVersion(
            law_name=name,
            level=level,
            category=items[0].category if items else f"{FLK_SOURCE}/{level}",
            label=label,
            promulgated=text.issued,
            effective_from=effective,
            effective_rule=rule,
            effective_to=None,
            source=source,
            articles=text.articles,
            issuer=(law.issuer if law else None) or text.issuer,
            notes=(*text.notes, *notes),
            sources=(source,),
        )
    )


def _same_version(items: list[ParsedVersion], text: FlkText) -> tuple[int, ParsedVersion] | None:
    """The version with the flk text's date, else the nearest within NEAR_DAYS (not from flk)."""
    if text.issued is None:
        return None
    near = []
    for index, version in enumerate(items):
        if version.promulgated is None or version.source.startswith(FLK_SOURCE + ":"):
            continue
        gap = abs((version.promulgated - text.issued).days)
        if gap <= NEAR_DAYS and not any(s.startswith(FLK_SOURCE + ":") for s in version.sources):
            near.append((gap, index, version))
    if not near:
        return None
    _, index, version = min(near, key=lambda n: n[0])
    return index, version


def _label_from_history(items: list[ParsedVersion], issued: date | None) -> str | None:
    """The label a later version's history gives this date: `2017年6月27日 …第三次修正`."""
    if issued is None:
        return None
    written = f"{issued.year}年{issued.month}月{issued.day}日"
    for version in items:
        for line in version.history:
            at = line.find(written)
            if at < 0:
                continue
            event = line[at:]
            following = DATE_IN_LINE_RE.search(event, len(written))
            event = event[: following.start()] if following else event
            for word in ("修订", "修正"):
                if word in event:
                    return f"{issued.year}年{word}"
            if "修改" in event:
                return f"{issued.year}年修正"
            return f"{issued.year}年"
    return None


def _label(text: FlkText, earlier: bool) -> str:
    """2013年修正 when its final article dates an earlier text (before its promulgation) or an
    earlier version is known and the article states no later date; 2013年修订 when an earlier
    version is known and the final article dates this text; else 2013年 (a first text)."""
    year = text.issued.year if text.issued else None
    if year is None:
        return "日期不详"
    stated = _stated_date(text.articles)
    stated_day = stated[0] if stated else None
    if stated_day is not None and text.issued and stated_day < text.issued:
        return f"{year}年修正"
    if not earlier:
        return f"{year}年"
    if stated_day is not None:
        return f"{year}年修订"
    return f"{year}年修正"


def _stated_date(articles: Iterable[ParsedArticle]) -> tuple[date | None, bool] | None:
    """(stated date, on publication) of the last 本…自…施行 clause."""
    for article in reversed(tuple(articles)):
        match = STATED_RE.search(article.text)
        if match and article.text.startswith("本"):
            if match.group("pub"):
                return None, True
            try:
                return date(int(match.group(1)), int(match.group(2)), int(match.group(3))), False
            except ValueError:
                return None
    return None


def _flk_dates(
    name: str,
    text: FlkText,
    label: str,
    corrections: dict,  # type: ignore[type-arg]
    entries: Iterable[CensusEntry],
) -> tuple[date | None, str | None, tuple[str, ...]]:
    correction = corrections.get((law_key(name), text.issued)) if text.issued else None
    if correction is not None:
        return (
            correction.effective_from,
            CORRECTION,
            (f"effective date corrected: {correction.source}",),
        )
    entry = next((e for e in entries if e.bbbs == text.bbbs), None)
    if entry is not None and entry.effective:
        return entry.effective, CENSUS, (f"effective date from the census ({entry.bbbs})",)
    if text.in_force:
        return text.in_force, FLK, ("effective date from the flk text",)
    stated = _stated_date(text.articles) if not label.endswith("修正") else None
    if stated is not None and stated[1] and text.issued:
        return text.issued, ON_PUBLICATION, ("in force on publication (its final article)",)
    if stated is not None and stated[0] and text.issued and stated[0] >= text.issued:
        return stated[0], FINAL_ARTICLE, ("its final article states the date",)
    return None, None, ("no effective date in the census, the flk text or its final article",)


def _level(text: FlkText, entries: Iterable[CensusEntry]) -> str:
    law_type = next((e.law_type for e in entries if e.law_type in KNOWN_LEVELS), None)
    return law_type or guess_level_of_name(law_title(text.title))


def _normalised(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).split())


def _compare(version: ParsedVersion, text: FlkText) -> list[str]:
    """One line when the two texts of a version differ article by article, else nothing."""
    ours = {(a.number, a.suffix): a.text for a in version.articles}
    theirs = {(a.number, a.suffix): a.text for a in text.articles}
    labels = {(a.number, a.suffix): a.label for a in (*version.articles, *text.articles)}
    only_ours = [k for k in ours if k not in theirs]
    only_theirs = [k for k in theirs if k not in ours]
    differ = [
        k
        for k in ours
        if k in theirs and ours[k] != theirs[k] and _normalised(ours[k]) != _normalised(theirs[k])
    ]
    if not (only_ours or only_theirs or differ):
        return []

    def shown(keys: list[tuple[int, str | None]]) -> str:
        names = [labels[k] for k in sorted(keys, key=lambda k: (k[0], k[1] or ""))]
        return ", ".join(names[:5]) + (f" … ({len(names)})" if len(names) > 5 else "")

    parts = [f"{len(ours) - len(only_ours) - len(differ)} same"]
    if differ:
        parts.append(f"text differs: {shown(differ)}")
    if only_ours:
        parts.append(f"only in lawrefbook: {shown(only_ours)}")
    if only_theirs:
        parts.append(f"only in flk: {shown(only_theirs)}")
    return [
        f"{version.law_name} {version.label} ({version.sources[0]} / flk:{text.bbbs}): "
        + "; ".join(parts)
    ]


# --- census ---------------------------------------------------------------------------------


def _census_dated(version: ParsedVersion, entries: Iterable[CensusEntry]) -> ParsedVersion:
    """Date an undated (or metadata-dated) version from the census entry of its promulgation."""
    if version.effective_rule not in (None, METADATA, FLK) or version.promulgated is None:
        return version
    entry = next((e for e in entries if e.published == version.promulgated and e.effective), None)
    if entry is None or entry.effective is None or entry.effective == version.effective_from:
        return version
    if entry.effective < version.promulgated:
        return version
    note = f"effective date from the census ({entry.bbbs})"
    if version.effective_from is not None:
        note += f", not {version.effective_rule} {version.effective_from}"
    return replace(
        version,
        effective_from=entry.effective,
        effective_rule=CENSUS,
        notes=(*version.notes, note),
        sources=tuple(dict.fromkeys((*version.sources, f"census:{entry.bbbs}"))),
    )


def load_amending_decisions(text: str | None = None) -> dict[date, tuple[date, str]]:
    """amending_decisions.json: decision date -> (effective date, "title（order）: clause")."""
    if text is None:
        text = (resources.files("legaldb") / "data" / "amending_decisions.json").read_text("utf-8")
    return {
        date.fromisoformat(item["date"]): (
            date.fromisoformat(item["effective_from"]),
            f"《{item['title']}》（{item['order']}）: {item['clause']}",
        )
        for item in json.loads(text)["decisions"]
    }


def _decision_dated(
    version: ParsedVersion, decisions: dict[date, tuple[date, str]]
) -> ParsedVersion:
    """An undated amendment of a 行政法规 made on a State Council decision's date takes the
    decision's effective date."""
    if (
        version.effective_from is not None
        or version.level != "行政法规"
        or not version.articles
        or version.promulgated not in decisions
        or not version.label.endswith(("修正", "修订"))
    ):
        return version
    effective, decision = decisions[version.promulgated]
    return replace(
        version,
        effective_from=effective,
        effective_rule=AMENDING_DECISION,
        notes=(*version.notes, f"effective date of the amending decision {decision}"),
    )


def _census_version(entry: CensusEntry) -> ParsedVersion:
    """A version known only from the census (a repealed statute: no text)."""
    year = entry.published.year if entry.published else None
    level = entry.law_type if entry.law_type in KNOWN_LEVELS else guess_level_of_name(entry.title)
    return ParsedVersion(
        law_name=law_title(entry.title),
        level=level,
        category=f"{FLK_SOURCE}/{level}",
        label=f"{year}年" if year else "日期不详",
        promulgated=entry.published,
        effective_from=entry.effective,
        effective_rule=CENSUS if entry.effective else None,
        effective_to=None,
        source=f"census:{entry.bbbs}",
        articles=(),
        issuer=entry.issuer,
        notes=(f"known from the census ({entry.status}); no text",),
        sources=(f"census:{entry.bbbs}",),
    )


# --- repeals --------------------------------------------------------------------------------


def _repeals(
    versions: dict[str, list[ParsedVersion]],
    census: dict[str, list[CensusEntry]],
    repealed: RepealedData | None,
    elsewhere: set[str],
) -> dict[str, RepealFact]:
    """Repeal facts by law key: clauses first, then the census, then interpretations."""
    found: dict[str, RepealFact] = {}
    names = {key: _newest(items).law_name for key, items in versions.items() if items}
    for key, items in list(versions.items()):
        for fact_key, fact in _clause_repeals(key, items, names):
            if fact_key in elsewhere:
                continue
            if fact_key not in versions:
                versions[fact_key] = [_clause_version(fact)]
                names[fact_key] = fact.law_name
            fact = replace(fact, law_name=names[fact_key])
            earlier = found.get(fact_key)
            if _repeal_applies(versions[fact_key], fact) and (
                earlier is None
                or (fact.repealed_on or date.max) < (earlier.repealed_on or date.max)
            ):
                found[fact_key] = fact
    for key, entries in census.items():
        if key in found or key in elsewhere or key not in versions:
            continue
        if any(e.status == "repealed" for e in entries) and not any(
            e.status in ("in_force", "not_yet_in_force") for e in entries
        ):
            found[key] = RepealFact(
                names[key], None, None, None, CENSUS_REPEAL,
                "国家法律法规数据库（2026-02-25）标注为已废止，废止日期不详",
            )  # fmt: skip
    dated = {k: f.repealed_on for k, f in found.items() if f.repealed_on}
    if repealed is not None:
        dated |= {law_key(law.name): law.repealed for law in repealed.laws}
    for key, items in versions.items():
        if key in found or not items or _newest(items).level != "司法解释":
            continue
        derived = _interpretation_repeal(names[key], items, dated)
        if derived is not None:
            found[key] = derived
    return found


def _newest(items: list[ParsedVersion]) -> ParsedVersion:
    return max(items, key=lambda v: v.effective_from or v.promulgated or date.min)


def _clause_repeals(
    key: str, items: list[ParsedVersion], names: dict[str, str]
) -> Iterable[tuple[str, RepealFact]]:
    """(repealed law key, fact) for each statute a 同时废止 sentence of the law's texts names."""
    seen: set[str] = set()
    ordered = sorted(items, key=lambda v: v.effective_from or v.promulgated or date.max)
    for version in ordered:
        for article in version.articles[-12:]:
            if "同时废止" not in article.text:
                continue
            for sentence in REPEAL_SENTENCE_RE.findall(article.text):
                for match in TITLE_RE.finditer(sentence):
                    after = sentence[match.end() : match.end() + 2]
                    if after.startswith("第") or after.startswith("中"):  # a part of it
                        continue
                    written = match.group(1)
                    target = law_key(written)
                    if not target or key.endswith(target) or target in seen:
                        continue
                    seen.add(target)
                    on = _repeal_date(version, article.text)
                    yield (
                        target,
                        RepealFact(
                            law_name=names.get(target, written),
                            repealed_on=on,
                            repealed_by=f"《{version.law_name}》{article.label}",
                            successor=version.law_name,
                            source=CLAUSE,
                            note=None if on else f"{version.law_name} {version.label}: no date",
                        ),
                    )


def _repeal_date(version: ParsedVersion, text: str) -> date | None:
    """The repealing text's effective date: the one its clause states, else its version's
    (None for an amendment: the clause dates the original text, which the data lacks)."""
    match = STATED_RE.search(text)
    if match and not match.group("pub"):
        try:
            return date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        except ValueError:
            pass
    return None if version.label.endswith("修正") else version.effective_from


def _repeal_applies(items: list[ParsedVersion], fact: RepealFact) -> bool:
    """False when a version of the law took effect after the repeal (it was enacted again)."""
    if fact.repealed_on is None:
        return True
    return not any((v.effective_from or date.min) > fact.repealed_on for v in items)


def _clause_version(fact: RepealFact) -> ParsedVersion:
    """A version standing for a statute known only from the clause that repealed it."""
    level = guess_level_of_name(fact.law_name)
    return ParsedVersion(
        law_name=fact.law_name,
        level=level,
        category=f"repealed/{level}",
        label="日期不详",
        promulgated=None,
        effective_from=None,
        effective_rule=None,
        effective_to=None,
        source=f"clause:{fact.repealed_by}",
        articles=(),
        notes=(f"known only from {fact.repealed_by}, which repealed it; no text",),
        sources=(f"clause:{fact.repealed_by}",),
    )


def _interpretation_repeal(
    name: str, items: list[ParsedVersion], dated: dict[str, date]
) -> RepealFact | None:
    """An interpretation of a law repealed on D, with no version in force on or after D."""
    for inner in INNER_TITLE_RE.findall(name):
        on = dated.get(law_key(inner))
        if on is None:
            continue
        if any((v.effective_from or v.promulgated or date.min) >= on for v in items):
            return None  # reissued after the repeal
        by = CIVIL_CODE_CLEANUP[1] if on == CIVIL_CODE_CLEANUP[0] else None
        return RepealFact(
            name, on, by, None, INTERPRETATION,
            f"所解释的《{strip_prc_prefix(inner)}》于{on.isoformat()}废止，数据中没有此后重新发布的版本",
        )  # fmt: skip
    return None


# --- laws -----------------------------------------------------------------------------------


def _laws(
    versions: dict[str, list[ParsedVersion]],
    info: dict[str, ParsedLaw],
    repeals: dict[str, RepealFact],
) -> tuple[ParsedLaw, ...]:
    names = {key: info[key].name if key in info else _newest(items).law_name
             for key, items in versions.items() if items}  # fmt: skip
    aliases, _ = assign_aliases(list(names.values()), load_abbreviations())
    laws = []
    for key, name in names.items():
        items = [replace(v, law_name=name) for v in versions[key]]
        chained = chain_versions(items)
        fact = repeals.get(key)
        if fact is not None and fact.repealed_on is not None:
            chained = [
                v if v.effective_to is not None and v.effective_to <= fact.repealed_on
                else replace(v, effective_to=fact.repealed_on)
                for v in chained
            ]  # fmt: skip
        newest = chained[-1]
        known = info.get(key)
        laws.append(
            ParsedLaw(
                name=name,
                short_name=strip_prc_prefix(name),
                level=known.level if known else newest.level,
                issuer=known.issuer if known else newest.issuer,
                aliases=known.aliases if known else aliases[name],
                versions=tuple(chained),
            )
        )
    laws.sort(key=lambda law: (LEVELS.index(law.level), law.name))
    return tuple(laws)


def _why_undated(version: ParsedVersion) -> list[str]:
    reasons = [
        note
        for note in version.notes
        if any(w in note for w in ("rejected", "not used", "no valid_from", "unknown", "no eff"))
    ]
    return reasons or ["no header 施行 line, effective clause, census or metadata date"]


def read_statutes(
    source: Path = BUNDLED_ARCHIVE,
    progress: Progress | None = None,
    *,
    history: Path | None = BUNDLED_HISTORY,
    flk: Path | None = BUNDLED_FLK,
    repealed: RepealedData | None = None,
    snapshot: str | None = None,
) -> CorpusRead:
    """Read a lawrefbook tree with its history and the flk capture into one CorpusRead.

    None for history or flk leaves that source out; `repealed` (the laws repealed by 民法典)
    keeps their names to that dataset and dates the interpretations of them."""
    corpus = read_corpus(source, progress, snapshot=snapshot, history=history)
    flk_read = read_flk(flk) if flk is not None else None
    merged = merge_sources(corpus, flk_read, repealed)
    sources = [corpus.source]
    if history is not None:
        sources.append(_shown(history))
    snapshots = [corpus.snapshot]
    if flk is not None and flk_read is not None:
        sources.append(_shown(flk))
        snapshots.append(flk_read.snapshot)
    source_line = f"{' + '.join(sources)} ({IMPORT_RULES})"
    return replace(merged, source=source_line, snapshot="; ".join(snapshots))


def _shown(path: Path) -> str:
    bundled = Path(path).resolve()
    if bundled.parent == BUNDLED_ARCHIVE.parent:
        return f"legaldb/data/{bundled.name}"
    return str(path)
