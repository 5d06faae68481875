"""The language model over HTTP: an OpenAI-compatible client, as regenerator and as judge.

`OpenAIRegenerator` POSTs to {base_url}/chat/completions over httpx and is the gate's
`Regenerator`; `OpenAIJudge` asks it the judge's one-token question (`gate.judge.Judge`).
Retries (tenacity) cover 429, 5xx, timeouts and connection errors, with exponential backoff
(jittered) or the server's Retry-After; other 4xx are never retried; every failure is a
`RegeneratorError`. The API key is sent as a Bearer header and nowhere else: not in logs,
exception messages or reprs.
"""

from __future__ import annotations

import email.utils
import itertools
import logging
import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from functools import partial
from typing import Any, Self

import httpx
from pydantic import SecretStr
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

from gate.errors import (
    EmptyContentError,
    InvalidReplyError,
    JudgeReplyError,
    JudgeUnavailableError,
    MissingLogprobsError,
    RegeneratorConfigError,
    RegeneratorConnectionError,
    RegeneratorError,
    RegeneratorHTTPError,
    RegeneratorTimeoutError,
    RegeneratorUnavailableError,
)
from gate.judge import judgement_of, option_probabilities, prompt
from gate.models import (
    ChatMessage,
    Completion,
    FirstTokenLogprobs,
    Judgement,
    JudgeQuestion,
    RerunRequest,
    TokenLogprob,
)
from lexgate.client_options import MAX_TOP_LOGPROBS, MIN_TOP_LOGPROBS, ClientOptions

logger = logging.getLogger(__name__)


_EXCERPT_CHARS = 200
_REDACTED = "[redacted]"


def is_retryable_status(status_code: int) -> bool:
    """429 (rate limited) and 5xx are worth retrying; other statuses are not."""
    return status_code == 429 or 500 <= status_code <= 599


def backoff_delay(retry_index: int, base_s: float, max_s: float, rng: random.Random) -> float:
    """Delay before retry number retry_index (0 = first retry): base·2ⁿ capped, jittered.

    The jitter draws the delay between half and all of the capped value, so clients that
    failed together do not retry together.
    """
    ceiling = min(max_s, base_s * 2.0 ** min(retry_index, 62))
    return ceiling * rng.uniform(0.5, 1.0)


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delay-seconds or HTTP-date); None if unusable."""
    if value is None:
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - (now or datetime.now(UTC))).total_seconds()
    if not math.isfinite(seconds):
        return None
    return max(seconds, 0.0)


class OpenAIRegenerator:
    """A chat-completions client for any OpenAI-compatible server (OpenAI, vLLM, llama.cpp...)."""

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: SecretStr | None = None,
        options: ClientOptions | None = None,
        rng: random.Random | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        url = _checked_base_url(base_url)
        if not model.strip():
            raise RegeneratorConfigError("the model name is empty")
        self.base_url = str(url).rstrip("/")
        self.model = model
        self._api_key = api_key
        self.options = options or ClientOptions()
        self._rng = rng or random.Random()
        self._sleep = sleep
        self._endpoint = f"{self.base_url}/chat/completions"
        self._client = httpx.Client(
            timeout=httpx.Timeout(self.options.timeout_s), follow_redirects=False
        )

    def __repr__(self) -> str:
        key = "set" if self._api_key is not None else "none"
        return f"OpenAIRegenerator(base_url={self.base_url!r}, model={self.model!r}, api_key={key})"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the pooled HTTP connections."""
        self._client.close()

    def regenerate(self, request: RerunRequest) -> str:
        """The model's answer to the rerun request's messages."""
        context = f"session {request.session_id} attempt {request.attempt}"
        return self.complete(request.messages, context=context).content

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        logprobs: bool = False,
        top_logprobs: int | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        context: str = "completion",
    ) -> Completion:
        """One chat completion, parsed; with logprobs, those of the first token are included.

        top_logprobs (0-20 alternatives) implies logprobs. context names the call in log lines.
        Raises RegeneratorError (a subclass naming the cause) on any failure.
        """
        if top_logprobs is not None and not 0 <= top_logprobs <= MAX_TOP_LOGPROBS:
            raise ValueError(f"top_logprobs must be 0..{MAX_TOP_LOGPROBS}, not {top_logprobs}")
        want_logprobs = logprobs or top_logprobs is not None
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [message.model_dump() for message in messages],
        }
        if want_logprobs:
            body["logprobs"] = True
        if top_logprobs is not None:
            body["top_logprobs"] = top_logprobs
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        if temperature is not None:
            body["temperature"] = temperature
        response = self._post(body, context)
        try:
            payload = response.json()
        except ValueError:
            raise InvalidReplyError(
                f"{context}: the reply is not JSON: {self._excerpt(response.text)!r}"
            ) from None
        try:
            return parse_completion(payload, want_logprobs=want_logprobs)
        except InvalidReplyError as exc:
            raise type(exc)(f"{context}: {self._redact(str(exc))}") from None

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if self._api_key is not None:
            headers["Authorization"] = f"Bearer {self._api_key.get_secret_value()}"
        return headers

    def _redact(self, text: str) -> str:
        """text with the API key blanked out (servers may echo it in error messages)."""
        secret = self._api_key.get_secret_value() if self._api_key is not None else ""
        return text.replace(secret, _REDACTED) if secret else text

    def _excerpt(self, text: str) -> str:
        """A short excerpt of server text for messages, with the API key blanked out."""
        return self._redact(text)[:_EXCERPT_CHARS]

    def _post(self, body: dict[str, Any], context: str) -> httpx.Response:
        """POST with retries; the first 2xx response, else a RegeneratorError."""
        attempts = self.options.max_retries + 1
        numbers = itertools.count(1)
        retrying = Retrying(
            stop=stop_after_attempt(attempts),
            retry=retry_if_exception(_is_retryable),
            wait=self._delay,
            sleep=self._sleep,
            before_sleep=partial(self._log_retry, context),
            reraise=True,
        )
        return retrying(lambda: self._post_once(body, context, next(numbers), attempts))

    def _post_once(
        self, body: dict[str, Any], context: str, attempt: int, attempts: int
    ) -> httpx.Response:
        """One POST: the 2xx response, else the RegeneratorError it amounts to (retryable ones
        carry the server's Retry-After)."""
        try:
            response = self._client.post(self._endpoint, json=body, headers=self._headers())
        except httpx.TimeoutException as exc:
            reason = f"no reply within {self.options.timeout_s:g} s ({type(exc).__name__})"
            raise RegeneratorTimeoutError(
                f"{context}: {reason} after {attempt} attempt(s)", attempts=attempt
            ) from None
        except httpx.TransportError as exc:
            reason = f"connection failed ({type(exc).__name__}: {self._excerpt(str(exc))})"
            raise RegeneratorConnectionError(
                f"{context}: {reason} after {attempt} attempt(s)", attempts=attempt
            ) from None
        except httpx.HTTPError as exc:
            raise InvalidReplyError(
                f"{context}: unusable reply ({type(exc).__name__}: {self._excerpt(str(exc))})"
            ) from None
        if response.is_success:
            return response
        status = response.status_code
        detail = self._error_detail(response)
        if not is_retryable_status(status):
            raise RegeneratorHTTPError(
                f"{context}: HTTP {status} from {self._endpoint} (not retried): {detail}",
                status_code=status,
                attempts=attempt,
            )
        reason = f"HTTP {status}: {detail}"
        retry_after = parse_retry_after(response.headers.get("Retry-After"))
        if attempt < attempts and (retry_after or 0.0) > self.options.max_retry_after_s:
            raise RegeneratorHTTPError(
                f"{context}: {reason}; the server asks to retry after {retry_after:g} s, "
                f"more than the {self.options.max_retry_after_s:g} s allowed",
                status_code=status,
                attempts=attempt,
            )
        raise _RetryableHTTPError(
            f"{context}: {reason} after {attempt} attempt(s)",
            status_code=status,
            attempts=attempt,
            retry_after=retry_after,
        )

    def _delay(self, state: RetryCallState) -> float:
        """The server's Retry-After when it gave one, else the jittered backoff."""
        failure = state.outcome.exception() if state.outcome is not None else None
        if isinstance(failure, _RetryableHTTPError) and failure.retry_after is not None:
            return failure.retry_after
        return backoff_delay(
            state.attempt_number - 1, self.options.backoff_s, self.options.backoff_max_s, self._rng
        )

    def _log_retry(self, context: str, state: RetryCallState) -> None:
        failure = state.outcome.exception() if state.outcome is not None else None
        reason = str(failure).removeprefix(f"{context}: ").split(" after ")[0]
        delay = state.next_action.sleep if state.next_action is not None else 0.0
        logger.warning(
            "%s: %s; retry %d of %d in %.2f s",
            context,
            reason,
            state.attempt_number,
            self.options.max_retries,
            delay,
        )

    def _error_detail(self, response: httpx.Response) -> str:
        """The server's error message (error.message of an OpenAI error body) or a text excerpt."""
        try:
            text = response.text
        except (UnicodeDecodeError, httpx.HTTPError):
            return "(undecodable body)"
        try:
            payload = response.json()
        except ValueError:
            payload = None
        if isinstance(payload, Mapping):
            error = payload.get("error")
            if isinstance(error, Mapping) and isinstance(error.get("message"), str):
                return repr(self._excerpt(error["message"]))
            if isinstance(error, str):
                return repr(self._excerpt(error))
        return repr(self._excerpt(text)) if text else "(empty body)"


class _RetryableHTTPError(RegeneratorHTTPError):
    """A 429 or 5xx reply, worth another attempt (after retry_after seconds, when given)."""

    def __init__(
        self, message: str, *, status_code: int, attempts: int, retry_after: float | None
    ) -> None:
        super().__init__(message, status_code=status_code, attempts=attempts)
        self.retry_after = retry_after


def _is_retryable(error: BaseException) -> bool:
    return isinstance(error, RegeneratorUnavailableError | _RetryableHTTPError)


def _checked_base_url(base_url: str) -> httpx.URL:
    try:
        url = httpx.URL(base_url.strip())
    except (httpx.InvalidURL, TypeError) as exc:
        raise RegeneratorConfigError(f"invalid base URL: {exc}") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise RegeneratorConfigError(
            f"the base URL must be http(s)://host[/path], not {str(url.copy_with(userinfo=b''))!r}"
        )
    return url


def parse_completion(payload: object, *, want_logprobs: bool) -> Completion:
    """A `Completion` from a decoded chat-completions reply; InvalidReplyError naming the flaw."""
    if not isinstance(payload, Mapping):
        raise InvalidReplyError(f"the reply is a JSON {type(payload).__name__}, not an object")
    if "error" in payload and "choices" not in payload:
        raise InvalidReplyError(f"the reply carries an error: {str(payload['error'])[:200]!r}")
    choices = payload.get("choices")
    if not isinstance(choices, list) or not choices:
        raise InvalidReplyError("the reply has no choices")
    choice = choices[0]
    if not isinstance(choice, Mapping):
        raise InvalidReplyError("the reply's first choice is not an object")
    message = choice.get("message")
    if not isinstance(message, Mapping):
        raise InvalidReplyError("the reply's first choice has no message")
    content = _message_text(message)
    finish_reason = choice.get("finish_reason")
    finish_reason = finish_reason if isinstance(finish_reason, str) else None
    if not content.strip():
        raise EmptyContentError(
            f"the reply's content is empty (finish_reason={finish_reason or 'none'})"
        )
    model = payload.get("model")
    return Completion(
        content=content,
        model=model if isinstance(model, str) else None,
        finish_reason=finish_reason,
        first_token_logprobs=_first_token_logprobs(choice) if want_logprobs else None,
    )


def _message_text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}, ...]
        texts = [part.get("text") for part in content if isinstance(part, Mapping)]
        return "".join(text for text in texts if isinstance(text, str))
    refusal = message.get("refusal")
    if isinstance(refusal, str) and refusal:
        raise InvalidReplyError(f"the model refused: {refusal[:200]!r}")
    if content is None:
        raise InvalidReplyError("the reply's message has no content")
    raise InvalidReplyError(f"the reply's content is a {type(content).__name__}, not text")


def _first_token_logprobs(choice: Mapping[str, Any]) -> FirstTokenLogprobs:
    logprobs = choice.get("logprobs")
    tokens = logprobs.get("content") if isinstance(logprobs, Mapping) else None
    if not isinstance(tokens, list) or not tokens:
        raise MissingLogprobsError("logprobs were asked for and the reply has none")
    first = _token_logprob(tokens[0], "the first token's logprob")
    raw_top = tokens[0].get("top_logprobs") or []
    if not isinstance(raw_top, list):
        raise InvalidReplyError("top_logprobs of the first token is not a list")
    top = sorted(
        (_token_logprob(item, "a top_logprobs entry") for item in raw_top),
        key=lambda candidate: candidate.logprob,
        reverse=True,
    )
    return FirstTokenLogprobs(token=first.token, logprob=first.logprob, top=tuple(top))


def _token_logprob(item: object, what: str) -> TokenLogprob:
    if not isinstance(item, Mapping):
        raise InvalidReplyError(f"{what} is not an object")
    token, logprob = item.get("token"), item.get("logprob")
    if not isinstance(token, str):
        raise InvalidReplyError(f"{what} has no token")
    if isinstance(logprob, bool) or not isinstance(logprob, int | float) or math.isnan(logprob):
        raise InvalidReplyError(f"{what} has no numeric logprob")
    return TokenLogprob(token=token, logprob=float(logprob))


class OpenAIJudge:
    """The judge on an OpenAI-compatible endpoint: one token, max_tokens=1, with logprobs."""

    def __init__(self, client: OpenAIRegenerator, *, top_logprobs: int = 10) -> None:
        if not MIN_TOP_LOGPROBS <= top_logprobs <= MAX_TOP_LOGPROBS:
            raise ValueError(
                f"top_logprobs must be {MIN_TOP_LOGPROBS}..{MAX_TOP_LOGPROBS}, not {top_logprobs}"
            )
        self.client = client
        self.top_logprobs = top_logprobs

    def __repr__(self) -> str:
        return f"OpenAIJudge({self.client!r}, top_logprobs={self.top_logprobs})"

    def close(self) -> None:
        """Close the client's connections."""
        self.client.close()

    def judge(self, question: JudgeQuestion) -> Judgement:
        """Ask the model; the options' probabilities from the first token's top logprobs."""
        try:
            completion = self.client.complete(
                prompt(question),
                logprobs=True,
                top_logprobs=self.top_logprobs,
                max_tokens=1,
                temperature=0.0,
                context=f"judge {question.provision}",
            )
        except RegeneratorError as exc:
            raise JudgeUnavailableError(f"the judge is unavailable: {exc}") from None
        first = completion.first_token_logprobs
        if first is None:  # pragma: no cover - complete() raises MissingLogprobsError instead
            raise JudgeReplyError("the judge's reply has no logprobs")
        chosen = TokenLogprob(token=first.token, logprob=first.logprob)
        probabilities = option_probabilities((chosen, *first.top))
        return judgement_of(probabilities, model=completion.model)


__all__ = [
    "MAX_TOP_LOGPROBS",
    "MIN_TOP_LOGPROBS",
    "ClientOptions",
    "OpenAIJudge",
    "OpenAIRegenerator",
    "backoff_delay",
    "is_retryable_status",
    "parse_completion",
    "parse_retry_after",
]
