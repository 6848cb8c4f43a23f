"""jacfwd specialized on the ranks of float array arguments (calls.Jacobian._version,
transforms/diagonal.py's decide_ranks): a call with float NumPy arrays runs a version whose
diagonal's run-time tests were decided when it was built, and a diagonal that is a number is
filled in directly. Every value equals central differences of the gradient, the general version
(`h.compiled`, which decides them at run time) and the looped Jacobian (one jvp per basis vector)."""
import re
import textwrap

import gast
import numpy as np
import pytest
from helpers_compare import fd_hessian

import s2s
from s2s.compiler.emit.codegen import to_source
from s2s.compiler.transforms import diagonal

A3 = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0], [1.0, 0.0, 1.0]])
C3 = np.array([0.5, -2.0, 1.5])


def dot_self(x):
    return np.dot(x, x)


def matmul_self(x):
    return x @ x


def scaled_sum_of_squares(x):
    return 3.0 * np.sum(x * x) - np.dot(x, x) / 4.0


def sum_cubes(x):
    return np.sum(x ** 3) * 0.5


def dot_const(x):
    return np.dot(x, C3) ** 2  # not diagonal: the basis runs


def quad_form(x):
    return np.dot(x, A3 @ x)


def dot_sin(x):
    return np.dot(np.sin(x), x)


def dot_plus_index(x):
    return np.dot(x, x) + np.argmax(x)  # an integer term: its derivative is zero


def dot_scaled(x):
    return np.dot(x, x) * 2.75  # jacrev tries the gradient first: a product times a number


def sum_squares_scaled(x):
    return 3.0 * np.sum(x * x)  # `x * x` has x's shape: the gradient's unbroadcasts sum nothing


def cubes_and_sin(x):
    return np.sum(x * x * x) + np.sum(np.sin(x) * x)


def two_args(c, x):
    return c * np.dot(x, x) + np.sum(np.tanh(x) * c)


VEC = np.array([0.3, -1.2, 0.8])
MAT = np.array([[0.3, -1.2, 0.5], [0.8, 2.0, -0.4]])
SQUARE = np.array([[0.3, -1.2], [0.8, 2.0]])
CASES = [(dot_self, VEC), (dot_self, VEC.astype(np.float32)), (dot_self, SQUARE), (dot_self, np.array(0.7)),
         (matmul_self, VEC), (scaled_sum_of_squares, VEC), (sum_cubes, MAT), (dot_const, VEC),
         (quad_form, VEC), (dot_sin, VEC), (dot_plus_index, VEC), (dot_scaled, VEC), (sum_squares_scaled, VEC),
         (sum_squares_scaled, MAT), (cubes_and_sin, VEC), (cubes_and_sin, MAT)]
IDS = ["dot", "dot_f32", "dot_2d", "dot_0d", "matmul", "sum_squares", "sum_cubes_2d", "dot_const", "quad_form",
       "dot_sin", "dot_plus_index", "dot_scaled", "sum_squares_scaled", "sum_squares_scaled_2d", "cubes_and_sin",
       "cubes_and_sin_2d"]


@pytest.mark.parametrize("f, x", CASES, ids=IDS)
def test_specialized_hessian_equals_differences_general_and_looped(f, x):
    h = s2s.hessian(f)
    got = h(x)
    assert h._ranked, "a call with a float array runs the version specialized on its rank"
    general = h.compiled(x)
    assert got.dtype == general.dtype and got.shape == general.shape
    np.testing.assert_allclose(got, general, rtol=1e-6 if x.dtype == np.float32 else 1e-13, atol=1e-12)
    if x.dtype == np.float64 and np.ndim(f(x)) == 0:  # (differences of the gradient: scalar outputs)
        np.testing.assert_allclose(got, fd_hessian(f, x), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got, h.looped(x), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(s2s.jit(h)(x), got, rtol=1e-13, atol=1e-13)  # jit starts from the same version


def test_a_constant_diagonal_is_filled_in_without_run_time_tests():
    h = s2s.hessian(dot_self)
    np.testing.assert_array_equal(h(VEC), 2.0 * np.eye(3))  # hand-derived
    src = h._ranked[((0, 1),)].__s2s__.source
    assert "rt.diag_const(x, 2.0)" in src and "diag_jacobian" not in src and "rt.basis" not in src
    x32 = VEC.astype(np.float32)
    assert h(x32).dtype == np.float32
    np.testing.assert_array_equal(h(x32), 2.0 * np.eye(3, dtype=np.float32))


@pytest.mark.parametrize("f", [dot_scaled, sum_squares_scaled, cubes_and_sin, scaled_sum_of_squares])
def test_separable_hessians_take_the_diagonal_path(f):
    src = s2s.source(s2s.hessian(f), VEC)
    assert "rt.diag_const" in src or "rt.diag_of_vector(diagonal0, x)" in src, src  # the diagonal path


def test_ranks_and_dtypes_each_get_their_version():
    h = s2s.hessian(dot_self)
    for x in (VEC, SQUARE, VEC.astype(np.float32), VEC, np.array(1.5)):
        np.testing.assert_allclose(h(x), h.compiled(x), rtol=1e-6)
    assert set(h._ranked) == {((0, 1),), ((0, 2),), ((0, 0),)}
    with pytest.raises(s2s.S2SError, match="inexact"):  # JAX's error: Jacobians of floating inputs only
        h(np.array([1, 2, 3]))
    assert len(h._ranked) == 3


def test_argnums_and_python_float_arguments():
    h = s2s.hessian(two_args, argnums=1)
    got = h(0.7, VEC)
    np.testing.assert_allclose(got, fd_hessian(lambda x: two_args(0.7, x), VEC), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got, h.compiled(0.7, VEC), rtol=1e-13)
    np.testing.assert_allclose(h(c=0.7, x=VEC), got, rtol=1e-13)  # keywords: the general path


def _block(doc: str, label: str) -> str:
    m = re.search(label + r"(?: \([^)]*\))?::\n\n((?:        .*\n|\n)+)", doc)
    assert m, f"no {label} example"
    return textwrap.dedent(m.group(1))


def test_decide_ranks_docstring_example():
    doc = diagonal.decide_ranks.__doc__
    tail = "    return d_t1\n"
    fn = gast.parse("def f(x, d_x):\n" + textwrap.indent(_block(doc, "Before"), "    ") + tail).body[0]
    diagonal.decide_ranks(fn.body, {"x": 1, "d_x": 1}, ["x", "d_x"], {"x": "x", "d_x": "x"})
    want = gast.parse("def f(x, d_x):\n" + textwrap.indent(_block(doc, "After"), "    ") + tail).body[0]
    assert to_source(fn) == to_source(want)


def test_decide_ranks_leaves_what_the_ranks_do_not_settle():
    src = ("def f(x, d_x, k):\n    t0 = xp.dot(x, x)\n    i = xp.argmax(x)\n    s = rt.scalar_output(i)\n"
           "    m = rt.scalar_output(t0)\n    e = rt.dot_vjp_a_diag(t0, x, d_x, x)\n    return e\n")
    fn = gast.parse(src).body[0]
    diagonal.decide_ranks(fn.body, {"x": 2, "d_x": 2}, ["x", "d_x", "k"])  # matrices: t0 is a matrix
    assert to_source(fn) == to_source(gast.parse(src).body[0])


def test_source_with_example_arguments_shows_the_version_they_run():
    h = s2s.hessian(dot_self)
    assert "rt.diag_const(x, 2.0)" in s2s.source(h, VEC)
    assert "rt.diag_jacobian" in s2s.source(h)  # the general version decides at run time
    v = s2s.vmap(dot_self)
    np.testing.assert_allclose(v(MAT), np.sum(MAT * MAT, axis=1), rtol=1e-14)
    assert s2s.source(v, MAT).startswith("# s2s: vmap of dot_self")
