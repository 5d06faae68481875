"""The verifier's content checks on the development data: quote accuracy, thresholds, speed.

    .venv/bin/python -m benchmarks.content_bench accuracy   # quote_dev accuracy, threshold study
    .venv/bin/python -m benchmarks.content_bench speed      # compare_quote, QuoteIndex, numbers
    .venv/bin/python -m benchmarks.content_bench flzx       # the quote checks of a batch check
    valgrind --tool=callgrind --instr-atstart=no \\
        .venv/bin/python -m benchmarks.content_bench flzx --first=600 --callgrind  # instructions
    .venv/bin/python -m benchmarks content_bench            # both (make bench runs them too)

The accuracy harness stands in for the pipeline until the extractor and the statute database
are wired: the quote is the answer's text after "第…条(的)规定：" (enclosing “” dropped), and the
article text is the benchmark's reference text from recite_dev.jsonl (same law and article,
paragraphs joined by line breaks; quote_dev keeps only items where it agrees with the corpus).
`lexgate check --jsonl` scored by score_quotes.py replaces it once wired.
"""

from __future__ import annotations

import json
import os
import random
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textnorm import cn_to_int
from verifier import quotes
from verifier.models import QuoteScore
from verifier.numbers import number_conflicts
from verifier.quotes import QuoteIndex, best_location, compare_quote
from verifier.textnorm_quote import normalize_for_compare

SHARED = Path(os.environ.get("LEXGATE_SHARED_DIR", Path(__file__).resolve().parents[2] / "shared"))
EVAL = SHARED / "eval"
_CITED = re.compile(
    r"第[零〇一二两三四五六七八九十百千]+条(?:之[一二三四五六七八九十]+)?(?:的)?规定[：:]?"
)


def provisional_quote(answer: str) -> str:
    """The recited part of a quote_dev answer: after its first "第…条规定：", without “”."""
    cited = _CITED.search(answer)
    quote = answer[cited.end() :] if cited else answer
    quote = quote.strip()
    if quote.startswith("“") and quote.endswith("”"):
        quote = quote[1:-1]
    return quote


def load_references() -> dict[tuple[str, int], str]:
    """(law, article number) -> reference article text, from recite_dev.jsonl."""
    references = {}
    for line in (EVAL / "recite_dev.jsonl").read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        number = cn_to_int(item["article"].removeprefix("第").removesuffix("条"))
        references[(item["law"], number)] = "\n".join(item["reference"])
    return references


def load_quote_set() -> list[tuple[str, str, str, str]]:
    """quote_dev as (id, expected verdict, quote, article text)."""
    references = load_references()
    rows = []
    for line in (EVAL / "quote_dev.jsonl").read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        expect = item["expect"]
        article = references[(expect["law"], expect["article"])]
        rows.append((item["id"], expect["quote"], provisional_quote(item["answer"]), article))
    return rows


def _right(expected: str, result: QuoteScore) -> bool:
    """score_quotes.py's rule: a match must be match; a mismatch is caught by partial too."""
    if expected == "match":
        return result.verdict == "match"
    return result.verdict in ("partial", "mismatch")


def accuracy(show_wrong: int = 15) -> None:
    """Accuracy on quote_dev, the score distributions and accuracy by MATCH_SCORE."""
    rows = load_quote_set()
    results = [(item_id, expected, compare_quote(q, a)) for item_id, expected, q, a in rows]
    right = sum(_right(expected, result) for _, expected, result in results)
    for label in ("match", "mismatch"):
        scores = sorted(r.score for _, e, r in results if e == label)
        print(
            f"{label:8s} n={len(scores)} score min {scores[0]:.3f} "
            f"median {statistics.median(scores):.3f} max {scores[-1]:.3f}"
        )
    print(f"quote_dev accuracy {right / len(results):.4f} ({right}/{len(results)})")
    print("threshold study (MATCH_SCORE: accuracy, match right, mismatch right):")
    for threshold in [0.5, 0.6, 0.7, 0.75, 0.78, 0.8, 0.85, 0.9, 0.95, 0.99]:
        matches = [r.score >= threshold for _, e, r in results if e == "match"]
        caught = [r.score < threshold for _, e, r in results if e == "mismatch"]
        total = (sum(matches) + sum(caught)) / len(results)
        print(
            f"  {threshold:.2f}: {total:.4f}  {sum(matches)}/{len(matches)}  "
            f"{sum(caught)}/{len(caught)}"
        )
    recite_dev()
    robustness(rows)
    wrong = [(i, e, r) for i, e, r in results if not _right(e, r)]
    for item_id, expected, result in wrong[:show_wrong]:
        print("  wrong:", item_id, expected, result.verdict, result.score, result.support)


def recite_dev() -> None:
    """All recitations of recite_dev.jsonl judged as quote_dev's were built: similarity to the
    reference >= 0.9 expects match, < 0.5 mismatch (the rest is left out, as there)."""
    results = []
    for line in (EVAL / "recite_dev.jsonl").read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        if 0.5 <= item["similarity"] < 0.9:
            continue
        expected = "match" if item["similarity"] >= 0.9 else "mismatch"
        results.append((expected, compare_quote(item["recited"], "\n".join(item["reference"]))))
    right = sum(_right(expected, result) for expected, result in results)
    print(f"recite_dev (all {len(results)} recitations) accuracy {right / len(results):.4f}")
    for threshold in [0.6, 0.7, 0.75, 0.8, 0.85, 0.9]:
        matches = [r.score >= threshold for e, r in results if e == "match"]
        caught = [r.score < threshold for e, r in results if e == "mismatch"]
        print(
            f"  {threshold:.2f}: {(sum(matches) + sum(caught)) / len(results):.4f}  "
            f"{sum(matches)}/{len(matches)}  {sum(caught)}/{len(caught)}"
        )


def _perturb(text: str, rate: float, rng: random.Random) -> str:
    """Replace a share of the CJK characters by common legal characters (a model's slips)."""
    chars = list(text)
    for index, char in enumerate(chars):
        if "\u4e00" <= char <= "\u9fff" and rng.random() < rate:
            chars[index] = rng.choice("的了和或者应当依照规定本法其人")
    return "".join(chars)


def robustness(rows: list[tuple[str, str, str, str]]) -> None:
    """Scores of synthetic recitations of the match items' articles (seeded, reproducible)."""
    rng = random.Random(20230801)
    articles = [a for _, e, _, a in rows if e == "match"]
    others = [a for _, e, _, a in rows if e == "mismatch"]
    makers: dict[str, Callable[[str], str]] = {
        "2% chars changed": lambda a: _perturb(a, 0.02, rng),
        "5% chars changed": lambda a: _perturb(a, 0.05, rng),
        "10% chars changed": lambda a: _perturb(a, 0.10, rng),
        "one paragraph": lambda a: rng.choice([p for p in a.split("\n") if p.strip()]),
        "first half (cut)": lambda a: a[: len(a) // 2],
        "article + another": lambda a: a + "\n" + rng.choice(others),
        "another article": lambda a: rng.choice(others),
    }
    print("synthetic recitations of the match items' articles (share judged match):")
    for name, make in makers.items():
        scores = [compare_quote(make(article), article) for article in articles]
        share = sum(s.verdict == "match" for s in scores) / len(scores)
        low = min(s.score for s in scores)
        print(f"  {name:18s}: match {share:.3f}, min score {low:.3f}")


def statute_pool(laws: tuple[str, ...]) -> list[tuple[str, str]]:
    """(label, text) of every article of the latest version of each law, from the bundled corpus."""
    from legaldb.corpus import BUNDLED_ARCHIVE, read_corpus

    pool = []
    for law in read_corpus(BUNDLED_ARCHIVE).laws:
        if law.name in laws:
            version = law.versions[-1]
            pool += [(f"{law.short_name}{a.label}", a.text) for a in version.articles if a.text]
    return pool


def _locate_figures(
    pool: list[tuple[str, str]], label: str, sample: list[tuple[str | None, str]]
) -> None:
    """Time best_location and QuoteIndex on sample (source key, quote); count the sources found."""
    quotes_only = [quote for _, quote in sample]
    print(f"where a quote is from, {len(pool)} articles (民法典, 刑法, 公司法), {label}:")
    normalize_for_compare.cache_clear()
    _timed(
        "best_location (one-off scan)",
        len(sample),
        lambda: [best_location(q, pool) for q in quotes_only],
    )
    normalize_for_compare.cache_clear()
    _timed("QuoteIndex build (once per set of articles)", 1, lambda: QuoteIndex(pool))
    index = QuoteIndex(pool)
    _timed("QuoteIndex.locate", len(sample), lambda: [index.locate(q) for q in quotes_only])
    found = 0
    for source, quote in sample:
        located = index.locate(quote, limit=1)
        found += bool(located) and (located[0][0] == source or located[0][1].score == 1.0)
    print(f"  found with a match at the top: {found}/{len(sample)}")


def _timed(label: str, items: int, func: Callable[[], object]) -> None:
    """Run func once; print wall and CPU time per item (CPU time is steadier on a busy host)."""
    wall, cpu = time.perf_counter(), time.process_time()
    func()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(
        f"  {label}: {wall * 1000 / items:.3f} ms each ({items / wall:,.0f}/s); "
        f"CPU {cpu * 1000 / items:.3f} ms each"
    )


def speed() -> None:
    """Time of the content checks on quote_dev's texts (cache cold: first pass; warm: second)."""
    rows = load_quote_set()
    pairs = [(q, a) for _, _, q, a in rows]
    print(f"compare_quote, {len(pairs)} quote_dev pairs:")
    normalize_for_compare.cache_clear()
    for label in ("cache cold", "cache warm"):
        _timed(label, len(pairs), lambda: [compare_quote(q, a) for q, a in pairs])
    pool = statute_pool(("中华人民共和国民法典", "中华人民共和国刑法", "中华人民共和国公司法"))
    rng = random.Random(1)
    sources = rng.sample(pool, 50)
    present = [(key, rng.choice(text.split("\n"))) for key, text in sources]
    absent = [(None, q) for q, _ in pairs[::11]][:50]  # quote_dev recitations: of other laws
    _locate_figures(pool, "50 paragraphs of pool articles", present)
    _locate_figures(pool, "50 quote_dev recitations (other laws)", absent)
    print(f"number_conflicts, {len(pairs)} quote_dev pairs:")
    _timed("quote against article", len(pairs), lambda: [number_conflicts(q, a) for q, a in pairs])


def flzx(callgrind: bool, first: int | None = None) -> None:
    """CPU time of the quote checks of `lexgate check` over flzx_dev_answers (its first `first`
    lines if given), as a fresh process does them: the arguments of each `check_quote` and of
    each `QuoteIndex.coverage` (the support verdicts' bigram coverage) are recorded in one pass
    of the command's own pipeline (configured database and cache directory), then the memos
    and quote indexes are dropped and the same calls made again, timed. With --callgrind,
    under `valgrind --tool=callgrind --instr-atstart=no`, the instructions of those calls
    alone."""
    import importlib
    import subprocess
    from datetime import date

    from lexgate.cli import _load_repository
    from verifier import content, quotes, textnorm_quote

    check = importlib.import_module("verifier.check")  # the module; the package exports the verb

    repo = _load_repository()
    calls: list[tuple[Any, ...]] = []
    covered: list[tuple[Any, list[str]]] = []

    def recorded(*args: Any) -> Any:
        calls.append(args)
        return content.check_quote(*args)

    real, real_coverage = check.check_quote, QuoteIndex.coverage

    def coverage(index: Any, grams: Any) -> Any:
        covered.append((index, list(grams)))
        return real_coverage(index, covered[-1][1])

    check.check_quote = recorded  # type: ignore[assignment]
    QuoteIndex.coverage = coverage  # type: ignore[method-assign]
    try:
        lines = (EVAL / "flzx_dev_answers.jsonl").read_text(encoding="utf-8").splitlines()
        for line in lines[:first]:
            check.check(json.loads(line)["answer"], repo, date(2026, 12, 1))
    finally:
        check.check_quote = real
        QuoteIndex.coverage = real_coverage  # type: ignore[method-assign]
    version_of = {id(index): version for version, index in content._INDEXES[repo].items()}
    coverage_calls = [(version_of[id(index)], grams) for index, grams in covered]
    for module in (content, quotes, textnorm_quote):
        for memo in vars(module).values():
            if hasattr(memo, "cache_clear"):
                memo.cache_clear()
    content._LOCATED.clear()
    content._INDEXES.clear()
    pid = str(os.getpid())
    if callgrind:
        subprocess.run(["callgrind_control", "-i", "on", pid], check=True, capture_output=True)
    wall, cpu = time.perf_counter(), time.process_time()
    for args in calls:
        content.check_quote(*args)
    middle = time.process_time()
    for version, grams in coverage_calls:
        content.version_index(repo, version).coverage(grams)
    wall, cpu, quote_cpu = time.perf_counter() - wall, time.process_time() - cpu, middle - cpu
    if callgrind:
        subprocess.run(["callgrind_control", "-i", "off", pid], check=True, capture_output=True)
    print(
        f"check_quote over the {len(calls):,} citations of flzx_dev_answers (memos cold) and "
        f"{len(coverage_calls):,} coverage calls: CPU {cpu:.2f} s ({quote_cpu:.2f} s the checks),"
        f" wall {wall:.2f} s (load average {os.getloadavg()[0]:.1f})"
    )


def main(argv: list[str]) -> int:
    """Run the parts named in argv (accuracy, speed; flzx alone, not by default); accuracy and
    speed when none is named, as under `python -m benchmarks`, whose own arguments (benchmark
    names) are ignored here."""
    if "flzx" in argv:
        first = next(
            (int(a.removeprefix("--first=")) for a in argv if a.startswith("--first=")), None
        )
        flzx(callgrind="--callgrind" in argv, first=first)
        return 0
    parts = [arg for arg in argv if arg in ("accuracy", "speed")] or ["accuracy", "speed"]
    print(
        f"thresholds: MATCH_SCORE {quotes.MATCH_SCORE}, PARTIAL_SUPPORT {quotes.PARTIAL_SUPPORT},"
        f" PARTIAL_SCORE {quotes.PARTIAL_SCORE}"
    )
    for part in parts:
        if part == "accuracy":
            accuracy()
        else:
            speed()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
