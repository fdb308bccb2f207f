"""Film preprocessing (LF-VideoQA §3.1 / App. C; StoryMindv2 §3.1): screenplay → timed scenes.

Public API (plain records in, plain records out; nothing here touches the store except
`ingest`, which writes through `data_access.tables.films`):

Parsing — every parser returns a `Screenplay` (see `model.py`), scenes shaped as the paper's
Table 15 output: `Scene(index, heading, location, time_of_day, events, characters)`, where each
`Event` is `kind="direction"` (text) or `kind="dialogue"` (character, parenthetical or None,
text, extensions like ("V.O.",)). `Screenplay.to_table15()` renders the exact Table 15 text.
`Screenplay.line_roles` maps every non-blank input line (1-based) to its role.

- `parse_screenplay_text(text)`: IMSDb-style plain text (indentation + content rules).
- `parse_fountain(text)` / `parse_fountain_elements(text)`: Fountain (element list matching the
  reference parser's Big Fish positions).
- `parse_screenplay_file(path)`: decode (UTF-8 / BOM / CP1252), reject PDFs and empty files,
  pick the parser by extension/content.

Subtitles — `read_srt(path, lenient=False)` / `parse_srt(text)` → `SubtitleFile(cues=[Cue(index,
start_s, end_s, text, line, number)], encoding, skipped, overlaps)`; raises `SubtitleError`.

Alignment (App. C rule) — `align_cues_to_lines(cue_texts, line_texts)` → `Alignment(cue_to_line,
cue_score, line_matched, line_coverage)`; `time_film(screenplay, cues)` → `FilmTiming` with
per-scene spans (time_source matched | interpolated), per-line times, per-cue line index and
each character's first-spoken time.

Coreference (Table 17 rules) — `resolve_characters(names_by_scene, descriptions)` →
`[CharacterGroup(canonical, aliases, evidence)]`.

Ingest — `pipelines.preprocess.ingest.ingest_film(store, screenplay_path, subtitles_path, ...)`
parses, aligns, resolves and writes film, scenes, script lines, characters and subtitles as one
run (step `preprocess.film`, backend `rules`) in one transaction; `AlignmentFailed` when the
subtitles do not fit (another film), `ScreenplayError` for PDFs/empty/non-screenplays.

StoryVideoQA check — `pipelines.preprocess.align_eval.evaluate_file(path)` scores our cue →
script-row assignment and the release's automatic one against `results_human` (the scene and
speaker the annotators corrected; row agreement reported apart).

Belief tracking (rules backend) reads the ingested scenes from the store (`current_scenes`,
`current_script_lines`; `data_access.tables.films` has the film queries) or calls
`parse_screenplay_file(path).scenes` directly.
"""

from pipelines.preprocess.align import Alignment, align_cues_to_lines
from pipelines.preprocess.coref import CharacterGroup, resolve_characters
from pipelines.preprocess.files import ScreenplayError, parse_screenplay_file
from pipelines.preprocess.fountain import parse_fountain, parse_fountain_elements
from pipelines.preprocess.model import Event, Scene, Screenplay
from pipelines.preprocess.screenplay_text import parse_screenplay_text
from pipelines.preprocess.srt_reader import Cue, SubtitleError, SubtitleFile, parse_srt, read_srt
from pipelines.preprocess.timing import AlignmentFailed, FilmTiming, time_film

__all__ = [
    "Alignment",
    "AlignmentFailed",
    "CharacterGroup",
    "Cue",
    "Event",
    "FilmTiming",
    "Scene",
    "Screenplay",
    "ScreenplayError",
    "SubtitleError",
    "SubtitleFile",
    "align_cues_to_lines",
    "parse_fountain",
    "parse_fountain_elements",
    "parse_screenplay_file",
    "parse_screenplay_text",
    "parse_srt",
    "read_srt",
    "resolve_characters",
    "time_film",
]
