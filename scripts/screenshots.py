"""The README's screenshots (docs/images), taken anew in Chromium from a real server.

    make screenshots          # or: .venv/bin/python scripts/screenshots.py [--out DIR]

A copy of the instance's statute database (`lexgate db init` first) is served by `lexgate serve`
from a temporary home, so nothing is written to the instance: the copy gets its own API keys,
and 40 real answers of ../shared/eval/flzx_dev_answers.jsonl are gated through
POST /api/v1/gate to fill the /audit page. The check page shows one real answer (its id is in
CHECK_ANSWER_ID) at 1280 and at 390 px. Chromium is Debian's (LEXGATE_TEST_CHROMIUM, default
/usr/bin/chromium), driven by Playwright, as in the browser tests.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from playwright.sync_api import Page, sync_playwright
from sqlalchemy.orm import Session

from legaldb import make_engine
from lexgate.settings import get_settings
from web import create_key

ROOT = Path(__file__).resolve().parents[1]
ANSWERS = Path(os.environ.get("LEXGATE_SHARED_DIR", ROOT.parent / "shared")) / "eval"
CHECK_ANSWER_ID = "flzx-fuzi-mingcha-7b-hf-125"
"""A real answer citing one article in force, one of a repealed law and one that does not say
what the answer claims: the three things a reader of the page should see."""
AS_OF = "2023-08-01"  # when the answers were written
GATED_ANSWERS = 40
CHROMIUM = Path(os.environ.get("LEXGATE_TEST_CHROMIUM", "/usr/bin/chromium"))
WIDE, NARROW = 1280, 390


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answers() -> list[dict[str, str]]:
    with (ANSWERS / "flzx_dev_answers.jsonl").open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


@contextmanager
def _server(home: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """`lexgate serve` over a copy of the instance's database in home; its URL and keys."""
    source = make_engine(get_settings().database_url).url
    if source.get_backend_name() != "sqlite" or not source.database:
        raise SystemExit("screenshots: the instance's database must be SQLite (make run's)")
    copy = home / "var" / "lexgate.sqlite3"
    copy.parent.mkdir(parents=True)
    shutil.copyfile(source.database, copy)
    url = f"sqlite:///{copy}"
    engine = make_engine(url)
    with Session(engine) as session:
        keys = {role: create_key(session, role, name="screenshots").key for role in ("auditor",)}
    engine.dispose()
    port = _free_port()
    env = {**os.environ, "LEXGATE_HOME": str(home), "LEXGATE_DATABASE_URL": url,
           "LEXGATE_AUDIT_SIGNING_KEY_PATH": str(home / "var" / "audit-signing-key.pem"),
           "LEXGATE_WEB_PUBLIC_PAGES": "true"}  # fmt: skip
    lexgate = str(Path(sys.executable).parent / "lexgate")
    subprocess.run([lexgate, "audit", "init"], env=env, check=True, capture_output=True)
    process = subprocess.Popen([lexgate, "serve", "--port", str(port)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                if httpx.get(f"{base}/api/v1/readyz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("screenshots: lexgate serve did not start")
            time.sleep(0.5)
        yield base, keys
    finally:
        process.terminate()
        process.wait(timeout=30)


def _gate_some(base: str, key: str, answers: list[dict[str, str]]) -> None:
    """Real answers through the gate, so that the /audit page has a quarter to show."""
    headers = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=base, headers=headers, timeout=60) as client:
        for answer in answers[:: len(answers) // GATED_ANSWERS][:GATED_ANSWERS]:
            body = {"question": answer["question"], "answer": answer["answer"], "as_of": AS_OF}
            client.post("/api/v1/gate", json=body).raise_for_status()


def _wrote(path: Path) -> None:
    print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")


def _shot(page: Page, out: Path, name: str, width: int, *, full: bool = True) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    path = out / f"{name}-{width}.png" if width != WIDE else out / f"{name}.png"
    page.screenshot(path=str(path), full_page=full)
    _wrote(path)


def take(out: Path) -> None:
    """Every screenshot of the README and docs/api.md into out."""
    answers = _answers()
    shown = next(a for a in answers if a["id"] == CHECK_ANSWER_ID)
    out.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory(prefix="lexgate-screenshots-") as home,
        _server(Path(home)) as (base, keys),
        sync_playwright() as playwright,
    ):
        _gate_some(base, keys["auditor"], answers)
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page(viewport={"width": WIDE, "height": 900}, locale="zh-CN")
        page.goto(f"{base}/")
        page.fill("#question", shown["question"])
        page.fill("#answer", shown["answer"])
        page.fill("#as_of", AS_OF)
        page.click("#check-button")
        page.wait_for_selector("#summary")
        _shot(page, out, "check-page", WIDE)
        _shot(page, out, "check-page", NARROW)
        page.locator("details.badge-repealed summary").first.click()
        page.locator("details.badge-repealed .panel").first.scroll_into_view_if_needed()
        page.set_viewport_size({"width": WIDE, "height": 900})
        page.screenshot(path=str(out / "check-badge-open.png"))
        _wrote(out / "check-badge-open.png")

        # The content mark beside the status badge (docs/verifier.md), its panel opened.
        mark = page.locator("details:has(summary .support-label.support-unsupported) summary")
        if mark.count():
            mark.first.click()
        for width, name in ((WIDE, "check-support-1280.png"), (NARROW, "check-support-390.png")):
            page.set_viewport_size({"width": width, "height": 900})
            page.screenshot(path=str(out / name), full_page=True)
            _wrote(out / name)

        page.goto(f"{base}/laws?level=法律&initial=M")
        _shot(page, out, "laws-browse", WIDE)
        _shot(page, out, "laws-browse", NARROW)
        civil = httpx.get(f"{base}/api/v1/laws", params={"q": "民法典"},
                          headers={"Authorization": f"Bearer {keys['auditor']}"}).json()  # fmt: skip
        civil_id = civil["laws"][0]["id"]
        page.goto(f"{base}/laws/{civil_id}")
        _shot(page, out, "law-contents", WIDE, full=False)
        page.goto(f"{base}/laws/{civil_id}/articles/577")
        _shot(page, out, "article-page", WIDE)

        for query, name, width in (("刑法", "law-timeline", WIDE),
                                   ("中外合资经营企业法", "law-timeline-repealed", NARROW)):  # fmt: skip
            found = httpx.get(f"{base}/api/v1/laws", params={"q": query},
                              headers={"Authorization": f"Bearer {keys['auditor']}"}).json()  # fmt: skip
            page.goto(f"{base}/laws/{found['laws'][0]['id']}")
            _shot(page, out, name, width, full=False)

        page.goto(f"{base}/login?next=/audit")
        page.fill("#key", keys["auditor"])
        page.click("button[type=submit]")
        page.wait_for_selector("#audit-summary")
        _shot(page, out, "audit-page", WIDE)
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    take(parser.parse_args().out)


if __name__ == "__main__":
    main()
