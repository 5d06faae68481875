"""JSON lines over several forked processes: the same lines, in order, as one process gives, and
a bad line stops the batch where one process would (real statute data, both databases)."""

from __future__ import annotations

import gc
import io
import json
import sys
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate import Policy
from gate.cli import gate_jsonl_lines
from legaldb import StatuteRepository
from tests.gate.test_scenarios import CORRECTED, INVENTED, LOCAL_ONLY, REPEALED, SUCCESSOR
from verifier.batch import CHUNK, available_cpus, cited_law, ordered_map, plan, workers_for
from verifier.cli import check_jsonl_bytes, check_jsonl_lines, utf8_stdout
from verifier.errors import InputError

TODAY = date(2024, 1, 1)
ANSWERS = [INVENTED, CORRECTED, REPEALED, SUCCESSOR, LOCAL_ONLY, "您可以要求赔偿。"]
DATES = [None, "2020-06-01", "2023-08-01"]


def lines(count: int) -> list[str]:
    """`count` answer lines, the answers and dates varied (a blank line among them)."""
    out = []
    for n in range(count):
        item = {"id": f"a{n}", "answer": ANSWERS[n % len(ANSWERS)]}
        if DATES[n % len(DATES)]:
            item["as_of"] = DATES[n % len(DATES)]
        out.append(json.dumps(item, ensure_ascii=False))
    return [*out[:5], "", *out[5:]]


def test_check_in_three_processes_prints_what_one_prints(
    statute_repository: StatuteRepository,
) -> None:
    source = lines(5 * CHUNK)
    one = list(check_jsonl_lines(source, statute_repository, TODAY, jobs=1))
    three = list(check_jsonl_lines(source, statute_repository, TODAY, jobs=3))
    assert len(one) == 5 * CHUNK
    assert three == one
    assert [json.loads(line)["id"] for line in three] == [f"a{n}" for n in range(5 * CHUNK)]


def test_check_bytes_are_the_lines_in_utf8_from_any_number_of_processes(
    statute_repository: StatuteRepository,
) -> None:
    """The bytes a UTF-8 standard output is given are the text lines encoded, `errors` applied
    (an id with a lone surrogate: what the text stream would do with it)."""
    source = lines(3 * CHUNK)
    source[4] = '{"id": "\\ud800", "answer": "民法典第一条"}'
    expected = [
        f"{line}\n".encode("utf-8", "surrogatepass")
        for line in check_jsonl_lines(source, statute_repository, TODAY, jobs=1)
    ]
    assert "\ud800" in expected[4].decode("utf-8", "surrogatepass")
    for jobs in (1, 2, 3):
        given = check_jsonl_bytes(
            source, statute_repository, TODAY, jobs=jobs, errors="surrogatepass"
        )
        assert list(given) == expected


def test_utf8_stdout_only_for_a_utf8_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bytes go straight to standard output only where the text would be written as UTF-8; what
    was written as text before is flushed first."""
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="UTF8", errors="surrogateescape")
    monkeypatch.setattr(sys, "stdout", stream)
    stream.write("前")
    binary = utf8_stdout()
    assert binary == (stream.buffer, "surrogateescape")
    assert raw.getvalue() == "前".encode()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BytesIO(), encoding="gb18030"))
    assert utf8_stdout() is None
    monkeypatch.setattr(sys, "stdout", io.StringIO())  # no binary stream underneath
    assert utf8_stdout() is None


def test_gate_in_two_processes_prints_what_one_prints(
    statute_repository: StatuteRepository,
) -> None:
    source = lines(4 * CHUNK)
    policy = Policy()
    one = list(gate_jsonl_lines(source, statute_repository, TODAY, policy, jobs=1))
    two = list(gate_jsonl_lines(source, statute_repository, TODAY, policy, jobs=2))
    assert two == one
    decisions = {json.loads(line)["decision"] for line in two}
    assert {"rerun", "pass", "no_citations"} <= decisions


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_bad_line_stops_the_batch_after_the_lines_before_it(
    statute_repository: StatuteRepository, jobs: int
) -> None:
    """The lines before the bad one come out (even in its chunk), then its error; no more."""
    good = lines(3 * CHUNK + 3)
    bad_at = 2 * CHUNK + 2  # inside a chunk: the lines before it in that chunk are given too
    bad = '{"id": "x", "as_of": "2023-02-30", "answer": "民法典第一条"}'
    source = [*good[:bad_at], bad, *good[bad_at:]]
    given_lines: list[str] = []
    with pytest.raises(InputError, match=rf"^line {bad_at + 1}: as_of"):
        for line in check_jsonl_lines(source, statute_repository, TODAY, jobs=jobs):
            given_lines.append(line)
    expected = list(check_jsonl_lines(good[:bad_at], statute_repository, TODAY, jobs=1))
    assert given_lines == expected


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_collector_is_off_while_a_check_batch_runs_and_on_after(
    statute_repository: StatuteRepository, jobs: int
) -> None:
    """The cyclic collector is off while check_jsonl_lines makes its lines, and on again once
    they are all given, once the batch stops at a bad line, or once the reader stops early."""
    assert gc.isenabled()
    batch = check_jsonl_lines(lines(2 * CHUNK), statute_repository, TODAY, jobs=jobs)
    next(batch)
    assert not gc.isenabled()
    rest = list(batch)
    assert len(rest) == 2 * CHUNK - 1 and gc.isenabled()
    bad = ['{"id": "x", "as_of": "2023-02-30", "answer": "民法典第一条"}']
    with pytest.raises(InputError):
        list(check_jsonl_lines(bad, statute_repository, TODAY, jobs=jobs))
    assert gc.isenabled()
    stopped = check_jsonl_lines(lines(2 * CHUNK), statute_repository, TODAY, jobs=jobs)
    next(stopped)
    stopped.close()
    assert gc.isenabled()


@pytest.mark.parametrize("jobs", [1, 2])
def test_what_a_check_batch_made_is_frozen_after_it(
    statute_repository: StatuteRepository, jobs: int
) -> None:
    """Once the lines are given, what the batch made and kept (memos, quote indexes, texts)
    is frozen before the collector is on again: no young collection walks it."""
    given = list(check_jsonl_lines(lines(2 * CHUNK), statute_repository, TODAY, jobs=jobs))
    assert gc.isenabled() and len(given) == 2 * CHUNK
    assert len(gc.get_objects()) < 1_000  # all but what was made since: the list, the frames


def _square(n: int) -> int:
    return n * n


@settings(max_examples=12, deadline=None)
@given(st.lists(st.integers(), max_size=3 * CHUNK + 5), st.integers(min_value=1, max_value=3))
def test_ordered_map_keeps_the_order(items: list[int], jobs: int) -> None:
    assert list(ordered_map(_square, items, jobs)) == [n * n for n in items]


def _keyed(task: tuple[str | None, int]) -> tuple[str | None, int]:
    return task


keys = st.none() | st.sampled_from(["民法典", "刑法", "劳动法"])
keyed_tasks = st.lists(st.tuples(keys, st.integers(min_value=0, max_value=50)), max_size=60)


@settings(max_examples=30, deadline=None)
@given(keyed_tasks, st.integers(min_value=1, max_value=4))
def test_a_plan_keeps_each_key_on_one_queue_and_evens_the_weights(
    tasks: list[tuple[str | None, int]], jobs: int
) -> None:
    queues = plan(tasks, jobs, _keyed)
    assert len(queues) == jobs
    assert sorted(p for queue in queues for p in queue) == list(range(len(tasks)))
    assert all(queue == sorted(queue) for queue in queues)  # each in input order
    for key in {key for key, _ in tasks if key is not None}:
        assert sum(any(tasks[p][0] == key for p in queue) for queue in queues) == 1
    weights = [sum(tasks[p][1] for p in queue) for queue in queues]
    heaviest = max(
        [sum(w for k, w in tasks if k == key) for key in {k for k, _ in tasks if k}]
        + [w for k, w in tasks if k is None]
        + [0]
    )
    assert max(weights) - min(weights) <= heaviest  # greedy: no queue ends up a group too heavy


def _keyed_square(task: tuple[str | None, int]) -> int:
    return task[1] * task[1]


@settings(max_examples=12, deadline=None)
@given(keyed_tasks, st.integers(min_value=1, max_value=3))
def test_ordered_map_with_an_affinity_keeps_the_order(
    tasks: list[tuple[str | None, int]], jobs: int
) -> None:
    """Whatever the plan (one key for all: one full queue the other workers take from)."""
    expected = [w * w for _, w in tasks]
    assert list(ordered_map(_keyed_square, tasks, jobs, affinity=_keyed)) == expected
    same = [("民法典", w) for _, w in tasks]
    assert list(ordered_map(_keyed_square, same, jobs, affinity=_keyed)) == expected


@pytest.mark.parametrize(
    ("line", "law"),
    [
        ('{"answer": "依据《中华人民共和国民法典》第一条和《民法典》第二条、《刑法》"}', "民法典"),
        ('{"answer": "《刑法》第一条，《民法典》第二条"}', "刑法"),  # as often: the first
        ('{"answer": "《刑法》第一条，《民法典》第二条、《民法典》第三条"}', "民法典"),
        ('{"answer": "《中华人民共和国刑法》第一条"}', "刑法"),  # one named
        ('{"answer": "民法典第一条"}', None),
    ],
)
def test_cited_law(line: str, law: str | None) -> None:
    assert cited_law(line) == law


@pytest.mark.parametrize(
    ("jobs", "line_count", "expected"),
    [
        (1, 1000, 1),
        (2, 1000, 2),
        (4, 3 * CHUNK, 3),  # no more workers than chunks of work
        (4, CHUNK - 1, 1),  # a handful of lines: no process started
        (0, 10 * CHUNK * 64, available_cpus()),  # 0: one per CPU
    ],
)
def test_workers_for(jobs: int, line_count: int, expected: int) -> None:
    assert workers_for(jobs, line_count) == expected
