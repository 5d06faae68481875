"""A synthetic statute library shaped like the real one, to measure LexGate at a million articles.

The real national corpus (1,382 laws, 64,418 articles) is kept whole, so that real answers still
cite real laws, and synthetic laws are added until the library holds the number of articles
asked for. Each synthetic law copies the shape of a real law drawn at random: its level, its
number of versions, their dates and their article counts; each article's text is a real
article's text drawn at random (so texts follow the real length distribution, 款 and 项
included), and an amended version keeps most of the previous version's texts and replaces a
few, as real amendments do (the importer aligns the versions as it aligns real ones).
Names are real names with a synthetic prefix (合成一二三市…), so they never clash with the real
ones and read like local regulations, the largest group of the real collection.
"""

from __future__ import annotations

import random
from dataclasses import replace

from legaldb.models import CorpusRead, ParsedArticle, ParsedLaw, ParsedVersion
from textnorm import int_to_cn, strip_prc_prefix

AMENDED_SHARE = 0.1  # of an amended version's articles, this share gets another text


def synthetic_library(real: CorpusRead, articles: int, seed: int = 20261201) -> CorpusRead:
    """The real corpus plus synthetic laws, about `articles` articles in all."""
    rng = random.Random(seed)
    models = [law for law in real.laws if any(v.articles for v in law.versions)]
    pool = [a for law in models for v in law.versions for a in v.articles if not a.deleted]
    total = sum(len(v.articles) for law in real.laws for v in law.versions)
    laws = list(real.laws)
    number = 0
    while total < articles:
        number += 1
        law = _synthetic_law(rng.choice(models), number, pool, rng)
        laws.append(law)
        total += sum(len(v.articles) for v in law.versions)
    return replace(real, laws=tuple(laws), source=f"{real.source} + synthetic ({number} laws)")


def _synthetic_law(
    model: ParsedLaw, number: int, pool: list[ParsedArticle], rng: random.Random
) -> ParsedLaw:
    name = f"合成{int_to_cn(number)}市{strip_prc_prefix(model.name)}"
    versions: list[ParsedVersion] = []
    previous: tuple[ParsedArticle, ...] = ()
    for version in model.versions:
        count = len(version.articles)
        texts = [a if rng.random() > AMENDED_SHARE else rng.choice(pool) for a in previous[:count]]
        texts += [rng.choice(pool) for _ in range(count - len(texts))]
        articles = tuple(
            replace(text, number=real.number, suffix=real.suffix, label=real.label)
            for text, real in zip(texts, version.articles, strict=True)
        )
        versions.append(
            replace(version, law_name=name, source=f"synthetic/{name}/{version.label}.md",
                    articles=articles)
        )  # fmt: skip
        previous = articles
    return ParsedLaw(
        name=name,
        short_name=name,
        level=model.level,
        issuer=model.issuer,
        aliases=(name,),
        versions=tuple(versions),
    )
