"""Import the StoryVideoQA release: golden questions and aligned scripts, in one transaction.

Accepted layouts: the data folder (`golden_questions/`, `aligned_script/<source>/`, `meta/`)
and the GitHub repository's (`PlotTree/data/golden_questions/`,
`StoryMindv2/aligned_script/<source>/`). Aligned scripts may be the released `.xlsx`
workbooks or their JSON conversion; when a video has both, the workbook is used.
Every video named by a question or an aligned script becomes a film (`film_id` = the release
`vid`), with runtime and fps from the release's meta files when they list it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from data_access.formats.lfvqa_records import Film
from data_access.importers.errors import ImportFailure, ImportReport, Problem, fail
from data_access.importers.folder_files import (
    DATA_SUFFIXES,
    entries,
    looks_like_data,
    unreadable_problem,
)
from data_access.importers.json_files import read_json_file
from data_access.importers.rows import keys_present
from data_access.importers.svqa_golden import (
    GOLDEN_SUFFIX,
    duplicate_problems,
    parse_vid,
    read_golden_file,
)
from data_access.importers.svqa_scripts import build_aligned_film
from data_access.importers.values import finite_number
from data_access.store import Store, append_rows
from data_access.store.interrupts import telling_interrupts
from data_access.tables.dataset_ids import DatasetIdTaken, dataset_already_stored
from data_access.tables.runs import RunSpec, finish_run, insert_run

IMPORT_STEP = "import.storyvideoqa"
DATASET = {
    "dataset_id": "storyvideoqa",
    "name": "StoryVideoQA-G (golden questions) + aligned scripts",
    "kind": "storyvideoqa",
    "source": "https://github.com/nercms-mmap/StoryVideoQA",
    "licence": "CC-BY-4.0 per the HF dataset card; scripts and subtitles (c) the studios,"
    " research use only",
}
ALIGNMENT_NOTE = (
    "subtitles.matched_line = results_human.index_result (the release's"
    " human-corrected alignment), mapped to our line index; scene times from"
    " the matched cues (matched), else interpolated between neighbours"
)


@dataclass
class ReleaseLayout:
    """Where the parts of a release folder are."""

    golden: list[Path] = field(default_factory=list)
    aligned: dict[str, Path] = field(default_factory=dict)  # vid -> file
    meta: dict[str, dict] = field(default_factory=dict)  # meta file stem -> content
    notes: list[str] = field(default_factory=list)


def _first_dir(folder: Path, *candidates: str) -> Path | None:
    return next((folder / c for c in candidates if (folder / c).is_dir()), None)


META_VALUES = {
    # meta file -> (what each value must be, its check)
    "video_length": ("a number of seconds > 0", lambda v: (finite_number(v) or 0) > 0),
    "videofps": ("a number of frames per second > 0", lambda v: (finite_number(v) or 0) > 0),
    "name2imdbid": ("an IMDb id string", lambda v: isinstance(v, str) and v.strip() != ""),
}
ALIGNED_SUFFIXES = (".json", ".xlsx")


def _read_meta_file(path: Path, name: str) -> dict:
    """One meta file: a JSON object of video id -> value, every value of the right kind."""
    problem = unreadable_problem(path)
    if problem is not None:
        raise ImportFailure([problem])
    data = read_json_file(path)
    if not isinstance(data, dict):
        raise fail(path.name, "(file)", "-", "must be a JSON object {video id: value}")
    words, ok = META_VALUES[name]
    bad = [
        Problem(path.name, f"key {vid!r}", "-", f"must be {words} (got {value!r:.60})")
        for vid, value in data.items()
        if not ok(value)
    ]
    if bad:
        raise ImportFailure(bad)
    return data


def _read_meta(folder: Path, aligned_dir: Path | None) -> dict[str, dict]:
    meta = {}
    for name in META_VALUES:
        for base in (folder / "meta", folder / "PlotTree" / "data", aligned_dir):
            path = base / f"{name}.json" if base else None
            if path and (path.exists() or path.is_symlink()):
                meta[name] = _read_meta_file(path, name)
                break
    return meta


def _misnamed(label: str, expected: str) -> Problem:
    return Problem(label, "(file)", "-", f"not read: {expected}")


def _golden_files(golden_dir: Path) -> list[Path]:
    """`*_golden.json` files; any other data file there is refused, naming the name expected."""
    found, problems = [], []
    for path in entries(golden_dir):
        label = f"{golden_dir.name}/{path.name}"
        if path.name.endswith(GOLDEN_SUFFIX):
            problem = unreadable_problem(path, label)
            if problem is None:
                found.append(path)
            else:
                problems.append(problem)
        elif looks_like_data(path) or not path.is_file():
            problems.append(
                _misnamed(label, f"golden question files are named <source>{GOLDEN_SUFFIX}")
            )
    if problems:
        raise ImportFailure(problems)
    return found


def _is_aligned_name(path: Path) -> bool:
    """`<vid>.xlsx` / `<vid>.json`; video ids may hold dots (`IMDB-207-Mr. & Mrs. Smith`), but
    no other data suffix (`x.json.gz`, `x.xlsx.json` are near-misses)."""
    return path.suffix in ALIGNED_SUFFIXES and not any(
        suffix.lower() in DATA_SUFFIXES for suffix in path.suffixes[:-1]
    )


def _aligned_files(aligned_dir: Path, notes: list[str]) -> dict[str, Path]:
    """`<source>/<vid>.xlsx|.json` files by vid; misplaced or misnamed data files are refused."""
    aligned: dict[str, Path] = {}
    problems = []
    expected = "aligned scripts are aligned_script/<source>/<vid>.xlsx (or .json)"
    for source in entries(aligned_dir):
        if not source.is_dir():
            if looks_like_data(source) or not source.is_file():
                problems.append(_misnamed(f"{aligned_dir.name}/{source.name}", expected))
            continue
        for path in entries(source):
            label = f"{aligned_dir.name}/{source.name}/{path.name}"
            if not _is_aligned_name(path):
                if looks_like_data(path) or not path.is_file():
                    problems.append(_misnamed(label, expected))
                continue
            problem = unreadable_problem(path, label)
            if problem is not None:
                problems.append(problem)
            elif path.stem in aligned and path.suffix == ".json":
                notes.append(f"{path.name}: the .xlsx workbook was used instead")
            else:
                aligned[path.stem] = path
    if problems:
        raise ImportFailure(problems)
    return aligned


def find_layout(folder: Path) -> ReleaseLayout:
    """The golden files, aligned scripts and meta files of a release folder."""
    layout = ReleaseLayout()
    golden_dir = _first_dir(folder, "golden_questions", "PlotTree/data/golden_questions")
    aligned_dir = _first_dir(folder, "aligned_script", "StoryMindv2/aligned_script")
    if golden_dir is None and aligned_dir is None:
        raise fail(
            str(folder),
            "(folder)",
            "-",
            "no golden_questions/ or aligned_script/ folder: not a StoryVideoQA release",
        )
    if golden_dir is not None:
        layout.golden = _golden_files(golden_dir)
    if aligned_dir is not None:
        layout.aligned = _aligned_files(aligned_dir, layout.notes)
    if not layout.golden and not layout.aligned:
        raise fail(
            str(folder),
            "(folder)",
            "-",
            "an empty release: no *_golden.json question file and no aligned script,"
            " so nothing would be imported",
        )
    layout.meta = _read_meta(folder, aligned_dir)
    return layout


def _film_rows(vids: list[str], meta: dict[str, dict]) -> list[dict]:
    rows = []
    for vid in vids:
        imdb = meta.get("name2imdbid", {}).get(vid)
        runtime = meta.get("video_length", {}).get(vid)
        fps = meta.get("videofps", {}).get(vid)
        row = {
            "film_id": vid,
            **parse_vid(vid),
            "year": None,
            "runtime_s": float(runtime) if runtime is not None else None,
            "fps": float(fps) if fps is not None else None,
            "source": "StoryVideoQA" + (f"; IMDb {imdb}" if imdb else ""),
        }
        try:
            Film.model_validate(row)  # the interchange model's rules for a film hold here too
        except ValidationError as exc:
            error = exc.errors()[0]
            field = ".".join(map(str, error["loc"])) or "-"
            raise fail("meta", f"video {vid!r}", field, error["msg"]) from None
        rows.append(row)
    return rows


def _read_questions(layout: ReleaseLayout) -> dict[str, list[dict]]:
    by_file = {path.name: read_golden_file(path) for path in layout.golden}
    problems = duplicate_problems(by_file)
    if problems:
        raise ImportFailure(problems)
    return by_file


def _reject_present(cursor, table: str, column: str, keys: list[str], where: str) -> None:
    present = keys_present(cursor, table, column, keys)
    if present:
        problems = [
            Problem(
                where,
                "(import)",
                column,
                f"{key!r} is already in the store (imported by run {run})",
            )
            for key, run in sorted(present.items())
        ]
        raise ImportFailure(problems)


def import_storyvideoqa_dir(store: Store, folder: str | Path) -> ImportReport:
    """Import a StoryVideoQA release folder in a single transaction.

    Args:
        store: the store to write to.
        folder: the release folder (data layout or repository layout).

    Returns:
        The run id and rows written per table (`notes` lists per-source MCQ counts).

    Raises:
        ImportFailure: a file is bad (file, record, field named); nothing was written.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise fail(str(folder), "(folder)", "-", "not a folder")
    layout = find_layout(folder)
    questions = _read_questions(layout)
    mcq_rows = [row for rows in questions.values() for row in rows]
    vids = sorted({row["vid"] for row in mcq_rows} | set(layout.aligned))
    films = _film_rows(vids, layout.meta)
    runtime = {row["film_id"]: row["runtime_s"] for row in films}
    aligned = [
        build_aligned_film(vid, path, runtime.get(vid)) for vid, path in layout.aligned.items()
    ]
    spec = RunSpec(
        step=IMPORT_STEP,
        backend="import",
        source=str(folder.resolve()),
        params={
            "alignment": ALIGNMENT_NOTE,
            "golden_files": list(questions),
            "aligned_files": len(aligned),
            "unresolved_matches": sum(a.unresolved_matches for a in aligned),
        },
    )
    told = telling_interrupts(store, IMPORT_STEP, spec.source, f"the import of {folder}")
    with told, store.transaction() as cursor:
        _reject_present(cursor, "films", "film_id", vids, folder.name)
        _reject_present(
            cursor,
            "mcq_questions",
            "mcq_id",
            [r["mcq_id"] for r in mcq_rows],
            f"{folder.name}/golden_questions",
        )
        run_id = insert_run(cursor, spec)
        report = ImportReport(run_id, DATASET["dataset_id"], str(folder), notes=list(layout.notes))
        try:  # one dataset_id, one dataset: never another's row (data_access.tables.dataset_ids)
            stored = dataset_already_stored(cursor, DATASET["dataset_id"], DATASET)
        except DatasetIdTaken as exc:
            raise fail(folder.name, "(dataset)", "dataset_id", str(exc)) from None
        if not stored:
            append_rows(cursor, "datasets", [DATASET], fixed={"run_id": run_id})
        report.rows["films"] = append_rows(
            cursor, "films", films, fixed={"run_id": run_id, "dataset_id": DATASET["dataset_id"]}
        )
        for table in ("scenes", "script_lines", "subtitles"):
            rows = [row for film in aligned for row in getattr(film, table)]
            report.rows[table] = append_rows(cursor, table, rows, fixed={"run_id": run_id})
        report.rows["mcq_questions"] = append_rows(
            cursor,
            "mcq_questions",
            mcq_rows,
            fixed={"run_id": run_id, "dataset_id": DATASET["dataset_id"]},
        )
        finish_run(cursor, run_id, n_items=report.total_rows, n_failed=0)
    for file, rows in questions.items():
        report.notes.append(f"{file}: {len(rows):,} questions")
    return report
