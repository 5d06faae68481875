"""The audit trail's tables (SQLAlchemy 2.0 models, on the one metadata of `legaldb.orm.Base`).

Created only by the Alembic migrations (0003 audit records, 0004 the judge's review queue,
0006 the pseudonym mapping kept in the database);
`migrations/metadata.py` gathers every package's tables for them and for the test that checks
that models and migrations agree. Written by `audit.recorder` and `audit.review`, read by the
export and the web's /audit page.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, date, datetime
from functools import lru_cache
from itertools import chain
from operator import itemgetter
from typing import Any, TypeVar, cast

import sqlalchemy as sa
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Mapped, mapped_column

from legaldb.orm import Base

Record = TypeVar("Record")


SHARED_VALUE = "lexgate_shared_value"
"""A JSON column's info key: its rows share one value object, never changed once made, so its
text is made once for a run of rows holding that object (`insert_all`)."""


class UtcDateTime(sa.TypeDecorator[datetime]):
    """A timezone-aware datetime kept in UTC on both backends (SQLite stores no offset).

    Naive datetimes are refused: a time whose zone is unknown cannot be put in a quarter.
    """

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"a naive datetime cannot be stored as UTC: {value!r}")
        utc = value.astimezone(UTC)
        return utc if dialect.name == "postgresql" else utc.replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class AuditCase(Base):
    """One gated answer: the round of attempts for one question, pseudonymised and masked.

    `case_id` (random) is what evidence packs call the case; `recorded_at` (the first
    attempt's) puts it in exactly one quarter. No raw subject or session id is stored here.
    """

    __tablename__ = "audit_case"
    __table_args__ = (sa.CheckConstraint("attempt_count >= 0", name="attempt_count"),)

    case_id: Mapped[str] = mapped_column(sa.String(32), primary_key=True)
    recorded_at: Mapped[datetime] = mapped_column(UtcDateTime, index=True)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
    subject: Mapped[str | None] = mapped_column(sa.String(80), index=True)  # pseudonym
    session: Mapped[str] = mapped_column(sa.String(80), index=True)  # pseudonym
    question: Mapped[str | None] = mapped_column(sa.Text)  # PII masked
    as_of: Mapped[date]
    # The same dict object for every case under one policy (audit.recorder), never changed.
    policy: Mapped[dict[str, Any]] = mapped_column(sa.JSON, info={SHARED_VALUE: True})
    policy_id: Mapped[str] = mapped_column(sa.String(16))  # sha256 of the policy's JSON
    statute_source: Mapped[str] = mapped_column(sa.String(1000))
    statute_snapshot: Mapped[str] = mapped_column(sa.String(200))
    max_attempts: Mapped[int]
    premise_facts: Mapped[list[Any]] = mapped_column(sa.JSON)
    state: Mapped[str] = mapped_column(sa.String(30))  # the round's state
    delivery: Mapped[str | None] = mapped_column(sa.String(30))
    error: Mapped[str | None] = mapped_column(sa.Text)  # PII masked
    attempt_count: Mapped[int]


class AuditAttempt(Base):
    """One answer of a case, as the gate judged it (text masked, hash of the raw answer)."""

    __tablename__ = "audit_attempt"
    __table_args__ = (
        sa.CheckConstraint("attempt >= 1", name="attempt"),
        sa.CheckConstraint(
            "verifiable_rate IS NULL OR (verifiable_rate >= 0 AND verifiable_rate <= 1)",
            name="verifiable_rate",
        ),
    )

    case_id: Mapped[str] = mapped_column(
        sa.ForeignKey("audit_case.case_id", ondelete="CASCADE"), primary_key=True
    )
    attempt: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    recorded_at: Mapped[datetime] = mapped_column(UtcDateTime)
    answer: Mapped[str] = mapped_column(sa.Text)  # PII masked
    answer_sha256: Mapped[str] = mapped_column(sa.String(64))  # of the raw answer
    decision: Mapped[str] = mapped_column(sa.String(20))
    verifiable_rate: Mapped[float | None]
    citations: Mapped[int]
    provisions: Mapped[int]
    verified: Mapped[int]
    deprecated: Mapped[int]
    not_yet_effective: Mapped[int]
    unverified: Mapped[int]
    failures: Mapped[list[Any]] = mapped_column(sa.JSON)
    standards: Mapped[list[Any]] = mapped_column(sa.JSON)  # each with its evidence
    # Small extracts of standards read by the export (so it never parses the evidence):
    failed_standards: Mapped[list[Any]] = mapped_column(sa.JSON)  # [{name, summary}]
    unsupported_conclusions: Mapped[list[Any]] = mapped_column(sa.JSON)  # [sentence]
    tail_coverage: Mapped[dict[str, Any]] = mapped_column(sa.JSON)
    injected_facts: Mapped[list[Any]] = mapped_column(sa.JSON)
    facts: Mapped[list[Any]] = mapped_column(sa.JSON)
    rerun_requested: Mapped[bool]


def _of_attempt() -> sa.ForeignKeyConstraint:
    """(case_id, attempt) of a row belonging to an attempt, deleted with it."""
    return sa.ForeignKeyConstraint(
        ["case_id", "attempt"],
        ["audit_attempt.case_id", "audit_attempt.attempt"],
        ondelete="CASCADE",
    )


class AuditCitation(Base):
    """Each citation occurrence of an attempt with its verdict: a row, so that the export
    counts by status, reason and law in SQL on both backends."""

    __tablename__ = "audit_citation"
    __table_args__ = (_of_attempt(),)

    case_id: Mapped[str] = mapped_column(sa.String(32), primary_key=True)
    attempt: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    position: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    surface: Mapped[str] = mapped_column(sa.Text)  # PII masked
    span_start: Mapped[int]
    span_end: Mapped[int]
    law: Mapped[str | None] = mapped_column(sa.String(500))
    law_as_written: Mapped[str | None] = mapped_column(sa.String(500))
    implicit: Mapped[bool]
    article: Mapped[int]
    article_suffix: Mapped[str | None] = mapped_column(sa.String(20))
    paragraph: Mapped[int | None]
    item: Mapped[int | None]
    provision: Mapped[str] = mapped_column(sa.String(700))  # 《law》第…条第…款
    status: Mapped[str] = mapped_column(sa.String(20))
    reason: Mapped[str] = mapped_column(sa.String(40))
    level: Mapped[str | None] = mapped_column(sa.String(20))
    article_count: Mapped[int | None]  # the law's real article count (version looked at)
    paragraph_count: Mapped[int | None]
    item_count: Mapped[int | None]
    version_label: Mapped[str | None] = mapped_column(sa.String(100))
    repealed_on: Mapped[date | None]
    quote_verdict: Mapped[str] = mapped_column(sa.String(10))
    quote_score: Mapped[float | None]
    number_conflicts: Mapped[list[Any]] = mapped_column(sa.JSON)


class JudgeReview(Base):
    """A citation the model judge was not sure enough about (confidence below the threshold),
    waiting for a reviewer, and the reviewer's decision once made (written by `audit.review`).

    The claim is PII masked like every text of the audit record; the decision stays here, in
    the audit trail, and goes into the evidence pack with its case.
    """

    __tablename__ = "judge_review"
    __table_args__ = (
        _of_attempt(),
        sa.UniqueConstraint("case_id", "attempt", "span_start", "span_end"),
        sa.CheckConstraint(
            "decision IS NULL OR decision IN ('supports', 'contradicts', 'says_nothing')",
            name="decision",
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    case_id: Mapped[str] = mapped_column(sa.String(32), index=True)
    attempt: Mapped[int]
    span_start: Mapped[int]
    span_end: Mapped[int]
    enqueued_at: Mapped[datetime] = mapped_column(UtcDateTime, index=True)
    as_of: Mapped[date]
    law: Mapped[str] = mapped_column(sa.String(500))
    provision: Mapped[str] = mapped_column(sa.String(700))
    claim: Mapped[str] = mapped_column(sa.Text)  # PII masked
    article_text: Mapped[str] = mapped_column(sa.Text)
    p_supports: Mapped[float]
    p_contradicts: Mapped[float]
    p_says_nothing: Mapped[float]
    judge_relation: Mapped[str] = mapped_column(sa.String(20))
    confidence: Mapped[float]
    threshold: Mapped[float]
    model: Mapped[str | None] = mapped_column(sa.String(200))
    decision: Mapped[str | None] = mapped_column(sa.String(20))  # the reviewer's relation
    reviewer: Mapped[str | None] = mapped_column(sa.String(80))  # the reviewer's API key id
    decided_at: Mapped[datetime | None] = mapped_column(UtcDateTime, index=True)
    note: Mapped[str | None] = mapped_column(sa.Text)  # PII masked


class PseudonymMapping(Base):
    """pseudonym → (kind, raw id) in the database, for a deployment of several hosts
    (PostgreSQL); the raw id sealed (AES-256-GCM, `audit.sealing`) and bound to its pseudonym.
    A single machine on SQLite keeps the mapping in its private file instead (`MappingStore`)."""

    __tablename__ = "audit_pseudonym_map"

    pseudonym: Mapped[str] = mapped_column(sa.String(80), primary_key=True)
    kind: Mapped[str] = mapped_column(sa.String(16))
    key_id: Mapped[str] = mapped_column(sa.String(16), index=True)  # the sealing key's id
    sealed_id: Mapped[bytes] = mapped_column(sa.LargeBinary)  # nonce + ciphertext of the id
    first_seen: Mapped[datetime] = mapped_column(UtcDateTime)


# The Core tables of the models, for the bulk inserts and queries of the recorder and export.
CASE_TABLE = cast(sa.Table, AuditCase.__table__)
ATTEMPT_TABLE = cast(sa.Table, AuditAttempt.__table__)
CITATION_TABLE = cast(sa.Table, AuditCitation.__table__)
REVIEW_TABLE = cast(sa.Table, JudgeReview.__table__)
PSEUDONYM_TABLE = cast(sa.Table, PseudonymMapping.__table__)


def from_row(cls: type[Record], row: Any, **given: Any) -> Record:
    """The dataclass `cls` of a result row: each field not `given` from the column of its name."""
    columns = row._mapping
    taken = {
        field.name: columns[field.name]
        for field in dataclasses.fields(cast(Any, cls))
        if field.name not in given
    }
    return cls(**taken, **given)


def _on_conflict(names: Sequence[str], key: str | None, update: bool) -> str:
    """The clause after an INSERT of columns names: a row whose key is recorded already is
    updated from the new one (update) or left (skip); none without a key."""
    if key is None:
        return ""
    if not update:
        return f' ON CONFLICT ("{key}") DO NOTHING'
    changed = ", ".join(f'"{name}" = excluded."{name}"' for name in names if name != key)
    return f' ON CONFLICT ("{key}") DO UPDATE SET {changed}'


ROWS_PER_STATEMENT = 500
"""At most this many rows in one multi-row INSERT on SQLite (it binds at most 32,766 values)."""


@dataclasses.dataclass(frozen=True, slots=True)
class _RowsInsert:
    """How rows of a table reach the driver: its columns in order, each row's values by one
    C call, the columns SQLAlchemy converts (its own bind processors: the JSON text made by
    the same serializer, SQLite's date and time text) and the statement's SQL."""

    values: Callable[[Mapping[str, Any]], tuple[Any, ...]]
    processors: tuple[tuple[int, Callable[[Any], Any]], ...]
    head: str  # SQLite: INSERT … (columns), before VALUES
    marks: str  # SQLite: one row's (?, …)
    named: str  # other dialects: the compiled single-row INSERT, bound by name
    names: tuple[str, ...]
    columnar: str  # PostgreSQL: INSERT … SELECT from one array a column


def _json_encoder() -> Callable[[Any], str] | None:
    """`json.dumps(value)` with its default arguments, the text byte for byte, without the
    per-call set-up of `json.dumps` (a new C encoder each call): the encoder made once. No
    check for circular values (the rows are trees). None without the C encoder."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return None
    defaults = json.JSONEncoder()
    encode = make(
        None,  # no markers: no circularity check
        defaults.default,
        json.encoder.encode_basestring_ascii,  # ensure_ascii=True
        defaults.indent,
        defaults.key_separator,
        defaults.item_separator,
        defaults.sort_keys,
        defaults.skipkeys,
        defaults.allow_nan,
    )
    return lambda value: "".join(encode(value, 0))


json_text = _json_encoder() or json.dumps
"""The text `json.dumps(value)` makes: what SQLAlchemy stores for a JSON column on SQLite."""


def _last_text(encode: Callable[[Any], str]) -> Callable[[Any], str]:
    """encode, whose text of the last object is given again for that very object (`is`): for
    a column whose rows share one value object that nobody changes (SHARED_VALUE)."""
    last: list[tuple[object, str]] = [(object(), "")]  # (the object, its text), swapped whole

    def text(value: Any) -> str:
        seen, made = last[0]
        if value is seen:
            return made
        made = encode(value)
        last[0] = (value, made)
        return made

    return text


def _processor(column: sa.Column[Any], dialect: sa.Dialect) -> Callable[[Any], Any] | None:
    """What SQLAlchemy does to a value bound to column; for JSON without a serializer of the
    engine's own, `json_text` (the same text, for every value but SQLAlchemy's JSON.NULL and
    SQL NULL constructs, which no recorded row holds: on SQLite the text SQLAlchemy binds, on
    PostgreSQL the text psycopg's Json would send, cast to JSON by the statement); for dates
    and times, SQLAlchemy's conversion kept for the values seen last."""
    kind = column.type
    if (
        dialect.name in ("sqlite", "postgresql")
        and isinstance(kind, sa.JSON)
        and not kind.none_as_null
        and getattr(dialect, "_json_serializer", None) is None
    ):
        return _last_text(json_text) if column.info.get(SHARED_VALUE) else json_text
    processor = kind._cached_bind_processor(dialect)
    if processor is not None and isinstance(kind, sa.TypeDecorator | sa.Date | sa.DateTime):
        # The rows of a write share their times and dates: each converted once (a value
        # equal to another converts to the same; a naive time raises every time).
        return lru_cache(maxsize=256)(processor)
    return processor


_LENGTH = re.compile(r"\(\d+\)$")
"""A string type's length, as in VARCHAR(32)."""


@lru_cache(maxsize=64)
def _rows_insert(table: sa.Table, dialect: sa.Dialect, names: tuple[str, ...]) -> _RowsInsert:
    columns = [table.c[name] for name in names]
    processors = tuple(
        (index, processor)
        for index, column in enumerate(columns)
        if (processor := _processor(column, dialect)) is not None
    )
    quote = dialect.identifier_preparer.quote
    head = f"INSERT INTO {quote(table.name)} ({', '.join(quote(name) for name in names)})"
    named = str(table.insert().compile(dialect=dialect, column_keys=list(names)))
    # Each column's values as one array of its type (a string type without its length: the
    # column's own checks the value, as a row's value would be, where a cast would truncate).
    arrays = ", ".join(
        "%b::" + _LENGTH.sub("", column.type.compile(dialect=dialect)) + "[]" for column in columns
    )
    values = itemgetter(*names) if len(names) > 1 else (lambda row: (row[names[0]],))
    return _RowsInsert(
        values,
        processors,
        head,
        "(" + ", ".join("?" * len(names)) + ")",
        named,
        names,
        f"{head} SELECT * FROM unnest({arrays})",
    )


def insert_all(
    connection: Connection,
    table: sa.Table,
    rows: Sequence[Mapping[str, Any]],
    *,
    key: str | None = None,
    update: bool = False,
) -> None:
    """`connection.execute(table.insert(), rows)` (the rows' keys, the same for each row, name
    columns of table; the others take their defaults) with the same values reaching the
    driver, without SQLAlchemy's per-row parameter processing: one statement text per table
    (and per number of rows on SQLite), compiled once. With key, a row whose key is recorded
    already is updated from the new one (update; the rows' keys differ) or left as it is
    (`ON CONFLICT`, the same SQL on both databases: SQLAlchemy's dialect inserts with
    `on_conflict_do_…()` have no cache key, and were compiled again on every write).

    On SQLite the rows go as multi-row `INSERT … VALUES (…), (…)` (ROWS_PER_STATEMENT at most):
    one statement, where an executemany steps once per row and each step releases the
    interpreter's lock (a server's writer thread gets it back from its busy event loop only at
    the next switch interval). The sqlite3 module keeps each text's prepared statement. On
    PostgreSQL likewise one statement, whatever the number of rows, `INSERT … SELECT * FROM
    unnest(…)` of one array a column, sent in binary (no text escaping): psycopg's executemany
    sends a row at a time and waits for the socket, letting go of the interpreter's lock, for
    each; one text, which psycopg prepares once it has been used a few times."""
    if not rows:
        return
    plan = _rows_insert(table, connection.dialect, tuple(rows[0]))
    conflict = _on_conflict(plan.names, key, update)
    values, processors = plan.values, plan.processors
    converted: list[Sequence[Any]]
    if processors:
        converted = []
        for row in rows:
            listed = list(values(row))
            for index, processor in processors:
                listed[index] = processor(listed[index])
            converted.append(listed)
    else:
        converted = list(map(values, rows))
    if connection.dialect.name == "postgresql":
        columns = tuple(map(list, zip(*converted, strict=True)))
        connection.exec_driver_sql(plan.columnar + conflict, columns)
        return
    if connection.dialect.name != "sqlite":
        names = plan.names
        connection.exec_driver_sql(
            plan.named + conflict, [dict(zip(names, row, strict=True)) for row in converted]
        )
        return
    for start in range(0, len(converted), ROWS_PER_STATEMENT):
        chunk = converted[start : start + ROWS_PER_STATEMENT]
        connection.exec_driver_sql(
            f"{plan.head} VALUES {', '.join([plan.marks] * len(chunk))}{conflict}",
            tuple(chain.from_iterable(chunk)),
        )


@contextmanager
def pipelined(connection: Connection) -> Iterator[None]:
    """The block's statements sent to PostgreSQL without waiting for each one's reply (psycopg's
    pipeline mode) and their replies read together at its end: one round trip for all, where
    each statement (an executemany too) waits for its own. Only for statements whose results
    the block does not read (writes without RETURNING, their row counts unread): a result is
    not there before the block ends. A statement's failure is raised as SQLAlchemy raises it,
    at the block's end at the latest (a lost connection as a disconnect). On other databases
    and drivers the statements run one by one, as without it."""
    if connection.dialect.driver != "psycopg":
        yield
        return
    import psycopg

    driver = connection.connection.driver_connection
    if not isinstance(driver, psycopg.Connection) or not psycopg.Pipeline.is_supported():
        yield
        return
    try:
        with driver.pipeline():
            yield
    except psycopg.Error as error:  # raised by the pipeline's end, outside SQLAlchemy's calls
        connection._handle_dbapi_exception(error, None, None, None, None)


__all__ = [
    "ATTEMPT_TABLE",
    "CASE_TABLE",
    "CITATION_TABLE",
    "PSEUDONYM_TABLE",
    "REVIEW_TABLE",
    "AuditAttempt",
    "AuditCase",
    "AuditCitation",
    "JudgeReview",
    "PseudonymMapping",
    "UtcDateTime",
    "from_row",
    "insert_all",
    "pipelined",
]
