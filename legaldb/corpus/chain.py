"""Files -> laws: group the files of one law, merge the files of one text (民法典's 编), date
each version, order them by effective date and chain effective_to to the next version."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace
from datetime import date

from legaldb.corpus.aliases import assign_aliases
from legaldb.corpus.dating import (
    AMENDING_ACT,
    Correction,
    describe,
    establish,
    law_key,
)
from legaldb.corpus.models import AMENDMENT, Dating, ParsedFile
from legaldb.models import LEVELS, ParsedArticle, ParsedLaw, ParsedVersion, SkippedFile
from textnorm import parse_number, strip_prc_prefix


class _Text:
    """One version's text before dating: its files (several for 民法典) and merged articles."""

    def __init__(self, files: list[ParsedFile], articles: list[ParsedArticle], notes: list[str]):
        self.files = files
        self.primary = files[0]
        self.articles = articles
        self.notes = notes
        self.dating: Dating | None = None


def build_laws(
    files: Sequence[ParsedFile],
    corrections: dict[tuple[str, date], Correction],
    abbreviations: dict[str, str],
) -> tuple[tuple[ParsedLaw, ...], tuple[SkippedFile, ...], tuple[str, ...]]:
    """(laws, files skipped while merging, undated versions as "name label: why")."""
    skipped: list[SkippedFile] = []
    by_law: dict[str, list[ParsedFile]] = defaultdict(list)
    for file in files:
        by_law[law_key(file.header.title)].append(file)

    texts_by_law: dict[str, list[_Text]] = {}
    for key, law_files in by_law.items():
        by_version: dict[tuple[date | None, str], list[ParsedFile]] = defaultdict(list)
        for file in law_files:
            _, label, promulgated, _ = describe(file)
            by_version[(promulgated, label)].append(file)
        texts_by_law[key] = [_merge(group, skipped) for group in by_version.values()]

    names = {key: _display_name(texts) for key, texts in texts_by_law.items()}
    _date_all(texts_by_law, names, corrections)

    aliases, alias_notes = assign_aliases(list(names.values()), abbreviations)
    laws = []
    undated = []
    for key, texts in texts_by_law.items():
        name = names[key]
        versions = chain_versions([_version(name, text) for text in texts])
        undated += [
            f"{name} {v.label}: {'; '.join(_why_undated(v))}"
            for v in versions
            if v.effective_from is None
        ]
        newest = versions[-1]
        law_notes = [n for n in alias_notes if f" of {name} " in n]
        if law_notes:
            versions[-1] = replace(newest, notes=newest.notes + tuple(law_notes))
        laws.append(
            ParsedLaw(
                name=name,
                short_name=strip_prc_prefix(name),
                level=newest.level,
                issuer=newest.issuer,
                aliases=aliases[name],
                versions=tuple(versions),
            )
        )
    laws.sort(key=lambda law: (LEVELS.index(law.level), law.name))
    return tuple(laws), tuple(skipped), tuple(sorted(undated))


def _merge(files: list[ParsedFile], skipped: list[SkippedFile]) -> _Text:
    """One text from the files sharing a law, promulgation and label."""
    if len(files) == 1:
        return _Text(files, list(files[0].articles), [])
    subtitles = [f.header.subtitle for f in files]
    if all(subtitles) and len(set(subtitles)) == len(files):
        return _merge_parts(files, skipped)
    ranked = sorted(files, key=lambda f: (-len(f.articles), f.path))
    kept = ranked[0]
    for other in ranked[1:]:
        same = [a.text for a in other.articles] == [a.text for a in kept.articles]
        reason = (
            f"duplicate of {kept.path} (same law, version and text)"
            if same
            else (
                f"another text of the version in {kept.path} (same law, promulgation and label; "
                f"{len(other.articles)} articles here, {len(kept.articles)} there): kept that one"
            )
        )
        skipped.append(SkippedFile(other.path, reason))
    return _Text([kept], list(kept.articles), [])


def _merge_parts(files: list[ParsedFile], skipped: list[SkippedFile]) -> _Text:
    """民法典: one file per 编 (subtitle), merged in article order into one version."""
    ordered = sorted(files, key=lambda f: (f.articles[0].number, f.path))
    taken: dict[tuple[int, str], tuple[ParsedArticle, str]] = {}
    used: list[ParsedFile] = []
    notes: list[str] = []
    for file in ordered:
        conflict = next(
            (
                (article, taken[key][1])
                for article in file.articles
                if (key := (article.number, article.suffix or "")) in taken
                and taken[key][0].text != article.text
            ),
            None,
        )
        if conflict:
            article, other = conflict
            skipped.append(
                SkippedFile(file.path, f"{article.label} differs from the one in {other}")
            )
            continue
        for article in file.articles:
            key = (article.number, article.suffix or "")
            if key in taken:
                notes.append(f"{article.label} in {file.path} repeats {taken[key][1]}: kept once")
            else:
                taken[key] = (article, file.path)
        used.append(file)
    articles = [article for article, _ in taken.values()]
    articles.sort(key=lambda a: (a.number, _suffix_order(a.suffix)))
    notes.append(f"one text in {len(used)} files: " + ", ".join(f.path for f in used))
    return _Text(used, articles, notes)


def _suffix_order(suffix: str | None) -> int:
    return (parse_number(suffix[1:]) or 0) if suffix else 0


def _display_name(texts: list[_Text]) -> str:
    """The title of the newest text (titles of one law differ at most in spacing)."""
    newest = max(texts, key=lambda t: (describe(t.primary)[2] or date.min, t.primary.path))
    return newest.primary.header.title


def _date_all(
    texts_by_law: dict[str, list[_Text]],
    names: dict[str, str],
    corrections: dict[tuple[str, date], Correction],
) -> None:
    """Date every text; amendments second, so their amending acts are dated first."""
    for key, texts in texts_by_law.items():
        for text in texts:
            text.dating = establish(names[key], text.primary, text.articles, corrections)
    dated: dict[str, dict[date, date]] = defaultdict(dict)
    for key, texts in texts_by_law.items():
        for text in texts:
            if text.dating and text.dating.promulgated and text.dating.effective_from:
                dated[key][text.dating.promulgated] = text.dating.effective_from

    def act_lookup(act: str, on: date) -> date | None:
        for candidate in (act, f"{act}（{on.year}年）"):
            found = dated.get(law_key(candidate), {}).get(on)
            if found:
                return found
        return None

    for key, texts in texts_by_law.items():
        for text in texts:
            dating = text.dating
            if dating and dating.kind == AMENDMENT and dating.amending_act:
                redated = establish(
                    names[key], text.primary, text.articles, corrections, act_lookup
                )
                if redated.effective_rule == AMENDING_ACT:
                    text.dating = redated


def _version(name: str, text: _Text) -> ParsedVersion:
    file = text.primary
    dating = text.dating
    if dating is None:  # every text is dated by _date_all
        raise RuntimeError(f"{file.path} was not dated")
    notes = (*file.header.notes, *file.notes, *text.notes, *dating.notes)
    return ParsedVersion(
        law_name=name,
        level=file.level,
        category=file.category,
        label=dating.label,
        promulgated=dating.promulgated,
        effective_from=dating.effective_from,
        effective_rule=dating.effective_rule,
        effective_to=None,
        source=file.path,
        articles=tuple(text.articles),
        history=file.header.history,
        issuer=file.issuer,
        notes=tuple(dict.fromkeys(notes)),
    )


def chain_versions(versions: list[ParsedVersion]) -> list[ParsedVersion]:
    """Order by effective date (undated ones by promulgation) and set effective_to."""
    versions.sort(
        key=lambda v: (v.effective_from or v.promulgated or date.max, v.promulgated or date.max)
    )
    chained = []
    for current, following in zip(versions, [*versions[1:], None], strict=True):
        if following is None:
            chained.append(current)
            continue
        end = following.effective_from
        notes = list(current.notes)
        if end is None:
            # The next text took effect on a date the data lacks, but not before it was
            # promulgated: this one is certainly in force only until then.
            end = following.promulgated
            notes.append(
                f"the next version ({following.label}) is undated: in force until it was "
                f"promulgated ({end or 'date unknown'}), later unknown"
            )
        elif current.effective_from and end <= current.effective_from:
            notes.append(f"the next version ({following.label}) starts {end}, not after this one")
        chained.append(replace(current, effective_to=end, notes=tuple(notes)))
    return chained


def _why_undated(version: ParsedVersion) -> list[str]:
    reasons = [
        note
        for note in version.notes
        if any(word in note for word in ("rejected", "not used", "no valid_from", "unknown"))
    ]
    return reasons or ["no header 施行 line, effective clause or metadata date"]
