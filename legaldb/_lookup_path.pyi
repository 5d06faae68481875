from datetime import date

from legaldb.index import Lookups, StatuteIndex, Timeline
from legaldb.models import ArticleInfo, Lookup, VersionInfo

class LookupPath:
    def __init__(
        self,
        lookups: Lookups,
        nothing: Lookup,
        timeline: type[Timeline],
        version: type[VersionInfo],
        index: type[StatuteIndex],
        lookup: type[Lookup],
        article: type[ArticleInfo],
        memo_limit: int,
    ) -> None: ...
    def __call__(self, name: str, number: int, suffix: str | None, as_of: date) -> Lookup: ...
