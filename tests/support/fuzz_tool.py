"""tools/fuzz.py as a module for the tests that run its generators and properties (loaded once
per process, under one name, so every test file sees the same module)."""
import importlib.util
import sys

from paths import TOOLS

NAME = "s2s_fuzz_tool"


def load():
    """The fuzzer module (tools/fuzz.py)."""
    if NAME not in sys.modules:
        spec = importlib.util.spec_from_file_location(NAME, TOOLS / "fuzz.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[NAME] = mod
        spec.loader.exec_module(mod)
    return sys.modules[NAME]
