"""Instructions of the extractor's cold pass over the 2,750 flzx answers (callgrind).

    python -m benchmarks.extractor_callgrind [--scan] [--database URL]

The lexicon is the statute database's (`StatuteRepository.lexicon()`; by default the one of
`lexgate`'s settings, `var/lexgate.sqlite3`), read here and handed to the measured process as
a JSON file. That process builds the `Lexicon`, runs a pass untimed, empties the parse memos
and the lexicon's (`grammar.clear_memos()`, `Lexicon.forget()`), then runs the measured cold
pass as `list(itertools.starmap(extract, …))` under `valgrind --tool=callgrind
--toggle-collect=starmap_next`, so that only the pass is counted; with --scan, the pre-scan
alone (`find_candidates`). The process runs the current directory's checkout (cwd first on
sys.path): another checkout is measured from its own directory with this file. Instruction
counts do not depend on the machine's load; PYTHONHASHSEED=0 fixes set orders.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path


def one_pass(lexicon_file: str, answers_file: str, scan: bool) -> None:
    """The pass itself (run under callgrind by main; it imports only the extractor: what else
    the process holds changes the collector's share of the pass)."""
    sys.path.insert(0, os.getcwd())
    from extractor import Lexicon, extract
    from extractor.candidates import find_candidates
    from extractor.grammar import clear_memos

    mapping = json.loads(Path(lexicon_file).read_text(encoding="utf-8"))
    lexicon = Lexicon.from_mapping(mapping)
    lines = Path(answers_file).read_text(encoding="utf-8").splitlines()
    answers = [json.loads(line)["answer"] for line in lines]
    function = find_candidates if scan else extract
    for answer in answers:
        function(answer, lexicon)  # type: ignore[operator]  # both take (text, lexicon)
    clear_memos()
    lexicon.forget()
    found = list(itertools.starmap(function, [(answer, lexicon) for answer in answers]))
    print(sum(map(len, found)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scan", action="store_true", help="the pre-scan alone")
    parser.add_argument("--database", help="the statute database's URL (default: settings')")
    parser.add_argument("--pass", dest="one", nargs=2, help=argparse.SUPPRESS)  # lexicon, answers
    args = parser.parse_args()
    if args.one:
        one_pass(*args.one, args.scan)
        return
    from benchmarks.common import ANSWERS
    from legaldb import StatuteRepository, make_engine
    from lexgate.settings import get_settings

    engine = make_engine(args.database or get_settings().database_url)
    try:
        mapping = StatuteRepository.load(engine).lexicon()
    finally:
        engine.dispose()
    with tempfile.TemporaryDirectory(prefix="lexgate-extract-cg-") as folder:
        lexicon_file = Path(folder) / "lexicon.json"
        lexicon_file.write_text(json.dumps(mapping, ensure_ascii=False), encoding="utf-8")
        command = [
            "valgrind", "--tool=callgrind", "--toggle-collect=starmap_next",
            f"--callgrind-out-file={folder}/pass.cg",
            sys.executable, str(Path(__file__).resolve()), "--pass", str(lexicon_file), str(ANSWERS),
        ]  # fmt: skip
        if args.scan:
            command.append("--scan")
        env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": os.getcwd()}
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        if done.returncode:
            sys.exit(f"the pass under callgrind failed:\n{done.stderr[-3000:]}")
        collected = re.search(r"Collected : (\d+)", done.stderr)
        count = int(collected.group(1)) if collected else -1
        what = "find_candidates" if args.scan else "extract"
        print(
            f"{what}, cold pass over {ANSWERS.name} (lexicon of {len(mapping)} entries, "
            f"{done.stdout.strip()} found): {count:,} instructions"
        )


if __name__ == "__main__":
    main()
