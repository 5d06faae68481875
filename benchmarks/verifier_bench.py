"""The verifier over real answers: answers/s and the share of extraction, lookup, content checks.

Runs what `lexgate check --jsonl` runs on every answer of ../shared/eval/flzx_dev_answers.jsonl
(2,750 answers), as of 2023-08-01, in three timed stages per answer: extraction, classification
(lookups, no SQL on the hot path), content checks (quotes with found_in, numbers), plus JSON
serialisation. A first pass starts with cold caches (article texts, quote indexes are built as
they are needed); a second pass shows the warm steady state of a long-running server.

    python -m benchmarks.verifier_bench [--database-url URL]

Without --database-url the bundled corpus is imported into a fresh SQLite file first (not timed).
"""

from __future__ import annotations

import argparse
import json
import time
from datetime import date

from benchmarks.common import ANSWERS, repository
from extractor import extract
from legaldb import StatuteRepository
from verifier import lexicon_of
from verifier.check import check_citations
from verifier.serialize import result_to_json

AS_OF = date(2023, 8, 1)


def one_pass(answers: list[str], repo: StatuteRepository) -> dict[str, float]:
    """Seconds per stage over all answers."""
    lexicon = lexicon_of(repo)
    times = dict.fromkeys(("extract", "lookup", "content", "json"), 0.0)
    citations_seen = 0
    for answer in answers:
        t0 = time.perf_counter()
        citations = extract(answer, lexicon)
        t1 = time.perf_counter()
        check_citations(citations, repo, AS_OF, content=False)
        t2 = time.perf_counter()
        result = check_citations(citations, repo, AS_OF)
        t3 = time.perf_counter()
        json.dumps(result_to_json(result), ensure_ascii=False)
        t4 = time.perf_counter()
        times["extract"] += t1 - t0
        times["lookup"] += t2 - t1
        # the full check repeats the lookups: its extra time is the content checks
        times["content"] += max(0.0, (t3 - t2) - (t2 - t1))
        times["json"] += t4 - t3
        citations_seen += len(citations)
    times["citations"] = citations_seen
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database-url")
    args = parser.parse_args()
    repo = repository(args.database_url)
    answers = [json.loads(line)["answer"] for line in ANSWERS.open(encoding="utf-8")]
    lexicon_of(repo)  # built once at start-up, like the CLI and the server
    print(f"{len(answers)} answers, as of {AS_OF}")
    print("| pass | answers/s | total s | extraction | lookup | content checks | JSON |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in ("cold caches", "warm caches"):
        times = one_pass(answers, repo)
        total = sum(v for k, v in times.items() if k != "citations")
        shares = " | ".join(
            f"{times[k]:.2f} s ({times[k] / total:.0%})"
            for k in ("extract", "lookup", "content", "json")
        )
        print(f"| {name} | {len(answers) / total:,.0f} | {total:.2f} | {shares} |")
    print(f"citations per pass: {int(times['citations'])}")


if __name__ == "__main__":
    main()
