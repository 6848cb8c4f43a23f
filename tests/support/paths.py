"""Where things are, for tests in any folder: the repository, the tests, their support modules and
data (reference texts, tests/data/README.md), and the tools."""
import os
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent
SUPPORT = TESTS / "support"
GOLDEN = SUPPORT / "golden"
TOOLS = ROOT / "tools"
BENCH = TOOLS / "bench"
DATA = TESTS / "data"


def s2s_modules() -> dict[str, str]:
    """Every module of the s2s package by dotted name (a package's __init__ by the package's), with
    its file: what the architecture tests read."""
    out = {}
    for dirpath, _, files in os.walk(ROOT / "s2s"):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(dirpath, f)
                out[os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".").removesuffix(".__init__")] = path
    return out
