"""Hostile strings for the untrusted-text tests: what a model answer, a dataset row or a user
could carry to make the page fetch a URL, rewrite itself, or break its layout."""

from __future__ import annotations

import re

from tests.support.app_fixture_data import FILM


def hostile_strings(url: str) -> dict[str, str]:
    """Named hostile texts whose images/links point at `url` (a loopback listener in tests)."""
    return {
        "image": f"Nice answer ![pixel]({url}/md-image.png) indeed",
        "link": f"see [the truth]({url}/md-link) and <{url}/autolink> and {url}/bare",
        "html": f'<img src="{url}/html-image.png"><script>alert(1)</script><b>bold</b>',
        "heading": "# I am a heading\n\n---\n> quoted\n\n    code block",
        "long": "A" * 5000,
        "rtl": "normal \u202eesrever\u202c then \u05e9\u05dc\u05d5\u05dd end",
        "zero_width": "zero\u200bwidth\u200d\ufeffjoin\u2060ers",
        "streamlit": ":red[coloured] $x^2$ :material/home: :smile:",
    }


def insert_hostile_question(store, url: str) -> str:
    """Make fixture question q1, its gold, rubric, answers and film title hostile; return the
    question text used."""
    texts = hostile_strings(url)
    question = " ".join([texts["image"], texts["link"], texts["html"], texts["rtl"]])
    with store.transaction() as cursor:
        cursor.execute(
            "UPDATE questions SET text = ?, gold = ? WHERE question_id = 'q1'",
            [question, texts["heading"] + " " + texts["zero_width"]],
        )
        cursor.execute(
            "UPDATE rubric_claims SET text = ? WHERE question_id = 'q1' AND ord = 1",
            [texts["image"] + " " + texts["long"]],
        )
        cursor.execute(
            "UPDATE answers SET text = ? WHERE question_id = 'q1'",
            [texts["html"] + "\n" + texts["image"] + "\n" + texts["streamlit"]],
        )
        cursor.execute("UPDATE films SET title = ? WHERE film_id = ?", [texts["link"], FILM])
    return question


def unescape_markdown(source: str) -> str:
    """What an escaped markdown source reads as (backslash escapes and the invisible word
    joiners that break autolinks removed)."""
    return re.sub(r"\\(.)", r"\1", source).replace("\u2060", "")


def live_markup(source: str) -> list[str]:
    """Markdown/HTML constructs that would be live in `source` (not backslash-escaped)."""
    patterns = {
        "image": r"(?<!\\)!(?<!\\)\[",
        "link": r"(?<!\\)\]\(",
        "html": r"(?<!\\)<[a-zA-Z/]",
        "heading": r"(?m)^#",
        "math": r"(?<!\\)\$",
        "directive": r"(?<!\\):[a-z]+(?<!\\)\[",
        "autolink": r"(?i)\b(?:https?|ftp|www)\\?[:.]|[\w.+-]\\?@",
    }
    return [name for name, pattern in patterns.items() if re.search(pattern, source)]
