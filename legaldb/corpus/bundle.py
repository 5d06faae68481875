"""Build the bundled corpus archive, byte for byte reproducibly.

    python -m legaldb.corpus.bundle SRC OUT [--snapshot TEXT]

SRC is a lawrefbook checkout; OUT gets every file of it except DLC/ (local regulations) and
案例/ (court cases, not statutes), as a POSIX tar compressed with xz -9e. Members are sorted
by path with a fixed mtime, uid, gid and mode, so the same SRC always gives the same bytes.
The snapshot text is stored in the archive's pax global header, where `read_corpus` finds it.
"""

from __future__ import annotations

import argparse
import io
import lzma
import os
import sys
import tarfile
from pathlib import Path

from legaldb.corpus.sources import SNAPSHOT_HEADER

EXCLUDED_FOLDERS = ("DLC", "案例")
DEFAULT_SNAPSHOT = "lawrefbook 2f4c5c2 (2025-04-19)"
FIXED_MTIME = 1745020800  # 2025-04-19T00:00:00Z, the snapshot date
XZ_FILTERS = [{"id": lzma.FILTER_LZMA2, "preset": 9 | lzma.PRESET_EXTREME}]


def bundled_paths(source: Path) -> list[str]:
    """The relative paths that go into the archive, sorted."""
    paths = []
    for folder, dirs, files in os.walk(source):
        relative = Path(folder).relative_to(source)
        if relative.parts and relative.parts[0] in EXCLUDED_FOLDERS:
            dirs[:] = []
            continue
        dirs.sort()
        paths += [(relative / name).as_posix() for name in files]
    return sorted(paths)


def build_archive(source: Path, out: Path, snapshot: str = DEFAULT_SNAPSHOT) -> int:
    """Write the archive; return the number of files in it."""
    paths = bundled_paths(source)
    buffer = io.BytesIO()
    with tarfile.open(
        fileobj=buffer,
        mode="w",
        format=tarfile.PAX_FORMAT,
        pax_headers={SNAPSHOT_HEADER: snapshot},
    ) as tar:
        for path in paths:
            data = (source / path).read_bytes()
            info = tarfile.TarInfo(path)
            info.size = len(data)
            info.mtime = FIXED_MTIME
            info.mode = 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    out.write_bytes(lzma.compress(buffer.getvalue(), format=lzma.FORMAT_XZ, filters=XZ_FILTERS))
    return len(paths)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="a lawrefbook checkout")
    parser.add_argument("out", type=Path, help="the .tar.xz to write")
    parser.add_argument("--snapshot", default=DEFAULT_SNAPSHOT, help="snapshot description")
    args = parser.parse_args(argv)
    if not args.source.is_dir():
        parser.error(f"{args.source} is not a directory")
    count = build_archive(args.source, args.out, args.snapshot)
    print(f"{args.out}: {count} files, {args.out.stat().st_size:,} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
