"""tools/source_dump.py, the check that a compiler change leaves the generated code the same:
the same function gives the same text twice, and a comparison fails on any difference."""
import json
import sys

import numpy as np
from paths import TOOLS

sys.path.insert(0, str(TOOLS))
import source_dump  # noqa: E402


def f(x):
    return np.sum(np.sin(x) * x)


def test_a_transform_dumps_the_same_text_twice():
    x = np.linspace(-1.0, 1.0, 4)
    for kind in ("grad", "jit", "vmap"):
        text = source_dump.source_of(f, (x,), kind)
        assert text.startswith("# s2s: ") and "def " in text
        assert source_dump.source_of(f, (x,), kind) == text
    assert source_dump.source_of(f, ("not an array",), "jit") == "ERROR TypeError"


def test_the_comparison_fails_on_a_difference(tmp_path, capsys):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps({"f/grad": "x = 1\n", "f/jit": "y\n"}))
    b.write_text(json.dumps({"f/grad": "x = 1\n", "f/jit": "y\n"}))
    assert source_dump.main(["--compare", str(a), str(b)]) == 0
    b.write_text(json.dumps({"f/grad": "x = 2\n", "f/jit": "y\n"}))
    assert source_dump.main(["--compare", str(a), str(b)]) == 1
    assert "1 differ: f/grad" in capsys.readouterr().out
