"""The OpenAI-compatible rerun client against a real chat-completions server on loopback."""

from __future__ import annotations

import logging
import random
import re
import time
import traceback
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from pydantic import ValidationError

from gate.errors import (
    EmptyContentError,
    InvalidReplyError,
    MissingLogprobsError,
    RegeneratorConfigError,
    RegeneratorConnectionError,
    RegeneratorError,
    RegeneratorHTTPError,
    RegeneratorTimeoutError,
)
from gate.models import ChatMessage, RerunRequest
from gate.regenerator import Regenerator
from lexgate.factories import regenerator_from_settings
from lexgate.llm import (
    OpenAIRegenerator,
    backoff_delay,
    is_retryable_status,
    parse_retry_after,
)
from lexgate.settings import Settings
from tests.llm_server import CHAT_PATH, LLMServer, Reply
from tests.strategies import chat_messages

API_KEY = "sk-test-9f8e7d6c5b4a-SECRET"
MODEL = "scripted-model"
REPO_ROOT = Path(__file__).resolve().parents[2]

REQUEST = RerunRequest.model_validate(
    {
        "messages": [
            {"role": "system", "content": "你是法律助手。"},
            {"role": "user", "content": "离婚时夫妻共同财产如何分割？"},
            {"role": "assistant", "content": "依据《民法典》第一千二百八十九条……"},
            {
                "role": "user",
                "content": "请修改答案。《中华人民共和国民法典》第一条至第一千二百六十条。",
            },
        ],
        "session_id": "session-1",
        "attempt": 2,
    }
)


def make_settings(base_url: str, **overrides: Any) -> Settings:
    """Settings for a client with tiny backoff, so retry tests stay fast."""
    values: dict[str, Any] = {
        "llm_base_url": base_url,
        "llm_model": MODEL,
        "llm_api_key": API_KEY,
        "llm_timeout_s": 5.0,
        "llm_max_retries": 2,
        "llm_backoff_s": 0.001,
        "llm_backoff_max_s": 0.01,
        "llm_max_retry_after_s": 5.0,
    }
    values.update(overrides)
    return Settings(**values)


@pytest.fixture
def client_for() -> Iterator[Any]:
    """Build clients from settings and close them after the test."""
    clients: list[OpenAIRegenerator] = []

    def build(base_url: str, **overrides: Any) -> OpenAIRegenerator:
        client = regenerator_from_settings(make_settings(base_url, **overrides))
        clients.append(client)
        return client

    yield build
    for client in clients:
        client.close()


def test_happy_path_sends_messages_model_and_bearer_key(
    llm_server: LLMServer, client_for: Any
) -> None:
    llm_server.script(
        Reply.chat("依据《民法典》第一千零八十七条，离婚时夫妻的共同财产由双方协议处理。")
    )
    client = client_for(llm_server.base_url)

    answer = client.regenerate(REQUEST)

    assert isinstance(client, Regenerator)
    assert answer == "依据《民法典》第一千零八十七条，离婚时夫妻的共同财产由双方协议处理。"
    [received] = llm_server.requests
    assert (received.method, received.path) == ("POST", CHAT_PATH)
    assert received.headers["authorization"] == f"Bearer {API_KEY}"
    assert received.headers["content-type"] == "application/json"
    assert received.json == {
        "model": MODEL,
        "messages": [message.model_dump() for message in REQUEST.messages],
    }


def test_no_key_configured_sends_no_authorization_header(
    llm_server: LLMServer, client_for: Any
) -> None:
    llm_server.script(Reply.chat("答案"))
    client = client_for(llm_server.base_url, llm_api_key=None)

    assert client.regenerate(REQUEST) == "答案"
    assert "authorization" not in llm_server.requests[0].headers


@pytest.mark.parametrize("status", [500, 502, 503, 504, 429], ids=lambda s: f"http{s}")
def test_retryable_status_then_success_is_retried(
    llm_server: LLMServer, client_for: Any, status: int
) -> None:
    llm_server.script(Reply.error(status), Reply.chat("第二次的答案"))
    client = client_for(llm_server.base_url)

    assert client.regenerate(REQUEST) == "第二次的答案"
    first, second = llm_server.requests
    assert first.body == second.body


def test_retry_after_is_honoured(llm_server: LLMServer, client_for: Any) -> None:
    llm_server.script(Reply.error(429, retry_after="1"), Reply.chat("限流之后的答案"))
    client = client_for(llm_server.base_url)  # backoff alone would wait at most 0.01 s

    assert client.regenerate(REQUEST) == "限流之后的答案"
    first, second = llm_server.requests
    assert second.received_at - first.received_at >= 0.95


def test_retry_after_longer_than_allowed_fails_at_once(
    llm_server: LLMServer, client_for: Any
) -> None:
    llm_server.script(Reply.error(429, retry_after="120"), Reply.chat("never sent"))
    client = client_for(llm_server.base_url, llm_max_retry_after_s=5.0)

    started = time.monotonic()
    with pytest.raises(RegeneratorHTTPError, match="retry after 120 s") as caught:
        client.regenerate(REQUEST)

    assert time.monotonic() - started < 5.0
    assert caught.value.status_code == 429
    assert len(llm_server.requests) == 1


@pytest.mark.parametrize("max_retries", [0, 1, 3], ids=lambda n: f"retries{n}")
def test_always_500_fails_after_max_retries(
    llm_server: LLMServer, client_for: Any, max_retries: int
) -> None:
    llm_server.script(then=Reply.error(500, message="upstream overloaded"))
    client = client_for(llm_server.base_url, llm_max_retries=max_retries)

    with pytest.raises(RegeneratorHTTPError, match="upstream overloaded") as caught:
        client.regenerate(REQUEST)

    assert caught.value.status_code == 500
    assert caught.value.attempts == max_retries + 1
    assert len(llm_server.requests) == max_retries + 1


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422], ids=lambda s: f"http{s}")
def test_other_4xx_is_not_retried(llm_server: LLMServer, client_for: Any, status: int) -> None:
    llm_server.script(Reply.error(status, message="bad request body"), then=Reply.chat("later"))
    client = client_for(llm_server.base_url, llm_max_retries=3)

    with pytest.raises(RegeneratorHTTPError, match="bad request body") as caught:
        client.regenerate(REQUEST)

    assert caught.value.status_code == status
    assert caught.value.attempts == 1
    assert len(llm_server.requests) == 1


def test_timeout_on_every_attempt_raises_timeout_error(
    llm_server: LLMServer, client_for: Any
) -> None:
    llm_server.script(then=Reply.hang(3.0))
    client = client_for(llm_server.base_url, llm_timeout_s=0.3, llm_max_retries=1)

    started = time.monotonic()
    with pytest.raises(RegeneratorTimeoutError, match=r"no reply within 0\.3 s") as caught:
        client.regenerate(REQUEST)

    assert time.monotonic() - started < 2.5  # two 0.3 s timeouts, never the 3 s delay
    assert caught.value.attempts == 2
    assert len(llm_server.requests) == 2


def test_timeout_then_success_is_retried(llm_server: LLMServer, client_for: Any) -> None:
    llm_server.script(Reply.hang(3.0), Reply.chat("及时的答案"))
    client = client_for(llm_server.base_url, llm_timeout_s=0.3)

    assert client.regenerate(REQUEST) == "及时的答案"
    assert len(llm_server.requests) == 2


def test_server_down_raises_connection_error(llm_down_url: str, client_for: Any) -> None:
    client = client_for(llm_down_url, llm_max_retries=2)

    with pytest.raises(RegeneratorConnectionError, match="connection failed") as caught:
        client.regenerate(REQUEST)

    assert caught.value.attempts == 3


def test_dropped_connection_then_success_is_retried(llm_server: LLMServer, client_for: Any) -> None:
    llm_server.script(Reply.drop(), Reply.chat("重连后的答案"))
    client = client_for(llm_server.base_url)

    assert client.regenerate(REQUEST) == "重连后的答案"
    assert len(llm_server.requests) == 2


def test_dropped_connection_every_time_raises_connection_error(
    llm_server: LLMServer, client_for: Any
) -> None:
    llm_server.script(then=Reply.drop())
    client = client_for(llm_server.base_url, llm_max_retries=1)

    with pytest.raises(RegeneratorConnectionError):
        client.regenerate(REQUEST)
    assert len(llm_server.requests) == 2


def _choice(message: dict[str, Any]) -> dict[str, Any]:
    return {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}


UNUSABLE_REPLIES = [
    ("not-json", Reply.raw("<html>502 Bad Gateway</html>", content_type="text/html"),
     InvalidReplyError, "not JSON"),
    ("truncated-json", Reply.raw('{"choices": [{"message": {"content": "半'),
     InvalidReplyError, "not JSON"),
    ("not-utf8", Reply.raw(b"\xff\xfe\x00garbage"), InvalidReplyError, "not JSON"),
    ("empty-body", Reply.raw(b""), InvalidReplyError, "not JSON"),
    ("json-list", Reply.json([1, 2]), InvalidReplyError, "not an object"),
    ("error-object", Reply.json({"error": {"message": "quota"}}), InvalidReplyError,
     "carries an error"),
    ("no-choices-key", Reply.json({"id": "x"}), InvalidReplyError, "no choices"),
    ("empty-choices", Reply.json({"choices": []}), InvalidReplyError, "no choices"),
    ("choice-not-object", Reply.json({"choices": ["text"]}), InvalidReplyError,
     "first choice is not an object"),
    ("no-message", Reply.json({"choices": [{"index": 0}]}), InvalidReplyError, "no message"),
    ("null-content", Reply.json(_choice({"role": "assistant", "content": None})),
     InvalidReplyError, "no content"),
    ("numeric-content", Reply.json(_choice({"role": "assistant", "content": 42})),
     InvalidReplyError, "content is a int"),
    ("refusal", Reply.json(_choice({"role": "assistant", "content": None, "refusal": "不能回答"})),
     InvalidReplyError, "refused"),
    ("empty-content", Reply.chat(""), EmptyContentError, "content is empty"),
    ("blank-content", Reply.chat(" \n\u3000 "), EmptyContentError, "content is empty"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("reply", "error", "fragment"),
    [case[1:] for case in UNUSABLE_REPLIES],
    ids=[case[0] for case in UNUSABLE_REPLIES],
)
def test_unusable_reply_raises_named_error_without_retry(
    llm_server: LLMServer,
    client_for: Any,
    reply: Reply,
    error: type[RegeneratorError],
    fragment: str,
) -> None:
    llm_server.script(reply, then=Reply.chat("should not be asked"))
    client = client_for(llm_server.base_url)

    with pytest.raises(error, match=fragment):
        client.regenerate(REQUEST)
    assert len(llm_server.requests) == 1


def test_content_parts_are_joined(llm_server: LLMServer, client_for: Any) -> None:
    parts = [
        {"type": "text", "text": "依据第一千零八十七条，"},
        {"type": "text", "text": "协议处理。"},
    ]
    llm_server.script(Reply.json(_choice({"role": "assistant", "content": parts})))
    client = client_for(llm_server.base_url)

    assert client.regenerate(REQUEST) == "依据第一千零八十七条，协议处理。"


def test_logprobs_of_first_token_are_parsed(llm_server: LLMServer, client_for: Any) -> None:
    scripted = {"B": -2.3, "A": -0.15, "D": -6.0, "C": -3.1}
    llm_server.script(Reply.chat("A", top_logprobs=scripted))
    client = client_for(llm_server.base_url)
    question = [ChatMessage(role="user", content="该条文是否支持该结论？A 支持 B 相反 C 无关")]

    completion = client.complete(question, logprobs=True, top_logprobs=3, max_tokens=1)

    sent = llm_server.requests[0].json
    assert (sent["logprobs"], sent["top_logprobs"], sent["max_tokens"]) == (True, 3, 1)
    assert completion.content == "A"
    assert completion.model == MODEL
    assert completion.finish_reason == "stop"
    first = completion.first_token_logprobs
    assert first is not None
    assert (first.token, first.logprob) == ("A", -0.15)
    assert [(c.token, c.logprob) for c in first.top] == [("A", -0.15), ("B", -2.3), ("C", -3.1)]


def test_logprobs_not_asked_are_neither_sent_nor_parsed(
    llm_server: LLMServer, client_for: Any
) -> None:
    llm_server.script(Reply.chat("A", top_logprobs={"A": -0.1}))
    client = client_for(llm_server.base_url)

    completion = client.complete([ChatMessage(role="user", content="问")])

    assert completion.first_token_logprobs is None
    assert "logprobs" not in llm_server.requests[0].json


@pytest.mark.parametrize(
    ("logprobs", "error", "fragment"),
    [
        (None, MissingLogprobsError, "has none"),
        ({"content": []}, MissingLogprobsError, "has none"),
        ({"content": [{"token": "A"}]}, InvalidReplyError, "no numeric logprob"),
        ({"content": [{"logprob": -0.1}]}, InvalidReplyError, "has no token"),
        (
            {"content": [{"token": "A", "logprob": -0.1, "top_logprobs": [{"token": "B"}]}]},
            InvalidReplyError,
            "top_logprobs entry has no numeric logprob",
        ),
    ],
    ids=["null", "empty", "no-logprob", "no-token", "bad-top-entry"],
)
def test_missing_or_malformed_logprobs_raise(
    llm_server: LLMServer,
    client_for: Any,
    logprobs: Any,
    error: type[RegeneratorError],
    fragment: str,
) -> None:
    body = _choice({"role": "assistant", "content": "A"})
    body["choices"][0]["logprobs"] = logprobs
    llm_server.script(Reply.json(body))
    client = client_for(llm_server.base_url)

    with pytest.raises(error, match=fragment):
        client.complete([ChatMessage(role="user", content="问")], logprobs=True, top_logprobs=2)


def test_api_key_never_appears_in_errors_reprs_or_logs(
    llm_server: LLMServer, client_for: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """The key goes out as a Bearer header, and nowhere else, even when the server echoes it."""
    echoed = f"Incorrect API key provided: {API_KEY}"
    llm_server.script(Reply.error(503, message=echoed), Reply.error(401, message=echoed))
    settings = make_settings(llm_server.base_url)
    client = client_for(llm_server.base_url)
    caplog.set_level(logging.DEBUG)

    with pytest.raises(RegeneratorHTTPError) as caught:
        client.regenerate(REQUEST)

    assert [r.headers["authorization"] for r in llm_server.requests] == [f"Bearer {API_KEY}"] * 2
    assert "Incorrect API key provided: [redacted]" in str(caught.value)
    texts = [
        str(caught.value),
        repr(caught.value),
        "".join(traceback.format_exception(caught.value)),
        repr(client),
        repr(settings),
        str(settings.model_dump()),
        caplog.text,
    ]
    assert "retry 1 of 2" in caplog.text
    assert not [text for text in texts if API_KEY in text]


def test_api_key_echoed_in_a_200_error_body_is_redacted(
    llm_server: LLMServer, client_for: Any
) -> None:
    llm_server.script(Reply.json({"error": f"bad key {API_KEY}"}))
    client = client_for(llm_server.base_url)

    with pytest.raises(InvalidReplyError, match="carries an error") as caught:
        client.regenerate(REQUEST)

    assert "session session-1 attempt 2" in str(caught.value)
    assert API_KEY not in "".join(traceback.format_exception(caught.value))


@pytest.mark.parametrize(
    ("overrides", "fragment"),
    [
        ({"llm_base_url": None}, "no language model configured"),
        ({"llm_model": None}, "no language model configured"),
        ({"llm_base_url": "ftp://example.org/v1"}, "must be http"),
        ({"llm_base_url": "localhost:8000"}, "must be http"),
        ({"llm_base_url": "http://"}, "base URL"),
        ({"llm_model": "  "}, "model name is empty"),
    ],
    ids=["no-url", "no-model", "ftp", "no-scheme", "no-host", "blank-model"],
)
def test_unusable_configuration_raises_config_error(
    overrides: dict[str, Any], fragment: str
) -> None:
    with pytest.raises(RegeneratorConfigError, match=fragment):
        regenerator_from_settings(make_settings("http://127.0.0.1:9/v1", **overrides))


@pytest.mark.parametrize(
    "base_url_suffix", ["/v1", "/v1/"], ids=["no-trailing-slash", "trailing-slash"]
)
def test_base_url_is_joined_with_chat_completions(
    llm_server: LLMServer, client_for: Any, base_url_suffix: str
) -> None:
    llm_server.script(Reply.chat("答"))
    client = client_for(f"http://127.0.0.1:{llm_server.port}{base_url_suffix}")

    client.regenerate(REQUEST)
    assert llm_server.requests[0].path == CHAT_PATH


@given(messages=chat_messages)
@hypothesis_settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_messages_are_sent_verbatim(
    llm_server: LLMServer, client_for: Any, messages: list[dict[str, str]]
) -> None:
    """Any message list, in any Unicode, reaches the server exactly as given, in order."""
    llm_server.clear()
    llm_server.script(Reply.chat("答"))
    client = client_for(llm_server.base_url)

    request = {"messages": messages, "session_id": "s", "attempt": 1}
    client.regenerate(RerunRequest.model_validate(request))
    assert llm_server.requests[0].json["messages"] == messages


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, None),
        ("1", 1.0),
        (" 2.5 ", 2.5),
        ("0", 0.0),
        ("-3", 0.0),
        ("soon", None),
        ("inf", None),
        ("nan", None),
        ("Wed, 01 Jan 2025 00:00:30 GMT", 30.0),
        ("Tue, 31 Dec 2024 23:59:00 GMT", 0.0),
    ],
    ids=["absent", "int", "float", "zero", "negative", "word", "inf", "nan", "date", "past-date"],
)
def test_parse_retry_after(header: str | None, expected: float | None) -> None:
    now = datetime(2025, 1, 1, tzinfo=UTC)
    assert parse_retry_after(header, now=now) == expected


@pytest.mark.parametrize(
    ("status", "retryable"),
    [(200, False), (400, False), (401, False), (408, False), (429, True), (500, True),
     (503, True), (599, True), (600, False)],
    ids=lambda value: str(value),
)  # fmt: skip
def test_is_retryable_status(status: int, retryable: bool) -> None:
    assert is_retryable_status(status) is retryable


@given(
    retry_index=st.integers(min_value=0, max_value=200),
    base_s=st.floats(min_value=0, max_value=10),
    max_s=st.floats(min_value=0, max_value=60),
    seed=st.integers(),
)
def test_backoff_delay_is_jittered_exponential_and_capped(
    retry_index: int, base_s: float, max_s: float, seed: int
) -> None:
    """The delay lies between half and all of min(max_s, base_s·2ⁿ)."""
    ceiling = min(max_s, base_s * 2.0 ** min(retry_index, 62))
    delay = backoff_delay(retry_index, base_s, max_s, random.Random(seed))
    assert ceiling / 2 <= delay <= ceiling


def test_every_llm_setting_is_documented() -> None:
    documented = (REPO_ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    names = [name for name in Settings.model_fields if name.startswith("llm_")]
    assert len(names) >= 6
    missing = [n for n in names if not re.search(rf"\bLEXGATE_{n.upper()}\b", documented)]
    assert missing == []


@pytest.mark.parametrize(
    "fields",
    [
        {"messages": [], "session_id": "s", "attempt": 1},
        {"messages": [{"role": "tool", "content": "x"}], "session_id": "s", "attempt": 1},
        {"messages": [{"role": "user", "content": "x"}], "session_id": "", "attempt": 1},
        {"messages": [{"role": "user", "content": "x"}], "session_id": "s", "attempt": 0},
    ],
    ids=["no-messages", "unknown-role", "empty-session", "attempt-zero"],
)
def test_rerun_request_rejects_malformed_fields(fields: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        RerunRequest.model_validate(fields)
