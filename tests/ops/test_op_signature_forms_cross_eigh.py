"""Whole-signature forms of np.cross (axisa/axisb/axisc/axis), np.linalg.eigh/eigvalsh (UPLO, on
non-symmetric inputs: NumPy reads one triangle) and argmax/argmin/any/all/count_nonzero under vmap
(with and without `axis`), against central differences of NumPy's own function and a Python loop
(issue 27, family 7)."""
import numpy as np
import pytest

import s2s
from s2s.test_util import check_grads

RNG = np.random.default_rng(7)
pytestmark = pytest.mark.filterwarnings("ignore:Arrays of 2-dimensional vectors:DeprecationWarning")

# (id, function, argument shapes): each cross form NumPy documents
CROSS = [
    ("default", lambda a, b: np.cross(a, b), ((4, 3), (4, 3))),
    ("axisa-axisb-axisc", lambda a, b: np.cross(a, b, axisa=0, axisb=1, axisc=0), ((3, 4), (2, 3, 4))),
    ("axis", lambda a, b: np.cross(a, b, axis=0), ((3, 4), (3, 4))),
    ("axis-overrides", lambda a, b: np.cross(a, b, axisa=1, axisb=1, axisc=1, axis=1), ((2, 3), (2, 3))),
    ("positional", lambda a, b: np.cross(a, b, 0, -1, 1), ((3, 2), (2, 3))),
    ("axisc-only", lambda a, b: np.cross(a, b, axisc=0), ((5, 3), (5, 3))),
    ("broadcast-axisb", lambda a, b: np.cross(a, b, axisb=0), ((3,), (3, 4))),
    # 2-vectors (z = 0; deprecated in NumPy 2 but documented): two of them give the z component
    ("two-vectors", lambda a, b: np.cross(a, b), ((4, 2), (4, 2))),
    ("two-vectors-axis", lambda a, b: np.cross(a, b, axis=0), ((2, 4), (2, 4))),
    ("two-three-axisa", lambda a, b: np.cross(a, b, axisa=0), ((2, 4), (4, 3))),
    ("three-two-axisb-axisc", lambda a, b: np.cross(a, b, axisb=0, axisc=0), ((4, 3), (2, 4))),
]


@pytest.mark.parametrize("f,shapes", [c[1:] for c in CROSS], ids=[c[0] for c in CROSS])
def test_cross_keywords_grads(f, shapes):
    args = tuple(RNG.normal(size=s) for s in shapes)
    check_grads(f, args, order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("f,shapes", [c[1:] for c in CROSS], ids=[c[0] for c in CROSS])
def test_cross_keywords_vmap(f, shapes):
    args = tuple(RNG.normal(size=(3,) + s) for s in shapes)
    want = np.stack([f(*(x[i] for x in args)) for i in range(3)])
    np.testing.assert_allclose(s2s.vmap(f)(*args), want, rtol=1e-12)


def _eigvalsh_l(a):
    return np.linalg.eigvalsh(a)


def _eigvalsh_u(a):
    return np.linalg.eigvalsh(a, UPLO="U")


def _eigh_w_u(a):
    return np.linalg.eigh(a, "U")[0]


def _eigh_v_l(a):
    return np.linalg.eigh(a)[1] ** 2  # squared: independent of each eigenvector's sign


def _eigh_v_u(a):
    return np.linalg.eigh(a, UPLO="U")[1] ** 2


def _eigh_both_u(a):
    w, v = np.linalg.eigh(a, UPLO="U")
    return np.sum(w) + v[0] ** 2


EIGH = [_eigvalsh_l, _eigvalsh_u, _eigh_w_u, _eigh_v_l, _eigh_v_u, _eigh_both_u]


@pytest.mark.parametrize("f", EIGH, ids=[f.__name__ for f in EIGH])
def test_eigh_uplo_grads_nonsymmetric(f):
    a = RNG.normal(size=(4, 4))  # not symmetric: only the triangle NumPy reads may matter
    check_grads(f, (a,), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigvalsh_grad_zero_off_triangle(uplo):
    a = RNG.normal(size=(3, 3))
    g = s2s.grad(lambda m: np.sum(np.linalg.eigvalsh(m, UPLO=uplo) ** 2))(a)
    unread = np.triu(g, 1) if uplo == "L" else np.tril(g, -1)
    assert np.all(unread == 0.0)
    s = np.tril(a) + np.tril(a, -1).T if uplo == "L" else np.triu(a) + np.triu(a, 1).T
    # sum(w**2) = ||S||_F^2: 2 s_ii on the diagonal, 4 s_ij for an off-diagonal entry read twice
    read = np.tril(4 * s, -1) if uplo == "L" else np.triu(4 * s, 1)
    np.testing.assert_allclose(g, 2 * np.diag(np.diag(s)) + read, atol=1e-10)


@pytest.mark.parametrize("f", EIGH, ids=[f.__name__ for f in EIGH])
def test_eigh_uplo_vmap_and_vmap_grad(f):
    xs = RNG.normal(size=(3, 4, 4))
    np.testing.assert_allclose(s2s.vmap(f)(xs), np.stack([f(x) for x in xs]), atol=1e-10)
    loss = s2s.grad(lambda m: np.sum(f(m) * np.arange(1.0, 1.0 + f(m).size).reshape(np.shape(f(m)))))
    np.testing.assert_allclose(s2s.vmap(loss)(xs), np.stack([loss(x) for x in xs]), atol=1e-10)


ARG = [
    lambda x: x[0][np.argmax(x[0])],
    lambda x: x[np.argmax(x[:, 0])],
    lambda x: x.ravel()[x.argmin()],
    lambda x: np.argmax(x),
    lambda x: np.argmax(x, 0),
    lambda x: np.argmin(x, axis=1),
    lambda x: x.argmax(1),
    lambda x: np.any(x > 0.5),
    lambda x: np.any(x > 0.5, 0),
    lambda x: np.all(x > -1.0, axis=1),
    lambda x: (x > 0).any(0),
    lambda x: np.count_nonzero(x > 0),
    lambda x: np.count_nonzero(x > 0, axis=0),
]


@pytest.mark.parametrize("k", range(len(ARG)))
def test_vmap_argmax_index_and_axis_forms(k):
    f = ARG[k]
    xs = RNG.normal(size=(5, 3, 4))
    got = s2s.vmap(f)(xs)
    np.testing.assert_array_equal(got, np.stack([f(x) for x in xs]))


def test_grad_through_vmap_of_argmax_index():
    xs = RNG.normal(size=(4, 5))
    g = s2s.grad(lambda z: np.sum(s2s.vmap(lambda x: x[np.argmax(x)] ** 2)(z)))(xs)
    want = np.zeros_like(xs)
    want[np.arange(4), np.argmax(xs, axis=1)] = 2 * np.max(xs, axis=1)
    np.testing.assert_allclose(g, want, rtol=1e-12)
