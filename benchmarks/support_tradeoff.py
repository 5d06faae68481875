"""The support rules' trade-off on LawBench 3-2: right-article answers passed against catch.

Checks and gates every dev answer (../shared/eval/lb32_dev_answers.jsonl.xz) in one process with
the support constants set as given, and prints one JSON line with the figures of
`score_lb32.py` and `score_lb32_gate.py` (same rules: the first citation, right when it names the
reference article):

    python -m benchmarks.support_tradeoff --database-url sqlite:///var/lexgate.sqlite3 \\
        --setting '{"BEST_MARGIN": -0.05}'
    python -m benchmarks.support_tradeoff --database-url ... --no-content   # the gate ignoring it

The constants of `verifier.support` are module globals read at each call, so setting them before
the first check changes the rules for the whole run (one setting per process).
"""

from __future__ import annotations

import argparse
import json
import lzma
import re
import time
from collections import Counter
from datetime import date
from typing import Any

import gate.decide
from benchmarks.common import SHARED, repository
from gate import assess_answer
from verifier import support

EVAL = SHARED / "eval"
CJK = re.compile(r"[\u4e00-\u9fff]")


def law_key(name: str | None) -> str:
    """A law name as the scorers compare it: no 《》〈〉 or spaces, no leading 中华人民共和国."""
    return re.sub(r"[《》〈〉\s]", "", name or "").removeprefix("中华人民共和国")


def references() -> dict[int, tuple[str, int, str | None]]:
    """Question number -> (law key, article, suffix) of the benchmark's reference article."""
    found = {}
    for line in (EVAL / "lb32_refs.jsonl").read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        if item.get("ref_law"):
            found[item["q"]] = (law_key(item["ref_law"]), item["ref_article"],
                                item.get("ref_article_suffix"))  # fmt: skip
    return found


def measure(database_url: str | None) -> dict[str, Any]:
    """The scorers' figures over the whole dev set with the rules as they are set now."""
    refs = references()
    repo = repository(database_url)
    counts: Counter[str] = Counter()
    started = time.process_time()
    with lzma.open(EVAL / "lb32_dev_answers.jsonl.xz", "rt", encoding="utf-8") as lines:
        for line in lines:
            item = json.loads(line)
            ref = refs.get(int(item["id"].rsplit("/", 1)[-1]))
            if ref is None:
                continue
            answer = item["answer"]
            assessment = assess_answer(answer, repo=repo, as_of=date.fromisoformat(item["as_of"]))
            if not assessment.check.verdicts:
                continue
            first = assessment.check.verdicts[0]
            cited = first.citation
            decision = assessment.result.decision
            flagged = first.status != "verified" or first.support.verdict == "unsupported"
            if (law_key(cited.law), cited.article) == ref[:2]:
                counts["right"] += 1
                counts["right_passed"] += decision == "pass"
                counts["right_flagged"] += flagged
                continue
            delivered = decision in ("pass", "pass_boundary")
            if first.quote_check.verdict != "none":
                counts["stated"] += 1
                counts["stated_flagged"] += flagged
                counts["stated_delivered"] += delivered
            if len(CJK.findall(answer[cited.end : cited.end + 120])) >= 10:
                counts["text"] += 1
                counts["text_delivered"] += delivered
    return {
        "right_passed": round(counts["right_passed"] / counts["right"], 4),
        "right_flagged": round(counts["right_flagged"] / counts["right"], 4),
        "catch": round(counts["stated_flagged"] / counts["stated"], 4),
        "wrong_quote_delivered": round(counts["stated_delivered"] / counts["stated"], 4),
        "wrong_text_delivered": round(counts["text_delivered"] / counts["text"], 4),
        "answers": [counts["right"], counts["stated"], counts["text"]],
        "cpu_s": round(time.process_time() - started),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="default: a fresh SQLite file of the corpus")
    parser.add_argument("--setting", default="{}", help="JSON: constants of verifier.support")
    parser.add_argument("--no-content", action="store_true", help="the gate ignores support")
    args = parser.parse_args()
    setting = json.loads(args.setting)
    for name, value in setting.items():
        if not hasattr(support, name) or not name.isupper():
            parser.error(f"verifier.support has no constant {name}")
        setattr(support, name, value)
    if args.no_content:
        gate.decide.content_counts = lambda verdict, partly="warn": True  # type: ignore[assignment]
    figures = measure(args.database_url)
    print(json.dumps({"setting": setting, "no_content": args.no_content, **figures}))


if __name__ == "__main__":
    main()
