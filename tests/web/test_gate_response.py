"""POST /api/v1/gate's response body: built from the attempt's own values, the same bytes as
from its JSON dump validated again (what the route did before)."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import pytest

from gate.models import RoundRecord
from gate.rounds import open_round, submit
from legaldb import StatuteRepository
from tests.conftest import SHARED_DIR
from web.recording import WARM_UP_ANSWERS, GateOutcome
from web.routes.gate import GATE_RESPONSE, gate_response

ANSWERS = SHARED_DIR / "eval" / "flzx_dev_answers.jsonl"
EXCLUDED = {"answer", "judged", "judge_error", "tail_coverage"}


def _reference(outcome: GateOutcome) -> dict[str, Any]:
    """The response body as the route built it before: the attempt's JSON dump."""
    round_ = outcome.round
    attempt = round_.attempts[-1].model_dump(mode="json", exclude=EXCLUDED)
    ended = round_.state != "open"
    return {
        "session_id": outcome.session_id,
        "case_id": outcome.case_id,
        **attempt,
        "as_of": round_.as_of,
        "round": {
            "state": round_.state,
            "delivery": round_.delivery,
            "attempts": len(round_.attempts),
            "max_attempts": round_.max_attempts,
            "next_attempt": None if ended else len(round_.attempts) + 1,
            "as_of": round_.as_of,
            "question": round_.question,
        },
    }


def _bytes(content: dict[str, Any]) -> bytes:
    return GATE_RESPONSE.dump_json(GATE_RESPONSE.validate_python(content), by_alias=True)


def _items() -> list[dict[str, Any]]:
    if not ANSWERS.exists():
        pytest.skip(f"{ANSWERS} not present")
    lines = ANSWERS.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[:: max(1, len(lines) // 60)][:60]]


def _rounds(repo: StatuteRepository, answer: str, question: str | None) -> list[RoundRecord]:
    """The round after the answer, and after the same answer again when the round stays
    open (a second attempt: injected facts, a rerun's number)."""
    opened = open_round(session_id="s", question=question, as_of=date(2023, 8, 1))
    after = submit(opened, answer, repo=repo)
    rounds = [after]
    if after.state == "open":
        rounds.append(submit(after, answer, repo=repo))
    return rounds


def test_the_response_is_the_attempts_dump_validated_again(
    statute_repository: StatuteRepository,
) -> None:
    """Over real answers (every 45th flzx answer, the warm-up answers), first and second
    attempts: the same bytes; fails when a field is left out or added."""
    items = [{"answer": a, "question": None} for a in WARM_UP_ANSWERS] + _items()
    compared = 0
    for item in items:
        for round_ in _rounds(statute_repository, item["answer"], item.get("question")):
            outcome = GateOutcome("web-session", "case-1", round_)
            assert _bytes(gate_response(outcome)) == _bytes(_reference(outcome))
            compared += 1
    assert compared > len(items)  # some rounds went on to a second attempt
