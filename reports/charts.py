"""Server-rendered SVG charts of the report pages: hand-written, no JavaScript, no CDN. Each function takes plain
figures and returns an SVG string (safe: every text is escaped)."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

W, PAD_L, PAD_R, PAD_T, PAD_B = 720, 70, 20, 28, 46
BLUE, GREEN, RED, GREY, DARK = "#417690", "#5b9a3c", "#ba2121", "#d8d8d8", "#333"


def _svg(h: int, body: list[str], title: str) -> SafeString:
    return mark_safe(  # every text below goes through escape()
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{W}" height="{h}" viewBox="0 0 {W} {h}" '
        f'style="font:12px sans-serif;background:#fff;border:1px solid #eee">'
        f"<title>{escape(title)}</title>"
        f'<text x="{PAD_L}" y="16" font-weight="bold" fill="{DARK}">{escape(title)}</text>{"".join(body)}</svg>'
    )


def _nice(v: float) -> str:
    if abs(v) >= 1_000_000:
        return f"{v / 1_000_000:.1f} M"
    if abs(v) >= 10_000:
        return f"{v / 1000:.0f} k"
    return f"{v:.0f}"


def bars(labels: Sequence[str], values: Sequence[float], *, title: str, unit: str = "", h: int = 220) -> SafeString:
    """Vertical bars (negative values below the zero line) with a label under every few bars."""
    body: list[str] = []
    if not values:
        body.append(f'<text x="{PAD_L}" y="{h // 2}" fill="#777">{escape(gettext("no computed days"))}</text>')
        return _svg(h, body, title)
    hi, lo = max(0.0, *map(float, values)), min(0.0, *map(float, values))
    span = (hi - lo) or 1.0
    plot_h, plot_w = h - PAD_T - PAD_B, W - PAD_L - PAD_R

    def y(v: float) -> float:
        return PAD_T + (hi - v) / span * plot_h

    step = plot_w / len(values)
    for frac in (0, 0.5, 1):
        v = lo + span * frac
        body.append(
            f'<line x1="{PAD_L}" x2="{W - PAD_R}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="{GREY}"/>'
            f'<text x="{PAD_L - 6}" y="{y(v) + 4:.1f}" text-anchor="end" fill="#555">'
            f"{escape(_nice(v))}{escape(unit)}</text>"
        )
    if lo < 0:
        body.append(f'<line x1="{PAD_L}" x2="{W - PAD_R}" y1="{y(0):.1f}" y2="{y(0):.1f}" stroke="{DARK}"/>')
    every = max(1, len(values) // 10)
    for i, (lab, v) in enumerate(zip(labels, values, strict=True)):
        x = PAD_L + i * step + step * 0.15
        top, bottom = sorted((y(float(v)), y(0)))
        colour = RED if v < 0 else BLUE
        body.append(
            f'<rect x="{x:.1f}" y="{top:.1f}" width="{step * 0.7:.1f}" height="{max(bottom - top, 0.5):.1f}" '
            f'fill="{colour}"><title>{escape(lab)}: {escape(_nice(float(v)))}{escape(unit)}</title></rect>'
        )
        if i % every == 0:
            body.append(
                f'<text x="{x + step * 0.35:.1f}" y="{h - PAD_B + 16}" text-anchor="middle" fill="#555">'
                f"{escape(lab)}</text>"
            )
    return _svg(h, body, title)


def rtp_intervals(games: Sequence[dict[str, object]], *, title: str) -> SafeString:
    """One row per game: the interval the round count allows around the declared RTP (band), the declared RTP
    (tick) and the actual RTP (dot, red when outside the interval)."""
    row_h = 30
    h = PAD_T + 20 + row_h * max(len(games), 1) + 30
    body: list[str] = []
    if not any(g.get("rtp_actual") for g in games):
        body.append(f'<text x="{PAD_L}" y="{PAD_T + 30}" fill="#777">{escape(gettext("no decided rounds"))}</text>')
        return _svg(h, body, title)
    # the axis spans the declared RTPs +- 10 pp and their intervals; an actual RTP beyond it sits at the edge with
    # its value written beside it
    edges = [float(Decimal(str(g["rtp_declared"]))) + d for g in games for d in (-10, 10)]
    edges += [float(Decimal(str(g[k]))) for g in games for k in ("rtp_low", "rtp_high") if g.get(k)]
    lo, hi = min(edges), max(edges)
    x0, x1 = PAD_L + 110, W - PAD_R - 10

    def x(v: object) -> float:
        return x0 + (float(Decimal(str(v))) - lo) / (hi - lo) * (x1 - x0)

    for k in range(5):
        v = lo + (hi - lo) * k / 4
        body.append(
            f'<line x1="{x(v):.1f}" x2="{x(v):.1f}" y1="{PAD_T + 10}" y2="{h - 30}" stroke="{GREY}"/>'
            f'<text x="{x(v):.1f}" y="{h - 14}" text-anchor="middle" fill="#555">{v:.1f} %</text>'
        )
    for i, g in enumerate(games):
        cy = PAD_T + 24 + i * row_h
        name = f"{g['game']} v{g['version']}"
        body.append(f'<text x="{PAD_L - 60}" y="{cy + 4}" fill="{DARK}">{escape(name)}</text>')
        if g.get("rtp_low") and g.get("rtp_high"):
            band = gettext("99 % interval {low} - {high} %").format(low=g["rtp_low"], high=g["rtp_high"])
            body.append(
                f'<rect x="{x(g["rtp_low"]):.1f}" y="{cy - 7}" width="{x(g["rtp_high"]) - x(g["rtp_low"]):.1f}" '
                f'height="14" fill="#cfe3ee"><title>{escape(band)}</title></rect>'
            )
        body.append(
            f'<line x1="{x(g["rtp_declared"]):.1f}" x2="{x(g["rtp_declared"]):.1f}" y1="{cy - 10}" '
            f'y2="{cy + 10}" stroke="{DARK}" stroke-width="2"><title>'
            f"{escape(gettext('declared {rtp} %').format(rtp=g['rtp_declared']))}</title></line>"
        )
        if g.get("rtp_actual"):
            colour = RED if g.get("rtp_outside") else GREEN
            actual = float(Decimal(str(g["rtp_actual"])))
            cx = x(min(max(actual, lo), hi))
            over = gettext("actual {rtp} % over {rounds} rounds").format(rtp=g["rtp_actual"], rounds=g["rounds"])
            body.append(f'<circle cx="{cx:.1f}" cy="{cy}" r="5" fill="{colour}"><title>{escape(over)}</title></circle>')
            if not lo <= actual <= hi:
                anchor, dx = ("end", -8) if actual > hi else ("start", 8)
                body.append(
                    f'<text x="{cx + dx:.1f}" y="{cy + 4}" text-anchor="{anchor}" fill="{colour}">'
                    f"{'&#9664; ' if actual < lo else ''}{escape(str(g['rtp_actual']))} %"
                    f"{' &#9654;' if actual > hi else ''}</text>"
                )
    legend = gettext("band: 99 % interval around the declared RTP (tick); dot: actual (red: outside)")
    body.append(f'<text x="{x0}" y="{PAD_T + 6}" fill="#555">{escape(legend)}</text>')
    return _svg(h, body, title)


def hbars(items: Sequence[tuple[str, float]], *, title: str, unit: str = "") -> SafeString:
    """Horizontal bars, one per labelled figure (the temporary-account funnel, queue ages)."""
    row_h = 26
    h = PAD_T + 10 + row_h * max(len(items), 1) + 10
    top = max([float(v) for _, v in items] + [1.0])
    x0, x1 = PAD_L + 130, W - PAD_R - 60
    body: list[str] = []
    for i, (lab, v) in enumerate(items):
        cy = PAD_T + 14 + i * row_h
        width = float(v) / top * (x1 - x0)
        body.append(
            f'<text x="{x0 - 8}" y="{cy + 4}" text-anchor="end" fill="{DARK}">{escape(lab)}</text>'
            f'<rect x="{x0}" y="{cy - 8}" width="{max(width, 0.5):.1f}" height="16" fill="{BLUE}"/>'
            f'<text x="{x0 + width + 6:.1f}" y="{cy + 4}" fill="{DARK}">{escape(_nice(float(v)))}'
            f"{escape(unit)}</text>"
        )
    return _svg(h, body, title)
