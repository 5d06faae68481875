"""A command's date: `--as-of` when given, today's date (asked of its loader) only when not."""

from __future__ import annotations

from datetime import date

import pytest

from verifier.errors import InputError
from verifier.inputs import as_of_or_today

TODAY = date(2026, 12, 3)


@pytest.mark.parametrize(
    ("given", "expected", "asked"),
    [
        (None, TODAY, 1),
        ("2026-12-01", date(2026, 12, 1), 0),
        ("1999-01-31", date(1999, 1, 31), 0),
        (date(2024, 7, 1), date(2024, 7, 1), 0),  # str() of a date is its ISO form
    ],
)
def test_today_is_asked_only_without_a_date(given: object, expected: date, asked: int) -> None:
    calls: list[None] = []

    def today() -> date:
        calls.append(None)
        return TODAY

    assert as_of_or_today(given, today) == expected
    assert len(calls) == asked


@pytest.mark.parametrize("given", ["2026-13-01", "yesterday", "", "2026/12/01"])
def test_a_bad_date_is_an_input_error_without_asking_today(given: str) -> None:
    def today() -> date:
        raise AssertionError("today asked")

    with pytest.raises(InputError, match="as_of: not a valid date"):
        as_of_or_today(given, today)


@pytest.mark.parametrize("zone", ["Nowhere/Bad", "Asia/Shanghaii", "../etc/passwd", ""])
def test_an_unknown_time_zone_is_an_input_error_naming_it(zone: str) -> None:
    from verifier.check import today

    with pytest.raises(InputError, match="timezone: no time zone named"):
        today(zone)


def test_a_known_time_zone_gives_its_date() -> None:
    from verifier.check import today

    assert isinstance(today("Asia/Shanghai"), date)
