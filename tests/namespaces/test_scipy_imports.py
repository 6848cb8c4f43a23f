"""A transformed function that calls SciPy itself (`import scipy.special`, `from scipy.stats import
norm`, `scipy.linalg.cholesky`) runs s2s.scipy's functions in their place: its derivatives against
central differences of the plain function (which SciPy computes), vmap against a loop; a SciPy
function s2s.scipy lacks is an error at the user's line, never a constant."""
import subprocess
import sys

import numpy as np
import pytest
import scipy_user_funcs as uf

import s2s
from s2s.test_util import check_grads

X = np.array([0.6, 1.3, 2.2])
LOC, SCALE = np.array([0.1, -0.2, 0.3]), np.array([1.2, 0.7, 1.9])
A = np.array([[1.0, 0.3, -0.2], [0.1, 1.5, 0.4], [-0.3, 0.2, 0.9]])
B = np.array([0.5, -1.0, 2.0])

CASES = {"special_module": (uf.special_module, (X,)), "special_names": (uf.special_names, (X,)),
         "stats_module": (uf.stats_module, (X, LOC, SCALE)), "stats_names": (uf.stats_names, (X, LOC)),
         "linalg_calls": (uf.linalg_calls, (A, B))}


@pytest.mark.parametrize("name", sorted(CASES))
def test_derivatives_match_differences_of_the_scipy_function(name):
    fn, args = CASES[name]
    value, _ = s2s.value_and_grad(fn)(*args)
    np.testing.assert_allclose(value, fn(*args), rtol=1e-12)  # the plain call runs SciPy itself
    check_grads(fn, args, order=2, modes=("fwd", "rev"), atol=1e-4, rtol=1e-4)


def test_vmap_of_gradient_matches_a_loop():
    xs = np.stack([X, X[::-1] + 0.5, X * 0.3])
    got = s2s.vmap(s2s.grad(uf.row_loss))(xs)
    want = np.stack([s2s.grad(uf.row_loss)(x) for x in xs])
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(uf.row_loss)(xs), [uf.row_loss(x) for x in xs], rtol=1e-12)


@pytest.mark.parametrize("fn, what", [(uf.unknown_special, "scipy.special.zeta"),
                                      (uf.unknown_linalg, "scipy.linalg.qr"),
                                      (uf.unknown_stats_method, "rvs")])
def test_a_scipy_function_s2s_lacks_is_refused_at_the_users_line(fn, what):
    with pytest.raises(s2s.S2SError) as info:
        s2s.grad(fn)(X if fn is not uf.unknown_linalg else A)
    assert what in str(info.value) and "scipy_user_funcs.py" in str(info.value)


def test_scipy_is_optional():
    """`import s2s` does not import SciPy; `import s2s.scipy` without SciPy says how to install it."""
    code = ("import sys, s2s\nassert 'scipy' not in sys.modules\nsys.modules['scipy'] = None\n"
            "try:\n    import s2s.scipy\nexcept ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "pip install 's2s[scipy]'" in out
