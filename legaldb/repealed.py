"""The laws repealed by 民法典 (repealed_laws.json): facts, repeal events, curated successors.

Their texts are not in the corpus, so each becomes a law with ONE version standing for its
whole period in force (from the original effective date to the repeal), without text but with
the article count of its last version; plus a repeal event and the curated old -> new article
correspondences, checked against the successor's articles in the database.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from legaldb import orm
from legaldb.errors import RepealedDataError
from legaldb.models import CuratedSuccession, RepealedData, RepealedLaw
from textnorm import normalize_name, strip_prc_prefix

BUNDLED_REPEALED = Path(__file__).parent / "data" / "repealed_laws.json"
REPEALED_DATASET = "repealed_laws"
REPEALED_LEVEL = "法律"
EFFECTIVE_RULE = "repealed_laws.json: original effective date; one version for the whole period"


def read_repealed(path: Path = BUNDLED_REPEALED) -> RepealedData:
    """Parse repealed_laws.json into frozen facts; RepealedDataError when malformed."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        laws = tuple(_law(item) for item in raw["laws"])
        correspondence = tuple(
            CuratedSuccession(
                old_law=item["old"],
                old_number=int(item["article"]),
                new_law=item["new"],
                new_numbers=tuple(int(n) for n in item["articles"]),
                changed=item.get("changed") or None,
            )
            for item in raw["correspondence"]
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise RepealedDataError(f"{path}: {exc!r}") from exc
    return RepealedData(laws=laws, correspondence=correspondence, source=path.name)


def _law(item: dict[str, Any]) -> RepealedLaw:
    return RepealedLaw(
        name=item["name"],
        aliases=tuple(item.get("short", ())),
        adopted=date.fromisoformat(item["adopted"]),
        effective=date.fromisoformat(item["effective"]),
        amended=tuple(date.fromisoformat(d) for d in item.get("amended", ())),
        repealed=date.fromisoformat(item["repealed"]),
        article_count=int(item["articles"]),
        repealed_by=item["repealed_by"],
        successor=item.get("successor"),
    )


def version_label(law: RepealedLaw) -> str:
    """2001年修正 for an amended law, else the adoption year (1999年)."""
    if law.amended:
        return f"{max(law.amended).year}年修正"
    return f"{law.adopted.year}年"


def write_repealed(
    conn: sa.Connection, data: RepealedData, dataset_id: int
) -> tuple[dict[str, int], list[tuple[str, str]]]:
    """Insert the repealed laws, their repeal events and correspondences; (counts, issues)."""
    issues: list[tuple[str, str]] = []
    taken = set(conn.scalars(sa.select(orm.Law.name)))
    laws = []
    for law in data.laws:
        if law.name in taken:
            issues.append((data.source, f"{law.name}: already in the database, not replaced"))
        else:
            laws.append(law)
            taken.add(law.name)
    if not laws:
        return {"laws": 0, "versions": 0, "repeal_events": 0, "curated": 0}, issues

    law_ids = conn.scalars(
        sa.insert(orm.Law).returning(orm.Law.id, sort_by_parameter_order=True),
        [
            {
                "dataset_id": dataset_id,
                "name": law.name,
                "short_name": strip_prc_prefix(law.name),
                "level": REPEALED_LEVEL,
                "category": None,
                "issuer": None,
            }
            for law in laws
        ],
    ).all()
    alias_rows = []
    for law, law_id in zip(laws, law_ids, strict=True):
        keys: set[str] = set()
        for alias in (law.name, strip_prc_prefix(law.name), *law.aliases):
            key = normalize_name(alias)
            if key not in keys:
                keys.add(key)
                alias_rows.append({"law_id": law_id, "alias": alias, "key": key})
    conn.execute(sa.insert(orm.LawAlias), alias_rows)
    version_ids = conn.scalars(
        sa.insert(orm.Version).returning(orm.Version.id, sort_by_parameter_order=True),
        [
            {
                "law_id": law_id,
                "label": version_label(law),
                "promulgated": max(law.amended) if law.amended else law.adopted,
                "effective_from": law.effective,
                "effective_to": law.repealed,
                "effective_rule": EFFECTIVE_RULE,
                "article_count": law.article_count,
                "has_text": False,
                "source": data.source,
                "sources": [f"repealed_laws:{data.source}"],
                "notes": [f"adopted {law.adopted.isoformat()}"]
                + [f"amended {d.isoformat()}" for d in law.amended],
            }
            for law, law_id in zip(laws, law_ids, strict=True)
        ],
    ).all()

    ids_by_name = {law.name: law_id for law, law_id in zip(laws, law_ids, strict=True)}
    version_by_name = {law.name: v for law, v in zip(laws, version_ids, strict=True)}
    successor_ids = _law_ids(conn, {law.successor for law in laws if law.successor})
    repeal_rows = []
    for law in laws:
        successor_id = successor_ids.get(law.successor) if law.successor else None
        if law.successor and successor_id is None:
            issues.append((data.source, f"{law.name}: successor {law.successor} not in database"))
        repeal_rows.append(
            {
                "dataset_id": dataset_id,
                "law_id": ids_by_name[law.name],
                "repealed_on": law.repealed,
                "repealed_by": law.repealed_by,
                "successor_law_id": successor_id,
                "source": "repealed_laws",
                "note": None,
            }
        )
    conn.execute(sa.insert(orm.RepealEvent), repeal_rows)

    rows = _curated_rows(conn, data, dataset_id, ids_by_name, version_by_name, laws, issues)
    if rows:
        conn.execute(sa.insert(orm.Correspondence), rows)
    counts = {
        "laws": len(laws),
        "versions": len(version_ids),
        "repeal_events": len(repeal_rows),
        "curated": len(rows),
    }
    return counts, issues


def _law_ids(conn: sa.Connection, names: set[str]) -> dict[str, int]:
    if not names:
        return {}
    rows = conn.execute(sa.select(orm.Law.name, orm.Law.id).where(orm.Law.name.in_(names)))
    return {name: law_id for name, law_id in rows}


def _curated_rows(
    conn: sa.Connection,
    data: RepealedData,
    dataset_id: int,
    ids_by_name: dict[str, int],
    version_by_name: dict[str, int],
    laws: list[RepealedLaw],
    issues: list[tuple[str, str]],
) -> list[dict[str, Any]]:
    """Correspondence rows, each target checked against the successor version in force."""
    repealed_on = {law.name: law.repealed for law in laws}
    targets = _law_ids(conn, {item.new_law for item in data.correspondence})
    target_articles: dict[tuple[int, date], tuple[int | None, set[tuple[int, str]]]] = {}
    rows: list[dict[str, Any]] = []
    for item in data.correspondence:
        from_law_id = ids_by_name.get(item.old_law)
        to_law_id = targets.get(item.new_law)
        where = f"{item.old_law} 第{item.old_number}条 -> {item.new_law}"
        if from_law_id is None:
            issues.append((data.source, f"{where}: old law is not a repealed law of this file"))
            continue
        if to_law_id is None:
            issues.append((data.source, f"{where}: successor law not in database"))
            continue
        if item.old_number > _article_count(laws, item.old_law):
            issues.append((data.source, f"{where}: old article beyond the law's article count"))
            continue
        on = repealed_on[item.old_law]
        if (to_law_id, on) not in target_articles:
            target_articles[to_law_id, on] = _version_articles(conn, to_law_id, on)
        to_version_id, existing = target_articles[to_law_id, on]
        for number in item.new_numbers:
            if to_version_id is not None and (number, "") not in existing:
                issues.append((data.source, f"{where} 第{number}条: no such article, skipped"))
                continue
            rows.append(
                {
                    "dataset_id": dataset_id,
                    "from_law_id": from_law_id,
                    "from_version_id": version_by_name[item.old_law],
                    "from_number": item.old_number,
                    "from_suffix": item.old_suffix or "",
                    "to_law_id": to_law_id,
                    "to_version_id": to_version_id,
                    "to_number": number,
                    "to_suffix": "",
                    "kind": "curated",
                    "similarity": None,
                    "changed": item.changed is not None,
                    "note": item.changed,
                }
            )
    return rows


def _article_count(laws: list[RepealedLaw], name: str) -> int:
    return next(law.article_count for law in laws if law.name == name)


def _version_articles(
    conn: sa.Connection, law_id: int, on: date
) -> tuple[int | None, set[tuple[int, str]]]:
    """The successor's version in force on the repeal date and its (number, suffix) set."""
    version_id = conn.scalar(
        sa.select(orm.Version.id)
        .where(
            orm.Version.law_id == law_id,
            orm.Version.effective_from <= on,
            sa.or_(orm.Version.effective_to.is_(None), orm.Version.effective_to > on),
        )
        .order_by(orm.Version.effective_from.desc())
        .limit(1)
    )
    if version_id is None:
        return None, set()
    rows = conn.execute(
        sa.select(orm.Article.number, orm.Article.suffix).where(
            orm.Article.version_id == version_id
        )
    )
    return version_id, {(number, suffix) for number, suffix in rows}
