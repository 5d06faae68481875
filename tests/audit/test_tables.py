"""The audit tables' bulk INSERT (`insert_all`): the values stored are SQLAlchemy's own."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from typing import Any

import sqlalchemy as sa
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy.engine import Connection, Engine

from audit.tables import (
    ATTEMPT_TABLE,
    CASE_TABLE,
    CITATION_TABLE,
    REVIEW_TABLE,
    insert_all,
    json_text,
)

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
MOMENT = datetime(2026, 12, 2, 17, 30, 5, 123456, tzinfo=UTC)


@given(JSON_VALUES)
def test_json_text_is_the_text_of_json_dumps(value: Any) -> None:
    """json_text(value) == json.dumps(value) for any JSON value (NaN and infinities too)."""
    assert json_text(value) == json.dumps(value)


def _case(case_id: str) -> dict[str, Any]:
    return {
        "case_id": case_id,
        "recorded_at": MOMENT,
        "updated_at": MOMENT,
        "subject": None,
        "session": "sess_k1_0",
        "question": "问：“合同”？",
        "as_of": date(2023, 8, 1),
        "policy": {"min_verifiable_rate": 0.5, "名": ["一", None, True]},
        "policy_id": "0123456789abcdef",
        "statute_source": "lawrefbook",
        "statute_snapshot": "",
        "max_attempts": 3,
        "premise_facts": [],
        "state": "open",
        "delivery": None,
        "error": None,
        "attempt_count": 1,
    }


def _attempt(case_id: str) -> dict[str, Any]:
    return {
        "case_id": case_id,
        "attempt": 1,
        "recorded_at": MOMENT,
        "answer": "根据《民法典》第一百四十三条……",
        "answer_sha256": "0" * 64,
        "decision": "rerun",
        "verifiable_rate": 1 / 3,
        "citations": 2,
        "provisions": 2,
        "verified": 1,
        "deprecated": 0,
        "not_yet_effective": 0,
        "unverified": 1,
        "failures": [{"signal": "article_not_found", "repealed_on": None}],
        "standards": [{"name": "x", "passed": False, "evidence": [{"start": 0, "end": 3}]}],
        "failed_standards": [{"name": "x", "summary": "“引号”"}],
        "unsupported_conclusions": ["结论"],
        "tail_coverage": {"applicable": True, "ratio": 0.1 + 0.2},
        "injected_facts": [],
        "facts": [{"kind": "k", "text": "t"}],
        "rerun_requested": True,
    }


def _citation(case_id: str, position: int) -> dict[str, Any]:
    return {
        "case_id": case_id,
        "attempt": 1,
        "position": position,
        "surface": "《民法典》第一百四十三条",
        "span_start": 3,
        "span_end": 15,
        "law": "中华人民共和国民法典",
        "law_as_written": None,
        "implicit": position % 2 == 0,
        "article": 143,
        "article_suffix": None,
        "paragraph": None,
        "item": 2,
        "provision": "《中华人民共和国民法典》第一百四十三条",
        "status": "verified",
        "reason": "ok",
        "level": None,
        "article_count": 1260,
        "paragraph_count": None,
        "item_count": 3,
        "version_label": "2020",
        "repealed_on": date(2021, 1, 1) if position else None,
        "quote_verdict": "none",
        "quote_score": None if position else 0.875,
        "number_conflicts": [{"kind": "amount", "article_values": [1.5, 2]}],
    }


def _review(case_id: str) -> dict[str, Any]:
    """A review row as `audit.review.review_rows` makes it: no id, no reviewer's columns."""
    return {
        "case_id": case_id,
        "attempt": 1,
        "span_start": 3,
        "span_end": 15,
        "enqueued_at": MOMENT,
        "as_of": date(2023, 8, 1),
        "law": "中华人民共和国民法典",
        "provision": "《中华人民共和国民法典》第一百四十三条",
        "claim": "有效",
        "article_text": "第一百四十三条 具备下列条件的民事法律行为有效",
        "p_supports": 0.5,
        "p_contradicts": 0.25,
        "p_says_nothing": 0.25,
        "judge_relation": "supports",
        "confidence": 0.5,
        "threshold": 0.7,
        "model": None,
    }


def _write(connection: Connection, case_id: str, insert: Any) -> None:
    insert(connection, CASE_TABLE, [_case(case_id)])
    insert(connection, ATTEMPT_TABLE, [_attempt(case_id)])
    insert(connection, CITATION_TABLE, [_citation(case_id, position) for position in range(3)])
    insert(connection, REVIEW_TABLE, [_review(case_id)])


def _stored(connection: Connection, table: sa.Table, case_id: str) -> list[tuple[Any, ...]]:
    """The table's rows of case_id as the database holds them (PostgreSQL's as text), without
    the case id and the review's generated id."""
    names = [column.name for column in table.columns if column.name not in ("case_id", "id")]
    cast = "::text" if connection.dialect.name == "postgresql" else ""
    columns = ", ".join(f'"{name}"{cast}' for name in names)
    rows = connection.exec_driver_sql(
        f'SELECT {columns} FROM "{table.name}" WHERE case_id = '
        + ("%(case)s" if connection.dialect.name == "postgresql" else ":case"),
        {"case": case_id},
    )
    return sorted(tuple(row) for row in rows)


def test_insert_all_stores_what_sqlalchemy_stores(audit_engine: Engine) -> None:
    """Rows written by insert_all are stored exactly as by `execute(table.insert(), rows)`:
    JSON text, dates and times, booleans, floats, NULLs, columns left to their defaults."""
    with audit_engine.begin() as connection:
        _write(connection, "a" * 32, lambda c, table, rows: c.execute(table.insert(), rows))
        _write(connection, "b" * 32, insert_all)
    with audit_engine.connect() as connection:
        for table in (CASE_TABLE, ATTEMPT_TABLE, CITATION_TABLE, REVIEW_TABLE):
            expected = _stored(connection, table, "a" * 32)
            assert expected
            assert _stored(connection, table, "b" * 32) == expected, table.name


def test_insert_all_writes_more_rows_than_one_statement_holds(audit_engine: Engine) -> None:
    """More rows than ROWS_PER_STATEMENT are all written (several statements on SQLite)."""
    with audit_engine.begin() as connection:
        insert_all(connection, CASE_TABLE, [_case(f"{index:032x}") for index in range(1203)])
    with audit_engine.connect() as connection:
        count = connection.execute(sa.select(sa.func.count()).select_from(CASE_TABLE)).scalar()
    assert count == 1203


@given(st.lists(JSON_VALUES, min_size=1, max_size=4), st.lists(st.integers(0, 3), max_size=30))
def test_a_shared_columns_text_is_its_values_own(pool: list[Any], picks: list[int]) -> None:
    """The policy column's processor (its rows share one value object) gives json.dumps's text
    of every value in any order of the pool's objects and their equal copies (fails when the
    last object's text is given to another)."""
    from audit.tables import CASE_TABLE, _processor

    text = _processor(CASE_TABLE.c.policy, sa.create_engine("sqlite://").dialect)
    assert text is not None
    for pick in picks:
        value = pool[pick % len(pool)]
        for each in (value, json.loads(json.dumps(value))):
            assert text(each) == json.dumps(each)
