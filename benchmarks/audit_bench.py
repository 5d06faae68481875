"""The audit record and the quarterly evidence pack: recording, export and verify of 10,000 cases.

Real gate results: the 2,750 answers of ../shared/eval/flzx_dev_answers.jsonl (250 questions,
eleven answers each) are gated as of 2023-08-01; a round takes one answer of a question and,
while the gate asks for a rerun, another answer to the same question (another model's) as the
rerun, up to the policy's three attempts. The rounds are recorded (bulk, `record_many`, 1,000
cases per transaction) as CASES cases spread over 2026Q4 with 500 subjects, then the quarter is
exported and the pack verified.

    python -m benchmarks.audit_bench [--database-url STATUTES] [--audit-url URL] [--cases N]

Without --database-url the bundled corpus is imported into a fresh SQLite file first; without
--audit-url the audit tables go to a fresh SQLite file.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
import uuid
from collections import defaultdict
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import verifier
from audit import MappingStore, Pseudonymizer, export_pack, record, record_many, verify_pack
from audit.export import build_members, load_cases, quarter_period
from audit.models import Recording
from benchmarks.common import ANSWERS, repository
from gate import Assessment, Policy, assess
from gate.models import RoundRecord
from gate.rounds import open_round, record_attempt
from legaldb import StatuteRepository, make_engine, upgrade
from verifier.models import CheckResult

AS_OF = date(2023, 8, 1)
QUARTER_START = datetime(2026, 9, 30, 16, 0, tzinfo=UTC)  # 2026-10-01 00:00 Asia/Shanghai
QUARTER_SECONDS = 92 * 24 * 3600
SUBJECTS = 500
BATCH = 1000


def gated_rounds(repo: StatuteRepository) -> list[RoundRecord]:
    """One round per answer: it opens the round, other answers to its question are the reruns."""
    by_question: dict[str, list[str]] = defaultdict(list)
    for line in ANSWERS.read_text("utf-8").splitlines():
        item = json.loads(line)
        by_question[item["question"]].append(item["answer"])
    policy = Policy()
    checks: dict[str, CheckResult] = {}
    rounds = []
    for question, answers in by_question.items():
        for first in range(len(answers)):
            round_ = open_round(session_id="bench", question=question, as_of=AS_OF, policy=policy)
            for offset in range(policy.max_attempts):
                answer = answers[(first + offset) % len(answers)]
                if answer not in checks:
                    checks[answer] = verifier.check(answer, repo, AS_OF)
                result = assess(  # gate.assess_answer without checking a repeated answer again
                    checks[answer],
                    answer,
                    turn=round_.next_turn,
                    policy=policy,
                )
                round_ = record_attempt(round_, answer, Assessment(checks[answer], result))
                if round_.state != "open":
                    break
            rounds.append(round_)
    return rounds


def recordings(rounds: list[RoundRecord], count: int) -> list[Recording]:
    """count cases cycling through the rounds, each its own session, spread over the quarter."""
    made = []
    for index in range(count):
        round_ = rounds[index % len(rounds)]
        at = QUARTER_START + timedelta(seconds=index * QUARTER_SECONDS // count)
        made.append(
            Recording(
                round_.model_copy(update={"session_id": f"session-{index}"}),
                subject_id=f"subject-{index % SUBJECTS}",
                recorded_at=at,
            )
        )
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="statute database (default: a fresh import)")
    parser.add_argument("--audit-url", help="database of the audit tables (default: SQLite)")
    parser.add_argument("--cases", type=int, default=10_000)
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="audit-bench-"))
    repo = repository(args.database_url)
    started = time.perf_counter()
    rounds = gated_rounds(repo)
    gate_s = time.perf_counter() - started
    attempts = sum(len(r.attempts) for r in rounds)
    print(f"gated {len(rounds)} rounds ({attempts} answers) in {gate_s:.1f} s")

    audit_url = args.audit_url or f"sqlite:///{workdir / 'audit.sqlite3'}"
    upgrade(audit_url)
    engine = make_engine(audit_url)
    pseudonymizer = Pseudonymizer(b"benchmark secret of 32 bytes ...", "k1")
    store = MappingStore(workdir / "pseudonym-map.sqlite3")
    wanted = recordings(rounds, args.cases)
    started = time.perf_counter()
    for chunk in range(0, len(wanted), BATCH):
        record_many(
            engine,
            wanted[chunk : chunk + BATCH],
            repo=repo,
            pseudonymizer=pseudonymizer,
            store=store,
        )
    record_s = time.perf_counter() - started
    print(
        f"record_many: {args.cases} cases in {record_s:.1f} s "
        f"({record_s / args.cases * 1000:.2f} ms per case, {BATCH} per transaction)"
    )

    singles = []
    for index, round_ in enumerate(rounds[:100]):
        single = round_.model_copy(update={"session_id": f"single-{index}"})
        started = time.perf_counter()
        record(
            engine,
            single,
            repo=repo,
            pseudonymizer=pseudonymizer,
            store=store,
            subject_id=f"single-subject-{index}",
            now=QUARTER_START - timedelta(days=1),  # outside the exported quarter
        )
        singles.append(time.perf_counter() - started)
    print(
        f"record (one case, its own transaction and new pseudonyms): median "
        f"{statistics.median(singles) * 1000:.1f} ms, max {max(singles) * 1000:.1f} ms"
    )

    timings: list[float] = []
    cpu: list[float] = []
    summary: Any = None
    for run in range(3):
        out = workdir / f"pack-{run}.zip"
        started, started_cpu = time.perf_counter(), time.process_time()
        summary = export_pack(
            engine, "2026Q4", out, timezone="Asia/Shanghai", scheme=pseudonymizer.scheme
        )
        timings.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    print(
        f"export_pack 2026Q4: {summary.cases} cases, {summary.attempts} answers, "
        f"{summary.citations} citations, {summary.size_bytes / 1e6:.1f} MB: wall "
        f"{min(timings):.2f} s best, {max(timings):.2f} s worst of 3; CPU {min(cpu):.2f} s "
        f"(load average {os.getloadavg()[0]:.1f})"
    )
    period = quarter_period("2026Q4", "Asia/Shanghai")
    started = time.perf_counter()
    cases, policies, sources = load_cases(engine, period)
    loaded = time.perf_counter()
    build_members(
        cases,
        policies,
        sources,
        period=period,
        scheme=pseudonymizer.scheme,
        generated_at=datetime.now(UTC),
        pack_id=str(uuid.uuid4()),
    )
    built = time.perf_counter()
    print(
        f"  of which: reading the records {loaded - started:.2f} s, building and validating "
        f"the files {built - loaded:.2f} s"
    )
    started = time.perf_counter()
    verify_pack(summary.path)
    print(f"verify_pack: {time.perf_counter() - started:.2f} s")


if __name__ == "__main__":
    main()
