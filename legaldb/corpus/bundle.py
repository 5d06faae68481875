"""Build the bundled statute archives, byte for byte reproducibly.

    python -m legaldb.corpus.bundle SRC OUT [--snapshot TEXT]          # lawrefbook
    python -m legaldb.corpus.bundle --history SRC OUT                  # lawrefbook-history
    python -m legaldb.corpus.bundle --flk CENSUS SEED_TAR OUT          # flk census + texts

SRC is a lawrefbook checkout; OUT gets every file of it except DLC/ (local regulations) and
案例/ (court cases, not statutes), as a POSIX tar compressed with xz -9e. Members are sorted
by path with a fixed mtime, uid, gid and mode, so the same input always gives the same bytes.
The snapshot text is stored in the archive's pax global header, where the readers find it.
`--history` bundles every file of a lawrefbook-history folder (manifest.json included);
`--flk` bundles census.json and the seed texts (`seed/<bbbs>.json`) of the flk capture.
"""

from __future__ import annotations

import argparse
import io
import lzma
import os
import sys
import tarfile
from collections.abc import Iterable
from pathlib import Path

from legaldb.corpus.sources import SNAPSHOT_HEADER

EXCLUDED_FOLDERS = ("DLC", "案例")
DEFAULT_SNAPSHOT = "lawrefbook 2f4c5c2 (2025-04-19)"
FIXED_MTIME = 1745020800  # 2025-04-19T00:00:00Z, the snapshot date
HISTORY_SNAPSHOT = "lawrefbook history (earlier versions replaced in place; manifest.json)"
FLK_SNAPSHOT = "flk.npc.gov.cn capture of 2026-02-25"
FLK_MTIME = 1771977600  # 2026-02-25T00:00:00Z, the capture date
XZ_FILTERS = [{"id": lzma.FILTER_LZMA2, "preset": 9 | lzma.PRESET_EXTREME}]


def bundled_paths(source: Path, excluded: tuple[str, ...] = EXCLUDED_FOLDERS) -> list[str]:
    """The relative paths that go into the archive, sorted."""
    paths = []
    for folder, dirs, files in os.walk(source):
        relative = Path(folder).relative_to(source)
        if relative.parts and relative.parts[0] in excluded:
            dirs[:] = []
            continue
        dirs.sort()
        paths += [(relative / name).as_posix() for name in files]
    return sorted(paths)


def build_archive(
    source: Path,
    out: Path,
    snapshot: str = DEFAULT_SNAPSHOT,
    excluded: tuple[str, ...] = EXCLUDED_FOLDERS,
    mtime: int = FIXED_MTIME,
) -> int:
    """Write the archive of a folder; return the number of files in it."""
    paths = bundled_paths(source, excluded)
    return write_archive(((p, (source / p).read_bytes()) for p in paths), out, snapshot, mtime)


def build_flk_archive(census: Path, seed_archive: Path, out: Path) -> int:
    """Write census.json and the seed/<bbbs>.json texts of the flk capture into one archive."""
    items = [("census.json", census.read_bytes())]
    with tarfile.open(seed_archive) as tar:
        for member in tar:
            handle = tar.extractfile(member) if member.isfile() else None
            if handle is not None and member.name.endswith(".json"):
                items.append((member.name.removeprefix("./"), handle.read()))
    return write_archive(sorted(items), out, FLK_SNAPSHOT, FLK_MTIME)


def write_archive(
    items: Iterable[tuple[str, bytes]], out: Path, snapshot: str, mtime: int = FIXED_MTIME
) -> int:
    """A reproducible POSIX tar of (path, bytes) in the given order, xz -9e compressed."""
    count = 0
    buffer = io.BytesIO()
    with tarfile.open(
        fileobj=buffer,
        mode="w",
        format=tarfile.PAX_FORMAT,
        pax_headers={SNAPSHOT_HEADER: snapshot},
    ) as tar:
        for path, data in items:
            count += 1
            info = tarfile.TarInfo(path)
            info.size = len(data)
            info.mtime = mtime
            info.mode = 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    out.write_bytes(lzma.compress(buffer.getvalue(), format=lzma.FORMAT_XZ, filters=XZ_FILTERS))
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("inputs", type=Path, nargs="+", help="SRC, or CENSUS SEED_TAR with --flk")
    parser.add_argument("out", type=Path, help="the .tar.xz to write")
    parser.add_argument("--snapshot", default=DEFAULT_SNAPSHOT, help="snapshot description")
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--history", action="store_true", help="a lawrefbook-history folder")
    kind.add_argument("--flk", action="store_true", help="flk census.json and flk-seed.tar.xz")
    args = parser.parse_args(argv)
    if args.flk:
        if len(args.inputs) != 2:
            parser.error("--flk takes CENSUS SEED_TAR OUT")
        count = build_flk_archive(args.inputs[0], args.inputs[1], args.out)
    else:
        if len(args.inputs) != 1 or not args.inputs[0].is_dir():
            parser.error(f"{args.inputs[0]} is not a directory")
        if args.history:
            count = build_archive(args.inputs[0], args.out, HISTORY_SNAPSHOT, excluded=())
        else:
            count = build_archive(args.inputs[0], args.out, args.snapshot)
    print(f"{args.out}: {count} files, {args.out.stat().st_size:,} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
