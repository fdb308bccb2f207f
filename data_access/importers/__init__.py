"""Importers: datasets in, through one validated, transactional write path.

- `import_lfvqa_dir`: the interchange format (`formats/lfvqa_records.py`), vectorised
  in DuckDB.
- `import_storyvideoqa_dir`: the StoryVideoQA release (golden questions + aligned scripts).

Every importer raises `ImportFailure` (problems naming file, record and field) and then leaves
the store exactly as it was.
"""

from data_access.importers.errors import ImportFailure, ImportReport, Problem
from data_access.importers.lfvqa import import_lfvqa_dir, read_manifest
from data_access.importers.storyvideoqa import import_storyvideoqa_dir

__all__ = [
    "ImportFailure",
    "ImportReport",
    "Problem",
    "import_lfvqa_dir",
    "import_storyvideoqa_dir",
    "read_manifest",
]
