"""Laws, versions and an article across versions, built from the repository (no I/O here).

Shared by the API (`routes/laws.py`) and the pages (`routes/law_pages.py`): both show the
same objects, the API as JSON, the pages through templates.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from datetime import date

from legaldb import StatuteRepository
from legaldb.models import ArticleText, LawInfo, VersionInfo
from textnorm import article_label
from verifier.models import ArticleRef
from web.errors import NotFound
from web.schemas import (
    ArticleDetail,
    ArticleVersionOut,
    DiffPart,
    LawDetail,
    LawOut,
    RepealOut,
    VersionOut,
    from_core,
)


def law_out(repo: StatuteRepository, law: LawInfo) -> LawOut:
    """A law with its repeal date when repealed."""
    repeal = repo.repeal(law.id)
    return from_core(LawOut, law, repealed_on=repeal.repealed_on if repeal else None)


def version_out(version: VersionInfo, today: date) -> VersionOut:
    """A version with its dates and whether it is in force today."""
    return from_core(VersionOut, version, in_force_today=version.in_force_on(today))


def _law(repo: StatuteRepository, law_id: int) -> LawInfo:
    law = repo.law(law_id)
    if law is None:
        raise NotFound(
            f"no law with id {law_id}",
            field="law_id",
            code="law_not_found",
            page_message=f"本库没有编号为 {law_id} 的法规。",
        )
    return law


def _repeal(repo: StatuteRepository, law_id: int) -> RepealOut | None:
    repeal = repo.repeal(law_id)
    if repeal is None:
        return None
    successor = repo.law(repeal.successor_law_id) if repeal.successor_law_id else None
    return RepealOut(
        repealed_on=repeal.repealed_on,
        repealed_by=repeal.repealed_by,
        successor=law_out(repo, successor) if successor else None,
        source=repeal.source,
        note=repeal.note,
    )


def search(repo: StatuteRepository, q: str, limit: int) -> list[LawOut]:
    """Laws whose names contain q (exact first), else the closest names."""
    return [law_out(repo, law) for law in repo.search_laws(q, limit=limit)]


def law_detail(repo: StatuteRepository, law_id: int, today: date) -> LawDetail:
    """A law, its versions oldest first, and its repeal."""
    law = _law(repo, law_id)
    return LawDetail(
        law=law_out(repo, law),
        versions=[version_out(v, today) for v in repo.versions(law_id)],
        repeal=_repeal(repo, law_id),
    )


def shown_version(repo: StatuteRepository, law_id: int, today: date) -> VersionInfo | None:
    """The version a law page shows first: the one in force today, else the newest."""
    return repo.version_in_force(law_id, today) or repo.latest_version(law_id)


def diff_parts(old: str, new: str) -> list[DiffPart]:
    """A character diff old -> new (Chinese has no spaces, so characters are the unit)."""
    parts: list[DiffPart] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            parts.append(DiffPart(op="equal", text=new[j1:j2]))
            continue
        if i2 > i1:
            parts.append(DiffPart(op="delete", text=old[i1:i2]))
        if j2 > j1:
            parts.append(DiffPart(op="insert", text=new[j1:j2]))
    return parts


def _text_of(
    repo: StatuteRepository, version: VersionInfo, number: int, suffix: str | None
) -> ArticleText | None:
    return repo.article_text(version.id, number, suffix) if version.has_text else None


def _has(repo: StatuteRepository, version: VersionInfo, number: int, suffix: str | None) -> bool:
    if version.has_text:
        return repo.article(version.id, number, suffix) is not None
    return suffix is None and 1 <= number <= version.article_count  # known only by facts


def _aligned(
    repo: StatuteRepository,
    law_id: int,
    old: VersionInfo,
    new: VersionInfo,
    article: tuple[int, str | None],
    *,
    backward: bool,
) -> tuple[int, str | None] | None:
    """An alignment between consecutive versions old → new: forward, the article of `new`
    aligned from `article` of `old`; backward, the article of `old` aligned to `article` of
    `new`. None when there is none."""
    if not backward:
        starts: Iterable[tuple[int, str | None]] = (article,)
    elif old.has_text:
        starts = ((text.info.number, text.info.suffix) for text in repo.articles_text(old.id))
    else:
        return None
    for start in starts:
        for successor in repo.successors(law_id, *start, old.id):
            end = (successor.to_number, successor.to_suffix)
            if (
                successor.kind == "aligned"
                and successor.to_version_id == new.id
                and (not backward or end == article)
            ):
                return start if backward else end
    return None


def _walk(
    repo: StatuteRepository,
    law_id: int,
    versions: list[VersionInfo],
    anchor: int,
    number: int,
    suffix: str | None,
) -> Iterator[tuple[int, tuple[int, str | None] | None, str | None]]:
    """(version index, the article there or None, how it was found) away from the anchor."""
    yield anchor, (number, suffix), "number"
    for step in (-1, 1):
        current: tuple[int, str | None] | None = (number, suffix)
        index = anchor
        while 0 <= index + step < len(versions):
            here, there = versions[index], versions[index + step]
            found: tuple[int, str | None] | None = None
            how: str | None = None
            if current is not None:
                old, new = (there, here) if step < 0 else (here, there)
                found = _aligned(repo, law_id, old, new, current, backward=step < 0)
                how = "alignment" if found is not None else None
                if found is None and _has(repo, there, *current):
                    found, how = current, "number"
            index += step
            current = found
            yield index, found, how


def article_detail(
    repo: StatuteRepository,
    law_id: int,
    number: int,
    suffix: str | None,
    as_of: date,
    today: date,
) -> ArticleDetail:
    """The article as in force on as_of and in every version (followed through renumbering)."""
    law = _law(repo, law_id)
    versions = repo.versions(law_id)
    in_force = repo.version_in_force(law_id, as_of)
    holding = [i for i, v in enumerate(versions) if _has(repo, v, number, suffix)]
    label = article_label(number, suffix)
    if not holding:
        latest = repo.latest_version(law_id)
        count = (
            f"（最新版本共 {latest.article_count} 条）" if latest and latest.article_count else ""
        )
        raise NotFound(
            f"{law.name} has no {label} in any version",
            field="number",
            code="article_not_found",
            page_message=f"《{law.name}》的各个版本都没有{label}{count}。",
        )
    # Anchor at the version in force when it holds the article, else the nearest one.
    forced = versions.index(in_force) if in_force in versions else None
    if forced is not None and forced in holding:
        anchor = forced
    else:
        anchor = min(holding, key=lambda i: abs((versions[i].effective_from or as_of) - as_of))
    found = {index: (where, how) for index, where, how in _walk(repo, law_id, versions, anchor,
                                                                number, suffix)}  # fmt: skip
    shown: list[ArticleVersionOut] = []
    previous_text: str | None = None
    for index, version in enumerate(versions):
        where, how = found.get(index, (None, None))
        text = _text_of(repo, version, *where) if where else None
        changes = (
            diff_parts(previous_text, text.text)
            if text is not None and previous_text is not None
            else None
        )
        shown.append(
            ArticleVersionOut(
                version=version_out(version, today),
                label=text.info.label if text else (article_label(*where) if where else None),
                number=where[0] if where else None,
                suffix=where[1] if where else None,
                deleted=bool(text and text.info.deleted),
                text=text.text if text else None,
                chapter_path=list(text.info.chapter_path) if text else [],
                matched_by=how if where else None,  # type: ignore[arg-type]
                changes=changes,
            )
        )
        previous_text = text.text if text else None
    successors = [
        ArticleRef(
            law=(repo.law(s.to_law_id) or law).name,
            article=s.to_number,
            article_suffix=s.to_suffix,
            label=article_label(s.to_number, s.to_suffix),
            kind=s.kind,
            similarity=s.similarity,
            changed=s.changed,
            note=s.note,
        )
        for s in repo.successors(law_id, number, suffix)
        if s.to_law_id != law_id
    ]
    return ArticleDetail(
        law=law_out(repo, law),
        as_of=as_of,
        number=number,
        suffix=suffix,
        label=label,
        in_force=shown[anchor] if anchor == forced else None,
        versions=shown,
        repeal=_repeal(repo, law_id),
        successors=successors,
    )
