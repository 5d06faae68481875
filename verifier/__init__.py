"""The verifier: citations + the statute database + an as-of date -> one verdict each.

`check(text, repo, as_of)` extracts and verifies an answer; `check_citations(...)` verifies
citations already extracted; `classify(...)` is the existence-and-time rule for one provision.
"""

from typing import TYPE_CHECKING

from textnorm.lazy import lazy_exports

if TYPE_CHECKING:
    from verifier.check import check, check_citations, summarize, today
    from verifier.classify import classify
    from verifier.lexicon import lexicon_of
    from verifier.models import CheckResult, Facts, QuoteCheck, Summary, Verdict
    from verifier.serialize import result_to_json, summary_line, verdict_to_json

__all__ = [
    "CheckResult",
    "Facts",
    "QuoteCheck",
    "Summary",
    "Verdict",
    "check",
    "check_citations",
    "classify",
    "lexicon_of",
    "result_to_json",
    "summarize",
    "summary_line",
    "today",
    "verdict_to_json",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "verifier.check": ("check", "check_citations", "summarize", "today"),
        "verifier.lexicon": ("lexicon_of",),
        "verifier.classify": ("classify",),
        "verifier.models": ("CheckResult", "Facts", "QuoteCheck", "Summary", "Verdict"),
        "verifier.serialize": ("result_to_json", "summary_line", "verdict_to_json"),
    },
)
