"""The model judge against a real chat-completions server on loopback with scripted logprobs."""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import date

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings

from gate import assess_answer
from gate.decide import assess
from gate.errors import JudgeReplyError, JudgeUnavailableError
from gate.judge import (
    option_probabilities,
    prompt,
)
from gate.models import JudgeQuestion, TokenLogprob
from legaldb import StatuteRepository
from lexgate.factories import judge_client_from_settings, judge_from_settings
from lexgate.llm import ClientOptions, OpenAIJudge, OpenAIRegenerator
from lexgate.settings import Settings
from tests.llm_server import LLMServer, Reply
from tests.strategies import judge_top_logprobs
from verifier import check

AS_OF = date(2024, 1, 1)
ONLY_SQLITE_STATUTES = pytest.mark.parametrize("corpus_database_url", ["sqlite"], indirect=True)

# The example: the provision is real, the conclusion the opposite of 第十五条第二款.
REVERSED = (
    "个人撤回同意后，撤回前的处理活动也随之无效（《中华人民共和国个人信息保护法》第十五条第二款）。"
)
OUTSIDE = "另依《广东省物业管理条例》第十二条，物业服务人应当及时维修。"
QUESTION = JudgeQuestion(
    law="中华人民共和国个人信息保护法",
    provision="《中华人民共和国个人信息保护法》第十五条第二款",
    claim="撤回同意前的处理活动也随之无效。",
    article_text="个人撤回同意，不影响撤回前基于个人同意已进行的个人信息处理活动的效力。",
)


def logs(**probabilities: float) -> dict[str, float]:
    """token → natural-log probability (A=0.6 → {'A': ln 0.6})."""
    return {token.replace("_", " "): math.log(p) for token, p in probabilities.items()}


@pytest.fixture
def judge(llm_server: LLMServer) -> Iterator[OpenAIJudge]:
    """A judge on the loopback server that retries once at once (no backoff delay)."""
    client = OpenAIRegenerator(
        base_url=llm_server.base_url,
        model="judge-model",
        options=ClientOptions(max_retries=1, backoff_s=0.0),
    )
    with client:
        yield OpenAIJudge(client, top_logprobs=5)


@pytest.mark.parametrize(
    ("top", "expected"),
    [
        ({"A": 0.6, "B": 0.3, "C": 0.1}, (0.6, 0.3, 0.1)),
        ({"A": 0.3, " A": 0.2, "a": 0.1, "B": 0.4}, (0.6, 0.4, 0.0)),
        ({"B": 0.5, "The": 0.3, "C": 0.1, "\n": 0.1}, (0.0, 5 / 6, 1 / 6)),
        ({"Ｃ": 0.2, "c\n": 0.2}, (0.0, 0.0, 1.0)),
        ({"A": 1e-9, "D": 0.99}, (1.0, 0.0, 0.0)),
    ],
    ids=["three-options", "variants-merged", "others-ignored", "full-width-and-newline", "tiny"],
)
def test_option_probabilities(top: dict[str, float], expected: tuple[float, float, float]) -> None:
    """Softmax over the option tokens, variants of one letter summed, missing options 0."""
    found = option_probabilities(TokenLogprob(token=t, logprob=math.log(p)) for t, p in top.items())
    assert [found[r] for r in ("supports", "contradicts", "says_nothing")] == pytest.approx(
        expected, abs=1e-9
    )


def test_no_option_among_the_tokens_is_a_clear_error() -> None:
    """Without A, B or C among the top tokens there is no judgement, and the error says so."""
    with pytest.raises(JudgeReplyError, match="none of the options A/B/C"):
        option_probabilities([TokenLogprob(token="D", logprob=-0.1)])


@hypothesis_settings(max_examples=200)
@given(judge_top_logprobs)
def test_probabilities_are_a_distribution(top: dict[str, float]) -> None:
    """For any top logprobs holding an option: three probabilities in [0, 1] summing to 1."""
    found = option_probabilities(TokenLogprob(token=t, logprob=lp) for t, lp in top.items())
    assert set(found) == {"supports", "contradicts", "says_nothing"}
    assert all(0.0 <= p <= 1.0 for p in found.values())
    assert sum(found.values()) == pytest.approx(1.0)


def test_the_prompt_holds_the_provision_claim_and_text() -> None:
    """The user message names the provision and quotes the article text and the claim."""
    system, user = prompt(QUESTION)
    assert "A" in system.content and "B" in system.content and "C" in system.content
    for part in (QUESTION.provision, QUESTION.claim, QUESTION.article_text):
        assert part in user.content


def test_judge_reads_the_options_from_the_logprobs(
    llm_server: LLMServer, judge: OpenAIJudge
) -> None:
    """One request with max_tokens=1 and top logprobs; probabilities and confidence from them."""
    llm_server.script(Reply.chat("B", top_logprobs=logs(B=0.7, _B=0.1, A=0.15, C=0.05)))
    judgement = judge.judge(QUESTION)
    assert judgement.contradicts == pytest.approx(0.8)
    assert judgement.supports == pytest.approx(0.15)
    assert judgement.says_nothing == pytest.approx(0.05)
    assert judgement.relation == "contradicts"
    assert judgement.confidence == pytest.approx(0.8)
    assert judgement.model == "judge-model"
    (request,) = llm_server.requests
    body = request.json
    assert body["max_tokens"] == 1 and body["logprobs"] is True and body["top_logprobs"] >= 5
    assert QUESTION.claim in body["messages"][-1]["content"]


@pytest.mark.parametrize(
    ("replies", "error"),
    [
        ((Reply.error(500), Reply.error(503)), JudgeUnavailableError),
        ((Reply.error(400),), JudgeUnavailableError),
        ((Reply.raw("<html>gateway</html>"),), JudgeUnavailableError),
        ((Reply.chat("D", top_logprobs=logs(D=0.9, E=0.1)),), JudgeReplyError),
    ],
    ids=["5xx-after-retry", "4xx", "garbage-body", "no-option"],
)
def test_server_errors_become_judge_errors(
    llm_server: LLMServer, judge: OpenAIJudge, replies: tuple[Reply, ...], error: type
) -> None:
    """Every failure of the server or of its reply is a JudgeError subclass, never a crash."""
    llm_server.script(*replies)
    with pytest.raises(error):
        judge.judge(QUESTION)


def test_a_server_that_is_down_is_unavailable(llm_down_url: str) -> None:
    """Refused connections end in JudgeUnavailableError."""
    with (
        OpenAIRegenerator(
            base_url=llm_down_url, model="m", options=ClientOptions(max_retries=0)
        ) as client,
        pytest.raises(JudgeUnavailableError, match="unavailable"),
    ):
        OpenAIJudge(client).judge(QUESTION)


def test_from_settings_defaults_to_the_llm_settings(llm_server: LLMServer) -> None:
    """judge_base_url and judge_model default to llm_*; judge_enabled off gives no judge."""
    settings = Settings(llm_base_url=llm_server.base_url, llm_model="general", judge_enabled=True)
    made = judge_from_settings(settings)
    assert made is not None and made.client.model == "general"
    assert made.client.base_url == llm_server.base_url
    assert judge_from_settings(settings.model_copy(update={"judge_enabled": False})) is None
    own = judge_client_from_settings(settings.model_copy(update={"judge_model": "judge"}))
    assert own.client.model == "judge"


# --- Threshold routing and the mapping into the gate, on the real statute data ---


@ONLY_SQLITE_STATUTES
@pytest.mark.parametrize(
    ("top", "threshold", "decision", "signals", "stands"),
    [
        (logs(B=0.9, A=0.05, C=0.05), 0.8, "rerun", ["claim_contradicted"], True),
        (logs(B=0.7, A=0.2, C=0.1), 0.8, "pass_boundary", [], False),
        (logs(B=0.7, A=0.2, C=0.1), 0.65, "rerun", ["claim_contradicted"], True),
        (logs(C=0.85, A=0.1, B=0.05), 0.8, "pass_boundary", ["claim_unsupported"], True),
        (logs(A=0.95, B=0.05), 0.8, "pass_boundary", [], True),
    ],
    ids=[
        "contradicts-stands",
        "below-threshold-goes-to-review",
        "lower-threshold-stands",
        "says-nothing-reported",
        "supports-confirms",
    ],
)
def test_threshold_routing(
    statute_repository: StatuteRepository,
    llm_server: LLMServer,
    judge: OpenAIJudge,
    top: dict[str, float],
    threshold: float,
    decision: str,
    signals: list[str],
    stands: bool,
) -> None:
    """At or above the threshold a judgement decides (contradicts: a correctable failure);
    below it the citation decides nothing. Without a judge the answer is a data boundary."""
    answer = REVERSED + OUTSIDE
    plain = assess(check(answer, statute_repository, AS_OF), answer, repo=statute_repository)
    assert plain.decision == "pass_boundary"
    first = max(top, key=lambda token: top[token])
    llm_server.script(Reply.chat(first, top_logprobs=top))
    result = assess_answer(
        answer, repo=statute_repository, judge=judge, threshold=threshold, as_of=AS_OF
    ).result
    judged_signals = [
        f.signal for f in result.failures if f.signal.startswith("claim_")
    ]  # the judge's signals
    assert result.decision == decision
    assert judged_signals == signals
    (item,) = result.judged
    assert item.stands is stands and item.threshold == threshold
    assert item.question.provision == "《中华人民共和国个人信息保护法》第十五条第二款"
    assert "不影响撤回前" in item.question.article_text
    assert result.judge_error is None
    if "claim_contradicted" in signals:
        (failure,) = [f for f in result.failures if f.signal == "claim_contradicted"]
        assert failure.correctable
        assert result.rerun_request is not None
    if "claim_unsupported" in signals:
        assert not next(f for f in result.failures if f.signal == "claim_unsupported").correctable


@ONLY_SQLITE_STATUTES
def test_contradiction_injects_the_article_text(
    statute_repository: StatuteRepository, llm_server: LLMServer, judge: OpenAIJudge
) -> None:
    """A quoted (matching) citation whose conclusion is contradicted gets the article text as
    its fact, in the rerun request."""
    answer = (
        "依据《中华人民共和国民法典》第一千零八十七条，离婚时夫妻的共同财产由双方协议处理，"
        "因此法院不得判决分割。" + OUTSIDE
    )
    llm_server.script(Reply.chat("B", top_logprobs=logs(B=0.92, A=0.08)))
    result = assess_answer(answer, repo=statute_repository, judge=judge, as_of=AS_OF).result
    (fact,) = [f for f in result.facts if f.kind == "claim_contradicted"]
    assert "由人民法院根据财产的具体情况" in fact.text
    assert fact.provision == "《中华人民共和国民法典》第一千零八十七条"
    assert result.rerun_request is not None
    assert fact.text in result.rerun_request.messages[-1].content


@ONLY_SQLITE_STATUTES
def test_an_unavailable_judge_leaves_the_decision_alone(
    statute_repository: StatuteRepository, llm_down_url: str
) -> None:
    """The gate records the judge as unavailable and decides as without it."""
    answer = REVERSED + OUTSIDE
    plain = assess(check(answer, statute_repository, AS_OF), answer, repo=statute_repository)
    with OpenAIRegenerator(
        base_url=llm_down_url, model="m", options=ClientOptions(max_retries=0)
    ) as client:
        judge = OpenAIJudge(client)
        result = assess_answer(answer, repo=statute_repository, judge=judge, as_of=AS_OF).result
    assert result.judge_error is not None and "unavailable" in result.judge_error
    assert result.judged == ()
    assert result.model_copy(update={"judge_error": None}) == plain


@ONLY_SQLITE_STATUTES
def test_each_provision_and_claim_is_judged_once(
    statute_repository: StatuteRepository, llm_server: LLMServer, judge: OpenAIJudge
) -> None:
    """A repeated claim on one provision costs one request; citations not in force none."""
    answer = REVERSED + REVERSED + "根据《中华人民共和国合同法》第一百零七条，应当承担违约责任。"
    llm_server.script(then=Reply.chat("A", top_logprobs=logs(A=0.9, B=0.1)))
    result = assess_answer(answer, repo=statute_repository, judge=judge, as_of=AS_OF).result
    assert len(llm_server.requests) == 1
    assert len(result.judged) == 1


@ONLY_SQLITE_STATUTES
def test_a_round_with_a_judge_reruns_on_a_contradiction(
    statute_repository: StatuteRepository, llm_server: LLMServer, judge: OpenAIJudge
) -> None:
    """gate.run with a judge: the contradiction's article text goes into the rerun request; the
    corrected answer, judged as supported, passes after the rerun."""
    from gate.rounds import run

    wrong = (
        "依据《中华人民共和国民法典》第一千零八十七条，离婚时夫妻的共同财产由双方协议处理，"
        "因此法院不得判决分割。" + OUTSIDE
    )
    corrected = (
        "依据《中华人民共和国民法典》第一千零八十七条，离婚时夫妻的共同财产由双方协议处理；"
        "协议不成的，由人民法院判决。"
    )

    class Model:
        """The answering model: gives the corrected answer when asked to revise."""

        def __init__(self) -> None:
            self.requests: list[str] = []

        def regenerate(self, request: object) -> str:
            self.requests.append(request.messages[-1].content)  # type: ignore[attr-defined]
            return corrected

    llm_server.script(
        Reply.chat("B", top_logprobs=logs(B=0.92, A=0.08)),
        then=Reply.chat("A", top_logprobs=logs(A=0.95, B=0.05)),
    )
    model = Model()
    record = run(
        None, wrong, model, repo=statute_repository, session_id="judge-round", as_of=AS_OF,
        judge=judge,
    )  # fmt: skip
    assert [a.decision for a in record.attempts] == ["rerun", "pass"]
    assert record.state == "passed_after_rerun"
    assert "由人民法院根据财产的具体情况" in model.requests[0]
