"""The screenshots in docs/images are the ones the README and docs show, and every one of them
is made by scripts/screenshots.py (`make screenshots`), so none goes stale by hand."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "images"


def test_every_screenshot_is_shown_and_made_by_the_script() -> None:
    """Each image the README or docs/*.md show exists; each image in docs/images is shown
    somewhere and named in scripts/screenshots.py."""
    texts = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    shown = {
        name
        for path in texts
        for name in re.findall(r"images/([\w-]+\.png)", path.read_text(encoding="utf-8"))
    }
    present = {path.name for path in IMAGES.glob("*.png")}
    assert shown <= present, sorted(shown - present)
    assert present <= shown, sorted(present - shown)
    script = (ROOT / "scripts" / "screenshots.py").read_text(encoding="utf-8")
    for name in present:
        stem = re.sub(r"-390$", "", name.removesuffix(".png"))
        assert f'"{stem}' in script, name
