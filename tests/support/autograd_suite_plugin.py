"""pytest plugin (`-p autograd_suite_plugin`) for autograd's own test suite, vendored under
tests/programs/foreign/autograd/tests: points `import autograd` at s2s before the suite's modules
are imported, so they test s2s's transforms unmodified. With the environment variable
AUTOGRAD_SUITE_ONLY naming a file of `file.py::test_name` lines, only those test functions run
(tests/programs/test_autograd_suite.py runs the suite in two parts: its sampled slice, and the
rest under the `full` marker). The garbage collector's passes skip what earlier tests left alive,
as in s2s's own suite (session_gc)."""
import os
from pathlib import Path

from session_gc import pytest_collection_finish, pytest_runtest_logfinish  # noqa: F401  (hooks)

from s2s.compat.autograd import alias_autograd

alias_autograd()


def pytest_collection_modifyitems(config, items):
    """Keep the test functions AUTOGRAD_SUITE_ONLY lists (every case of each), when it is set."""
    listed = os.environ.get("AUTOGRAD_SUITE_ONLY")
    if not listed:
        return
    keep = set(Path(listed).read_text().split())
    chosen = [item for item in items if f"{item.path.name}::{getattr(item, 'originalname', item.name)}" in keep]
    config.hook.pytest_deselected(items=[item for item in items if item not in chosen])
    items[:] = chosen
