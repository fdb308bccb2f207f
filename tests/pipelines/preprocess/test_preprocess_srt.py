"""Tolerant SRT reader: encodings, missing blank lines, bad numbers, overlaps, strict vs lenient."""

from __future__ import annotations

import pytest

from pipelines.preprocess.srt_reader import SubtitleError, parse_srt, read_srt

CLEAN = (
    "1\n00:00:01,000 --> 00:00:02,500\nHello there.\n\n2\n"
    "00:00:03,000 --> 00:00:04,000\n<i>Second</i>\nline\n"
)


def test_clean_file():
    cues = parse_srt(CLEAN).cues
    assert [(c.index, c.start_s, c.end_s, c.text, c.number) for c in cues] == [
        (0, 1.0, 2.5, "Hello there.", "1"),
        (1, 3.0, 4.0, "Second line", "2"),
    ]


def test_missing_blank_line_and_bad_numbers():
    text = (
        "7\n00:00:01,000 --> 00:00:02,000\nOne\n3\n00:00:03,000 --> 00:00:04,000\nTwo\n\n"
        "00:00:05,000 --> 00:00:06,000\nThree\n"
    )
    cues = parse_srt(text).cues
    assert [c.text for c in cues] == ["One", "Two", "Three"]
    assert [c.number for c in cues] == ["7", "3", None]


def test_overlapping_cues_are_kept_and_counted():
    text = "1\n00:00:01,000 --> 00:00:05,000\nA\n\n2\n00:00:04,000 --> 00:00:06,000\nB\n"
    parsed = parse_srt(text)
    assert len(parsed.cues) == 2 and parsed.overlaps == 1


def test_dot_separator_and_short_milliseconds():
    cues = parse_srt("1\n0:00:01.5 --> 0:00:02.25\nX\n").cues
    assert (cues[0].start_s, cues[0].end_s) == (1.5, 2.25)


def test_unreadable_cue_strict_names_the_line_lenient_skips():
    text = (
        "1\n00:00:01,000 --> 00:00:02,000\nGood\n\n2\n00:00:xx,000 --> 00:00:04,000\n"
        "Bad\n\n3\n00:00:05,000 --> 00:00:06,000\nAlso good\n"
    )
    with pytest.raises(SubtitleError, match=r"sub\.srt: line 6: unreadable timing"):
        parse_srt(text, "sub.srt")
    parsed = parse_srt(text, "sub.srt", lenient=True)
    assert [c.text for c in parsed.cues] == ["Good", "Also good"]
    assert parsed.skipped and parsed.skipped[0].startswith("line 6")


def test_cue_ending_before_it_starts_is_an_error():
    with pytest.raises(SubtitleError, match="line 2: cue ends before it starts"):
        parse_srt("1\n00:00:05,000 --> 00:00:01,000\nBackwards\n", "x.srt")


@pytest.mark.parametrize(
    "encoding,prefix", [("utf-8", b""), ("utf-8", b"\xef\xbb\xbf"), ("cp1252", b"")]
)
def test_encodings(tmp_path, encoding, prefix):
    text = "1\n00:00:01,000 --> 00:00:02,000\nCafé – £10 for the fiancée\n"
    path = tmp_path / "x.srt"
    path.write_bytes(prefix + text.encode(encoding))
    parsed = read_srt(path)
    assert parsed.cues[0].text == "Café – £10 for the fiancée"
    assert parsed.encoding == {b"": encoding, b"\xef\xbb\xbf": "utf-8-sig"}[prefix]


def test_empty_binary_and_cue_less_files(tmp_path):
    empty = tmp_path / "empty.srt"
    empty.write_bytes(b"  \n")
    with pytest.raises(SubtitleError, match="empty.srt: the file is empty"):
        read_srt(empty)
    binary = tmp_path / "movie.srt"
    binary.write_bytes(b"\x00\x01\x02garbage\x00" * 10)
    with pytest.raises(SubtitleError, match="binary data"):
        read_srt(binary)
    prose = tmp_path / "prose.srt"
    prose.write_text("Just some text\nwithout any timing\n")
    with pytest.raises(SubtitleError, match="line 1: text outside any cue"):
        read_srt(prose)
    with pytest.raises(SubtitleError, match="no subtitle cue could be read"):
        read_srt(prose, lenient=True)


@pytest.mark.realdata
def test_real_latin1_file(shared_data):
    parsed = read_srt(
        shared_data
        / "screenplays"
        / "srt-pairs-robertjvt"
        / "scripts_subtitles"
        / "birthday_girl.srt"
    )
    assert parsed.encoding == "cp1252" and len(parsed.cues) == 817
    assert any("fiancée" in c.text for c in parsed.cues)
    assert any("£90,00" in c.text for c in parsed.cues)
