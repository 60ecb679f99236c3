"""Rating charts as data for an SVG template: several series on one pair of axes, the
x axis in rated matches with their dates, the y axis in TrueSkill mu, and every point
carrying its hover text. Pure: points in, geometry out."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from arena.tournament.ratings import conservative

#: the colours series take in turn (distinguishable, and readable on white)
PALETTE = ("#2b6cb0", "#c05621", "#2f855a", "#b83280", "#6b46c1", "#c53030", "#2c7a7b", "#975a16")
#: points drawn per series at most; longer histories keep evenly spaced points and the last
MAX_POINTS = 120
WIDTH, HEIGHT = 720, 260
#: the narrowest drawing (a phone's slot): below it the plot is too small to read
MIN_WIDTH = 300
LEFT, RIGHT, TOP, BOTTOM = 48, 12, 12, 40


@dataclass
class Series:
    """One line: a bot version's ratings, in the order they were updated."""

    label: str
    #: dicts with ``x`` (the tournament's rated-match number), ``mu``, ``sigma`` and
    #: ``at`` (when the match finished, ISO text, or None)
    points: list[dict[str, Any]]
    colour: str = ""
    #: how many times the rating changed (points may be thinned)
    updates: int = 0
    path: str = ""
    band: str = ""
    marks: list[dict[str, Any]] = field(default_factory=list)
    #: drawn (False: hidden by the reader; in the legend, out of the axes' range)
    shown: bool = True


def thin(points: list[dict[str, Any]], limit: int = MAX_POINTS) -> list[dict[str, Any]]:
    """At most ``limit`` points, evenly spaced, always keeping the first and the last."""
    if len(points) <= limit:
        return points
    step = (len(points) - 1) / (limit - 1)
    return [points[round(i * step)] for i in range(limit)]


def ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round values for an axis from ``low`` to ``high`` (1, 2 or 5 times a power of ten)."""
    if high <= low:
        return [low]
    raw = (high - low) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step) * step
    return [round(first + i * step, 10) for i in range(int((high - first) / step) + 1)]


def chart(
    series: list[Series],
    width: int = WIDTH,
    height: int = HEIGHT,
    hidden: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """Geometry for the template: each series' polyline (mu) and band (mu ± 3 sigma is
    too wide to read; the band is mu - 3 sigma, the leaderboard's score), hover marks,
    and both axes' ticks with labels. The axes span the series shown: ``hidden`` ones
    stay in the legend (with their colour) but neither drawn nor in the range."""
    charted = [s for s in series if s.points]
    for s in charted:
        s.updates = s.points[-1].get("n", len(s.points))
    if not charted:
        return {"width": width, "height": height, "series": [], "empty": True}
    for number, s in enumerate(charted):
        s.points = thin(s.points)
        s.colour = PALETTE[number % len(PALETTE)]
        s.shown = s.label not in hidden
    drawn = [s for s in charted if s.shown] or charted  # all hidden: keep the axes
    xs = [p["x"] for s in drawn for p in s.points]
    ticks_wanted = 5 if width >= 500 else 3  # dates under the ticks need room
    ys = [v for s in drawn for p in s.points for v in (p["mu"], conservative(p["mu"], p["sigma"]))]
    x_low, x_high = min(xs), max(max(xs), min(xs) + 1)
    y_low, y_high = math.floor(min(ys)) - 1, math.ceil(max(ys)) + 1
    plot_w, plot_h = width - LEFT - RIGHT, height - TOP - BOTTOM

    def px(x: float) -> float:
        return round(LEFT + (x - x_low) / (x_high - x_low) * plot_w, 1)

    def py(y: float) -> float:
        return round(TOP + (y_high - y) / (y_high - y_low) * plot_h, 1)

    dates = {p["x"]: p["at"] for s in drawn for p in s.points if p.get("at")}
    one_day = len({at[:10] for at in dates.values()}) <= 1
    for s in drawn:
        s.path = " ".join(f"{px(p['x'])},{py(p['mu'])}" for p in s.points)
        s.band = " ".join(f"{px(p['x'])},{py(conservative(p['mu'], p['sigma']))}" for p in s.points)
        s.marks = [
            {
                "x": px(p["x"]),
                "y": py(p["mu"]),
                "tip": f"{s.label} · update {p.get('n', '?')} (rated match {p['x']})"
                + (f" · {p['at'][:16].replace('T', ' ')} UTC" if p.get("at") else "")
                + f" · mu {p['mu']:.2f} · sigma {p['sigma']:.2f}"
                + f" · score {conservative(p['mu'], p['sigma']):.2f}",
            }
            for p in s.points
        ]
    x_ticks = [t for t in ticks(x_low, x_high, ticks_wanted) if t == int(t)]
    return {
        "width": width,
        "height": height,
        "empty": False,
        "series": charted,
        "plot": {"left": LEFT, "right": width - RIGHT, "top": TOP, "bottom": height - BOTTOM},
        "y_ticks": [{"y": py(t), "label": f"{t:g}"} for t in ticks(y_low, y_high)],
        "x_ticks": _only_changes(
            [
                {"x": px(t), "label": f"{int(t)}", "date": _nearest_date(dates, t, one_day)}
                for t in x_ticks
            ]
        ),
    }


def _only_changes(x_ticks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each tick's date shown only where it differs from the tick before (a run of the
    same minute, or day, is labelled once)."""
    shown = ""
    for tick in x_ticks:
        if tick["date"] == shown:
            tick["date"] = ""
        else:
            shown = tick["date"]
    return x_ticks


def _nearest_date(dates: dict[int, str], x: float, one_day: bool) -> str:
    """When the rated match nearest to ``x`` finished: its time (UTC) when the chart
    spans one day, else its month and day."""
    if not dates:
        return ""
    at = dates[min(dates, key=lambda known: abs(known - x))]
    return at[11:16] if one_day else at[5:10]


def llr_chart(
    history: list[list[float]], bounds: list[float], width: int = WIDTH, height: int = HEIGHT
) -> dict[str, Any]:
    """An A/B test's LLR after each pair (x: matches recorded) between its two bounds."""
    lower, upper = bounds
    points = thin([{"x": x, "y": y} for x, y in history])
    xs = [p["x"] for p in points] or [0]
    ys = [p["y"] for p in points]
    x_low, x_high = 0, max(max(xs), 2)
    y_low, y_high = min([lower, *ys]) - 0.5, max([upper, *ys]) + 0.5
    plot_w, plot_h = width - LEFT - RIGHT, height - TOP - BOTTOM

    def px(x: float) -> float:
        return round(LEFT + (x - x_low) / (x_high - x_low) * plot_w, 1)

    def py(y: float) -> float:
        return round(TOP + (y_high - y) / (y_high - y_low) * plot_h, 1)

    return {
        "width": width,
        "height": height,
        "empty": not points,
        "plot": {"left": LEFT, "right": width - RIGHT, "top": TOP, "bottom": height - BOTTOM},
        "path": " ".join(f"{px(p['x'])},{py(p['y'])}" for p in points),
        # the bounds' words at the left, where the LLR starts from 0, far from them (at
        # the right the line ends on the bound it crossed, and ran through its words)
        "bounds": [
            {"y": py(upper), "label": f"accept {upper:+.2f}", "kind": "upper", "at": "start"},
            {"y": py(0), "label": "0", "kind": "zero", "at": "end"},
            {"y": py(lower), "label": f"reject {lower:+.2f}", "kind": "lower", "at": "start"},
        ],
        "x_ticks": [
            {"x": px(t), "label": f"{int(t)}"} for t in ticks(x_low, x_high) if t == int(t)
        ],
        "last": {"x": px(points[-1]["x"]), "y": py(points[-1]["y"])} if points else None,
    }
