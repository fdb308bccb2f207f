"""The store and every SQL statement of StoryScope (DESIGN.md, "Architecture").

Importing the package wires the store to the caches derived from it: a store that gains
migrations on opening refreshes its rollups once (data_access.rollups.freshness), through a hook the
store is handed rather than an import of the rollups from the store.
"""

from data_access.rollups import refresh_if_stale
from data_access.store import on_migrations_applied

on_migrations_applied(refresh_if_stale)
