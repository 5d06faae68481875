"""Every Chinese label the pages show for the core's codes, in one table per kind of code.

The core speaks in stable English codes (decisions, reasons, standards, relations: the API's
values); the pages never show one. A test checks that each code of the core's `Literal` types
has its label here.
"""

from __future__ import annotations

from gate.models import Decision, Relation, StandardName
from verifier.models import Reason

DECISION_LABELS: dict[Decision, str] = {
    "pass": "通过",
    "pass_boundary": "通过（数据边界）",
    "rerun": "需重新作答",
    "no_citations": "无法条引用",
}

RELATION_LABELS: dict[Relation, str] = {
    "supports": "支持",
    "contradicts": "矛盾",
    "says_nothing": "未作规定",
}

REASON_TEXTS: dict[Reason, str] = {
    "in_force": "该条在所选日期现行有效。",
    "repealed": "该法在所选日期已废止。",
    "superseded": "该条在所选日期已被修改，答案引用或描述的是另一版本。",
    "article_deleted": "该条已被删除。",
    "not_yet_effective": "该条在所选日期尚未施行。",
    "article_not_found": "该法没有这一条：很可能是编造的条文。",
    "paragraph_not_found": "该条没有这一款。",
    "item_not_found": "该款没有这一项。",
    "law_not_found": "数据库中没有这部法律，无法核验（不视为通过）。",
    "effective_date_unknown": "该版本的施行日期无法确定，无法核验（不视为通过）。",
    "version_not_in_data": "所选日期施行的版本不在数据库中，无法核验（不视为通过）。",
}

STANDARD_LABELS: dict[StandardName, str] = {
    "verifiable_rate": "可核验率达到通过线",
    "no_invented_articles": "没有引用不存在的条文",
    "no_repealed_as_current": "没有把已废止或已失效的条文当作现行依据",
    "no_quote_mismatch": "所引内容与条文原文相符",
    "no_number_conflict": "所述数字与条文一致",
    "conclusions_have_basis": "法律结论都有条文依据",
    "tail_coverage": "长回答的后半部分也有条文依据",
}

__all__ = [
    "DECISION_LABELS",
    "REASON_TEXTS",
    "RELATION_LABELS",
    "STANDARD_LABELS",
]
