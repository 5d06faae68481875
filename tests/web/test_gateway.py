"""The OpenAI-compatible gateway, driven by the official `openai` client (SQLite and PostgreSQL).

The upstream is the loopback chat server of tests/llm_server.py; the gateway a real uvicorn
(tests/web/gateway_server.py). Each round must reach the audit trail as POST /api/v1/gate
records it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
import sqlalchemy as sa
from pydantic import SecretStr
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from audit import Pseudonymizer
from audit.recorder import ATTEMPT_TABLE, CASE_TABLE
from legaldb import make_engine
from tests.llm_server import MODEL_IDS, LLMServer, Reply
from tests.web.conftest import INVENTED, REPEALED, VERIFIED
from tests.web.gateway_server import gateway_running
from tests.web.recorded import AUDIT_SECRET, copy_database, gate_settings
from web import create_key

QUESTION = "离婚时共同财产怎么分？"
GOOD = (
    f"根据{VERIFIED}规定，离婚时，夫妻的共同财产由双方协议处理；协议不成的，由人民法院根据财产"
    "的具体情况，按照照顾子女、女方和无过错方权益的原则判决。"
)
WITH_INVENTED = f"依照{VERIFIED}，离婚时，夫妻的共同财产由双方协议处理；另据{INVENTED}，应当赔偿。"
WITH_REPEALED = f"依照{VERIFIED}，共同财产由双方协议处理。依照{REPEALED}，违约方应当承担违约责任。"
UPSTREAM_KEY = "sk-upstream-secret-0123456789"
MESSAGES: list[Any] = [
    {"role": "system", "content": "你是律师助手。"},
    {"role": "user", "content": QUESTION},
]


@dataclass(frozen=True)
class Gateway:
    """A running gateway: its base URL, a gate key, the database, the upstream it forwards to."""

    url: str
    key: str
    keys: dict[str, str]
    engine: Engine
    upstream: LLMServer

    def client(self, key: str | None = None) -> openai.OpenAI:
        """An OpenAI client of the gateway (no retries: each test sees the first answer)."""
        return openai.OpenAI(base_url=self.url, api_key=key or self.key, max_retries=0,
                             timeout=30)  # fmt: skip

    def cases(self) -> list[Any]:
        with self.engine.connect() as connection:
            return list(connection.execute(sa.select(CASE_TABLE)))

    def attempts(self, case_id: str) -> list[Any]:
        query = (
            sa.select(ATTEMPT_TABLE)
            .where(ATTEMPT_TABLE.c.case_id == case_id)
            .order_by(ATTEMPT_TABLE.c.attempt)
        )
        with self.engine.connect() as connection:
            return list(connection.execute(query))


StartGateway = Callable[..., Gateway]


def _gateway_database(template: str, tmp_path: Path) -> tuple[str, Engine, dict[str, str]]:
    """A fresh copy of the corpus database with a checker and a reviewer key."""
    url = copy_database(template, tmp_path)
    engine = make_engine(url)
    keys: dict[str, str] = {}
    with Session(engine) as session:
        for role in ("checker", "reviewer"):
            keys[role] = create_key(session, role, name=f"gateway-{role}").key
    return url, engine, keys


def _settings(
    url: str,
    tmp_path: Path,
    upstream: LLMServer,
    other: dict[str, Any] | None = None,
    **gateway: Any,
) -> Any:
    return gate_settings(url, tmp_path).model_copy(
        update={
            "gateway_upstream_url": upstream.base_url,
            "gateway_upstream_key": SecretStr(UPSTREAM_KEY),
            **{f"gateway_{name}": value for name, value in gateway.items()},
            **(other or {}),
        }
    )


@pytest.fixture
def start_gateway(
    corpus_template: str, tmp_path: Path, llm_server: LLMServer
) -> Iterator[StartGateway]:
    """Start a gateway over a fresh corpus database with these gateway_* settings."""
    url, engine, keys = _gateway_database(corpus_template, tmp_path)
    with ExitStack() as stack:

        def start(other: dict[str, Any] | None = None, **gateway_settings: Any) -> Gateway:
            settings = _settings(url, tmp_path, llm_server, other, **gateway_settings)
            base = stack.enter_context(gateway_running(settings))
            return Gateway(base, keys["checker"], keys, engine, llm_server)

        yield start
    engine.dispose()


@pytest.fixture(scope="module")
def impatient_gateway(
    corpus_template: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Gateway]:
    """One gateway per backend for the upstream failures (they record nothing): 0.5 s timeout."""
    tmp_path = tmp_path_factory.mktemp("impatient")
    url, engine, keys = _gateway_database(corpus_template, tmp_path)
    upstream = LLMServer()
    upstream.start()
    try:
        with gateway_running(_settings(url, tmp_path, upstream, timeout_s=0.5)) as base:
            yield Gateway(base, keys["checker"], keys, engine, upstream)
    finally:
        upstream.stop()
        engine.dispose()


@pytest.fixture
def gateway(start_gateway: StartGateway) -> Gateway:
    """A gateway with the default options."""
    return start_gateway()


def pseudonym(kind: str, raw: str) -> str:
    return Pseudonymizer(AUDIT_SECRET.encode(), "k1").pseudonym(kind, raw)


def lexgate_of(completion: Any) -> dict[str, Any]:
    """The `lexgate` extension field of a completion or chunk (kept by the openai models)."""
    extra = completion.model_extra or {}
    info: dict[str, Any] = extra["lexgate"]
    return info


def test_a_passing_answer_is_delivered_with_its_verdicts(gateway: Gateway) -> None:
    """The upstream's answer passes at once: delivered unchanged, verdicts in `lexgate`, the
    decision in the header, the round recorded under the pseudonyms of `user` and the session."""
    gateway.upstream.script(Reply.chat(GOOD))
    raw = gateway.client().chat.completions.with_raw_response.create(
        model="any-model",
        messages=MESSAGES,
        user="user-4711",
        temperature=0.2,
        extra_headers={"X-LexGate-Session": "chat-0815"},
    )
    completion = raw.parse()
    assert completion.choices[0].message.content == GOOD
    assert raw.headers["x-lexgate-decision"] == "pass"
    info = lexgate_of(completion)
    assert (info["decision"], info["state"], info["attempts"]) == ("pass", "passed", 1)
    assert info["verifiable_rate"] == 1.0
    [citation] = info["citations"]
    assert (citation["text"], citation["status"], citation["badge"]) == (
        VERIFIED,
        "verified",
        "现行有效",
    )
    assert (citation["support"], citation["support_label"]) == ("supports", "内容相符")
    assert info["badge"] == "已核验 1 条"
    assert "judgements" not in info  # no judge configured

    [request] = gateway.upstream.requests
    sent = request.json
    assert sent["messages"] == MESSAGES and sent["model"] == "any-model"
    assert sent["temperature"] == 0.2 and sent["user"] == "user-4711"
    assert request.headers["authorization"] == f"Bearer {UPSTREAM_KEY}"
    assert UPSTREAM_KEY not in raw.http_response.text

    [case] = gateway.cases()
    assert case.case_id == info["case_id"] == raw.headers["x-lexgate-case"]
    assert case.session == pseudonym("sess", "chat-0815")
    assert case.subject == pseudonym("subj", "user-4711")
    assert (case.state, case.attempt_count) == ("passed", 1)


def test_an_invented_article_is_rerun_with_the_facts_then_passes(gateway: Gateway) -> None:
    """An invented article: the upstream is asked again with the app's conversation, its own
    answer and the facts (民法典 has 1,260 articles); the second answer passes and is the one
    delivered; both attempts are one audit case, as POST /api/v1/gate records a round."""
    gateway.upstream.script(Reply.chat(WITH_INVENTED), Reply.chat(GOOD))
    completion = gateway.client().chat.completions.create(
        model="any-model",
        messages=MESSAGES,
        extra_headers={"X-LexGate-Subject": "user-9"},
    )
    assert completion.choices[0].message.content == GOOD
    info = lexgate_of(completion)
    assert (info["decision"], info["state"], info["attempts"]) == (
        "pass",
        "passed_after_rerun",
        2,
    )

    first, rerun = gateway.upstream.requests
    messages = rerun.json["messages"]
    assert messages[: len(MESSAGES)] == MESSAGES
    assert messages[len(MESSAGES)] == {"role": "assistant", "content": WITH_INVENTED}
    instruction = messages[-1]
    assert instruction["role"] == "user" and "共 1260 条" in instruction["content"]
    assert rerun.json["model"] == first.json["model"]

    [case] = gateway.cases()
    assert case.subject == pseudonym("subj", "user-9")
    assert case.session.startswith("sess_k1_")  # a fresh session, pseudonymised
    assert (case.state, case.attempt_count) == ("passed_after_rerun", 2)
    attempts = gateway.attempts(case.case_id)
    assert [(a.attempt, a.decision) for a in attempts] == [(1, "rerun"), (2, "pass")]


def test_a_round_that_exhausts_is_delivered_with_its_badges(gateway: Gateway) -> None:
    """Three answers with the invented article: the round ends exhausted after the policy's
    three attempts; the last answer is delivered (default) and `lexgate` says what is wrong."""
    gateway.upstream.script(then=Reply.chat(WITH_INVENTED))
    raw = gateway.client().chat.completions.with_raw_response.create(
        model="any-model", messages=MESSAGES
    )
    completion = raw.parse()
    assert completion.choices[0].message.content == WITH_INVENTED
    assert raw.headers["x-lexgate-round"] == "exhausted"
    info = lexgate_of(completion)
    assert (info["state"], info["attempts"], info["delivery"]) == (
        "exhausted",
        3,
        "deliver_with_badges",
    )
    assert [c["status"] for c in info["citations"]] == ["verified", "unverified"]
    assert info["badge"] == "已核验 1 条 · 未能核验 1 条"
    assert len(gateway.upstream.requests) == 3
    [case] = gateway.cases()
    assert (case.state, case.attempt_count) == ("exhausted", 3)


def test_an_exhausted_round_is_refused_when_the_policy_blocks(
    start_gateway: StartGateway,
) -> None:
    """LEXGATE_GATEWAY_ON_EXHAUSTED=block: a 422 error body (not retried by the client) with
    the verdicts, and no answer text; the round is recorded all the same."""
    gateway = start_gateway(on_exhausted="block", max_attempts=2)
    gateway.upstream.script(then=Reply.chat(WITH_INVENTED))
    with pytest.raises(openai.UnprocessableEntityError) as caught:
        gateway.client().chat.completions.create(model="any-model", messages=MESSAGES)
    body = caught.value.response.json()
    assert body["error"]["type"] == "lexgate_refused"
    assert body["error"]["code"] == "citations_not_verified"
    assert body["lexgate"]["state"] == "exhausted" and body["lexgate"]["delivery"] == "block"
    assert caught.value.response.headers["x-lexgate-decision"] == "rerun"
    assert WITH_INVENTED not in caught.value.response.text
    assert len(gateway.upstream.requests) == 2
    [case] = gateway.cases()
    assert (case.state, case.attempt_count) == ("exhausted", 2)


def test_the_citation_note_is_appended(start_gateway: StartGateway) -> None:
    """LEXGATE_GATEWAY_CITATION_NOTE: the answer ends with the Chinese note, the repealed
    article's successor after its count."""
    gateway = start_gateway(citation_note=True, max_attempts=1)
    gateway.upstream.script(Reply.chat(WITH_REPEALED))
    completion = gateway.client().chat.completions.create(model="any-model", messages=MESSAGES)
    content = completion.choices[0].message.content or ""
    assert content.startswith(WITH_REPEALED)
    assert content.endswith("〔引用核验：已核验 1 条 · 已废止 1 条 → 民法典第577条〕")


def test_the_judges_judgements_come_with_the_answer(
    start_gateway: StartGateway, llm_server: LLMServer
) -> None:
    """With the model judge on (here the same loopback server), each judged article is in
    `lexgate.judgements` with its verdict, confidence and whether it stands."""
    judge = {"judge_enabled": True, "judge_model": "judge", "llm_max_retries": 0}
    gateway = start_gateway({**judge, "judge_base_url": llm_server.base_url}, max_attempts=1)
    gateway.upstream.script(
        Reply.chat(GOOD), Reply.chat("A", top_logprobs={"A": math.log(0.95), "B": math.log(0.05)})
    )
    completion = gateway.client().chat.completions.create(model="any-model", messages=MESSAGES)
    [judgement] = lexgate_of(completion)["judgements"]
    assert (judgement["verdict"], judgement["stands"]) == ("supports", True)
    assert judgement["confidence"] == pytest.approx(0.95)
    assert "第一千零八十七条" in judgement["provision"]
    judge_request = gateway.upstream.requests[1].json
    assert judge_request["model"] == "judge"


def test_streaming_buffers_gates_and_streams_the_final_answer(gateway: Gateway) -> None:
    """stream: true — the upstream is streamed and read whole, the round rerun, and only the
    final answer is streamed to the app in chunks; `lexgate` rides on the finishing chunk."""
    gateway.upstream.script(Reply.chat(WITH_INVENTED), Reply.chat(GOOD))
    stream = gateway.client().chat.completions.create(
        model="any-model",
        messages=MESSAGES,
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == GOOD
    assert chunks[0].choices[0].delta.role == "assistant"
    [finish] = [c for c in chunks if c.choices and c.choices[0].finish_reason]
    assert finish.choices[0].finish_reason == "stop"
    assert lexgate_of(finish)["state"] == "passed_after_rerun"
    assert chunks[-1].usage is not None and not chunks[-1].choices
    assert all(r.json["stream"] is True for r in gateway.upstream.requests)
    assert len(gateway.upstream.requests) == 2


UPSTREAM_FAILURES = [
    ("timeout", Reply.hang(5.0, GOOD), 504, "upstream_timeout"),
    ("http500", Reply.error(500, message=f"boom {UPSTREAM_KEY}"), 502, "upstream_error"),
    ("garbage", Reply.raw(f"<html>oops {UPSTREAM_KEY}"), 502, "upstream_invalid_reply"),
    ("no choices", Reply.json({"id": "x", "choices": []}), 502, "upstream_invalid_reply"),
    ("dropped", Reply.drop(), 502, "upstream_error"),
    ("cut stream", Reply.raw('data: {"choices": [{"index": 0, "delta": {"content": "依照"}}]}\n\n',
                             content_type="text/event-stream"), 502, "upstream_invalid_reply"),
]  # fmt: skip


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize(
    ("reply", "status", "code"),
    [failure[1:] for failure in UPSTREAM_FAILURES],
    ids=[failure[0] for failure in UPSTREAM_FAILURES],
)
def test_an_upstream_failure_is_an_openai_error_never_half_an_answer(
    impatient_gateway: Gateway, reply: Reply, status: int, code: str, stream: bool
) -> None:
    """Timeouts, 5xx, garbage, dropped connections, cut streams: an OpenAI-style error with
    the upstream key blanked out, no answer text, nothing recorded."""
    gateway = impatient_gateway
    gateway.upstream.clear()
    gateway.upstream.script(reply)
    with pytest.raises(openai.APIStatusError) as caught:
        result = gateway.client().chat.completions.create(
            model="any-model", messages=MESSAGES, stream=stream
        )
        list(result) if stream else None  # type: ignore[call-overload]
    response = caught.value.response
    assert response.status_code == status
    error = response.json()["error"]
    assert error["code"] == code and error["type"] == "upstream_error"
    assert UPSTREAM_KEY not in response.text
    assert "依照" not in response.text and "oops" not in response.text
    assert len(gateway.upstream.requests) == 1
    assert gateway.cases() == []


def test_a_wrong_gateway_key_is_401_and_reaches_no_upstream(gateway: Gateway) -> None:
    """An unknown key: AuthenticationError with code invalid_api_key; the upstream is not asked."""
    with pytest.raises(openai.AuthenticationError) as caught:
        gateway.client("lgk_000000000000_wrong").chat.completions.create(
            model="any-model", messages=MESSAGES
        )
    assert caught.value.response.json()["error"]["code"] == "invalid_api_key"
    with pytest.raises(openai.AuthenticationError):
        gateway.client(UPSTREAM_KEY).models.list()  # the upstream's key is not a gateway key
    assert gateway.upstream.requests == []


def test_the_models_are_the_mapped_names(start_gateway: StartGateway) -> None:
    """LEXGATE_GATEWAY_MODELS: the app sees its names, the upstream gets its own; an unmapped
    name is 404 model_not_found."""
    gateway = start_gateway(models={"legal-qa": "scripted-large"})
    assert [m.id for m in gateway.client().models.list()] == ["legal-qa"]
    gateway.upstream.script(Reply.chat(GOOD))
    completion = gateway.client().chat.completions.create(model="legal-qa", messages=MESSAGES)
    assert completion.model == "legal-qa"
    assert gateway.upstream.requests[-1].json["model"] == "scripted-large"
    with pytest.raises(openai.NotFoundError) as caught:
        gateway.client().chat.completions.create(model="gpt-x", messages=MESSAGES)
    assert caught.value.response.json()["error"]["param"] == "model"


def test_without_a_mapping_the_models_are_the_upstreams(gateway: Gateway) -> None:
    """No mapping: GET /v1/models relays the upstream's list (with the upstream key)."""
    assert [m.id for m in gateway.client().models.list()] == list(MODEL_IDS)
    assert gateway.upstream.requests[-1].headers["authorization"] == f"Bearer {UPSTREAM_KEY}"


def test_a_malformed_request_is_400_in_the_openai_shape(gateway: Gateway) -> None:
    """No messages: 400 invalid_request_error naming the field (httpx: the client validates)."""
    response = httpx.post(
        f"{gateway.url}/chat/completions",
        json={"model": "m", "messages": []},
        headers={"Authorization": f"Bearer {gateway.key}"},
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["type"], error["param"]) == ("invalid_request_error", "messages")
