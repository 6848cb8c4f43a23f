"""Functions defined in a Jupyter notebook's cells transform (issue 43, "where it works"): IPython
keeps each cell's source where `inspect` finds it, so s2s reads them as it reads a file. A small
notebook runs through nbclient on a fresh kernel; its printed values are checked against hand
derivatives. Skipped where nbclient, nbformat or ipykernel is absent (they are in the test extra)."""
import json

import numpy as np
import pytest

nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")
pytest.importorskip("ipykernel")

CELLS = [
    "import numpy as np\nimport s2s",
    "def f(x):\n    return np.sum(np.sin(x) * x)",
    "g = lambda x: np.sum(x ** 3)",
    "x = np.array([0.3, -0.7, 1.1])\n"
    "import json\n"
    "print(json.dumps({'grad_f': s2s.grad(f)(x).tolist(), 'grad_g': s2s.grad(g)(x).tolist(),\n"
    "                  'jit_f': float(s2s.jit(f)(x))}))",
    "def f(x):\n    return np.sum(np.cos(x))  # redefined in a later cell: the new definition counts",
    "print(json.dumps({'grad_f2': s2s.grad(f)(x).tolist()}))",
    "counter = 0\ndef bad(x):\n    global counter\n    counter += 1\n    return np.sum(x)",
    "try:\n    s2s.grad(bad)(x)\nexcept s2s.S2SError as e:\n    print(json.dumps({'error': str(e)}))",
]


def test_functions_defined_in_cells_transform(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    printed = {}
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            assert out.get("output_type") != "error", out
            if out.get("name") == "stdout":
                for line in out["text"].splitlines():
                    printed.update(json.loads(line))
    x = np.array([0.3, -0.7, 1.1])
    np.testing.assert_allclose(printed["grad_f"], np.cos(x) * x + np.sin(x), rtol=1e-12)
    np.testing.assert_allclose(printed["grad_g"], 3 * x ** 2, rtol=1e-12)
    assert printed["jit_f"] == pytest.approx(np.sum(np.sin(x) * x), rel=1e-12)
    np.testing.assert_allclose(printed["grad_f2"], -np.sin(x), rtol=1e-12)
    assert "global counter" in printed["error"]  # a refusal names the cell's line, as it names a file's
