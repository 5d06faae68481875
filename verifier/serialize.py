"""Verdicts as JSON: the extractor's fields plus status, reason, facts, resolved and checks."""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any

from verifier.models import CheckResult, Facts, QuoteCheck, Resolved, Summary, Support, Verdict

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


# Values JSON takes as they are: no walk into them.
_SCALARS: frozenset[type] = frozenset({str, int, float, bool, type(None)})

_LAYOUTS: dict[type, tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]] | None] = {}


def _layout(kind: type) -> tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]] | None:
    """A dataclass's field names and a getter of all their values at once (one C call), None
    for any other type (looked up once per type)."""
    try:
        return _LAYOUTS[kind]
    except KeyError:
        fields = getattr(kind, "__dataclass_fields__", None)
        layout = None
        if fields is not None:
            names = tuple(fields)
            getter = attrgetter(*names) if len(names) > 1 else _single_or_none(names)
            layout = (names, getter)
        _LAYOUTS[kind] = layout
        return layout


def _single_or_none(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The getter of a dataclass with one field or none (attrgetter of one name is no tuple)."""
    if not names:
        return lambda value: ()
    get = attrgetter(names[0])
    return lambda value: (get(value),)


def plain(value: Any) -> Any:
    """Frozen dataclasses (and tuples of them) as JSON-ready dicts and lists.

    Like dataclasses.asdict, without its deep copies (it was a tenth of a `check --jsonl`); a
    str, number, bool or None is taken as it is, without a call per field.
    """
    layout = _layout(type(value))
    if layout is not None:
        names, get = layout
        return {
            name: field if type(field) in _SCALARS else plain(field)
            for name, field in zip(names, get(value), strict=True)
        }
    if isinstance(value, tuple | list):
        return [item if type(item) in _SCALARS else plain(item) for item in value]
    return value


def _plain_present(value: Any) -> Any:
    """plain(value) without the fields that are None or empty, at every depth (one pass)."""
    layout = _layout(type(value))
    if layout is not None:
        names, get = layout
        data = {}
        for name, field in zip(names, get(value), strict=True):
            if field is None:
                continue
            if type(field) in _SCALARS:
                data[name] = field
            elif not isinstance(field, tuple | list):
                data[name] = _plain_present(field)
            elif field:
                data[name] = [_plain_present(item) for item in field]
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
    data = _citation_json(verdict, with_text)
    data.update(
        facts=_facts_json(verdict.facts, with_text),
        resolved=_resolved_json(verdict.resolved, with_text),
        quote_check=_quote_check_json(verdict.quote_check),
        number_conflicts=plain(verdict.number_conflicts),
        support=support_to_json(verdict.support),
    )
    return data


def _citation_json(verdict: Verdict, with_text: bool) -> dict[str, Any]:
    """The extractor's fields of the citation, then status, reason and badge."""
    data: dict[str, Any] = verdict.citation.to_json()
    if not with_text:
        for span in ("quote", "claim"):
            if data[span]:
                del data[span]["text"]
    data["status"] = verdict.status
    data["reason"] = verdict.reason
    data["badge"] = badge_label(verdict)
    return data


def _facts_json(facts: Facts, with_text: bool) -> dict[str, Any]:
    data = facts_to_json(facts)
    if not with_text:
        for ref in (*data.get("successors", ()), data.get("corresponding") or {}):
            ref.pop("text", None)
    return data


def _resolved_json(resolved: Resolved | None, with_text: bool) -> dict[str, Any] | None:
    if resolved is None:
        return None
    data: dict[str, Any] = plain(resolved)
    if not with_text:
        del data["article_text"]
    return data


def _quote_check_json(quote_check: QuoteCheck) -> dict[str, Any]:
    return {
        "verdict": quote_check.verdict,
        "score": quote_check.score,
        "found_in": plain(quote_check.found_in),
    }


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
