"""Known gaps, tracked on the open issues: these tests describe behaviour s2s does not have yet.

They run on every CI pass and are reported as xfail (strict: a test that starts passing fails the
run, so the entry must be removed here when the feature lands). Nothing here is skipped.
"""
import pytest

KNOWN_GAPS = {
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        for prefix, reason in KNOWN_GAPS.items():
            if item.nodeid == prefix or item.nodeid.startswith(prefix + "["):
                item.add_marker(pytest.mark.xfail(strict=True, reason=reason))
