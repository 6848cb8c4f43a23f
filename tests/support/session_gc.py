"""pytest hooks that keep the cyclic garbage collector's passes short over a long session: after
collection and after each test, the garbage is collected and everything still alive is frozen
(gc.freeze), out of every later pass.

s2s keeps each transform's generated code and caches for as long as its function lives, and a test
module's functions live for the whole session, so a process holds millions of objects after a few
thousand tests, and each full pass of the collector walked them all again: a sixth of the process's
time, and seconds per pass at its exit, where pytest collects five times. Frozen, they are skipped;
each test's own objects are collected as before, and a frozen object that dies later is freed by its
reference count (a cycle of them stays: memory only, never a value a test sees). tests/conftest.py
and the plugin that runs autograd's suite (autograd_suite_plugin.py) import these hooks."""
import gc


def _freeze_survivors() -> None:
    gc.collect()
    gc.freeze()


def pytest_collection_finish(session) -> None:
    """The collected tests, their parameters and the test modules: alive for the whole session."""
    _freeze_survivors()


def pytest_runtest_logfinish(nodeid, location) -> None:
    """What this test compiled and cached."""
    _freeze_survivors()
