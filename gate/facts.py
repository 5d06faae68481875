"""Facts from the database, worded by the Jinja2 templates in gate/templates, and rerun requests.

One template per fact kind (`<kind>.j2`) and three for the rerun conversation
(`rerun_system.j2`, `rerun_instruction.j2`, `no_question.j2`); no prompt text lives in code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, MutableMapping, Sequence
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from jinja2 import Environment, FileSystemLoader, StrictUndefined, Template

from gate.models import ChatMessage, Decision, Fact, FactKind, Failure, RerunRequest
from gate.policy import Policy
from textnorm import article_label, int_to_cn
from verifier.models import ArticleRef, Verdict

TEMPLATES_DIR = Path(__file__).resolve().parent / "templates"
FOUND_IN_SHOWN = 2
"""How many places where a mismatched quote really is are named in one fact."""

_SENTENCE = re.compile(r"[^。；;！？\n]+[。；;！？]?")


def cn_date(value: str | date | None) -> str:
    """2021-01-01 → 2021年1月1日 (the way statutes write dates)."""
    if value is None:
        return ""
    day = value if isinstance(value, date) else date.fromisoformat(str(value)[:10])
    return f"{day.year}年{day.month}月{day.day}日"


def excerpt(text: str | None, limit: int) -> str:
    """text on one line, cut to limit characters with …… when longer."""
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[:limit].rstrip("，。；、 ") + "……"


class _Environment(Environment):
    """An environment whose templates see its globals as one plain dict, made when the template
    is loaded (Jinja 2's way): a `ChainMap` over them, Jinja 3's default so that globals added
    later show through, is copied item by item into every render's context, a third of the
    render's time; the gate adds no globals after loading."""

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        return {**self.globals, **(d or {})}


@lru_cache(maxsize=1)
def environment() -> Environment:
    """The template environment (plain text: no autoescape; a missing variable is an error)."""
    env = _Environment(
        loader=FileSystemLoader(TEMPLATES_DIR),
        autoescape=False,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,  # package files: no stat of the template on every fact
    )
    env.filters["cn_date"] = cn_date
    env.filters["excerpt"] = excerpt
    env.filters["article_label"] = article_label
    env.filters["cn"] = int_to_cn
    return env


def compile_templates() -> None:
    """Compile every template now (a long-running process's first renders then cost no
    compile: 10-20 ms a template)."""
    for name in environment().list_templates(extensions=["j2"]):
        _template(name.removesuffix(".j2"))


@lru_cache(maxsize=64)
def _template(template: str) -> Template:
    """One template, compiled once (the environment's own cache takes a lock and a deque's
    reordering on every lookup)."""
    return environment().get_template(f"{template}.j2")


_STOP_AFTER_QUOTED_SENTENCE = re.compile(r"(?<=[。！？])”。")


def render(template: str, **context: Any) -> str:
    """One template rendered with context, stripped of surrounding whitespace.

    A quotation that ends its own sentence (…责任。”) takes no second full stop after the
    closing mark, as Chinese punctuation rules (GB/T 15834) write it.
    """
    text = _template(template).render(**context).strip()
    return _STOP_AFTER_QUOTED_SENTENCE.sub("”", text) if "”。" in text else text


@lru_cache(maxsize=8)
def fixed_text(template: str) -> str:
    """A template that takes no variables (the rerun's system message), rendered once: a
    render costs tens of microseconds, and every rerun request and judge call needs one."""
    return render(template)


@lru_cache(maxsize=4096, typed=True)
def make_fact(
    kind: FactKind, *, law: str | None = None, provision: str | None = None, **context: Any
) -> Fact:
    """A fact whose text is the template of its kind rendered with law and context.

    Made once per kind and values (so every value is hashable: tuples, not lists): one
    repealed or mistyped provision is cited by many answers (flzx's 2,750 answers: 1,708
    repeal facts, 463 different), and a fact is immutable.
    """
    return Fact(kind=kind, text=render(kind, law=law, **context), law=law, provision=provision)


# --- one fact per correctable failure ---------------------------------------------------


def fact_for(failure: Failure, verdict: Verdict, policy: Policy) -> Fact | None:
    """The fact that lets a model correct this failure; None for failures outside the data."""
    if not failure.correctable:
        return None
    provision = failure.provision
    facts, resolved = verdict.facts, verdict.resolved
    law = facts.law or (resolved.law if resolved else None) or provision.law or "（未写明法律）"
    cited = article_label(provision.article, provision.article_suffix)
    common: dict[str, Any] = {
        "law": law,
        "provision": provision.label,
        "cited": cited,
        "excerpt_chars": policy.excerpt_chars,
    }
    signal = failure.signal
    if signal == "article_not_found":
        return make_fact("article_count", article_count=facts.article_count, **common)
    if signal == "paragraph_not_found":
        return make_fact(
            "paragraph_count",
            article=cited,
            paragraph=provision.paragraph or 0,
            paragraph_count=facts.paragraph_count,
            **common,
        )
    if signal == "item_not_found":
        return make_fact(
            "item_count",
            article=cited,
            paragraph=provision.paragraph,
            item=provision.item or 0,
            item_count=facts.item_count,
            **common,
        )
    if signal == "law_not_found":
        common["law"] = provision.law or law
        return make_fact("law_not_in_data", level=facts.level or "法律", **common)
    if signal == "repealed":
        return make_fact(
            "repealed",
            repealed_on=facts.repealed_on or facts.effective_to,
            repealed_by=facts.repealed_by,
            successors=facts.successors,
            **common,
        )
    if signal == "superseded":
        target: ArticleRef | None = facts.corresponding or next(iter(facts.successors), None)
        return make_fact(
            "superseded",
            version_label=facts.version_label or (resolved.version_label if resolved else None),
            effective_to=facts.effective_to or (resolved.effective_to if resolved else None),
            target=target,
            **common,
        )
    if signal == "article_deleted":
        return make_fact("article_deleted", version_label=facts.version_label, **common)
    if signal == "not_yet_effective":
        return make_fact(
            "not_yet_effective",
            version_label=facts.version_label or (resolved.version_label if resolved else None),
            effective_from=facts.effective_from or (resolved.effective_from if resolved else None),
            **common,
        )
    if signal in ("quote_mismatch", "content_partly", "number_conflict"):
        return _content_fact(signal, verdict, policy, common)
    return None


def _content_fact(
    signal: str, verdict: Verdict, policy: Policy, common: dict[str, Any]
) -> Fact | None:
    """The one fact of a provision whose content or numbers differ from the article: what the
    article says (the passage closest to the answer's content), each number the answer states
    otherwise, the conditions it leaves out, and a better place only where the verifier found
    one clearly (`Support.found_in`)."""
    support = verdict.support
    article_text = (verdict.resolved.article_text if verdict.resolved else None) or ""
    numbers = [
        (conflict.claim_surface,
         passage_with(article_text, conflict.article_surfaces, policy) if article_text else "")
        for conflict in verdict.number_conflicts
    ]  # fmt: skip
    numbers += [
        (d.stated, d.article)
        for d in support.differences
        if d.kind == "number" and d.stated not in {stated for stated, _ in numbers}
    ]
    conditions = tuple(d.article for d in support.differences if d.kind == "condition")
    cited = (common["law"], common["cited"])
    found_in = tuple(
        place
        for place in support.found_in
        if not ((place.law, place.article_label) == cited and place.where == "same_law")
    )[:FOUND_IN_SHOWN]
    if signal == "number_conflict" and not numbers:
        return None
    kind: FactKind = "quote_mismatch" if signal == "quote_mismatch" else "content_partly"
    if signal == "number_conflict":
        kind = "number_conflict"
    evidence = support.evidence if signal == "content_partly" and support.evidence else ""
    return make_fact(
        kind,
        article_text=article_text or None,
        evidence=evidence,
        numbers=tuple(numbers),
        conditions=conditions,
        found_in=found_in,
        **common,
    )


def passage_with(article_text: str, surfaces: Sequence[str], policy: Policy) -> str:
    """The sentence of article_text holding the first surface found, with …… where cut."""
    text = " ".join(article_text.split())
    for surface in surfaces:
        at = text.find(surface)
        if at < 0:
            continue
        for match in _SENTENCE.finditer(text):
            if match.start() <= at < match.end():
                sentence = excerpt(match.group().strip(), policy.excerpt_chars)
                return ("……" if match.start() > 0 else "") + sentence
    return excerpt(text, policy.excerpt_chars)


def no_citations_fact(conclusions: Iterable[str], policy: Policy) -> Fact:
    """The fact of an answer that cites nothing, listing conclusions that need a basis."""
    listed = tuple(excerpt(text, policy.excerpt_chars) for text in conclusions)[: policy.max_facts]
    return make_fact("no_citations", conclusions=listed)


# --- the rerun request ------------------------------------------------------------------


@lru_cache(maxsize=8)
def _fixed_message(role: Literal["system", "user"], template: str) -> ChatMessage:
    """A message whose content is a template without variables, made once (immutable)."""
    return ChatMessage(role=role, content=fixed_text(template))


def rerun_request(
    *,
    question: str | None,
    answer: str,
    facts: Sequence[Fact],
    decision: Decision,
    session_id: str,
    attempt: int,
    as_of: str,
) -> RerunRequest:
    """Question, previous answer, the revise instruction with the facts, for attempt `attempt`.

    The attempt number is in the instruction, so two requests of one round always differ.
    """
    instruction = render(
        "rerun_instruction",
        attempt=attempt,
        decision=decision,
        numbered_facts=tuple(enumerate(facts, start=1)),  # Jinja's `loop` would cost 1/4 of it
        as_of=as_of,
    )
    messages = [
        _fixed_message("system", "rerun_system"),
        ChatMessage(role="user", content=question)
        if question
        else _fixed_message("user", "no_question"),
        ChatMessage(role="assistant", content=answer),
        ChatMessage(role="user", content=instruction),
    ]
    return RerunRequest(messages=tuple(messages), session_id=session_id, attempt=attempt)


__all__ = [
    "TEMPLATES_DIR",
    "cn_date",
    "environment",
    "excerpt",
    "fact_for",
    "fixed_text",
    "make_fact",
    "no_citations_fact",
    "passage_with",
    "render",
    "rerun_request",
]
