"""The suite, by subject: api/, reverse/, forward/, jacobian/, vmap/, jit/ (kernels, dispatch),
passes/, ops/, frontend/ (errors, core form, caching), cli/ (dump, golden files), backends/,
architecture/, random/, programs/ (seeds, corpus, fuzzing), tools/; shared modules in support/.

Known gaps, tracked on the open issues: these tests describe behaviour s2s does not have yet.
They run on every CI pass and are reported as xfail (strict: a test that starts passing fails the
run, so the entry must be removed here when the feature lands). Nothing here is skipped.

What each test leaves alive is frozen out of the garbage collector's later passes (session_gc).
"""
import sys
from pathlib import Path

import pytest

# tests live in folders by subject; their shared modules (corpus, op specs, comparisons) in support/
sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))

from session_gc import pytest_collection_finish, pytest_runtest_logfinish  # noqa: E402,F401  (hooks)

KNOWN_GAPS = {
    # vmap(hessian(f)) where examples take different branches of an `if` that returns raises TypeError
    # (a masked merge into the branch's unset result, None); the transform itself, not its dump
    "tests/cli/test_dump_runs.py::test_dump_imports_and_runs_and_matches_the_transform[branch-hessian-vmap]":
        "issue 43: vmap of hessian through a returning if whose branch differs per example",
}


def pytest_addoption(parser):
    parser.addoption("--full", action="store_true",
                     help="also run the tests marked `full`: the rest of the sampled sweeps (CI runs them)")


def pytest_collection_modifyitems(config, items):
    for item in items:
        nodeid = item.nodeid.partition("@")[0]  # (xdist's loadgroup appends "@<group>" to a grouped test's id)
        for prefix, reason in KNOWN_GAPS.items():
            if nodeid == prefix or nodeid.startswith(prefix + "["):
                item.add_marker(pytest.mark.xfail(strict=True, reason=reason))
    _deselect_full(config, items)


def _deselect_full(config, items):
    """Tests marked `full` (the rest of a sweep whose sampled slice runs by default) run only with
    --full, with a -m expression that names them (`-m full`: the rest alone, as .ci/run does), or
    when named one by one on the command line (file::test[id])."""
    if config.getoption("full") or "full" in (config.getoption("markexpr") or ""):
        return
    named = {arg for arg in config.args if "::" in arg}
    rest = [item for item in items if item.get_closest_marker("full") and item.nodeid not in named]
    if rest:
        config.hook.pytest_deselected(items=rest)
        dropped = {id(item) for item in rest}
        items[:] = [item for item in items if id(item) not in dropped]
