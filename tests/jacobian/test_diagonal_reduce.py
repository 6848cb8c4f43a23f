"""The reductions of jacfwd's diagonal function (s2s/compiler/transforms/diagonal.py): the docstring example
holds, each step fires where it should and not where it must not, and Hessians through the forms
it rewrites equal central differences of the gradient and the looped Jacobian (one jvp per basis
vector, which none of these steps touch)."""
import re
import textwrap

import gast
import numpy as np
import pytest
from helpers_compare import fd_hessian

import s2s
from s2s import runtime as rt
from s2s.compiler.emit.codegen import to_source
from s2s.compiler.ir.names import Namer
from s2s.compiler.transforms import diagonal


def _block(doc: str, label: str) -> str:
    m = re.search(label + r"(?: \([^)]*\))?::\n\n((?:        .*\n|\n)+)", doc)
    assert m, f"no {label} example"
    return textwrap.dedent(m.group(1))


def _reduced(src: str, primal: str = "x") -> str:
    fn = gast.parse("def f(x, t0):\n" + textwrap.indent(src, "    ") + "    return d_t3\n").body[0]
    names = Namer({n.id for n in gast.walk(fn) if isinstance(n, gast.Name)} | {"xp", "rt"})
    fn.body = diagonal.reduce_diagonal(fn.body, primal, ["x", "t0"], names)
    return to_source(fn)


def test_docstring_example():
    doc = diagonal.reduce_diagonal.__doc__
    before, after = _block(doc, "Before"), _block(doc, "After")
    assert _reduced(before) == to_source(gast.parse("def f(x, t0):\n" + textwrap.indent(after, "    ")
                                                    + "    return d_t3\n").body[0])


def test_fill_kept_when_a_use_is_not_elementwise():
    src = "b = rt.sum_vjp(1.0, x, None, False)\nd_t3 = xp.sum(b)\n"  # a reduction of the fill: its shape matters
    assert "rt.sum_vjp(1.0, x, None, False)" in _reduced(src)
    src = "b = rt.sum_vjp(1.0, t0, None, False)\nd_t3 = b * 2\n"  # filled to another value's shape
    assert "rt.sum_vjp(1.0, t0, None, False)" in _reduced(src)
    src = "b = rt.sum_vjp(1.0, x, None, False)\nd_t3 = b * 2\n"
    assert "rt.sum_vjp" not in _reduced(src)


def test_square_of_a_name_not_from_an_array_function_stays_a_power():
    assert "t0 ** 2" in _reduced("d_t3 = t0 ** 2\n")  # t0 a parameter: maybe a Python float
    assert "u * u" in _reduced("u = xp.tanh(x)\nd_t3 = u ** 2\n")
    assert "u ** 2" in _reduced("u = xp.tanh(x)\nu = 2.0\nd_t3 = u ** 2\n")  # u is sometimes a float


def test_negation_sinks_only_into_a_single_use_product_and_sum():
    out = _reduced("n = -t0\nm = x * n\nd_t3 = x + m\n")
    assert "d_t3 = x - m" in out and "m = t0 * x" in out
    out = _reduced("n = -t0\nm = x * n\nk = m * 2\nd_t3 = x + m + k\n")  # m used twice: unchanged
    assert "m = n * x" in out and "n = -t0" in out


def test_factors_collect_only_where_exact():
    assert "d_t3 = u0 * 6.0" in _reduced("u = x * 2\nv = u * t0\nd_t3 = v * 3.0\n")
    for src in ("u = x * 3\nd_t3 = u * 5\n",  # two numbers that are not powers of two: rounds twice
                "u = x * 0.5\nd_t3 = u * t0\n",  # |c| < 1: scaling down may round (subnormals)
                "u = x * 2\nv = u * t0\nw = v * x\nd_t3 = w * 2\n",  # three names: reassociation
                "u = x * 2\nk = u * 1\nd_t3 = u * 4\n"):  # u used twice
        out = _reduced(src)
        assert "6.0" not in out and "15" not in out and "* 8" not in out, out


def test_numbers_propagate_and_fold():
    out = _reduced("a = 2.0\nb = a * 3\nd_t3 = x * b\n")
    assert "d_t3 = 6.0 * x" in out


# ---------------------------------------------------------------- Hessians through the rewritten forms

C23 = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
INTS = np.arange(1, 4)


def products_both_ways(x):
    return np.sum(np.sin(x) * np.cos(x) + np.cos(x) * np.sin(x))


def products_of_other_shapes(x):
    return np.sum(x * (C23 * x) + (C23 * x) * x)  # (3,) and (2, 3): a (2, 3) Hessian term summed


def products_with_ints(x):
    return np.sum(INTS * x ** 2 + x ** 2 * INTS) + np.sum(np.tanh(x) ** 3 * INTS)


def negated(x):
    return np.sum(-np.sin(x) * x + np.cos(x) * -(x * x))


def square_of_sum(x):
    return np.sum(x) ** 2  # certainly a scalar: jacrev is the gradient; not diagonal: the basis runs


def norm_over_n(x):
    return np.sqrt(np.sum(x * x)) / 3.0


def filled_then_reduced(x):
    return np.sum(x * np.mean(np.exp(x)))


def tanh3(x):
    return np.sum(np.tanh(x) ** 3)


def scaled_products(x):
    return np.sum(3.0 * np.sin(x) ** 2 * 5.0 * x + 0.5 * (2.0 * x) ** 3 * 0.25)


FUNCS = [norm_over_n, scaled_products, products_both_ways, products_of_other_shapes, products_with_ints, negated,
         square_of_sum, filled_then_reduced, tanh3]
X3 = np.array([0.3, -1.2, 0.8])


@pytest.mark.parametrize("f", FUNCS, ids=[f.__name__ for f in FUNCS])
def test_hessian_equals_differences_and_the_looped_form(f):
    h = s2s.hessian(f)
    got = h.compiled(X3)
    np.testing.assert_allclose(got, fd_hessian(f, X3), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got, h.looped(X3), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("f", FUNCS, ids=[f.__name__ for f in FUNCS])
def test_float32_input_keeps_its_dtype(f):
    # square_of_sum: the batched basis path once gave float64 here (batched_sum_vjp promoted to float64)
    x = X3.astype(np.float32)
    h = s2s.hessian(f)
    got, want = h.compiled(x), h.looped(x)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("f", [products_both_ways, negated, tanh3, products_with_ints])
def test_nan_and_inf_inputs_give_what_the_basis_gives(f):
    x = np.array([0.3, np.nan, np.inf])
    h = s2s.hessian(f)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(h.compiled(x), h.looped(x))


def test_python_arithmetic_errors_fall_back_to_the_basis():
    def bad(x):
        return 1.0 / 0.0
    assert rt.diag_jacobian(bad, X3, X3) is None


def test_elementwise_arithmetic_of_reductions_is_certainly_scalar():
    for f in (square_of_sum, norm_over_n):
        assert "rt.basis(" not in s2s.source(s2s.jacrev(f)) and "grad" in s2s.source(s2s.jacrev(f)).split("\n")[0]
        np.testing.assert_allclose(s2s.jacrev(f)(X3), s2s.grad(f)(X3), rtol=1e-15)
    def reduced_by_axis(x):
        return np.sum(np.outer(x, x), axis=0) ** 2  # a vector: the rows path
    assert s2s.jacrev(reduced_by_axis)(X3).shape == (3, 3)
