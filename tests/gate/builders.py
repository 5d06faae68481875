"""Verdicts built by hand: the verifier's output types, for the gate's pure policy tests."""

from __future__ import annotations

from extractor.models import Citation, Quote, Span
from textnorm import article_label
from verifier.models import (
    ArticleRef,
    CheckResult,
    Difference,
    Facts,
    FoundIn,
    NumberConflict,
    QuoteCheck,
    Reason,
    Resolved,
    Status,
    Summary,
    Support,
    Verdict,
)

CIVIL_CODE = "中华人民共和国民法典"
REASON_STATUS: dict[str, Status] = {
    "in_force": "verified",
    "repealed": "deprecated",
    "superseded": "deprecated",
    "article_deleted": "deprecated",
    "not_yet_effective": "notYetEffective",
    "article_not_found": "unverified",
    "paragraph_not_found": "unverified",
    "item_not_found": "unverified",
    "law_not_found": "unverified",
    "effective_date_unknown": "unverified",
}


def citation(
    law: str | None,
    article: int,
    *,
    start: int = 0,
    suffix: str | None = None,
    paragraph: int | None = None,
    item: int | None = None,
    version_hint: str | None = None,
    quote: str | None = None,
    claim: str | None = None,
) -> Citation:
    """A citation of 《law》 article at start (its surface is the 《law》第…条 text)."""
    surface = f"《{law}》{article_label(article, suffix)}" if law else article_label(article)
    end = start + len(surface)
    return Citation(
        surface=surface,
        start=start,
        end=end,
        law_as_written=law,
        law=law,
        implicit=law is None,
        article=article,
        article_suffix=suffix,
        paragraph=paragraph,
        item=item,
        version_hint=version_hint,
        quote=Quote(quote, end + 1, end + 1 + len(quote)) if quote else None,
        claim=Span(claim, start, start + len(claim)) if claim else None,
    )


def verdict(
    cited: Citation,
    reason: Reason = "in_force",
    *,
    facts: Facts | None = None,
    article_text: str | None = None,
    quote: QuoteCheck | None = None,
    conflicts: tuple[NumberConflict, ...] = (),
    version_label: str | None = "2020年",
    support: Support | None = None,
) -> Verdict:
    """A verdict of reason (its status follows) on a citation."""
    status = REASON_STATUS[reason]
    found = reason not in ("law_not_found",)
    resolved = (
        Resolved(
            law=cited.law or "",
            version_label=version_label,
            effective_from="2021-01-01",
            effective_to=None,
            article_label=article_label(cited.article, cited.article_suffix),
            article_text=article_text,
        )
        if found and cited.law
        else None
    )
    return Verdict(
        citation=cited,
        status=status,
        reason=reason,
        facts=facts or Facts(law=cited.law if found else None),
        resolved=resolved,
        quote_check=quote or QuoteCheck(verdict="none"),
        number_conflicts=conflicts,
        support=support or Support("unknown"),
    )


def checked(*verdicts: Verdict, as_of: str = "2024-01-01") -> CheckResult:
    """A CheckResult of these verdicts."""
    statuses = [v.status for v in verdicts]
    return CheckResult(
        as_of=as_of,
        verdicts=tuple(verdicts),
        summary=Summary(
            total=len(verdicts),
            verified=statuses.count("verified"),
            deprecated=statuses.count("deprecated"),
            not_yet_effective=statuses.count("notYetEffective"),
            unverified=statuses.count("unverified"),
        ),
    )


def good(article: int, start: int = 0, law: str = CIVIL_CODE) -> Verdict:
    """A verified citation of article."""
    return verdict(citation(law, article, start=start))


def invented(article: int, start: int = 0, law: str = CIVIL_CODE, count: int = 1260) -> Verdict:
    """article_not_found, with the law's article count in the facts."""
    return verdict(
        citation(law, article, start=start),
        "article_not_found",
        facts=Facts(law=law, level="法律", level_covered=True, article_count=count),
    )


def outside(name: str, article: int = 1, start: int = 0, covered: bool = False) -> Verdict:
    """law_not_found; covered says whether the data covers the name's level completely."""
    level = "法律" if covered else "地方性法规"
    return verdict(
        citation(name, article, start=start),
        "law_not_found",
        facts=Facts(level=level, level_covered=covered),
    )


def repealed(start: int = 0) -> Verdict:
    """合同法第一百零七条 after 2021-01-01, with its curated successor."""
    return verdict(
        citation("中华人民共和国合同法", 107, start=start),
        "repealed",
        facts=Facts(
            law="中华人民共和国合同法",
            level="法律",
            level_covered=True,
            article_count=428,
            repealed_on="2021-01-01",
            repealed_by="中华人民共和国民法典第一千二百六十条",
            successors=(
                ArticleRef(
                    law=CIVIL_CODE,
                    article=577,
                    article_suffix=None,
                    label="第五百七十七条",
                    text="当事人一方不履行合同义务或者履行合同义务不符合约定的，应当承担继续"
                    "履行、采取补救措施或者赔偿损失等违约责任。",
                    kind="curated",
                ),
            ),
        ),
    )


def mismatch(article: int, start: int = 0, found_in: tuple[FoundIn, ...] = ()) -> Verdict:
    """A verified citation whose stated content the article does not support (found_in: where
    the verifier clearly found it)."""
    return verdict(
        citation(CIVIL_CODE, article, start=start, quote="编造的条文内容"),
        article_text="真实的条文内容。",
        quote=QuoteCheck(verdict="mismatch", score=0.2, found_in=found_in),
        support=Support(
            "unsupported", evidence="真实的条文内容。", score=0.2, coverage=0.0, found_in=found_in
        ),
    )


def partly(article: int, start: int = 0) -> Verdict:
    """A verified citation whose stated content its article supports in part (a number)."""
    return verdict(
        citation(CIVIL_CODE, article, start=start, quote="每月支付三倍的工资"),
        article_text="应当向劳动者每月支付二倍的工资。",
        quote=QuoteCheck(verdict="partial", score=0.7),
        support=Support(
            "partly",
            evidence="应当向劳动者每月支付二倍的工资。",
            score=0.7,
            coverage=0.9,
            differences=(Difference("number", "三倍", "二倍"),),
        ),
    )


__all__ = [
    "CIVIL_CODE",
    "checked",
    "citation",
    "good",
    "invented",
    "mismatch",
    "outside",
    "partly",
    "repealed",
    "verdict",
]
