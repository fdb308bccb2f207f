"""Every package of `pipelines/` and `data_access/` has a row in the README's map ("Where things
live"), so a reader of a clone finds where each thing lives without reading the tree."""

from __future__ import annotations

import re

from tests.support.paths import REPO_ROOT

ROOT = REPO_ROOT


def _map_section() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"^## Where things live\n(.*?)^## ", readme, flags=re.S | re.M)
    assert match, "README.md has no '## Where things live' section"
    return match.group(1)


def _packages(top: str) -> list[str]:
    return sorted(
        f"{top}/{child.name}/"
        for child in (ROOT / top).iterdir()
        if (child / "__init__.py").is_file()
    )


def test_every_package_is_on_the_readme_map():
    section = _map_section()
    packages = _packages("pipelines") + _packages("data_access")
    missing = [package for package in packages if package not in section]
    assert not missing, f"add a row for each to README.md 'Where things live': {missing}"


def test_the_map_finds_the_packages_it_checks():
    # the walk above must see the real packages, or the first test would pass on an empty list
    assert {"pipelines/judge/", "pipelines/cli/"} <= set(_packages("pipelines"))
    assert {"data_access/store/", "data_access/queries/"} <= set(_packages("data_access"))
