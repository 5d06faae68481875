"""`extract`: text in, citations out — pre-scan, parse, resolve context."""

from __future__ import annotations

from extractor.candidates import find_candidates
from extractor.context import resolve
from extractor.lexicon import Lexicon
from extractor.models import Citation


def extract(text: str, lexicon: Lexicon | None = None) -> list[Citation]:
    """Every statute citation in `text`, in order; pure, no database.

    Without a lexicon, 《…》-titled names work as always and names without 《》 are found
    only where they end like a law name (…法, …条例, …规定 …); see docs/extractor.md.
    """
    return resolve(text, find_candidates(text, lexicon), lexicon)
