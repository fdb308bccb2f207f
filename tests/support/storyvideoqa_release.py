"""A one-episode StoryVideoQA release written to a folder."""

from __future__ import annotations

import json
import shutil

import openpyxl

EPISODE = "Friends-S01E01"


def _write_xlsx(sheets: dict[str, list[dict]], path) -> None:
    """A workbook laid out like the release: header row, then every cell as a string."""
    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        header = list(dict.fromkeys(key for row in rows for key in row))
        sheet.append(["" if h.startswith("Unnamed") else h for h in header])
        for row in rows:
            sheet.append([row.get(h, "") for h in header])
    book.save(path)


def one_episode_release(shared_data, root, as_xlsx: bool):
    source = shared_data / "storyvideoqa"
    (root / "golden_questions").mkdir(parents=True)
    items = json.loads((source / "golden_questions" / "Friends_golden.json").read_text())
    (root / "golden_questions" / "Friends_golden.json").write_text(
        json.dumps([item for item in items if item["vid"] == EPISODE])
    )
    shutil.copytree(source / "meta", root / "meta")
    target = root / "aligned_script" / "Friends"
    target.mkdir(parents=True)
    sheets_json = source / "aligned_script" / "Friends" / f"{EPISODE}.json"
    if as_xlsx:
        _write_xlsx(json.loads(sheets_json.read_text()), target / f"{EPISODE}.xlsx")
    else:
        shutil.copy(sheets_json, target)
    return root
