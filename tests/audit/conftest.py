"""Fixtures of the audit record tests: a migrated database per backend, the private store,
real answers gated by the real gate, and personal data seeded into them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine

import gate
from audit.mapping_store import MappingStore
from audit.pseudonyms import Pseudonymizer
from legaldb import StatuteRepository, make_engine, upgrade
from tests.conftest import SHARED_DIR
from tests.strategies import luhn_check_digit, resident_id_check_char

SECRET = b"the audit tests' secret, 32 byte"
ZONE = "Asia/Shanghai"  # the quarters' time zone (LEXGATE_TIMEZONE's default)
AS_OF = date(2023, 8, 1)

# Personal data written into questions and answers; none may reach a pack or the audit tables.
PHONE = "13912345678"
ID_NUMBER = "11010519800101123" + resident_id_check_char("11010519800101123")
EMAIL = "li.si.audit@example.org"
CARD = "6000123456789012" + luhn_check_digit("6000123456789012")
RAW_SUBJECT = "raw-subject-4711"
RAW_SESSION = "raw-session-0815"
SEEDS = (PHONE, ID_NUMBER, EMAIL, CARD, RAW_SUBJECT, RAW_SESSION)

ONLY_SQLITE_STATUTES = pytest.mark.parametrize("corpus_database_url", ["sqlite"], indirect=True)
"""The statutes come from SQLite only (the repository is in memory either way): the audit
database, `database_url`, still runs on both backends."""


def seeded(text: str) -> str:
    """text with personal data before it and a conclusion citing nothing after it."""
    return (
        f"我的手机{PHONE}，邮箱{EMAIL}。\n身份证号{ID_NUMBER}，银行卡{CARD}。\n{text}\n"
        f"您应当拨打{PHONE}或发邮件到{EMAIL}联系对方。"
    )


def gated(repo: StatuteRepository, answer: str, question: str | None = None) -> gate.Assessment:
    """The answer's assessment: the verifier's check and the gate's decision (as of AS_OF)."""
    return gate.assess_answer(answer, repo=repo, as_of=AS_OF, turn=gate.Turn(question=question))


@pytest.fixture(scope="session")
def dev_answers() -> list[dict[str, Any]]:
    """The real answers of flzx_dev_answers.jsonl, in file order."""
    path = SHARED_DIR / "eval" / "flzx_dev_answers.jsonl"
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


@pytest.fixture
def audit_engine(database_url: str) -> Iterator[Engine]:
    """A fresh database on each backend, migrated to head (the audit tables included)."""
    upgrade(database_url)
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def pseudonymizer() -> Pseudonymizer:
    return Pseudonymizer(SECRET, "k1")


@pytest.fixture
def store(tmp_path: Path) -> MappingStore:
    """A fresh private mapping store."""
    return MappingStore(tmp_path / "private" / "pseudonym-map.sqlite3")
