"""Every helper a derivative rule calls is differentiable to any order (rules_helpers.py declares
the composite ones, differentiated from their source): each operation whose rule calls one, at
order 3 in both modes and under vmap of its Hessian, against central differences and a loop
(order 3 in one mode per operation by default, chosen by a hash of its name, the other with --full;
the vmap of the Hessian of the operations whose order 3 runs in reverse mode by default, the rest
with --full: by default each Hessian is transformed once more, by jacfwd or by vmap)."""
import zlib

import numpy as np
import pytest

import s2s

_R = np.random.default_rng(0)
_A = _R.standard_normal((3, 3))
S = _A @ _A.T + 3 * np.eye(3)
X = _R.standard_normal(3)

# operation (its rule's helper) -> a function of a vector through it
CASES = {
    "var": lambda x: np.var(x * x, ddof=1) ** 2,
    "nanvar": lambda x: np.nanvar(np.sin(x)) * 3,
    "average": lambda x: np.average(x ** 2, weights=np.exp(x)),
    "cholesky": lambda x: np.sum(np.linalg.cholesky(S + np.outer(x, x)) ** 2),
    "cond": lambda x: np.linalg.cond(S + np.diag(x)),
    "cross": lambda x: np.sum(np.cross(x, x ** 2) ** 2),
    "eigh": lambda x: np.sum(np.linalg.eigh(S + np.outer(x, x))[0] ** 2),
    "eigvalsh": lambda x: np.sum(np.linalg.eigvalsh(S + np.outer(x, x)) ** 3),
    "hstack": lambda x: np.sum(np.hstack([x, x ** 2]) ** 3),
    "interp": lambda x: np.sum(np.interp(np.array([0.1, 0.5]), np.array([0.0, 0.3, 1.0]), x ** 2) ** 2),
    "matrix_power": lambda x: np.sum(np.linalg.matrix_power(S * 0.1 + np.diag(x), 3)),
    "multi_dot": lambda x: np.sum(np.linalg.multi_dot([S, np.diag(x), S, np.diag(x)])),
    "norm_nuc": lambda x: np.linalg.norm(np.outer(x, x) + S, ord="nuc"),
    "pinv": lambda x: np.sum(np.linalg.pinv(S + np.outer(x, x))),
    "polyval": lambda x: np.polyval(x, x[0]) ** 2,
    "pow": lambda x: np.sum(np.abs(x) ** x),
    "qr": lambda x: np.sum(np.linalg.qr(S + np.outer(x, x))[1] ** 2),
    "repeat": lambda x: np.sum(np.repeat(x, 2) ** 3),
    "roll": lambda x: np.sum(np.roll(x, 1) ** 2 * x),
    "sinc": lambda x: np.sum(np.sinc(x) ** 2),
    "solve": lambda x: np.sum(np.linalg.solve(S + np.diag(x ** 2), x)),
    "hsplit": lambda x: np.sum(np.hsplit(np.concatenate([x, x]) ** 2, 2)[1] ** 2),
    "svd": lambda x: np.sum(np.linalg.svd(S + np.outer(x, x))[1] ** 2),
    "svdvals": lambda x: np.sum(np.linalg.svdvals(S + np.outer(x, x)) ** 3),
    "tile": lambda x: np.sum(np.tile(x, 2) ** 3),
    "trace": lambda x: np.trace(np.outer(x, x ** 2)) ** 2,
    "vector_norm": lambda x: np.linalg.vector_norm(x ** 2) ** 3,
    "dot": lambda x: np.dot(x, x) ** 3,
}


def _fd(g, x, eps=1e-5):
    return np.array([(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(len(x))])


MODES = ("forward", "reverse")


def _third_params():
    """(name, modes): each helper's order 3 in one mode by default, chosen by a hash of its name
    (half the helpers take each mode, the same ones on every run), the other mode with --full."""
    out = []
    for name in sorted(CASES):
        mine = MODES[zlib.crc32(name.encode()) % 2]
        other = MODES[1 - MODES.index(mine)]
        out.append(pytest.param(name, (mine,), id=f"{name}-{mine}"))
        out.append(pytest.param(name, (other,), id=f"{name}-{other}", marks=pytest.mark.full))
    return out


@pytest.mark.parametrize("name, modes", _third_params())
def test_third_derivative_in_both_modes(name, modes):
    """The Hessian against central differences of grad, then the third derivative against central
    differences of the Hessian: jacfwd of the Hessian ("forward") and jacrev of jacrev of grad
    ("reverse"). By default each helper takes one of the two (every helper reaches order 3 on
    every run, and half of them in each mode); --full adds the other."""
    f = CASES[name]
    h = s2s.hessian(f)
    np.testing.assert_allclose(h(X), _fd(s2s.grad(f), X), rtol=1e-5, atol=1e-6)
    ref = _fd(h, X)
    if "forward" in modes:
        np.testing.assert_allclose(s2s.jacfwd(h)(X), ref, rtol=1e-4, atol=1e-5)
    if "reverse" in modes:
        np.testing.assert_allclose(s2s.jacrev(s2s.jacrev(s2s.grad(f)))(X), ref, rtol=1e-4, atol=1e-5)


def _vmap_params():
    """Each helper's vmap of the Hessian: half of the helpers by default (those whose order 3 runs
    in reverse mode by default, so each helper's Hessian is transformed once more by default, by
    jacfwd or by vmap), the other half with --full; "nanvar"'s refusal always by default."""
    return [pytest.param(name, id=name, marks=[] if MODES[zlib.crc32(name.encode()) % 2] == "reverse"
                         or name == "nanvar" else pytest.mark.full) for name in sorted(CASES)]


@pytest.mark.parametrize("name", _vmap_params())
def test_vmap_of_the_hessian(name):
    """vmap(hessian(f)) against a loop of hessian(f): the helpers' second-derivative code batched."""
    f = CASES[name]
    xs = np.stack([X, 0.5 * X])
    if name == "nanvar":  # its rule's helper asks NumPy for a result dtype per example: refused by name
        with pytest.raises(s2s.S2SError, match="result_type"):
            s2s.vmap(s2s.hessian(f))(xs)
        return
    np.testing.assert_allclose(s2s.vmap(s2s.hessian(f))(xs), [s2s.hessian(f)(r) for r in xs], rtol=1e-9, atol=1e-9)
