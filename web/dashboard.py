"""The figures of the /audit page for one quarter, read from the audit tables.

A case belongs to the quarter in which its first answer was gated (as in the evidence pack);
its attempts are counted on the day (in the configured timezone) each was gated. Plain queries
that run alike on SQLite and PostgreSQL; the day buckets are made in Python.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date, timedelta
from zoneinfo import ZoneInfo

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from audit.models import Period
from audit.tables import ATTEMPT_TABLE as ATTEMPT
from audit.tables import CASE_TABLE as CASE
from audit.tables import CITATION_TABLE as CITATION
from gate.models import INVENTED_ARTICLE, REPEALED_LAW, Decision
from gate.provisions import reason_of

DECISIONS: tuple[Decision, ...] = ("pass", "pass_boundary", "rerun", "no_citations")
RATE_BINS = 10
TOP = 10


@dataclass(frozen=True, slots=True)
class DayDecisions:
    """The answers gated on one day, by decision."""

    day: date
    counts: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.counts.values())


@dataclass(frozen=True, slots=True)
class RateBin:
    """Answers whose verifiable rate falls in [low, high) (the last bin includes 1.0)."""

    low: float
    high: float
    count: int

    @property
    def label(self) -> str:
        return f"{round(self.low * 100)}–{round(self.high * 100)}%"


@dataclass(frozen=True, slots=True)
class Ranked:
    """One line of a top list: what, how many citations, in how many cases."""

    name: str
    citations: int
    cases: int


@dataclass(frozen=True, slots=True)
class Dashboard:
    """Everything the /audit page shows of one quarter."""

    period: Period
    cases: int
    attempts: int
    citations: int
    days: tuple[DayDecisions, ...]
    rate_bins: tuple[RateBin, ...]
    no_citations: int
    invented: tuple[Ranked, ...]
    repealed_laws: tuple[Ranked, ...]


def _in_period(period: Period) -> sa.ColumnElement[bool]:
    return sa.and_(CASE.c.recorded_at >= period.start, CASE.c.recorded_at < period.end)


def _ranked(
    connection: Connection, period: Period, column: sa.Column, where: sa.ColumnElement[bool]
) -> tuple[Ranked, ...]:
    citations = sa.func.count().label("citations")
    query = (
        sa.select(column, citations, sa.func.count(sa.distinct(CITATION.c.case_id)))
        .select_from(CITATION.join(CASE, CASE.c.case_id == CITATION.c.case_id))
        .where(_in_period(period), where, column.is_not(None))
        .group_by(column)
        .order_by(citations.desc(), column)
        .limit(TOP)
    )
    return tuple(
        Ranked(str(name), int(count), int(cases))
        for name, count, cases in connection.execute(query)
    )


def _days(period: Period, today: date) -> list[date]:
    """Every day of the quarter up to today (the whole quarter when it is over)."""
    first = period.start.date()
    last = min(period.end.date() - timedelta(days=1), max(today, first))
    return [first + timedelta(days=n) for n in range((last - first).days + 1)]


def load_dashboard(engine: Engine, period: Period, today: date) -> Dashboard:
    """The quarter's figures: cases, decisions per day, rate histogram, top lists."""
    zone = ZoneInfo(period.timezone)
    per_day: dict[date, Counter[str]] = {}
    bins = [0] * RATE_BINS
    no_citations = 0
    attempts = 0
    with engine.connect() as connection:
        cases = connection.execute(
            sa.select(sa.func.count()).select_from(CASE).where(_in_period(period))
        ).scalar_one()
        rows = connection.execute(
            sa.select(ATTEMPT.c.recorded_at, ATTEMPT.c.decision, ATTEMPT.c.verifiable_rate)
            .select_from(ATTEMPT.join(CASE, CASE.c.case_id == ATTEMPT.c.case_id))
            .where(_in_period(period))
        )
        for recorded_at, decision, rate in rows:
            attempts += 1
            day = recorded_at.astimezone(zone).date()
            per_day.setdefault(day, Counter())[decision] += 1
            if rate is None:
                no_citations += 1
            else:
                bins[min(int(rate * RATE_BINS), RATE_BINS - 1)] += 1
        citations = connection.execute(
            sa.select(sa.func.count())
            .select_from(CITATION.join(CASE, CASE.c.case_id == CITATION.c.case_id))
            .where(_in_period(period))
        ).scalar_one()
        invented = _ranked(
            connection,
            period,
            CITATION.c.provision,
            CITATION.c.reason == reason_of(INVENTED_ARTICLE),
        )
        repealed = _ranked(
            connection, period, CITATION.c.law, CITATION.c.reason == reason_of(REPEALED_LAW)
        )
    days = _days(period, today)
    days = sorted(set(days) | set(per_day))
    return Dashboard(
        period=period,
        cases=int(cases),
        attempts=attempts,
        citations=int(citations),
        days=tuple(
            DayDecisions(day, {d: per_day.get(day, Counter())[d] for d in DECISIONS})
            for day in days
        ),
        rate_bins=tuple(
            RateBin(n / RATE_BINS, (n + 1) / RATE_BINS, count) for n, count in enumerate(bins)
        ),
        no_citations=no_citations,
        invented=invented,
        repealed_laws=repealed,
    )
