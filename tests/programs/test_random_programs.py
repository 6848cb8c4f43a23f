"""Property test: randomly generated straight-line and looping programs, differentiated in both
modes, agree with central finite differences (hypothesis draws the programs): a dozen by default,
two dozen more with --full."""
import importlib.util
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from s2s.test_util import check_grads

UNARY = ["np.sin({})", "np.cos({})", "np.tanh({})", "({}) ** 2", "np.exp(0.3 * {})", "-({})",
         "np.sqrt(1.0 + ({}) ** 2)", "np.maximum({}, 0.1 * {})"]
BINARY = ["({}) + ({})", "({}) - ({})", "({}) * ({})", "({}) / (2.0 + np.cos({}))"]
_COUNT = itertools.count()


def expr(depth):
    leaf = st.sampled_from(["x", "y", "x[0]", "np.sum(y)", "1.5"])
    if depth == 0:
        return leaf
    sub = expr(depth - 1)
    unary = st.builds(lambda f, a: f.format(a, a), st.sampled_from(UNARY), sub)
    binary = st.builds(lambda f, a, b: f.format(a, b, b), st.sampled_from(BINARY), sub, sub)
    return st.one_of(leaf, unary, binary)


@st.composite
def programs(draw):
    """A function of two vectors: a few statements, with loops, branches and item assignments."""
    lines = ["def f(x, y):", "    acc = x * 0.0"]
    for k in range(draw(st.integers(1, 3))):
        e = draw(expr(2))
        kind = draw(st.sampled_from(["plain", "loop", "branch", "setitem", "while"]))
        if kind == "setitem":
            i = draw(st.integers(0, 2))
            lines += ["    a = acc.copy()", f"    a[{i}] = np.sum({e})", "    acc = a"]
        elif kind == "while":
            lines += ["    j = 0", f"    while j < {draw(st.integers(0, 3))}:",
                      f"        acc = acc * 0.9 + {e}", "        j = j + 1"]
        elif kind == "loop":
            lines += [f"    for i in range({draw(st.integers(0, 3))}):",
                      f"        acc = acc * 0.5 + {e}"]
        elif kind == "branch":
            lines += ["    if np.sum(x) > 0.0:", f"        acc = acc + {e}", "    else:",
                      f"        acc = acc - 0.5 * ({e})"]
        else:
            lines += [f"    t{k} = {e}", f"    acc = acc + t{k}"]
    lines.append("    return np.sum(acc * acc)")
    return "\n".join(lines) + "\n"


def load(src, tmp_path):
    path = tmp_path / f"prog_{next(_COUNT)}.py"
    path.write_text("import numpy as np\n\n\n" + src)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.f


def _check(tmp_path_factory, src, seed):
    f = load(src, tmp_path_factory.mktemp("progs"))
    rng = np.random.default_rng(seed)
    x, y = rng.uniform(0.2, 1.0, 3), rng.uniform(0.2, 1.0, 3)  # away from the branch switch at 0
    check_grads(f, (x, y), order=2, modes=("fwd", "rev"), atol=1e-4, rtol=1e-4)


# a dozen programs by default, two dozen more with --full (CI runs both)
@settings(max_examples=12, deadline=None)
@given(src=programs(), seed=st.integers(0, 2**16))
def test_random_program_derivatives_match_finite_differences(tmp_path_factory, src, seed):
    _check(tmp_path_factory, src, seed)


@pytest.mark.full
@settings(max_examples=25, deadline=None)
@given(src=programs(), seed=st.integers(0, 2**16))
def test_more_random_program_derivatives_match_finite_differences(tmp_path_factory, src, seed):
    _check(tmp_path_factory, src, seed)
