"""Property tests: the parsers never crash and account for every non-blank line."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.preprocess import parse_fountain_elements, parse_screenplay_text, parse_srt
from pipelines.preprocess.srt_reader import SubtitleError

# Lines that look like screenplay material, mixed with arbitrary text, so the generator reaches
# every branch (cues, sluglines, parentheticals, boilerplate, Fountain markup).
SCREENPLAY_LINES = st.one_of(
    st.sampled_from(
        [
            "",
            "",
            "INT. HOUSE - DAY",
            "12 EXT. PIER - NIGHT 12",
            "JOHN",
            "MARY (V.O.)",
            "JOHN (CONT'D)",
            "(quietly)",
            "(MORE)",
            "CONTINUED:",
            "34.",
            "CUT TO:",
            "FADE IN:",
            "Hello there.",
            "He walks in.",
            "   indented text",
            "\tTabbed",
            "# Section",
            "= Synopsis",
            "[[note",
            "note]]",
            "/* bone",
            "yard */",
            "===",
            "> CENTER <",
            "> TRANSITION",
            "!FORCED",
            "@forced",
            "~lyric",
            "Title: X",
            "EVE ^",
            "  ",
            "(unclosed",
            ".HEADING",
        ]
    ),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=40),
)


def _non_blank(text: str, form_feed_breaks: bool = True) -> set[int]:
    """Non-blank line numbers, splitting lines as the parser does (the text parser also treats
    a form feed, a page break in PDF-to-text output, as a line break; Fountain does not)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = (text.replace("\f", "\n") if form_feed_breaks else text).split("\n")
    return {n for n, line in enumerate(lines, 1) if line.strip()}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(SCREENPLAY_LINES, max_size=40))
def test_text_parser_never_crashes_and_accounts_for_every_line(lines):
    text = "\n".join(lines)
    screenplay = parse_screenplay_text(text)
    assert _non_blank(text) <= set(screenplay.line_roles)
    assert all(s.index == i for i, s in enumerate(screenplay.scenes))
    screenplay.to_table15()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(SCREENPLAY_LINES, max_size=40))
def test_fountain_parser_never_crashes_and_accounts_for_every_line(lines):
    text = "\n".join(lines)
    document = parse_fountain_elements(text)
    assert _non_blank(text, form_feed_breaks=False) <= set(document.roles)


SRT_LINES = st.one_of(
    st.sampled_from(
        [
            "",
            "1",
            "2",
            "00:00:01,000 --> 00:00:02,000",
            "00:00:03.5 --> 00:00:04.0",
            "00:00:xx --> 00:00:01",
            "Hello",
            "<i>Hi</i>",
            "99",
        ]
    ),
    st.text(max_size=30),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(SRT_LINES, max_size=30))
def test_srt_parser_never_crashes_unexpectedly(lines):
    text = "\n".join(lines)
    try:
        parsed = parse_srt(text, lenient=True)
    except SubtitleError:
        return
    assert all(c.end_s >= c.start_s for c in parsed.cues)
    assert [c.index for c in parsed.cues] == list(range(len(parsed.cues)))
