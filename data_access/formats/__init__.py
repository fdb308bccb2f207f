"""The interchange format: pydantic models, one per table file, are the single source of truth.

`docs/FORMAT.md` is generated from these models (`storyscope format-doc`) and a test checks it
is current. Importers validate against them and write through `data_access.importers`.
"""

from data_access.formats.lfvqa_records import FORMAT_NAME, FORMAT_VERSION
from data_access.formats.table_files import TABLE_FILES, TableFile

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "TABLE_FILES", "TableFile"]
