"""Whole rounds on the real statute data, with the model played by a real loopback HTTP server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date

import pytest

from gate import Policy, Round, RoundClosedError, RoundRecord, run, submit
from gate.rounds import open_round
from legaldb import StatuteRepository
from lexgate.llm import ClientOptions, OpenAIRegenerator
from tests.llm_server import LLMServer, Reply

AS_OF = date(2024, 1, 1)
QUESTION = "邻居家水管漏水淹了我家的地板，我能要求赔偿吗？"
INVENTED = "可以要求赔偿。根据《中华人民共和国民法典》第一千二百八十九条，邻居应当承担赔偿责任。"
CORRECTED = (
    "可以要求赔偿。根据《中华人民共和国民法典》第一千一百六十五条，行为人因过错侵害他人民事权益"
    "造成损害的，应当承担侵权责任。"
)
REPEALED = "可以。根据《中华人民共和国合同法》第一百零七条，对方应当承担违约责任。"
SUCCESSOR = "可以。根据《中华人民共和国民法典》第五百七十七条，对方应当承担违约责任。"
LOCAL_ONLY = "可以。根据《广东省物业管理条例》第十二条，物业服务人应当及时维修。"


@pytest.fixture
def regenerator(llm_server: LLMServer) -> Iterator[OpenAIRegenerator]:
    """A client of the loopback server that retries at once (no backoff delay)."""
    with OpenAIRegenerator(
        base_url=llm_server.base_url,
        model="scripted",
        options=ClientOptions(max_retries=2, backoff_s=0.0),
    ) as client:
        yield client


def sent_messages(server: LLMServer) -> list[list[dict[str, str]]]:
    """The chat messages of every request the server received."""
    return [request.json["messages"] for request in server.requests]


def test_invented_article_is_rerun_with_the_article_count(
    statute_repository: StatuteRepository, llm_server: LLMServer, regenerator: OpenAIRegenerator
) -> None:
    llm_server.script(Reply.chat(CORRECTED))
    record = run(QUESTION, INVENTED, regenerator, repo=statute_repository,
                 session_id="s-invented", as_of=AS_OF)  # fmt: skip
    assert record.state == "passed_after_rerun"
    assert record.delivery == "deliver_with_badges"
    first, second = record.attempts
    assert (first.decision, first.verifiable_rate) == ("rerun", 0.0)
    assert [f.signal for f in first.failures] == ["article_not_found"]
    fact = "《中华人民共和国民法典》第一条至第一千二百六十条，共 1260 条。前述答案引用的第一千二百八十九条不存在。"
    assert [f.text for f in first.facts] == [fact]
    (messages,) = sent_messages(llm_server)
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[1]["content"] == QUESTION
    assert messages[2]["content"] == INVENTED
    assert fact in messages[3]["content"]
    assert (second.attempt, second.decision, second.verifiable_rate) == (2, "pass", 1.0)
    assert second.answer == CORRECTED
    assert second.injected_facts == first.facts
    assert second.rerun_request is None


def test_repealed_law_is_rerun_with_the_successor_text(
    statute_repository: StatuteRepository, llm_server: LLMServer, regenerator: OpenAIRegenerator
) -> None:
    llm_server.script(Reply.chat(SUCCESSOR))
    record = run("对方违约，我能要求什么？", REPEALED, regenerator, repo=statute_repository,
                 session_id="s-repealed", as_of=AS_OF)  # fmt: skip
    assert record.state == "passed_after_rerun"
    assert [f.signal for f in record.attempts[0].failures] == ["repealed"]
    (messages,) = sent_messages(llm_server)
    instruction = messages[-1]["content"]
    assert "《中华人民共和国合同法》已于2021年1月1日废止" in instruction
    assert "《中华人民共和国民法典》第五百七十七条：“当事人一方不履行合同义务" in instruction


def test_the_same_citation_before_the_repeal_passes(
    statute_repository: StatuteRepository, llm_server: LLMServer, regenerator: OpenAIRegenerator
) -> None:
    record = run(None, REPEALED, regenerator, repo=statute_repository,
                 session_id="s-2020", as_of=date(2020, 12, 31))  # fmt: skip
    assert record.state == "passed"
    assert llm_server.requests == []


def test_out_of_coverage_only_is_a_data_boundary_without_a_call(
    statute_repository: StatuteRepository, llm_server: LLMServer, regenerator: OpenAIRegenerator
) -> None:
    llm_server.script(then=Reply.chat(CORRECTED))
    record = run(QUESTION, LOCAL_ONLY, regenerator, repo=statute_repository,
                 session_id="s-local", as_of=AS_OF)  # fmt: skip
    assert record.state == "data_boundary"
    assert record.delivery == "deliver_with_badges"
    (attempt,) = record.attempts
    assert (attempt.decision, attempt.verifiable_rate) == ("pass_boundary", 0.0)
    assert [f.signal for f in attempt.failures] == ["law_outside_coverage"]
    assert attempt.facts == () and attempt.rerun_request is None
    assert llm_server.requests == []


@pytest.mark.parametrize("on_exhausted", ["deliver_with_badges", "block"])
def test_still_failing_is_exhausted_after_three_attempts_with_distinct_requests(
    statute_repository: StatuteRepository,
    llm_server: LLMServer,
    regenerator: OpenAIRegenerator,
    on_exhausted: str,
) -> None:
    llm_server.script(then=Reply.chat(INVENTED))  # the model repeats itself word for word
    policy = Policy(on_exhausted=on_exhausted)  # type: ignore[arg-type]
    record = run(QUESTION, INVENTED, regenerator, repo=statute_repository,
                 session_id="s-stuck", as_of=AS_OF, policy=policy)  # fmt: skip
    assert record.state == "exhausted"
    assert record.delivery == on_exhausted
    assert [a.attempt for a in record.attempts] == [1, 2, 3]
    assert [a.decision for a in record.attempts] == ["rerun"] * 3
    assert record.attempts[-1].rerun_request is None
    bodies = [request.body for request in llm_server.requests]
    assert len(bodies) == 2
    assert len(set(bodies)) == len(bodies)
    assert [r.attempt for a in record.attempts if (r := a.rerun_request)] == [2, 3]


def test_a_500_is_retried(
    statute_repository: StatuteRepository, llm_server: LLMServer, regenerator: OpenAIRegenerator
) -> None:
    llm_server.script(Reply.error(500), Reply.chat(CORRECTED))
    record = run(QUESTION, INVENTED, regenerator, repo=statute_repository,
                 session_id="s-500", as_of=AS_OF)  # fmt: skip
    assert record.state == "passed_after_rerun"
    assert len(record.attempts) == 2
    first, second = llm_server.requests
    assert first.body == second.body  # the same request, retried by the client


def test_server_down_ends_in_regenerator_error(
    statute_repository: StatuteRepository, llm_down_url: str
) -> None:
    with OpenAIRegenerator(
        base_url=llm_down_url,
        model="scripted",
        options=ClientOptions(max_retries=1, backoff_s=0.0),
    ) as down:
        record = run(QUESTION, INVENTED, down, repo=statute_repository,
                     session_id="s-down", as_of=AS_OF)  # fmt: skip
    assert record.state == "regenerator_error"
    assert record.delivery == "deliver_with_badges"
    assert record.error is not None and "connection failed" in record.error
    assert len(record.attempts) == 1
    assert record.attempts[0].rerun_request is not None  # what could not be sent


def test_no_citations_asks_once_for_the_legal_basis(
    statute_repository: StatuteRepository, llm_server: LLMServer, regenerator: OpenAIRegenerator
) -> None:
    llm_server.script(then=Reply.chat("您可以要求邻居赔偿损失。"))
    record = run(QUESTION, "您可以要求邻居赔偿。", regenerator, repo=statute_repository,
                 session_id="s-basis", as_of=AS_OF)  # fmt: skip
    assert record.state == "exhausted"
    assert [a.decision for a in record.attempts] == ["no_citations", "no_citations"]
    (messages,) = sent_messages(llm_server)
    assert "“您可以要求邻居赔偿。”" in messages[-1]["content"]


def test_both_modes_build_the_same_record(
    statute_repository: StatuteRepository, llm_server: LLMServer, regenerator: OpenAIRegenerator
) -> None:
    llm_server.script(Reply.chat(REPEALED), Reply.chat(CORRECTED))
    by_gate = run(QUESTION, INVENTED, regenerator, repo=statute_repository,
                  session_id="s-same", as_of=AS_OF)  # fmt: skip

    # The caller regenerates: it keeps the record (as JSON, as a web service would) in between.
    stored = open_round(session_id="s-same", question=QUESTION, as_of=AS_OF).model_dump_json()
    for answer in (INVENTED, REPEALED, CORRECTED):
        record = submit(RoundRecord.model_validate_json(stored), answer, repo=statute_repository)
        stored = record.model_dump_json()
    assert stored == by_gate.model_dump_json()  # the record (the checks stay in memory)
    assert all(attempt.check is not None for attempt in by_gate.attempts)
    assert by_gate.state == "passed_after_rerun"
    assert [a.decision for a in by_gate.attempts] == ["rerun", "rerun", "pass"]
    sent = [json.loads(r.body)["messages"] for r in llm_server.requests]
    assert sent == [
        [m.model_dump() for m in a.rerun_request.messages]
        for a in by_gate.attempts
        if a.rerun_request is not None
    ]


def test_without_a_regenerator_the_request_is_left_to_the_caller(
    statute_repository: StatuteRepository,
) -> None:
    record = run(QUESTION, INVENTED, None, repo=statute_repository,
                 session_id="s-caller", as_of=AS_OF)  # fmt: skip
    assert record.state == "open"
    assert record.rerun_request is not None and record.rerun_request.attempt == 2
    current = Round(record, repo=statute_repository)
    attempt = current.submit(CORRECTED)
    assert attempt.decision == "pass"
    assert current.done and current.record.state == "passed_after_rerun"
    with pytest.raises(RoundClosedError):
        current.submit(CORRECTED)


def test_a_provision_only_in_the_coming_version_is_rerun_with_its_date(
    statute_repository: StatuteRepository, llm_server: LLMServer, regenerator: OpenAIRegenerator
) -> None:
    llm_server.script(Reply.chat(CORRECTED))
    answer = "公司长期不开业的，登记机关可以吊销营业执照，见《中华人民共和国公司法》第二百六十条。"
    record = run(None, answer, regenerator, repo=statute_repository,
                 session_id="s-company", as_of=AS_OF)  # fmt: skip
    assert [f.signal for f in record.attempts[0].failures] == ["not_yet_effective"]
    fact = "《中华人民共和国公司法》（2023年修订）自2024年7月1日起施行，在此之前不得作为现行依据。"
    assert [f.text for f in record.attempts[0].facts] == [fact]
    (messages,) = sent_messages(llm_server)
    assert fact in messages[-1]["content"]
    assert record.state == "passed_after_rerun"


@pytest.mark.parametrize("as_of", [date(2005, 1, 1), date(2009, 8, 26)], ids=str)
def test_a_law_whose_text_in_force_is_missing_is_a_data_boundary(
    statute_repository: StatuteRepository,
    llm_server: LLMServer,
    regenerator: OpenAIRegenerator,
    as_of: date,
) -> None:
    """The data's earliest 刑法 is the 2009 amendment: the text in force before is missing."""
    answer = "根据《中华人民共和国刑法》第一百三十三条之一，醉酒驾驶机动车的，处拘役，并处罚金。"
    record = run(None, answer, regenerator, repo=statute_repository,
                 session_id="s-criminal", as_of=as_of)  # fmt: skip
    assert record.state == "data_boundary"
    assert [f.signal for f in record.attempts[0].failures] == ["version_in_force_missing"]
    assert llm_server.requests == []
    later = run(None, answer, regenerator, repo=statute_repository,
                session_id="s-criminal-2", as_of=date(2024, 3, 1))  # fmt: skip
    assert later.state == "passed"
