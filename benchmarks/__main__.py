"""Run every benchmark module of this folder in turn (`make bench`), or the ones named.

python -m benchmarks                 # all
python -m benchmarks extractor_bench # one
"""

from __future__ import annotations

import importlib
import pkgutil
import runpy
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(names: list[str]) -> int:
    modules = names or sorted(
        info.name for info in pkgutil.iter_modules([str(HERE)]) if info.name.endswith("_bench")
    )
    failed = []
    for name in modules:
        print(f"\n=== benchmarks.{name} ===", flush=True)
        started = time.perf_counter()
        try:
            importlib.import_module(f"benchmarks.{name}")
            runpy.run_module(f"benchmarks.{name}", run_name="__main__")
        except SystemExit as exit_:
            if exit_.code not in (0, None):
                failed.append(name)
        print(f"=== {name}: {time.perf_counter() - started:.1f} s", flush=True)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
