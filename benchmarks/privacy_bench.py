"""Speed of the audit privacy parts: PII masking, pseudonyms, the mapping store.

    .venv/bin/python benchmarks/privacy_bench.py

Masking is timed on the development answers (questions and answers of flzx_dev_answers.jsonl),
on 1 MB of prose seeded with personal data, and on pathological 1 MB inputs (each the best of
three runs); pseudonyms and the store per call.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from audit.mapping_store import MappingStore
from audit.masking import mask_pii
from audit.pseudonyms import Pseudonymizer

SHARED = Path(os.environ.get("LEXGATE_SHARED_DIR", Path(__file__).resolve().parents[2] / "shared"))
SEEDS = ["13812345678", "0755-86001234", "zhang.san@163.com", "11010519491231002X"]
SEEDS += ["4111 1111 1111 1111", "第1062条", "5000000元", "2023年8月1日"]


def best_of(runs: int, action: Callable[[], object]) -> float:
    """Shortest wall time of runs calls, seconds."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return min(times)


def seeded_prose(size: int) -> str:
    """size characters of Chinese prose with one seed (PII or a legal number) every ~200."""
    generator = random.Random(7)
    words = "的是了在人有我他这中大来上国个到说们为子和你地出道也时年合同当事人应当依法"
    pieces: list[str] = []
    length = 0
    while length < size:
        pieces.append("".join(generator.choice(words) for _ in range(200)))
        pieces.append(generator.choice(SEEDS))
        length += len(pieces[-1]) + 200
    return "".join(pieces)[:size]


def main() -> None:
    texts = []
    for line in (SHARED / "eval" / "flzx_dev_answers.jsonl").read_text("utf-8").splitlines():
        item = json.loads(line)
        texts += [item["question"], item["answer"]]
    characters = sum(map(len, texts))
    latencies = []
    started = time.perf_counter()
    for text in texts:
        one = time.perf_counter()
        mask_pii(text)
        latencies.append(time.perf_counter() - one)
    elapsed = time.perf_counter() - started
    latencies.sort()
    print(
        f"dev answers: {len(texts)} texts, {characters / 1e6:.2f} M chars in {elapsed:.2f} s "
        f"= {characters / elapsed / 1e6:.2f} M chars/s; per text median "
        f"{statistics.median(latencies) * 1e3:.2f} ms, p99 "
        f"{latencies[int(len(latencies) * 0.99)] * 1e3:.2f} ms"
    )

    prose = seeded_prose(1_000_000)
    masked = mask_pii(prose)
    print(
        f"1 MB seeded prose: {best_of(3, lambda: mask_pii(prose)) * 1e3:.0f} ms, "
        f"{masked.total} replacements"
    )
    for name, text in [
        ("1 MB of digits", "1" * 1_000_000),
        ("1 MB of 'a@'", "a@" * 500_000),
        ("1 MB dotted domain", "x@" + "a." * 500_000),
        ("1 MB '1234-' groups", "1234-" * 200_000),
    ]:
        print(f"{name}: {best_of(3, lambda text=text: mask_pii(text)) * 1e3:.0f} ms")

    pseudonymizer = Pseudonymizer(os.urandom(32), "k1")
    ids = [f"session-{n}" for n in range(100_000)]
    seconds = best_of(3, lambda: [pseudonymizer.pseudonym("sess", raw) for raw in ids])
    print(f"pseudonym: {seconds / len(ids) * 1e6:.2f} µs per id")

    with tempfile.TemporaryDirectory() as directory:
        store = MappingStore(Path(directory) / "map.sqlite3")
        pseudonyms = [pseudonymizer.pseudonym("sess", raw) for raw in ids[:2000]]
        pairs = list(zip(pseudonyms, ids, strict=False))

        def record_all() -> None:
            for pseudonym, raw in pairs:
                store.record(pseudonym, "sess", raw)

        first = best_of(1, record_all)
        again = best_of(1, record_all)
        resolved = best_of(1, lambda: [store.resolve(pseudonym) for pseudonym in pseudonyms])
        per_call = 1e3 / len(pairs)
        print(
            f"mapping store (WAL, synchronous=FULL, a connection per call): record new "
            f"{first * per_call:.2f} ms, record again {again * per_call:.2f} ms, resolve "
            f"{resolved * per_call:.2f} ms per call"
        )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
