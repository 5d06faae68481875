"""SQLAlchemy 2.0 models of the statute database (internal to legaldb; never API types), and
the one declarative `Base` whose metadata the other packages' tables join (`audit.tables`,
`web.tables`; gathered by `migrations/metadata.py`).

The schema is created only by the Alembic migrations in `migrations/`; a test checks that
these models and the migrations agree. Rows are written in bulk by `legaldb.importer` and read
by `legaldb.repository`, which hands out the frozen types of `legaldb.models`.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Stable constraint names, so batch migrations on SQLite and PostgreSQL name things alike.
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    """Declarative base carrying the naming convention."""

    metadata = sa.MetaData(naming_convention=NAMING_CONVENTION)


class DatasetManifest(Base):
    """One imported dataset: where it came from and what it claims to cover completely."""

    __tablename__ = "dataset_manifest"

    id: Mapped[int] = mapped_column(primary_key=True)
    dataset: Mapped[str] = mapped_column(sa.String(100), unique=True)  # replace key
    source: Mapped[str] = mapped_column(sa.String(1000))
    snapshot: Mapped[str] = mapped_column(sa.String(200))
    imported_at: Mapped[datetime] = mapped_column(sa.DateTime(timezone=True))
    counts: Mapped[dict[str, Any]] = mapped_column(sa.JSON)
    complete_levels: Mapped[list[Any]] = mapped_column(sa.JSON)
    skipped: Mapped[list[Any]] = mapped_column(sa.JSON)  # ["path: reason", …]
    undated: Mapped[list[Any]] = mapped_column(sa.JSON)  # ["name label: why", …]
    # the same version in two sources, compared article by article (NULL before 0005)
    differences: Mapped[list[Any] | None] = mapped_column(sa.JSON)


class ImportIssue(Base):
    """A file (or record) that was not imported, and why."""

    __tablename__ = "import_issue"

    id: Mapped[int] = mapped_column(primary_key=True)
    dataset_id: Mapped[int] = mapped_column(
        sa.ForeignKey("dataset_manifest.id", ondelete="CASCADE"), index=True
    )
    path: Mapped[str] = mapped_column(sa.String(1000))
    reason: Mapped[str] = mapped_column(sa.Text)


class Law(Base):
    """A law as a work, across its versions."""

    __tablename__ = "law"

    id: Mapped[int] = mapped_column(primary_key=True)
    dataset_id: Mapped[int] = mapped_column(
        sa.ForeignKey("dataset_manifest.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(sa.String(500), unique=True)
    short_name: Mapped[str] = mapped_column(sa.String(500))
    level: Mapped[str] = mapped_column(sa.String(20), index=True)
    category: Mapped[str | None] = mapped_column(sa.String(200))
    issuer: Mapped[str | None] = mapped_column(sa.String(500))


class LawAlias(Base):
    """A name a law is cited by, with its lookup key (textnorm.normalize_name)."""

    __tablename__ = "law_alias"
    __table_args__ = (sa.UniqueConstraint("law_id", "key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    law_id: Mapped[int] = mapped_column(sa.ForeignKey("law.id", ondelete="CASCADE"))
    alias: Mapped[str] = mapped_column(sa.String(500))
    key: Mapped[str] = mapped_column(sa.String(500), index=True)


class Version(Base):
    """One promulgated text of a law and the period it is (or was) in force."""

    __tablename__ = "version"
    __table_args__ = (sa.Index(None, "law_id", "effective_from"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    law_id: Mapped[int] = mapped_column(sa.ForeignKey("law.id", ondelete="CASCADE"))
    label: Mapped[str] = mapped_column(sa.String(100))
    promulgated: Mapped[date | None]
    effective_from: Mapped[date | None]
    effective_to: Mapped[date | None]
    effective_rule: Mapped[str | None] = mapped_column(sa.String(200))
    article_count: Mapped[int]
    has_text: Mapped[bool]
    source: Mapped[str | None] = mapped_column(sa.String(1000))  # the text's source
    notes: Mapped[list[Any]] = mapped_column(sa.JSON)
    sources: Mapped[list[Any] | None] = mapped_column(sa.JSON)  # every source holding it


class Article(Base):
    """An article of a version: structure columns for the index, text columns for reading."""

    __tablename__ = "article"
    # suffix is '' (not NULL) for a plain article so that the uniqueness holds on both backends.
    __table_args__ = (sa.UniqueConstraint("version_id", "number", "suffix"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    version_id: Mapped[int] = mapped_column(sa.ForeignKey("version.id", ondelete="CASCADE"))
    number: Mapped[int]
    suffix: Mapped[str] = mapped_column(sa.String(20), default="")
    label: Mapped[str] = mapped_column(sa.String(100))
    deleted: Mapped[bool]
    item_counts: Mapped[list[Any]] = mapped_column(sa.JSON)  # 项 per 款; len = 款 count
    chapter_path: Mapped[list[Any]] = mapped_column(sa.JSON)
    text: Mapped[str] = mapped_column(sa.Text)
    paragraphs: Mapped[list[Any]] = mapped_column(sa.JSON)  # [[款 text, [项 text, …]], …]


class RepealEvent(Base):
    """A law's repeal: when, by which provision, and its successor law."""

    __tablename__ = "repeal_event"

    id: Mapped[int] = mapped_column(primary_key=True)
    dataset_id: Mapped[int] = mapped_column(
        sa.ForeignKey("dataset_manifest.id", ondelete="CASCADE"), index=True
    )
    law_id: Mapped[int] = mapped_column(sa.ForeignKey("law.id", ondelete="CASCADE"), index=True)
    repealed_on: Mapped[date | None]  # None: a source says repealed but gives no date
    repealed_by: Mapped[str | None] = mapped_column(sa.String(500))
    successor_law_id: Mapped[int | None] = mapped_column(
        sa.ForeignKey("law.id", ondelete="SET NULL"), index=True
    )
    source: Mapped[str | None] = mapped_column(sa.String(40))  # clause | census | …
    note: Mapped[str | None] = mapped_column(sa.Text)


class Correspondence(Base):
    """old article -> new article: curated, or aligned from two versions' texts."""

    __tablename__ = "correspondence"
    __table_args__ = (sa.Index(None, "from_law_id", "from_number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    dataset_id: Mapped[int] = mapped_column(
        sa.ForeignKey("dataset_manifest.id", ondelete="CASCADE"), index=True
    )
    from_law_id: Mapped[int] = mapped_column(sa.ForeignKey("law.id", ondelete="CASCADE"))
    from_version_id: Mapped[int | None] = mapped_column(
        sa.ForeignKey("version.id", ondelete="CASCADE"), index=True
    )
    from_number: Mapped[int]
    from_suffix: Mapped[str] = mapped_column(sa.String(20), default="")
    to_law_id: Mapped[int] = mapped_column(sa.ForeignKey("law.id", ondelete="CASCADE"), index=True)
    to_version_id: Mapped[int | None] = mapped_column(
        sa.ForeignKey("version.id", ondelete="CASCADE"), index=True
    )
    to_number: Mapped[int]
    to_suffix: Mapped[str] = mapped_column(sa.String(20), default="")
    kind: Mapped[str] = mapped_column(sa.String(20))  # curated | aligned
    similarity: Mapped[float | None]
    changed: Mapped[bool]
    note: Mapped[str | None] = mapped_column(sa.Text)
