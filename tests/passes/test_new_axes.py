"""New axes of arrays of known rank as NumPy indexes them fastest (passes/newaxis.py): `v[:, None]`
of a vector is `v[..., None]` and `v[None, :]` is `v[None]` in a jit version, the same view, so
the same values bit for bit as the plain transform's; an index of a value of another rank or of
unknown rank stays as written."""
import ast

import gast
import numpy as np
import pytest

import s2s
from s2s.compiler.passes import newaxis


def code_of(g, *args) -> str:
    """The generated code without its comments (which quote the user's source) and spaces (the
    printer may break a line inside an index)."""
    return "".join("".join(ln for ln in s2s.source(g, *args).splitlines() if not ln.strip().startswith("#")).split())


def td_loss(theta, s_tm1, r_t, s_t):
    target = r_t + np.dot(theta, s_t)
    return (s2s.stop_gradient(target) - np.dot(theta, s_tm1)) ** 2


def td_data(b):
    r = np.random.default_rng(5)
    return r.normal(size=3), r.normal(size=(b, 3)), r.normal(size=b), r.normal(size=(b, 3))


@pytest.mark.parametrize("b", [1, 2, 7])
def test_per_example_gradient_indexes_with_an_ellipsis(b):
    args = td_data(b)
    jitted = s2s.jit(s2s.vmap(s2s.grad(td_loss), in_axes=(None, 0, 0, 0)))
    got = jitted(*args)
    code = code_of(jitted, *args)
    assert "[...,None]" in code and "[:,None]" not in code, code
    theta, s_tm1, r_t, s_t = args
    np.testing.assert_array_equal(got, s2s.vmap(s2s.grad(td_loss), in_axes=(None, 0, 0, 0))(*args))
    loop = np.stack([-2.0 * (r_t[i] + s_t[i] @ theta - s_tm1[i] @ theta) * s_tm1[i] for i in range(b)])
    np.testing.assert_allclose(got, loop, rtol=1e-13, atol=1e-15)  # (a Python loop over the examples)


def outer_scaled(x, y):
    return (2.0 * x)[:, None] * y[None, :]


def matrix_column(m, y):
    return (2.0 * m)[:, None] * y


@pytest.mark.parametrize("n", [1, 3, 5])
def test_a_vector_and_a_row(n):
    r = np.random.default_rng(n)
    x, y = r.normal(size=n), r.normal(size=n + 1)
    jitted = s2s.jit(outer_scaled)
    got = jitted(x, y)
    code = code_of(jitted, x, y)
    assert "[...,None]" in code and "y[None]" in code and ":,None" not in code and "None,:" not in code, code
    np.testing.assert_array_equal(got, outer_scaled(x, y))
    np.testing.assert_array_equal(got, np.array([[2.0 * a * c for c in y] for a in x]))
    np.testing.assert_array_equal(s2s.jit(s2s.grad(lambda x, y: np.sum(outer_scaled(x, y))))(x, y),
                                  s2s.grad(lambda x, y: np.sum(outer_scaled(x, y)))(x, y))


def test_a_matrix_keeps_its_index():
    r = np.random.default_rng(0)
    m, y = r.normal(size=(2, 3)), r.normal(size=3)
    jitted = s2s.jit(matrix_column)
    got = jitted(m, y)
    assert "[:,None]" in code_of(jitted, m, y)  # ([..., None] would put the axis last: (2, 3, 1))
    assert got.shape == (2, 1, 3)
    np.testing.assert_array_equal(got, matrix_column(m, y))


def _index(src: str):
    return gast.parse(src).body[0].value.slice.elts


@pytest.mark.parametrize("src, rank, want", [
    ("v[:, None]", 1, "(..., None)"), ("v[:, :, None]", 2, "(..., None)"), ("v[None, :]", 1, "None"),
    ("v[None, :]", 2, "None"), ("v[None, :, :]", 2, "None"),
    ("v[:, None]", 2, None), ("v[:, :, None]", 1, None), ("v[None, :, :]", 1, None), ("v[:, None, :]", 2, None),
    ("v[0, None]", 1, None), ("v[:, None, None]", 1, None), ("v[1:, None]", 1, None)])
def test_shorter_index(src, rank, want):
    got = newaxis.shorter_index(_index(src), rank)
    assert (None if got is None else ast.unparse(gast.gast_to_ast(got))) == want
    if want is not None:  # (the same view, for NumPy)
        v = np.arange(float(6 if rank == 2 else 3)).reshape((2, 3) if rank == 2 else (3,))
        a, b = eval(src, {"v": v}), eval(f"v[{want}]", {"v": v})  # noqa: S307 - the test's own literals
        assert a.shape == b.shape and a.strides == b.strides \
            and a.__array_interface__["data"] == b.__array_interface__["data"] == v.__array_interface__["data"]
