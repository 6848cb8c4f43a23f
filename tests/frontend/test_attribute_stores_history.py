"""Compiling a function does not depend on what was compiled before (issue 44, family 1): a
function that reads `layer.Z` is accepted and gives the plain function's values whether or not
another transformed function that stores into `layer.Z` was compiled first, in a fresh process
and after the other program ran; the refusal stays where it belongs, for a callee that would read
the attribute its caller stores during the same call (frontend/reads.py: `stored_here`)."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import s2s

PROGRAM = textwrap.dedent('''
    import sys
    import numpy as np
    import s2s

    class Layer:
        def __init__(self):
            self.W = np.array([[1.0, 2.0], [0.5, -1.0]])
            self.Z = np.array([0.25, -0.5])

        def forward(self, x):
            Z = x @ self.W
            self.Z = Z
            return np.sum(np.tanh(Z))

        def penalty(self, x):
            return np.sum(self.Z ** 2 * x)

    layer = Layer()
    x = np.array([0.3, -0.4])
    if sys.argv[1] == "after":
        s2s.grad(layer.forward)(x)  # stores layer.Z = x @ W, and compiles a function storing into it
    try:
        g = s2s.grad(layer.penalty)(x)
        v = s2s.jit(layer.penalty)(x)
        print("ok", ",".join(map(repr, g.tolist())), repr(float(v)))
    except s2s.S2SError as e:
        print("refused", type(e).__name__)
''')


def _run(tmp_path, order):
    path = tmp_path / "history_program.py"
    path.write_text(PROGRAM)
    root = os.path.dirname(os.path.dirname(os.path.abspath(s2s.__file__)))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, str(path), order], capture_output=True, text=True, env=env,
                         cwd=str(tmp_path), timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_same_result_in_a_fresh_process_and_after_another_program(tmp_path):
    fresh = _run(tmp_path, "fresh")
    after = _run(tmp_path, "after")
    assert fresh[0] == after[0] == "ok"
    W = np.array([[1.0, 2.0], [0.5, -1.0]])
    x = np.array([0.3, -0.4])
    for out, Z in ((fresh, np.array([0.25, -0.5])), (after, x @ W)):  # the plain function's values
        np.testing.assert_allclose([float(t) for t in out[1].split(",")], Z ** 2)
        assert float(out[2]) == pytest.approx(np.sum(Z ** 2 * x))


class Cell:
    def __init__(self):
        self.W = np.array([[0.5, -1.0], [2.0, 0.25]])
        self.h = np.zeros(2)

    def step(self, x):
        h = np.tanh(x @ self.W)
        self.h = h
        return np.sum(h ** 2)

    def read_h(self, x):
        return np.sum(self.h * x)


def test_reading_what_another_function_stored_follows_the_object_now():
    """In one process, in either order: jit(read_h) after step ran reads the `h` step stored."""
    c = Cell()
    x = np.array([0.1, 0.7])
    read = s2s.jit(c.read_h)
    assert read(x) == pytest.approx(0.0)
    s2s.grad(c.step)(x)
    np.testing.assert_allclose(c.h, np.tanh(x @ c.W))
    assert read(x) == pytest.approx(np.sum(np.tanh(x @ c.W) * x))
    np.testing.assert_allclose(s2s.grad(c.read_h)(x), c.h)
