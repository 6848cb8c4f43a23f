"""Where things are, for tests in any folder: the repository, the tests, their support modules and
data (reference texts, tests/data/README.md), and the tools."""
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent
SUPPORT = TESTS / "support"
GOLDEN = SUPPORT / "golden"
TOOLS = ROOT / "tools"
BENCH = TOOLS / "bench"
DATA = TESTS / "data"
