"""read_corpus: a lawrefbook-format tree (directory or archive) -> CorpusRead. Pure: no
database, no printing; a file that cannot be read becomes a SkippedFile with its reason."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from legaldb.corpus.aliases import load_abbreviations
from legaldb.corpus.articles import split_articles
from legaldb.corpus.chain import build_laws
from legaldb.corpus.dates import file_name_date
from legaldb.corpus.dating import load_corrections
from legaldb.corpus.errors import UnparsableFile
from legaldb.corpus.headers import parse_header, split_file
from legaldb.corpus.metadata import Metadata, read_metadata
from legaldb.corpus.models import ENACTING, Header, MetadataRow, ParsedFile
from legaldb.corpus.sources import load
from legaldb.models import LEVELS, CorpusRead, SkippedFile

BUNDLED_ARCHIVE = Path(__file__).resolve().parent.parent / "data" / "lawrefbook-national.tar.xz"
BUNDLED_SOURCE = "legaldb/data/lawrefbook-national.tar.xz"
BUNDLED_HISTORY = BUNDLED_ARCHIVE.parent / "lawrefbook-history.tar.xz"
HISTORY_PREFIX = "lawrefbook-history/"  # versions from the history carry it in their source

# Level of each top folder; DLC/ holds local regulations, its metadata says which kind.
FOLDER_LEVELS = {
    "宪法": "宪法",
    "宪法相关法": "法律",
    "民法典": "法律",
    "民法商法": "法律",
    "行政法": "法律",
    "经济法": "法律",
    "社会法": "法律",
    "刑法": "法律",
    "诉讼与非诉讼程序法": "法律",
    "行政法规": "行政法规",
    "监察法规": "监察法规",
    "司法解释": "司法解释",
    "部门规章": "部门规章",
    "其他": "其他",
}
LOCAL_FOLDER = "DLC"
LOCAL_LEVEL = "地方性法规"
CASES_FOLDER = "案例"
INDEX_FILE = "_index.md"

TITLE_ISSUERS = {
    "最高人民法院、最高人民检察院": "最高人民法院、最高人民检察院",
    "最高人民法院 最高人民检察院": "最高人民法院、最高人民检察院",
    "最高人民法院": "最高人民法院",
    "最高人民检察院": "最高人民检察院",
    "国务院": "国务院",
}
NATIONAL_ISSUERS = ("全国人民代表大会常务委员会", "全国人民代表大会")
LOCAL_ISSUER_RE = re.compile(
    r"([\u4e00-\u9fff]{2,14}?(?:省|市|自治区|自治州|自治县|县))(?:第[一二三四五六七八九十]+届)?"
    r"人民代表大会(常务委员会)?"
)
ORDER_ISSUER_RE = re.compile(r"([\u4e00-\u9fff]{2,20}?)令第")
PUBLISHER_RE = re.compile(
    r"([\u4e00-\u9fff]{2,20}?(?:部|委员会|总局|局|署|办公室|政务院))(?:令第[^号]*号)?(?:发布|公布)"
)

Progress = Callable[[int, int], None]


def read_corpus(
    source: Path,
    progress: Progress | None = None,
    *,
    snapshot: str | None = None,
    history: Path | None = None,
) -> CorpusRead:
    """Read every statute file of source; progress(done, total) after each file.

    snapshot names the collection's snapshot when the source does not (the bundled archive
    carries its own). history is a lawrefbook-history tree (earlier versions the collection
    replaced in place): its files join the others, their paths prefixed `lawrefbook-history/`."""
    source = Path(source)
    corpus = load(source)
    metadata = sorted(
        (read_metadata(root, data) for root, data in corpus.metadata),
        key=lambda m: -len(m.root),  # the nearest db.sqlite3 first
    )
    candidates = [("", p, d) for p, d in corpus.markdown if _is_statute_candidate(p)]
    if history is not None:
        candidates += [(HISTORY_PREFIX, p, d) for p, d in load(Path(history)).markdown if "/" in p]
    parsed: list[ParsedFile] = []
    skipped: list[SkippedFile] = []
    for done, (prefix, path, data) in enumerate(candidates, start=1):
        if path.split("/", 1)[0] == CASES_FOLDER:
            skipped.append(SkippedFile(path, "court case (案例), not a statute"))
        else:
            database = None if prefix else next((m for m in metadata if m.covers(path)), None)
            try:
                file = parse_file(path, data, database)
                parsed.append(replace(file, path=prefix + path) if prefix else file)
            except UnparsableFile as exc:
                skipped.append(SkippedFile(prefix + path, exc.reason))
            except Exception as exc:  # one bad file must never stop the read
                skipped.append(
                    SkippedFile(prefix + path, f"unreadable: {type(exc).__name__}: {exc}")
                )
        if progress:
            progress(done, len(candidates))
    laws, merge_skipped, undated = build_laws(parsed, load_corrections(), load_abbreviations())
    bundled = source.resolve() == BUNDLED_ARCHIVE
    return CorpusRead(
        laws=laws,
        skipped=tuple(sorted([*skipped, *merge_skipped], key=lambda s: s.path)),
        undated=undated,
        source=BUNDLED_SOURCE if bundled else str(source),
        snapshot=snapshot or corpus.snapshot or "unknown",
    )


def _is_statute_candidate(path: str) -> bool:
    """Markdown inside a folder; not a section index, not the template at the root."""
    return "/" in path and not path.endswith("/" + INDEX_FILE)


def parse_file(path: str, data: bytes, metadata: Metadata | None = None) -> ParsedFile:
    """One corpus file -> ParsedFile; UnparsableFile(reason) when it holds no statute."""
    if b"\x00" in data:
        raise UnparsableFile("binary content, not a Markdown text")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UnparsableFile(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    head, body = split_file(text)
    header = parse_header(head)
    articles, notes = split_articles(body, header.title, header.subtitle)
    if not articles and not any(line.strip() for line in body):
        raise UnparsableFile("empty: no text after the header")
    if not articles:
        raise UnparsableFile("no articles: no line starts with 第X条 (nor 一、二、… in sequence)")
    file_date = file_name_date(path)
    row = metadata.find(path, file_date) if metadata else None
    level, level_notes = level_of(path, row)
    return ParsedFile(
        path=path,
        category=path.rpartition("/")[0],
        level=level,
        header=header,
        articles=articles,
        file_date=file_date,
        metadata=row,
        issuer=issuer_of(header),
        notes=(*level_notes, *notes),
    )


def level_of(path: str, row: MetadataRow | None) -> tuple[str, list[str]]:
    """The level of legislation of a file: from its top folder; DLC/ from metadata."""
    top = path.split("/", 1)[0]
    hinted = row.level if row and row.level in LEVELS else None
    if top == LOCAL_FOLDER:
        return hinted or LOCAL_LEVEL, []
    if top in FOLDER_LEVELS:
        return FOLDER_LEVELS[top], []
    if hinted:
        return hinted, [f"unknown folder {top}: level {hinted} from metadata"]
    return "其他", [f"unknown folder {top} and no metadata level: level 其他"]


def issuer_of(header: Header) -> str | None:
    """Who made the text: from the title (司法解释, 国务院…) or the first enacting event."""
    for prefix, issuer in TITLE_ISSUERS.items():
        if header.title.startswith(prefix):
            return issuer
    enacting = [e for e in header.events if e.kind in ENACTING] or list(header.events)
    for event in enacting:
        found = _issuer_in(event.text)
        if found:
            return found
    return None


def _issuer_in(text: str) -> str | None:
    for issuer in NATIONAL_ISSUERS:
        if issuer in text:
            return issuer
    if "最高人民法院" in text:
        return "最高人民法院、最高人民检察院" if "最高人民检察院" in text else "最高人民法院"
    if "最高人民检察院" in text:
        return "最高人民检察院"
    local = LOCAL_ISSUER_RE.search(text)
    if local:
        return f"{local.group(1)}人民代表大会{local.group(2) or ''}"
    if "国务院" in text:
        return "国务院"
    order = ORDER_ISSUER_RE.search(text) or PUBLISHER_RE.search(text)
    if order:
        return order.group(1).removeprefix("中华人民共和国")
    return None
