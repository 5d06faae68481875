"""The names a law is looked up by: canonical, without 中华人民共和国, curated abbreviations,
and both spellings of an inner title (《…》 and 〈…〉). Not normalised: the importer does that."""

from __future__ import annotations

import json
from collections import defaultdict
from importlib import resources

from textnorm import normalize_name, strip_prc_prefix

INNER_TO_ANGLE = str.maketrans("《》", "〈〉")
ANGLE_TO_INNER = str.maketrans("〈〉", "《》")


def load_abbreviations(text: str | None = None) -> dict[str, str]:
    """abbreviations.json (or the given JSON text): abbreviation -> canonical law name."""
    if text is None:
        text = (resources.files("legaldb") / "data" / "abbreviations.json").read_text("utf-8")
    table: dict[str, str] = json.loads(text)["abbreviations"]
    return table


def name_variants(name: str) -> list[str]:
    """The canonical name, without 中华人民共和国, and the inner title's other spellings."""
    variants = [name, strip_prc_prefix(name)]
    if any(mark in name for mark in "《〈"):
        short_inner = name.replace("《中华人民共和国", "《").replace("〈中华人民共和国", "〈")
        for form in (name, short_inner):
            variants += [form.translate(INNER_TO_ANGLE), form.translate(ANGLE_TO_INNER)]
    return list(dict.fromkeys(variants))


def assign_aliases(
    names: list[str], abbreviations: dict[str, str]
) -> tuple[dict[str, tuple[str, ...]], list[str]]:
    """Aliases of each law name, and notes on the ones dropped as ambiguous.

    An alias two laws would share stays with the law whose own name it is, and is dropped
    when it is no law's own name (so a lookup never silently picks one of two laws)."""
    by_key = {normalize_name(name): name for name in names}
    wanted: dict[str, list[str]] = {name: name_variants(name) for name in names}
    notes = []
    for abbreviation, canonical in abbreviations.items():
        target = by_key.get(normalize_name(canonical))
        if target is None:
            notes.append(f"abbreviation {abbreviation} -> {canonical}: law not in the corpus")
        else:
            wanted[target].append(abbreviation)
    claims: dict[str, set[str]] = defaultdict(set)
    for name, aliases in wanted.items():
        for alias in aliases:
            claims[normalize_name(alias)].add(name)
    result = {}
    for name, aliases in wanted.items():
        own = {normalize_name(name), normalize_name(strip_prc_prefix(name))}
        kept = []
        for alias in dict.fromkeys(aliases):
            key = normalize_name(alias)
            if len(claims[key]) == 1 or key in own:
                kept.append(alias)
            else:
                notes.append(f"alias {alias} of {name} dropped: also names another law")
        result[name] = tuple(kept)
    return result, notes
