"""docs/namespaces.md: its Python blocks run, in order, as one file (s2s reads their source), and
the numbers its comments print are the ones they print."""
import contextlib
import io
import re
import runpy

import paths

DOC = paths.ROOT / "docs" / "namespaces.md"


def test_examples_run_and_print_what_the_page_says(tmp_path):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 6
    script = tmp_path / "namespaces_examples.py"
    script.write_text("\n".join(blocks), encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runpy.run_path(str(script), run_name="__main__")
    printed = out.getvalue()
    assert "1.414213562373095\n" in printed
    assert "0.35355339059327373 0.35355339059327373\n" in printed
    assert "[0.25       0.16666667]\n" in printed
    assert "-1.114188 -1.031043\n" in printed and "-0.01705\n" in printed  # s2s.scipy
    assert "True\nTrue\n0.313181 0.313181\n" in printed  # sqrtm's, j0's and t.cdf's derivatives
