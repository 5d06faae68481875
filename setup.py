"""The build's one step beyond pyproject.toml: `Lookups.lookup` (legaldb/_lookup_path.c), the
quote index's postings walk (verifier/_quote_postings.c), two steps of the quote normalisation
(verifier/_normalize.c) and where the extractor's quotes and claims start and end
(extractor/_quote_bounds.c) and the extractor's citations and spans made
(extractor/_slotted.c) compiled, the lines of `check --jsonl` written compiled
(verifier/_jsonline.c), and the support verdicts' content bigrams and the quantities' scan
(verifier/_support_scan.c). Optional: where they cannot be built, the package is the
same and Python answers (legaldb.index, verifier.quotes, verifier.textnorm_quote,
extractor.quotes, extractor.models, verifier.serialize, verifier.support, verifier.numbers)."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("legaldb._lookup_path", ["legaldb/_lookup_path.c"], optional=True),
        Extension("verifier._quote_postings", ["verifier/_quote_postings.c"], optional=True),
        Extension("verifier._normalize", ["verifier/_normalize.c"], optional=True),
        Extension("extractor._quote_bounds", ["extractor/_quote_bounds.c"], optional=True),
        Extension("extractor._slotted", ["extractor/_slotted.c"], optional=True),
        Extension("verifier._jsonline", ["verifier/_jsonline.c"], optional=True),
        Extension("verifier._support_scan", ["verifier/_support_scan.c"], optional=True),
    ]
)
