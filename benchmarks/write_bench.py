"""The gate's write alone: the soak's answers assessed first, then settled 16 at a time.

`web.recording.settle_many` is what a server's writer thread runs for each batch (the rows and
pseudonyms made, the audit transaction, the mapping and round stores). This harness assesses
the soak's bodies (`benchmarks.soak.gate_bodies`, each with a fixed subject id) on the
statutes of `lexgate db init` (a copy of the database, made with sqlite3's backup API), then
times only the settling, in batches of --batch, on a fresh SQLite audit database with the
private files (the default), or on an embedded PostgreSQL with the sealed stores
(--backend postgresql). With --callgrind it runs itself under `valgrind --tool=callgrind`
and counts the instructions of the settling only (collection switched on around each
`settle_many` through CALLGRIND_TOGGLE_COLLECT, as `benchmarks.verifier_parts_callgrind`).
--dump FILE writes every stored row afterwards (the audit tables, the pseudonym mapping, the
open rounds; random ids and the times of now replaced by stable stand-ins), to compare the
stored values of two checkouts byte for byte.

The process runs the current directory's checkout (cwd first on sys.path), so another
checkout is measured from its own directory with this file and the same virtualenv:

    python -m benchmarks.write_bench [--backend postgresql] [--bodies 640] [--callgrind]
    cd OLD && PYTHONPATH=. /work/wt/.venv/bin/python /work/wt/benchmarks/write_bench.py
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

HELPER = "#include <valgrind/callgrind.h>\nvoid toggle(void) { CALLGRIND_TOGGLE_COLLECT; }\n"
AUDIT_SECRET = b"write-bench audit secret of 32 bytes"
STORE_KEY = "wb1:c29hay1zdG9yZS1rZXktb2YtMzItYnl0ZXMtbG9uZyE="
TODAY = date(2026, 12, 1)
TABLES = ("audit_case", "audit_attempt", "audit_citation", "judge_review")
NOW_COLUMNS = {"recorded_at", "updated_at", "enqueued_at", "first_seen"}


def _copy_database(source: Path, target: Path) -> None:
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)


def _stable(rows: list[dict[str, Any]], case_of: dict[str, str]) -> list[str]:
    """Each row as a JSON line: case ids as their subject's pseudonym, times of now blanked."""
    lines = []
    for row in rows:
        stable = {}
        for name, value in row.items():
            if name in NOW_COLUMNS:
                value = "<now>"
            elif name == "case_id":
                value = case_of.get(value, value)
            elif name in ("id", "session"):
                value = f"<{name}>"
            elif name.startswith("sealed_"):
                value = "<sealed>"
            stable[name] = value
        lines.append(json.dumps(stable, ensure_ascii=False, sort_keys=True, default=str))
    return sorted(lines)


def _text_rows(
    query: Callable[[str], tuple[list[str], list[tuple[Any, ...]]]], table: str
) -> list[dict[str, Any]]:
    names, rows = query(table)
    return [dict(zip(names, row, strict=True)) for row in rows]


def dump(engine: Any, workdir: Path, out: Path, sessions: dict[str, str]) -> None:
    """Every stored row, stable (see the module's docstring), to out."""
    if engine.dialect.name == "sqlite":
        raw = sqlite3.connect(engine.url.database)

        def query(table: str) -> tuple[list[str], list[tuple[Any, ...]]]:
            cursor = raw.execute(f'SELECT * FROM "{table}"')  # raw values: the stored text
            return [c[0] for c in cursor.description], cursor.fetchall()

    else:
        raw_connection = engine.raw_connection()

        def query(table: str) -> tuple[list[str], list[tuple[Any, ...]]]:
            cursor = raw_connection.cursor()
            cursor.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = %s "
                "ORDER BY ordinal_position",
                (table,),
            )
            names = [row[0] for row in cursor.fetchall()]
            cursor.execute(
                f'SELECT {", ".join(f"{chr(34)}{n}{chr(34)}::text" for n in names)} FROM "{table}"'
            )
            return names, cursor.fetchall()

    cases = _text_rows(query, "audit_case")
    case_of = {row["case_id"]: f"case of {row['subject']}" for row in cases}
    lines = []
    for table in TABLES:
        lines += [f"{table} {line}" for line in _stable(_text_rows(query, table), case_of)]
    if engine.dialect.name == "sqlite":
        mapping = sqlite3.connect(workdir / "pseudonym-map.sqlite3")
        names = ["pseudonym", "kind", "raw_id", "first_seen"]
        rows = [
            dict(zip(names, r, strict=True))
            for r in mapping.execute(f"SELECT {', '.join(names)} FROM pseudonym_map")
        ]
        rounds = sqlite3.connect(workdir / "rounds.sqlite3")
        names = ["session", "subject", "case_id", "record", "updated_at"]
        kept = [
            dict(zip(names, r, strict=True))
            for r in rounds.execute(f"SELECT {', '.join(names)} FROM open_round")
        ]
    else:
        rows = _text_rows(query, "audit_pseudonym_map")
        kept = _text_rows(query, "web_open_round")
    for row in rows:  # the raw session ids are random: their pseudonyms too
        if row["kind"] == "sess":
            row["pseudonym"] = "<session>"
            if "raw_id" in row:
                row["raw_id"] = "<session>"
    lines += [f"mapping {line}" for line in _stable(rows, case_of)]
    for row in kept:
        if "record" in row:
            record = json.loads(row["record"])
            record["session_id"] = "<session>"
            row["record"] = json.dumps(record, ensure_ascii=False, sort_keys=True)
    lines += [f"open_round {line}" for line in _stable(kept, case_of)]
    lines = [re.sub(r"web-[0-9a-f]{32}", "web-<session>", line) for line in lines]  # new ids
    out.write_text("\n".join(sorted(lines)) + "\n", encoding="utf-8")


def _split(part: str, toggle: Callable[[], Any]) -> None:
    """Collection inside web.recording's prepare_records only (prepare), or outside it (the
    rest of the settling: part write)."""
    import web.recording

    prepare = web.recording.prepare_records
    timed = [False]  # prepare_records called from a timed batch (not the untimed first one)

    def measured(*args: Any, **kwargs: Any) -> Any:
        if not timed[0]:
            timed[0] = True
            return prepare(*args, **kwargs)
        toggle()
        try:
            return prepare(*args, **kwargs)
        finally:
            toggle()

    web.recording.prepare_records = measured  # type: ignore[assignment]


def one_pass(args: argparse.Namespace, toggle: Callable[[], Any] | None) -> None:
    """Assess the bodies, then settle them batch by batch (timed; counted under callgrind)."""
    sys.path.insert(0, os.getcwd())
    from audit import Pseudonymizer
    from audit.mapping_store import DatabaseMappingStore, MappingStore
    from audit.sealing import KeyRing, parse_keys
    from benchmarks.soak import OwnPostgres, gate_bodies
    from legaldb import StatuteRepository, make_engine, upgrade
    from web.recording import AuditTools, GateRequestData, assess_request, settle_many, warm_up
    from web.rounds import DatabaseRoundStore, FileRoundStore

    main_db = Path(args.database).resolve()
    workdir = Path(tempfile.mkdtemp(prefix="write-bench-"))
    postgres = None
    try:
        _copy_database(main_db, workdir / "lexgate.sqlite3")
        statutes = make_engine(f"sqlite:///{workdir / 'lexgate.sqlite3'}")
        repo = StatuteRepository.load(statutes, Path(args.cache_dir))
        pseudonymizer = Pseudonymizer(AUDIT_SECRET, "k1")
        if args.backend == "sqlite":
            engine = statutes
            tools = AuditTools(
                pseudonymizer,
                MappingStore(workdir / "pseudonym-map.sqlite3"),
                FileRoundStore(workdir / "rounds.sqlite3"),
            )
        else:
            postgres = OwnPostgres(workdir)
            url = postgres.create_database("writebench")
            upgrade(url)
            engine = make_engine(url)
            keys = KeyRing(parse_keys(STORE_KEY))
            tools = AuditTools(
                pseudonymizer, DatabaseMappingStore(engine, keys), DatabaseRoundStore(engine, keys)
            )
        warm_up(repo, TODAY)
        bodies = gate_bodies(args.bodies)
        gated = []
        for index, body in enumerate(bodies):
            request = GateRequestData(
                answer=str(body["answer"]),
                question=body.get("question"),  # type: ignore[arg-type]
                subject_id=f"write-bench-{index}",
                session_id=None,
                attempt=None,
                as_of=date.fromisoformat(str(body["as_of"])),
            )
            gated.append(assess_request(request, None, repo=repo, tools=tools, today=TODAY))
        if toggle is not None and args.part is not None:
            _split(args.part, toggle)
        # one untimed batch first: connections, statements, caches
        first, rest = gated[: args.batch], gated[args.batch :]
        settle_many(first, engine)
        wall = cpu = 0.0
        for start in range(0, len(rest), args.batch):
            batch = rest[start : start + args.batch]
            if toggle is not None and args.part != "prepare":
                toggle()
            began, began_cpu = time.perf_counter(), time.thread_time()
            outcomes = settle_many(batch, engine)
            cpu += time.thread_time() - began_cpu
            wall += time.perf_counter() - began
            if toggle is not None and args.part != "prepare":
                toggle()
            failed = [o for o in outcomes if isinstance(o, BaseException)]
            if failed:
                raise SystemExit(f"a settlement failed: {failed[0]!r}")
        count = len(rest)
        print(
            f"{args.backend}: {count} answers settled {args.batch} a batch: wall "
            f"{wall / count * 1000:.3f} ms, thread CPU {cpu / count * 1000:.3f} ms per answer "
            f"(load average {os.getloadavg()[0]:.2f})",
            flush=True,
        )
        if args.dump:
            dump(engine, workdir, Path(args.dump), {})
        engine.dispose()
    finally:
        if postgres is not None:
            postgres.cleanup()
        shutil.rmtree(workdir, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--bodies", type=int, default=656, help="answers (the first batch untimed)")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--database", default="var/lexgate.sqlite3", help="statutes (copied)")
    parser.add_argument("--cache-dir", default="var/cache")
    parser.add_argument("--dump", help="write every stored row (stable) to this file")
    parser.add_argument("--callgrind", action="store_true", help="count instructions")
    parser.add_argument(
        "--part", choices=["prepare", "write"], help="count inside prepare_records, or outside"
    )
    parser.add_argument("--toggle-library", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.toggle_library:
        one_pass(args, ctypes.CDLL(args.toggle_library).toggle)
        return
    if not args.callgrind:
        one_pass(args, None)
        return
    with tempfile.TemporaryDirectory(prefix="write-bench-cg-") as folder:
        source, library = Path(folder) / "toggle.c", Path(folder) / "toggle.so"
        source.write_text(HELPER)
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", library, source], check=True)
        forwarded = [a for a in sys.argv[1:] if a != "--callgrind"]
        command = [
            "valgrind", "--tool=callgrind", "--collect-atstart=no",
            f"--callgrind-out-file={folder}/write.cg",
            sys.executable, str(Path(__file__).resolve()), *forwarded,
            "--toggle-library", str(library),
        ]  # fmt: skip
        env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": os.getcwd()}
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        if done.returncode:
            sys.exit(f"the pass under callgrind failed:\n{done.stderr[-3000:]}")
        print(done.stdout.strip())
        collected = re.search(r"Collected : (\d+)", done.stderr)
        count = int(collected.group(1)) if collected else -1
        answers = args.bodies - args.batch
        part = f" ({args.part} only)" if args.part else ""
        print(
            f"{args.backend}{part}: settling {answers} answers, {args.batch} a batch: {count:,} "
            f"instructions = {count // max(answers, 1):,} per answer"
        )


if __name__ == "__main__":
    main()
