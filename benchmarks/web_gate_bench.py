"""POST /api/v1/gate (checked, decided and recorded) against POST /api/v1/check, in process.

Sequential requests through the ASGI app (FastAPI's TestClient: no sockets, one worker), over
the first 200 real answers of flzx_dev_answers.jsonl, each gate request its own session. The
difference is what recording costs a request: the gate's assessment, the audit write (one
transaction), the mapping store and the round store.

python -m benchmarks.web_gate_bench [--url sqlite:///…|postgresql+psycopg://…] [--answers 200]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
import warnings
from pathlib import Path

from pydantic import SecretStr
from sqlalchemy.orm import Session

from benchmarks.common import ANSWERS, fresh_database
from legaldb import make_engine
from lexgate.settings import Settings
from web import create_app, create_key

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient


def _times(client: TestClient, path: str, bodies: list[dict[str, str]], key: str) -> list[float]:
    headers = {"Authorization": f"Bearer {key}"}
    times = []
    for body in bodies:
        started = time.perf_counter()
        response = client.post(path, json=body, headers=headers)
        times.append(time.perf_counter() - started)
        if response.status_code != 200:
            raise SystemExit(f"{path}: {response.status_code} {response.text[:200]}")
    return sorted(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a database holding the corpus (default: a fresh SQLite)")
    parser.add_argument("--answers", type=int, default=200)
    args, _ = parser.parse_known_args()  # python -m benchmarks passes its own argv
    url = args.url or fresh_database("lexgate-gate-bench-")
    engine = make_engine(url)
    with Session(engine) as session:
        key = create_key(session, "checker", name="gate-bench").key
    private = Path(tempfile.mkdtemp(prefix="lexgate-gate-bench-private-"))
    settings = Settings(
        database_url=url,
        audit_secret=SecretStr("the gate benchmark's own secret!"),
        mapping_store_path=private / "pseudonym-map.sqlite3",
        web_round_store_path=private / "open-rounds.sqlite3",
    )
    lines = Path(ANSWERS).read_text(encoding="utf-8").splitlines()[: args.answers]
    answers = [json.loads(line)["answer"] for line in lines]
    with TestClient(create_app(settings)) as client:
        checks = [{"answer": a, "as_of": "2023-08-01"} for a in answers]
        gates = [{**body, "session_id": f"bench-{n}"} for n, body in enumerate(checks)]
        _times(client, "/api/v1/check", checks[:20], key)  # warm up
        for path, bodies in (("/api/v1/check", checks), ("/api/v1/gate", gates)):
            times = _times(client, path, bodies, key)
            print(
                f"{path}: {len(times)} requests, median {statistics.median(times) * 1000:.1f} ms, "
                f"p90 {times[int(len(times) * 0.9)] * 1000:.1f} ms, "
                f"p99 {times[int(len(times) * 0.99)] * 1000:.1f} ms"
            )
    engine.dispose()


if __name__ == "__main__":
    main()
