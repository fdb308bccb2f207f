"""How the tools write what the model reads: spans in seconds (what the interval tools take)
with a clock beside them, items one per line, the whole bounded to `MAX_RESULT_CHARS` by
leaving out whole items (so the intervals a result reports are those of the items it shows)."""

from __future__ import annotations

from pipelines.agents.tools.registry import MAX_RESULT_CHARS, ToolResult

ITEM_CHARS = 300  # one listed item (a cue, a caption, a scene), at most: five fit in a result


def clock(time_s: float) -> str:
    """h:mm:ss of a time in seconds."""
    whole = int(max(0.0, time_s))
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def span_label(start_s: float, end_s: float) -> str:
    """`[612.3-640.0 s | 0:10:12-0:10:40]`: the seconds the tools take, and a clock."""
    return f"[{start_s:.1f}-{end_s:.1f} s | {clock(start_s)}-{clock(end_s)}]"


def one_line(text: str, limit: int = ITEM_CHARS) -> str:
    """Whitespace collapsed, cut to `limit` characters with an ellipsis."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def bounded(text: str, limit: int = MAX_RESULT_CHARS) -> str:
    """`text` cut to `limit` characters, saying so at the cut."""
    if len(text) <= limit:
        return text
    marker = " …(cut)"
    return text[: limit - len(marker)] + marker


def listing(
    header: str, items: list[tuple[str, tuple[float, float]]], empty: str, footer: str = ""
) -> ToolResult:
    """A header line, then one item per line while they fit in `MAX_RESULT_CHARS`.

    Args:
        header: the first line (what was found, and where it came from).
        items: (line, its film span) in the order to show.
        empty: the text when there are no items.
        footer: a last line (kept within the bound too).
    """
    if not items:
        return ToolResult(bounded(f"{header}\n{empty}"))
    lines, spans = [header], []
    budget = MAX_RESULT_CHARS - len(footer) - 64  # room for the footer and the "left out" line
    used = len(header)
    for line, span in items:
        if used + 1 + len(line) > budget:
            break
        lines.append(line)
        spans.append(span)
        used += 1 + len(line)
    left_out = len(items) - len(spans)
    if left_out:
        lines.append(f"({left_out} more left out: the result is bounded)")
    if footer:
        lines.append(footer)
    return ToolResult(bounded("\n".join(lines)), tuple(spans))
