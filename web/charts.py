"""Chart geometry for the server-drawn inline SVG of the /audit page (no chart library).

Pure functions from figures to rectangles and labels; the template writes them as SVG
elements (autoescaped), with presentation attributes only, so the page needs no script and no
inline style under the Content-Security-Policy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from web.dashboard import DECISIONS, DayDecisions, Ranked, RateBin
from web.labels import DECISION_LABELS

DECISION_COLOURS = {
    "pass": "#2e7d32",
    "pass_boundary": "#1565c0",
    "rerun": "#c62828",
    "no_citations": "#757575",
}
BAR_COLOUR = "#455a64"


@dataclass(frozen=True, slots=True)
class Bar:
    """One rectangle, its fill and its tooltip (an SVG <title>)."""

    x: float
    y: float
    width: float
    height: float
    fill: str
    title: str


@dataclass(frozen=True, slots=True)
class Label:
    """One text of a chart (axis tick or value)."""

    x: float
    y: float
    text: str
    anchor: str = "middle"


@dataclass(frozen=True, slots=True)
class Chart:
    """An SVG chart: its view box, bars and labels."""

    width: float
    height: float
    bars: tuple[Bar, ...]
    labels: tuple[Label, ...]


def _scale(maximum: int) -> int:
    """A round top for the value axis (at least 1)."""
    top = max(maximum, 1)
    for step in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000):
        if top <= step * 5:
            return -(-top // step) * step
    return top


def decisions_chart(days: Sequence[DayDecisions]) -> Chart:
    """Stacked bars: the answers of each day by decision (pass at the bottom)."""
    left, top, bottom, plot_height = 40.0, 10.0, 30.0, 160.0
    step = max(4.0, min(24.0, 720.0 / max(len(days), 1)))
    width = left + step * len(days) + 10
    scale = _scale(max((d.total for d in days), default=0))
    bars: list[Bar] = []
    labels = [
        Label(left - 4, top + plot_height, "0", "end"),
        Label(left - 4, top + 8, str(scale), "end"),
    ]
    for index, day in enumerate(days):
        x = left + index * step
        base = top + plot_height
        for decision in DECISIONS:
            count = day.counts.get(decision, 0)
            if not count:
                continue
            height = plot_height * count / scale
            base -= height
            bars.append(
                Bar(
                    x + 0.5,
                    base,
                    step - 1,
                    height,
                    DECISION_COLOURS[decision],
                    f"{day.day.isoformat()} {DECISION_LABELS[decision]}：{count}",
                )
            )
        if index % max(1, round(len(days) / 6)) == 0:
            labels.append(Label(x + step / 2, top + plot_height + 18, day.day.strftime("%m-%d")))
    return Chart(width, top + plot_height + bottom, tuple(bars), tuple(labels))


def rate_histogram(bins: Sequence[RateBin], no_citations: int) -> Chart:
    """Bars: answers per verifiable-rate bin, and those citing nothing (rate undefined)."""
    left, top, plot_height, step = 40.0, 10.0, 160.0, 56.0
    columns = [(b.label, b.count) for b in bins] + [("无引用", no_citations)]
    scale = _scale(max((count for _, count in columns), default=0))
    bars: list[Bar] = []
    labels = [
        Label(left - 4, top + plot_height, "0", "end"),
        Label(left - 4, top + 8, str(scale), "end"),
    ]
    for index, (label, count) in enumerate(columns):
        x = left + index * step
        height = plot_height * count / scale
        fill = DECISION_COLOURS["no_citations"] if label == "无引用" else BAR_COLOUR
        bars.append(
            Bar(
                x + 2,
                top + plot_height - height,
                step - 4,
                height,
                fill,
                f"可核验率 {label}：{count}",
            )
        )
        labels.append(Label(x + step / 2, top + plot_height + 16, label))
        if count:
            labels.append(Label(x + step / 2, top + plot_height - height - 3, str(count)))
    return Chart(
        left + step * len(columns) + 10, top + plot_height + 28, tuple(bars), tuple(labels)
    )


def ranking_chart(ranked: Sequence[Ranked]) -> Chart:
    """Horizontal bars: citations of each ranked name (the name written left of its bar)."""
    label_width, bar_room, row = 330.0, 300.0, 22.0
    scale = max((r.citations for r in ranked), default=1)
    bars: list[Bar] = []
    labels: list[Label] = []
    for index, item in enumerate(ranked):
        y = 6 + index * row
        length = bar_room * item.citations / scale
        name = item.name if len(item.name) <= 24 else item.name[:23] + "…"
        labels.append(Label(label_width - 6, y + 14, name, "end"))
        bars.append(
            Bar(
                label_width,
                y + 2,
                length,
                row - 6,
                DECISION_COLOURS["rerun"],
                f"{item.name}：{item.citations} 次引用，{item.cases} 个案例",
            )
        )
        labels.append(Label(label_width + length + 4, y + 14, str(item.citations), "start"))
    return Chart(
        label_width + bar_room + 50, 12 + row * max(len(ranked), 1), tuple(bars), tuple(labels)
    )
