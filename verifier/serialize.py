"""Verdicts as JSON: the extractor's fields plus status, reason, facts, resolved and checks."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from functools import partial
from operator import attrgetter
from typing import Any

from extractor.jsontext import citation_members, json_int, json_str
from verifier.models import (
    CheckResult,
    Facts,
    NumberConflict,
    QuoteCheck,
    Resolved,
    Summary,
    Support,
    Verdict,
)

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
    data = _citation_fields(verdict, with_text)
    data.update(_status_json(verdict))
    return data


def _citation_fields(verdict: Verdict, with_text: bool) -> dict[str, Any]:
    """The extractor's fields of the citation (without text: the quote's and claim's left out)."""
    data: dict[str, Any] = verdict.citation.to_json()
    if not with_text:
        for span in ("quote", "claim"):
            if data[span]:
                del data[span]["text"]
    return data


def _status_json(verdict: Verdict) -> dict[str, str]:
    return {"status": verdict.status, "reason": verdict.reason, "badge": badge_label(verdict)}


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


# --- One output line of `lexgate check --jsonl` as text -------------------------------------
#
# json.dumps(value, ensure_ascii=False) writes a dict as "{" + ", ".join(f"{key}: {value}") +
# "}" and a list as "[" + ", ".join(items) + "]", each key and value written on its own (a str
# through json.encoder.encode_basestring, an int through int.__repr__, a finite float through
# float.__repr__, True, False and None as true, false and null): a line joined from texts
# written so, or by the same encoder, is the same bytes as the whole line dumped at once. The
# parts a batch repeats are written once and kept: the facts, the resolved article and the
# support verdict for the very object they were written from (the check's memos hand the same
# objects out again: a support verdict is written 3,417 times for the 9,642 citations of the
# flzx answers), each status and reason for its value.

FRAGMENTS_KEPT = 8192  # per kind of part; all dropped when full (a batch's parts are few)

_encode = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode

Kept = dict[int, tuple[Any, str]]  # id(value) -> (value, its JSON)


def _kept_text(memo: Kept, value: Any, write: Callable[[Any], str]) -> str:
    """write(value), the value's JSON, kept for this object (not for an equal one: 0 equals
    0.0, and json writes them apart); the memo holds the object, so its id is not reused."""
    kept = memo.get(id(value))
    if kept is not None and kept[0] is value:
        return kept[1]
    if len(memo) >= FRAGMENTS_KEPT:
        memo.clear()
    text = write(value)
    memo[id(value)] = (value, text)
    return text


_STATUS_TEXT: dict[tuple[str, str], str] = {}  # the status members, without braces
_FACTS_TEXT: tuple[Kept, Kept] = ({}, {})  # without, with text
_RESOLVED_TEXT: tuple[Kept, Kept] = ({}, {})
_SUPPORT_TEXT: Kept = {}


def _facts_text(facts: Facts, with_text: bool) -> str:
    return _encode(_facts_json(facts, with_text))


_FACTS_WRITERS = (partial(_facts_text, with_text=False), partial(_facts_text, with_text=True))


def _resolved_text(resolved: Resolved | None, with_text: bool) -> str:
    """`_encode(_resolved_json(resolved, with_text))`, written field by field."""
    if resolved is None:
        return "null"
    text = f', "article_text": {json_str(resolved.article_text)}' if with_text else ""
    return (
        f'{{"law": {json_str(resolved.law)}, "version_label": {json_str(resolved.version_label)}, '
        f'"effective_from": {json_str(resolved.effective_from)}, '
        f'"effective_to": {json_str(resolved.effective_to)}, '
        f'"article_label": {json_str(resolved.article_label)}{text}}}'
    )


_RESOLVED_WRITERS = (
    partial(_resolved_text, with_text=False),
    partial(_resolved_text, with_text=True),
)


def _support_text(support: Support) -> str:
    """`_encode(support_to_json(support))`, its scalar fields written one by one (a field that
    is None, or an empty tuple, left out as `_plain_present` leaves it out)."""
    if support.verdict == "unknown":
        return '{"verdict": "unknown"}'
    members = [f'"verdict": {json_str(support.verdict)}']
    if support.evidence is not None:
        members.append(f'"evidence": {json_str(support.evidence)}')
    if support.score is not None:
        members.append(f'"score": {_number(support.score)}')
    if support.coverage is not None:
        members.append(f'"coverage": {_number(support.coverage)}')
    if support.best_other is not None:
        members.append(f'"best_other": {_number(support.best_other)}')
    if support.differences:
        members.append(f'"differences": {_encode(_plain_present(support.differences))}')
    if support.found_in:
        members.append(f'"found_in": {_encode(_plain_present(support.found_in))}')
    return f"{{{', '.join(members)}}}"


def verdict_text(verdict: Verdict, *, with_text: bool = True) -> str:
    """`json.dumps(verdict_to_json(verdict, with_text=with_text), ensure_ascii=False)`, written
    from the citation's and the quote check's own fields and the kept texts of the parts a
    batch repeats."""
    return (
        f"{{{citation_members(verdict.citation, with_text)}, {_status_members(verdict)}, "
        f'"facts": {_kept_text(_FACTS_TEXT[with_text], verdict.facts, _FACTS_WRITERS[with_text])}, '
        f'"resolved": '
        f"{_kept_text(_RESOLVED_TEXT[with_text], verdict.resolved, _RESOLVED_WRITERS[with_text])}, "
        f'"quote_check": {_quote_check_text(verdict.quote_check)}, '
        f'"number_conflicts": {_conflicts_text(verdict.number_conflicts)}, '
        f'"support": {_kept_text(_SUPPORT_TEXT, verdict.support, _support_text)}}}'
    )


def _status_members(verdict: Verdict) -> str:
    """The status, reason and badge members (without braces), kept per status and reason."""
    status = _STATUS_TEXT.get((verdict.status, verdict.reason))
    if status is None:
        status = _encode(_status_json(verdict))[1:-1]
        _STATUS_TEXT[verdict.status, verdict.reason] = status
    return status


def _conflicts_text(conflicts: tuple[NumberConflict, ...]) -> str:
    return _encode(plain(conflicts)) if conflicts else "[]"


def _quote_check_text(quote_check: QuoteCheck) -> str:
    """`_encode(_quote_check_json(quote_check))`, written field by field."""
    found_in = ", ".join(
        [
            f'{{"law": {json_str(place.law)}, '
            f'"article_label": {json_str(place.article_label)}, '
            f'"version_label": {json_str(place.version_label)}, '
            f'"score": {_number(place.score)}, "where": {json_str(place.where)}}}'
            for place in quote_check.found_in
        ]
    )
    return (
        f'{{"verdict": {json_str(quote_check.verdict)}, '
        f'"score": {_number(quote_check.score)}, "found_in": [{found_in}]}}'
    )


def _number(value: float | None) -> str:
    """A float, an int or None as json writes it (a finite float: float.__repr__)."""
    if type(value) is float and math.isfinite(value):
        return repr(value)  # float.__repr__, as the type is float
    return "null" if value is None else _encode(value)


def python_result_line(item_id: Any, result: CheckResult, *, with_text: bool = True) -> str:
    """One line of `lexgate check --jsonl`: `json.dumps({"id": item_id, "as_of", "citations",
    "summary"}, ensure_ascii=False)` of the result, written as verdict_text writes a verdict
    (the reference of the compiled writer, and where it cannot write a line)."""
    citations = ", ".join([verdict_text(v, with_text=with_text) for v in result.verdicts])
    return (
        f'{{"id": {_encode(item_id)}, "as_of": {_encode(result.as_of)}, '
        f'"citations": [{citations}], "summary": {_summary_text(result.summary)}}}'
    )


def result_line(item_id: Any, result: CheckResult, *, with_text: bool = True) -> str:
    """python_result_line's line, written in one call by the compiled writer where built."""
    if _WRITER is not None:
        line: str | None = _WRITER.line(item_id, result, with_text)
        if line is not None:
            return line
    return python_result_line(item_id, result, with_text=with_text)


def result_line_utf8(
    item_id: Any, result: CheckResult, *, with_text: bool = True, errors: str = "strict"
) -> bytes:
    """result_line's line and its newline in UTF-8 (`errors`: as str.encode), written as bytes
    by the compiled writer where built (no str made and encoded)."""
    if _WRITER is not None:
        encoded: bytes | None = _WRITER.line_utf8(item_id, result, with_text)
        if encoded is not None:
            return encoded
    return f"{python_result_line(item_id, result, with_text=with_text)}\n".encode("utf-8", errors)


def _summary_text(summary: Summary) -> str:
    """`_encode(summary_to_json(summary))`, written field by field."""
    return (
        f'{{"total": {json_int(summary.total)}, "verified": {json_int(summary.verified)}, '
        f'"deprecated": {json_int(summary.deprecated)}, '
        f'"notYetEffective": {json_int(summary.not_yet_effective)}, '
        f'"unverified": {json_int(summary.unverified)}, "line": {json_str(summary_line(summary))}}}'
    )


# The compiled writer (verifier/_jsonline.c, built by setup.py where it can be): the same lines
# from the same fields, the repeated parts kept as UTF-8 (FRAGMENTS_KEPT of each kind), in one
# call; it hands the rare parts to the functions above.
try:
    from verifier import _jsonline
except ImportError:  # pragma: no cover - a build without a C compiler: the Python writer
    _jsonline = None  # type: ignore[assignment]

_WRITER = (
    None
    if _jsonline is None
    else _jsonline.Writer(
        encode=_encode,
        kept_limit=FRAGMENTS_KEPT,
        facts_writers=_FACTS_WRITERS,
        support_writer=_support_text,
        status_memo=_STATUS_TEXT,
        status_writer=_status_members,
        quote_check_writer=_quote_check_text,
        conflicts_writer=_conflicts_text,
        summary_writer=_summary_text,
    )
)
