"""A `dataset_id` names one dataset: a second one under the same id is refused, never merged.

Importers and `film ingest` add rows under a dataset id. The same dataset may come in several
batches (a second folder with the same manifest), but two different datasets that happen to
share an id would silently pool their films and questions under the first one's name and
licence. So the dataset row already in the store must describe the same dataset:
its identifying fields must equal the incoming ones, or the write is refused.
"""

from __future__ import annotations

from collections.abc import Mapping

import duckdb

# The fields of a `datasets` row that say which dataset it is (`run_id` says when it came).
IDENTITY_FIELDS = ("name", "kind", "source", "licence", "reported_by_paper")


class DatasetIdTaken(ValueError):
    """The store holds another dataset under this id; nothing was written."""


def dataset_already_stored(
    cursor: duckdb.DuckDBPyConnection, dataset_id: str, incoming: Mapping[str, object]
) -> bool:
    """Whether the store has this dataset already (then the caller adds a batch to it).

    Args:
        cursor: inside the writer's transaction.
        dataset_id: the incoming dataset's id.
        incoming: the incoming dataset's identifying fields (any of `IDENTITY_FIELDS`); only
            those given are compared.

    Raises:
        DatasetIdTaken: the stored dataset under this id differs in one of those fields.
    """
    fields = [name for name in IDENTITY_FIELDS if name in incoming]
    row = cursor.execute(
        f"SELECT {', '.join(fields) or '1'} FROM datasets WHERE dataset_id = ?", [dataset_id]
    ).fetchone()
    if row is None:
        return False
    for name, stored in zip(fields, row):
        if _normalised(name, stored) != _normalised(name, incoming[name]):
            raise DatasetIdTaken(
                f"dataset_id {dataset_id!r} is already in the store as another dataset"
                f" ({name} {stored!r}, here {incoming[name]!r}); it is not merged: give this"
                " dataset its own dataset_id"
            )
    return True


def _normalised(name: str, value: object) -> object:
    # an absent reported_by_paper is stored as FALSE (the column's default)
    return bool(value) if name == "reported_by_paper" else value
