"""One gated completion: ask the upstream, gate the answer, rerun while the round asks, deliver.

Each answer goes through `web.recording.gate_and_record`: the assessment and the settlement of
POST /api/v1/gate (`find_round`, `assess_request`, `settle`: `gate.assess_answer`,
`gate.rounds.record_attempt`, `audit.record`), settled in the request's own thread instead of
the gate route's writer thread, since an upstream call dwarfs the commit: the first answer opens a
round (attempt 1), each rerun answer continues it under the same session (attempt 2, 3 …), so
the round is gated by `gate.rounds` and recorded in the audit trail exactly as a caller of
POST /api/v1/gate regenerating by itself would have it. The rerun asks the upstream the app's
own conversation, then the rejected answer and the round's fact-injected instruction (the
last two messages of the gate's rerun request).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from starlette.concurrency import run_in_threadpool

from gate import Policy
from gate.models import RerunRequest
from lexgate.settings import Settings
from web.gateway.errors import ModelNotFound
from web.gateway.models import ChatCompletionRequest
from web.gateway.upstream import Upstream, UpstreamAnswer
from web.recording import GateOutcome, GateRequestData


@dataclass(frozen=True, slots=True)
class GatewayOptions:
    """What the gateway does around the gate (docs/gateway.md), from the settings."""

    models: Mapping[str, str]
    policy: Policy
    citation_note: bool

    @classmethod
    def from_settings(cls, settings: Settings) -> GatewayOptions:
        return cls(
            models=dict(settings.gateway_models),
            policy=Policy(
                max_attempts=settings.gateway_max_attempts,
                on_exhausted=settings.gateway_on_exhausted,
            ),
            citation_note=settings.gateway_citation_note,
        )

    def upstream_model(self, model: str) -> str:
        """The upstream's name of the app's model (any name passes when nothing is mapped)."""
        if not self.models:
            return model
        if model not in self.models:
            raise ModelNotFound(
                f"the model {model!r} does not exist here; one of: {', '.join(self.models)}",
                param="model",
            )
        return self.models[model]


@dataclass(frozen=True, slots=True)
class Caller:
    """Who the round is recorded for: the raw ids (pseudonymised by the recording)."""

    subject_id: str | None
    session_id: str | None


@dataclass(frozen=True, slots=True)
class Gated:
    """The round as it ended and every upstream answer asked for it (the last delivered)."""

    outcome: GateOutcome
    answers: tuple[UpstreamAnswer, ...]


GateFunction = Callable[[GateRequestData], GateOutcome]
"""`gate_and_record` bound to the app's engine, statutes, audit tools, today and policy."""


def upstream_body(request: ChatCompletionRequest, model: str) -> dict[str, Any]:
    """The app's request as sent upstream: every field it set, the upstream's model name."""
    body = request.model_dump(mode="json", exclude_unset=True, exclude_none=True)
    body["model"] = model
    return body


def rerun_body(first: Mapping[str, Any], rerun: RerunRequest) -> dict[str, Any]:
    """The app's conversation, then the rejected answer and the rerun instruction."""
    answer, instruction = rerun.messages[-2:]
    tail = [message.model_dump(mode="json") for message in (answer, instruction)]
    return {**first, "messages": [*first["messages"], *tail]}


async def complete(
    request: ChatCompletionRequest,
    *,
    upstream: Upstream,
    options: GatewayOptions,
    caller: Caller,
    gate: GateFunction,
) -> Gated:
    """Ask, gate and rerun until the round ends; the round and the upstream's answers."""
    first = upstream_body(request, options.upstream_model(request.model))
    question = request.question()
    body = first
    session_id = caller.session_id
    answers: list[UpstreamAnswer] = []
    while True:
        answer = await upstream.complete(body)
        answers.append(answer)
        data = GateRequestData(
            answer=answer.content,
            question=question,
            subject_id=caller.subject_id,
            session_id=session_id,
            attempt=len(answers),
            as_of=None,
        )
        outcome = await run_in_threadpool(gate, data)
        rerun = outcome.round.rerun_request
        if outcome.round.state != "open" or rerun is None:
            return Gated(outcome=outcome, answers=tuple(answers))
        session_id = outcome.session_id
        body = rerun_body(first, rerun)


__all__ = ["Caller", "GateFunction", "Gated", "GatewayOptions", "complete", "rerun_body"]
