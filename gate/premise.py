"""The premise check before generation: facts about the laws a question names.

A law whose version in force is about to be replaced, one the data holds only in a version not
yet in force, or one already repealed, gets a fact for the generation prompt.
"""

from __future__ import annotations

import re
from datetime import date

from gate.facts import make_fact
from gate.models import Fact
from legaldb.models import LawInfo
from legaldb.repository import StatuteRepository
from verifier import lexicon_of

_TITLE = re.compile(r"[《〈]([^《》〈〉\n]{1,80})[》〉]")


def named_laws(question: str, repo: StatuteRepository) -> list[LawInfo]:
    """The known laws a question names, 《titled》 or bare (劳动合同法), in order, once each."""
    found: list[tuple[int, LawInfo]] = []
    for match in _TITLE.finditer(question):
        law = repo.resolve(match.group(1))
        if law is not None:
            found.append((match.start(), law))
    lexicon = lexicon_of(repo)
    end = len(question)
    while end > 0:  # longest known name ending at each position, right to left
        length = lexicon.longest_suffix(question[:end])
        if length == 0:
            end -= 1
            continue
        canonical = lexicon.resolve(question[end - length : end])
        law = repo.resolve(canonical) if canonical else None
        if law is not None:
            found.append((end - length, law))
        end -= length
    seen: set[int] = set()
    laws = []
    for _, law in sorted(found, key=lambda item: item[0]):
        if law.id not in seen:
            seen.add(law.id)
            laws.append(law)
    return laws


def premise(question: str, *, repo: StatuteRepository, as_of: date) -> list[Fact]:
    """Facts for the generation prompt about the laws the question names, as of as_of."""
    facts = (law_fact(law, repo, as_of) for law in named_laws(question, repo))
    return [fact for fact in facts if fact is not None]


def law_fact(law: LawInfo, repo: StatuteRepository, as_of: date) -> Fact | None:
    """The fact about one law as of as_of: repealed, held only in a version not yet in force,
    or in force with a new version coming; None when none of these."""
    repeal = repo.repeal(law.id)
    if repeal is not None and (repeal.repealed_on is None or repeal.repealed_on <= as_of):
        successor = (
            repo.law(repeal.successor_law_id) if repeal.successor_law_id is not None else None
        )
        return make_fact(
            "law_repealed",
            law=law.name,
            repealed_on=repeal.repealed_on,
            successor=successor.name if successor else None,
        )
    versions = repo.versions(law.id)
    upcoming = [v for v in versions if v.effective_from is not None and v.effective_from > as_of]
    if not upcoming:
        return None
    current = repo.version_in_force(law.id, as_of)
    first = upcoming[0]
    if current is None and len(upcoming) == len(versions):
        return make_fact(
            "only_future_version",
            law=law.name,
            label=first.label,
            effective_from=first.effective_from,
        )
    if current is None:
        return None
    return make_fact(
        "upcoming_version",
        law=law.name,
        upcoming_label=first.label,
        upcoming_from=first.effective_from,
        current_label=current.label,
    )
