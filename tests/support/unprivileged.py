"""Running a command as an unprivileged user, so file modes apply (root ignores them)."""

from __future__ import annotations

import os
import shutil

import pytest


def unprivileged_prefix() -> list[str]:
    """The argv prefix that runs a command as `nobody` when the tests run as root (CI
    containers do), else nothing; skips the test when root has no `setpriv` to drop to."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: file modes cannot be tested")
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
