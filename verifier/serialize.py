"""Verdicts as JSON: the extractor's fields plus status, reason, facts, resolved and checks."""

from __future__ import annotations

from typing import Any

from verifier.models import CheckResult, Facts, Summary, Support, Verdict

# Badge label per status (and per reason where the status alone is not enough).
BADGES: dict[str, str] = {
    "verified": "现行有效",
    "repealed": "已废止",
    "deprecated": "已修改",
    "notYetEffective": "尚未生效",
    "unverified": "未能核验",
}


# The support verdict as a person reads it (unknown: no mark; nothing stated to judge).
SUPPORT_LABELS: dict[str, str] = {
    "supports": "内容相符",
    "partly": "内容部分相符",
    "unsupported": "内容不符",
}
# Its symbol, in the terminal and on pages alike.
SUPPORT_MARKS: dict[str, str] = {"supports": "≡", "partly": "≈", "unsupported": "≠"}


def badge_label(verdict: Verdict) -> str:
    """现行有效 / 已废止 / 已修改 / 尚未生效 / 未能核验."""
    if verdict.status == "deprecated" and verdict.reason == "repealed":
        return BADGES["repealed"]
    return BADGES[verdict.status]


_FIELDS: dict[type, tuple[str, ...] | None] = {}


def _field_names(kind: type) -> tuple[str, ...] | None:
    """A dataclass's field names, None for any other type (looked up once per type)."""
    try:
        return _FIELDS[kind]
    except KeyError:
        fields = getattr(kind, "__dataclass_fields__", None)
        names = _FIELDS[kind] = None if fields is None else tuple(fields)
        return names


def plain(value: Any) -> Any:
    """Frozen dataclasses (and tuples of them) as JSON-ready dicts and lists.

    Like dataclasses.asdict, without its deep copies (it was a tenth of a `check --jsonl`).
    """
    names = _field_names(type(value))
    if names is not None:
        return {name: plain(getattr(value, name)) for name in names}
    if isinstance(value, tuple | list):
        return [plain(item) for item in value]
    return value


def _plain_present(value: Any) -> Any:
    """plain(value) without the fields that are None or empty, at every depth (one pass)."""
    names = _field_names(type(value))
    if names is not None:
        data = {}
        for name in names:
            field = getattr(value, name)
            if field is None or (isinstance(field, tuple | list) and not field):
                continue
            data[name] = _plain_present(field)
        return data
    if isinstance(value, tuple | list):
        return [_plain_present(item) for item in value]
    return value


def facts_to_json(facts: Facts) -> dict[str, Any]:
    """The facts that apply (None and empty fields left out)."""
    result: dict[str, Any] = _plain_present(facts)
    return result


def verdict_to_json(verdict: Verdict, *, with_text: bool = True) -> dict[str, Any]:
    """One citation object of `lexgate check --json` and of the API.

    Without text (the CLI's and the API's default) the texts that repeat the answer or the
    statute database are left out: the quote's and the claim's (their spans stay), the
    article's (`resolved.article_text`) and the successors' texts; half the size of a batch.
    """
    data: dict[str, Any] = verdict.citation.to_json()
    data.update(
        status=verdict.status,
        reason=verdict.reason,
        badge=badge_label(verdict),
        facts=facts_to_json(verdict.facts),
        resolved=plain(verdict.resolved) if verdict.resolved else None,
        quote_check={
            "verdict": verdict.quote_check.verdict,
            "score": verdict.quote_check.score,
            "found_in": plain(verdict.quote_check.found_in),
        },
        number_conflicts=plain(verdict.number_conflicts),
        support=support_to_json(verdict.support),
    )
    if not with_text:
        _drop_texts(data)
    return data


def _drop_texts(data: dict[str, Any]) -> None:
    for span in ("quote", "claim"):
        if data.get(span):
            data[span].pop("text", None)
    if data["resolved"]:
        data["resolved"].pop("article_text", None)
    facts = data["facts"]
    for ref in (*facts.get("successors", ()), facts.get("corresponding") or {}):
        ref.pop("text", None)


def support_to_json(support: Support) -> dict[str, Any]:
    """The support verdict with its evidence (unknown: the verdict alone)."""
    if support.verdict == "unknown":
        return {"verdict": "unknown"}
    data: dict[str, Any] = _plain_present(support)
    return data


def summary_to_json(summary: Summary) -> dict[str, Any]:
    """Counts per status, with the keys of the issue (notYetEffective spelled as a status)."""
    return {
        "total": summary.total,
        "verified": summary.verified,
        "deprecated": summary.deprecated,
        "notYetEffective": summary.not_yet_effective,
        "unverified": summary.unverified,
        "line": summary_line(summary),
    }


def summary_line(summary: Summary) -> str:
    """已校对 6 条 · 现行有效 5 · 已废止 1 · 尚未生效 0 · 未能核验 0."""
    return (
        f"已校对 {summary.total} 条 · 现行有效 {summary.verified} · 已废止 {summary.deprecated}"
        f" · 尚未生效 {summary.not_yet_effective} · 未能核验 {summary.unverified}"
    )


def result_to_json(result: CheckResult, *, with_text: bool = True) -> dict[str, Any]:
    """The whole check of one answer (`with_text`: see verdict_to_json)."""
    return {
        "as_of": result.as_of,
        "citations": [verdict_to_json(v, with_text=with_text) for v in result.verdicts],
        "summary": summary_to_json(result.summary),
    }
