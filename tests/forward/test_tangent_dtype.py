"""A tangent has its primal's float dtype where a constant operand widens it (issue 44, campaign
5201: `acc + sin(y.astype(np.float32))` with `acc` float64 and constant in y had a float32 tangent,
and what the function then stored into a copy of it was rounded to float32: jacfwd differed from
jacrev by float32's rounding). jvp, jacfwd and vmap(jvp) against jacrev and the float64 program."""
import numpy as np
import pytest

import s2s

X = np.array([0.17946108046696163, -0.3522033521031398, 0.21326714002983427])
Y = np.array([0.8740039357189593, 0.7465355265781606, 0.9028967914840873])


def stored(x, y):
    acc = x * 1.0
    acc = acc + 1e-4 * np.sin(y.astype(np.float32))
    a1 = acc.copy()
    a1[0] = y[1] * 0.5739806249584987  # (a tangent stored into a copy of acc's)
    return a1 * 3.0


def broadcast(x, y):
    acc = np.ones((2, 3)) * x
    r = acc + 1e-4 * np.cos(y.astype(np.float32))  # (a float32 tangent spread over acc's shape)
    r[1] = y * 0.5739806249584987
    return r


@pytest.mark.parametrize("f, exact", [(stored, (0, 1)), (broadcast, 1)])
def test_forward_tangents_keep_the_wider_float(f, exact):
    """Entries that pass through float32 agree to float32's rounding (forward mode rounds the
    tangent, reverse mode the cotangent, as JAX's do); the others are the same float64 numbers."""
    want = s2s.jacrev(f, argnums=1)(X, Y)
    assert want.dtype == np.float64
    got = s2s.jacfwd(f, argnums=1)(X, Y)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_array_equal(got[exact], want[exact])
    u = np.array([1.0, -2.0, 0.5])
    out, t = s2s.jvp(lambda y: f(X, y), (Y,), (u,))
    assert out.dtype == t.dtype == np.float64
    np.testing.assert_allclose(t, np.tensordot(want, u, axes=1), rtol=1e-6)
    ts = s2s.vmap(lambda v: s2s.jvp(lambda y: f(X, y), (Y,), (v,))[1])(np.stack([u, 2 * u]))
    assert ts.dtype == np.float64
    np.testing.assert_allclose(ts[1], 2 * t, rtol=1e-6)


def test_float32_primal_keeps_a_float32_tangent():
    """JAX's rule the other way round: the tangent of a float32 result stays float32."""
    def f(y):
        return np.sin(y.astype(np.float32)) * np.float32(2)
    out, t = s2s.jvp(f, (Y,), (np.ones(3),))
    assert out.dtype == np.float32 and t.dtype == np.float32
    np.testing.assert_allclose(t, 2 * np.cos(Y.astype(np.float32)), rtol=1e-6)


C = np.array([0.3, -0.2, 0.5])
MIXED = {  # a float64 constant with a float32 value of the argument: the result is float64
    "add": lambda y: C + y.astype(np.float32),
    "radd": lambda y: y.astype(np.float32) + C,
    "sub": lambda y: C - y.astype(np.float32),
    "np.add": lambda y: np.add(C, y.astype(np.float32)),
    "where": lambda y: np.where(C > 0, C, y.astype(np.float32)),
    "maximum": lambda y: np.maximum(C, y.astype(np.float32)),
    "concatenate": lambda y: np.concatenate([C, y.astype(np.float32)])[2:5],
    "stack": lambda y: np.stack([C, y.astype(np.float32)])[1],
    "array": lambda y: np.array([C, y.astype(np.float32)])[1],
    "clip": lambda y: np.clip(y.astype(np.float32), C - 1, C + 1),
    "sum": lambda y: C + np.sum(y.astype(np.float32)),
    "select": lambda y: np.select([C > 0], [y.astype(np.float32)], C),
    "hypot": lambda y: np.hypot(C, y.astype(np.float32)),
    "cumsum": lambda y: np.cumsum(np.concatenate([C, y.astype(np.float32)]))[3:],
    "matmul": lambda y: C @ np.diag(y.astype(np.float32)),
}


@pytest.mark.parametrize("name", sorted(MIXED))
def test_tangent_dtype_is_the_results(name):
    f = MIXED[name]
    out, t = s2s.jvp(f, (Y,), (np.ones(3),))
    assert np.result_type(out) == np.float64
    assert np.result_type(t) == np.float64, name
    jf, jr = s2s.jacfwd(f)(Y), s2s.jacrev(f)(Y)
    assert jf.dtype == np.float64 == jr.dtype
    np.testing.assert_allclose(jf, jr, rtol=1e-6, atol=1e-12)
