"""s2s.lax: control flow, slicing and elementwise functions against NumPy / Python references,
derivatives against central differences (reverse mode through `while_loop` included, which JAX
cannot compute), and vmap against a Python loop over examples."""
import math

import numpy as np
import pytest

import s2s
from s2s import lax
from s2s.test_util import check_grads

XS = np.array([0.9, 1.7, 0.4])
M = np.arange(12.0).reshape(3, 4) / 14.0 + 0.1


# ---- control flow ----

def fori_body(i, v):
    return v * np.cos(v) + 0.1 * i


def fori_fn(x):
    return lax.fori_loop(0, 4, fori_body, x)


def fori_ref(x):
    for i in range(4):
        x = x * np.cos(x) + 0.1 * i
    return x


def while_cond(v):
    return np.sum(v) < 10.0


def while_body(v):
    return v * 1.3 + np.sin(v)


def while_fn(x):
    return lax.while_loop(while_cond, while_body, x)


def while_ref(x):
    while np.sum(x) < 10.0:
        x = x * 1.3 + np.sin(x)
    return x


def newton_cond(s):
    return s[1] < 30


def newton_body(s):
    y, k, a = s
    return (0.5 * (y + a / y), k + 1, a)


def newton_sqrt(a):
    """sqrt(a) by Newton's method, as a while_loop over a tuple state (a fixed 30 steps)."""
    return lax.while_loop(newton_cond, newton_body, (a, 0, a))[0]


def scan_step(c, x):
    c = np.tanh(c * x + 0.5)
    return c, c * x


def scan_fn(c0, xs):
    c, ys = lax.scan(scan_step, c0, xs)
    return c + np.sum(ys * np.arange(1.0, 4.0))


def scan_rev_fn(c0, xs):
    c, ys = lax.scan(scan_step, c0, xs, reverse=True)
    return c + np.sum(ys * np.arange(1.0, 4.0))


def scan_ref(c, xs, reverse=False):
    ys = [None] * len(xs)
    order = range(len(xs) - 1, -1, -1) if reverse else range(len(xs))
    for i in order:
        c, ys[i] = scan_step(c, xs[i])
    return c + np.sum(np.array(ys) * np.arange(1.0, 4.0))


def count_step(c, _):
    return c * 1.5, c


def scan_length_fn(c0):
    c, ys = lax.scan(count_step, c0, None, length=3)
    return c + np.sum(ys)


def mul(a, b):
    return a * b


def add(a, b):
    return a + b


def cond_fn(x, y):
    return lax.cond(np.sum(x) > 2.0, mul, add, x, y)


def map_fn(x):
    return lax.map(np.sin, x)


def select_fn(x, y):
    return lax.select(x > 1.0, x * y, y)


def test_control_flow_values():
    np.testing.assert_allclose(fori_fn(XS), fori_ref(XS), rtol=1e-14)
    np.testing.assert_allclose(while_fn(XS), while_ref(XS), rtol=1e-14)
    np.testing.assert_allclose(newton_sqrt(2.0), math.sqrt(2.0), rtol=1e-15)
    np.testing.assert_allclose(scan_fn(0.3, XS), scan_ref(0.3, XS), rtol=1e-14)
    np.testing.assert_allclose(scan_rev_fn(0.3, XS), scan_ref(0.3, XS, reverse=True), rtol=1e-14)
    np.testing.assert_allclose(scan_length_fn(2.0), 2.0 * 1.5 ** 3 + 2.0 * (1 + 1.5 + 2.25), rtol=1e-15)
    np.testing.assert_allclose(cond_fn(XS, XS + 1), XS * (XS + 1), rtol=1e-15)
    np.testing.assert_allclose(cond_fn(XS / 10, XS), XS / 10 + XS, rtol=1e-15)
    np.testing.assert_allclose(map_fn(M), np.sin(M), rtol=1e-15)
    np.testing.assert_allclose(select_fn(XS, XS + 2), np.where(XS > 1.0, XS * (XS + 2), XS + 2))
    assert lax.switch(1, [np.sin, np.cos, np.tan], 0.5) == np.cos(0.5)
    assert lax.switch(7, [np.sin, np.cos], 0.5) == np.cos(0.5)  # clamped, as in JAX
    assert lax.switch(-3, [np.sin, np.cos], 0.5) == np.sin(0.5)


@pytest.mark.parametrize("fn, args", [
    (fori_fn, (XS,)), (while_fn, (XS,)), (newton_sqrt, (2.0,)), (scan_fn, (0.3, XS)),
    (scan_rev_fn, (0.3, XS)), (scan_length_fn, (2.0,)), (cond_fn, (XS, XS + 1)), (cond_fn, (XS / 10, XS)),
    (map_fn, (M,)), (select_fn, (XS, XS + 2)),
], ids=["fori", "while", "while_tuple_state", "scan", "scan_reverse", "scan_length", "cond_true",
        "cond_false", "map", "select"])
def test_control_flow_grads(fn, args):
    check_grads(fn, args, order=2, modes=("fwd", "rev"))


def test_grad_of_while_loop_is_reverse_mode_and_exact():
    """JAX raises for reverse-mode of while_loop; s2s's grad is d sqrt(a)/da = 1/(2 sqrt(a))."""
    g = s2s.grad(newton_sqrt)(2.0)
    np.testing.assert_allclose(g, 0.5 / math.sqrt(2.0), rtol=1e-12)

    def loss(x):
        return np.sum(while_fn(x) ** 2)
    eps = 1e-6
    fd = [(np.sum(while_ref(XS + eps * e) ** 2) - np.sum(while_ref(XS - eps * e) ** 2)) / (2 * eps)
          for e in np.eye(3)]
    np.testing.assert_allclose(s2s.grad(loss)(XS), fd, rtol=1e-6)


@pytest.mark.parametrize("fn, ref", [(fori_fn, fori_ref), (while_fn, while_ref), (map_fn, np.sin)],
                         ids=["fori", "while", "map"])
def test_control_flow_vmap(fn, ref):
    batch = np.stack([XS, XS * 1.1, XS * 0.3 + 0.2])
    np.testing.assert_allclose(s2s.vmap(fn)(batch), np.stack([ref(b) for b in batch]), rtol=1e-13)
    np.testing.assert_allclose(s2s.jit(fn)(batch[1]), ref(batch[1]), rtol=1e-13)


def test_scan_vmap_and_jit():
    batch = np.stack([XS, XS + 0.2, XS * 0.5])
    out = s2s.vmap(scan_fn, in_axes=(None, 0))(0.3, batch)
    np.testing.assert_allclose(out, [scan_ref(0.3, b) for b in batch], rtol=1e-13)
    np.testing.assert_allclose(s2s.jit(scan_fn)(0.3, XS), scan_ref(0.3, XS), rtol=1e-13)


def test_while_loop_vmap_of_grad():
    """Per-example reverse-mode gradients through a while_loop with per-example trip counts."""
    a = np.array([2.0, 9.0, 0.25])
    np.testing.assert_allclose(s2s.vmap(s2s.grad(newton_sqrt))(a), 0.5 / np.sqrt(a), rtol=1e-10)


# ---- slicing ----

def dslice(x, i, j):
    return lax.dynamic_slice(x, (i, j), (2, 2))


def dslice_dim(x, i):
    return lax.dynamic_slice_in_dim(x, i, 2, axis=1)


def dupdate(x, u, i):
    return lax.dynamic_update_slice(x, u, (i, 1))


def dupdate_dim(x, u, i):
    return lax.dynamic_update_slice_in_dim(x, u, i, axis=0)


def dindex(x, i):
    return lax.dynamic_index_in_dim(x, i, axis=1, keepdims=False) + np.sum(lax.dynamic_index_in_dim(x, i))


def index(x):
    return lax.index_in_dim(x, -1, axis=1, keepdims=False) * np.sum(lax.index_in_dim(x, 1))


def slice_fn(x):
    return lax.slice(x, (0, 1), (3, 4), (2, 2))


def slice_dim(x):
    return lax.slice_in_dim(x, 1, 4, stride=2, axis=1) + lax.slice_in_dim(x, -3, -1, axis=1)


def concat(x, y):
    return lax.concatenate([x, y, x * y], 1)


PAD_CONFIG = [(1, -1, 1), (0, 2, 2)]


def pad_fn(x, v):
    return lax.pad(x, v, PAD_CONFIG)


def pad_ref(x, v):
    lo0, hi0, in0 = PAD_CONFIG[0]
    lo1, hi1, in1 = PAD_CONFIG[1]
    n0, n1 = x.shape
    big = np.full((n0 + (n0 - 1) * in0 + 2 * 10, n1 + (n1 - 1) * in1 + 2 * 10), v)
    big[10:10 + n0 + (n0 - 1) * in0:in0 + 1, 10:10 + n1 + (n1 - 1) * in1:in1 + 1] = x
    r0 = slice(10 - lo0, 10 + n0 + (n0 - 1) * in0 + hi0)
    r1 = slice(10 - lo1, 10 + n1 + (n1 - 1) * in1 + hi1)
    return big[r0, r1]


DN = (((2,), (1,)), ((0,), (0,)))


def dot_general_fn(a, b):
    return lax.dot_general(a, b, DN, precision=lax.Precision.HIGHEST)


def dot_general_plain(a, b):
    return lax.dot_general(a, b, (((0,), (1,)), ((), ())))


A3 = np.random.default_rng(0).normal(size=(2, 3, 4))
B3 = np.random.default_rng(1).normal(size=(2, 4, 5))


def test_slicing_values():
    np.testing.assert_array_equal(dslice(M, 1, 1), M[1:3, 1:3])
    np.testing.assert_array_equal(dslice(M, 2, 5), M[1:3, 2:4])  # clamped so the block fits
    np.testing.assert_array_equal(dslice_dim(M, 1), M[:, 1:3])
    u = -np.ones((2, 2))
    expected = M.copy()
    expected[1:3, 1:3] = u
    np.testing.assert_array_equal(dupdate(M, u, 1), expected)
    np.testing.assert_array_equal(dupdate(M, u, 5), expected)  # clamped
    e2 = M.copy()
    e2[1:2] = 7.0
    np.testing.assert_array_equal(dupdate_dim(M, np.full((1, 4), 7.0), 1), e2)
    np.testing.assert_array_equal(dindex(M, 2), M[:, 2] + np.sum(M[2]))
    np.testing.assert_array_equal(index(M), M[:, -1] * np.sum(M[1]))
    np.testing.assert_array_equal(slice_fn(M), M[0:3:2, 1:4:2])
    np.testing.assert_array_equal(slice_dim(M), M[:, 1:4:2] + M[:, -3:-1])
    np.testing.assert_array_equal(concat(M, M + 1), np.concatenate([M, M + 1, M * (M + 1)], 1))
    np.testing.assert_array_equal(pad_fn(M, -1.0), pad_ref(M, -1.0))
    np.testing.assert_allclose(dot_general_fn(A3, B3), np.einsum("bij,bjk->bik", A3, B3), rtol=1e-13)
    np.testing.assert_allclose(dot_general_plain(M, M.T), np.einsum("ij,ki->jk", M, M.T), rtol=1e-13)


@pytest.mark.parametrize("fn, args", [
    (lambda x: dslice(x, 1, 1), (M,)), (lambda x: dslice_dim(x, 1), (M,)),
    (lambda x, u: dupdate(x, u, 1), (M, -np.ones((2, 2)))),
    (lambda x, u: dupdate_dim(x, u, 2), (M, np.full((1, 4), 7.0))), (lambda x: dindex(x, 2), (M,)),
    (index, (M,)), (slice_fn, (M,)),
    (slice_dim, (M,)), (concat, (M, M + 1)), (pad_fn, (M, -1.0)), (dot_general_fn, (A3, B3)),
    (dot_general_plain, (M, M.T)),
], ids=["dynamic_slice", "dynamic_slice_in_dim", "dynamic_update_slice", "dynamic_update_slice_in_dim",
        "dynamic_index_in_dim", "index_in_dim", "slice", "slice_in_dim", "concatenate", "pad", "dot_general",
        "dot_general_no_batch"])
def test_slicing_grads(fn, args):
    check_grads(fn, args, order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("fn, extra", [(dslice, (1, 1)), (dslice_dim, (1,)), (dindex, (2,)), (index, ()),
                                       (slice_fn, ()), (slice_dim, ()), (pad_fn, (-1.0,))],
                         ids=["dynamic_slice", "dynamic_slice_in_dim", "dynamic_index_in_dim", "index_in_dim",
                              "slice", "slice_in_dim", "pad"])
def test_slicing_vmap(fn, extra):
    batch = np.stack([M, M * 2.0, M - 1.0])
    axes = (0,) + (None,) * len(extra)
    out = s2s.vmap(fn, in_axes=axes)(batch, *extra)
    np.testing.assert_allclose(out, np.stack([fn(b, *extra) for b in batch]), rtol=1e-14)


def test_dot_general_vmap():
    batch = np.stack([M, M + 1.0])
    out = s2s.vmap(dot_general_plain, in_axes=(0, None))(batch, M.T)
    np.testing.assert_allclose(out, np.stack([dot_general_plain(b, M.T) for b in batch]), rtol=1e-13)


# ---- elementwise ----

ELEMENTWISE = {
    "exp": np.exp, "log": np.log, "sin": np.sin, "cos": np.cos, "tan": np.tan, "tanh": np.tanh,
    "sinh": np.sinh, "cosh": np.cosh, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "exp2": np.exp2, "expm1": np.expm1, "log1p": np.log1p, "sqrt": np.sqrt, "cbrt": np.cbrt, "abs": np.abs,
    "neg": np.negative, "square": np.square, "rsqrt": lambda x: 1 / np.sqrt(x),
    "logistic": lambda x: 1 / (1 + np.exp(-x)), "erf": np.vectorize(math.erf),
}
BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "max": np.maximum,
          "min": np.minimum, "pow": np.power, "atan2": np.arctan2, "rem": np.fmod}
U = np.array([0.15, 0.4, 0.85])  # inside every domain above
V = np.array([0.7, 0.3, 0.95])


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_unary(name):
    fn = getattr(lax, name)
    np.testing.assert_allclose(fn(U), ELEMENTWISE[name](U), rtol=1e-14)
    check_grads(lambda x: fn(x), (U,), order=2, modes=("fwd", "rev"))
    np.testing.assert_allclose(s2s.vmap(lambda x: fn(x))(M), ELEMENTWISE[name](M), rtol=1e-14)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(name):
    fn = getattr(lax, name)
    np.testing.assert_allclose(fn(U, V), BINARY[name](U, V), rtol=1e-14)
    check_grads(lambda x, y: fn(x, y), (U, V), order=2, modes=("fwd", "rev"))


def test_other_elementwise():
    np.testing.assert_allclose(lax.integer_pow(U, 3), U ** 3, rtol=1e-15)
    check_grads(lambda x: lax.integer_pow(x, 3), (U,), order=2, modes=("fwd", "rev"))
    np.testing.assert_array_equal(lax.sign(np.array([-2.0, 0.0, 3.0])), [-1.0, 0.0, 1.0])
    np.testing.assert_array_equal(lax.round(np.array([-2.5, 0.5, 1.4, 2.5])), [-3.0, 1.0, 1.0, 3.0])
    np.testing.assert_array_equal(lax.floor(U * 3), np.floor(U * 3))
    np.testing.assert_array_equal(lax.ceil(U * 3), np.ceil(U * 3))
    assert lax.convert_element_type(U, np.float32).dtype == np.float32
    np.testing.assert_allclose(lax.erf(np.linspace(-9, 9, 301)), np.vectorize(math.erf)(np.linspace(-9, 9, 301)),
                               atol=4e-15)
    np.testing.assert_allclose(lax.dot(M, M.T), M @ M.T, rtol=1e-14)


def erf_series_loss(x):
    return np.sum(lax._erf_series(x) ** 2)


def test_erf_series_the_error_function_without_scipy():
    """lax.erf is SciPy's where SciPy is installed; its NumPy series stands in otherwise."""
    xs = np.linspace(-9, 9, 301)
    np.testing.assert_allclose(lax._erf_series(xs), np.vectorize(math.erf)(xs), atol=4e-15)
    x = np.array([-1.3, 0.2, 0.9])
    want = 2 * np.vectorize(math.erf)(x) * 2 / math.sqrt(math.pi) * np.exp(-x * x)  # by hand
    np.testing.assert_allclose(s2s.grad(erf_series_loss)(x), want, rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(erf_series_loss))(np.stack([x, -x])), [want, -want], rtol=1e-12)


def stopped(x):
    return np.sum(x * lax.stop_gradient(x))


def test_stop_gradient():
    np.testing.assert_allclose(s2s.grad(stopped)(U), U, rtol=1e-15)


def switched(x, k):
    return lax.switch(k, (np.sin, np.cos), x)


def test_switch_inside_a_transform_runs_the_branch_taken():
    for k, want in ((0, np.cos(0.5)), (1, -np.sin(0.5)), (5, -np.sin(0.5)), (-2, np.cos(0.5))):  # clamped
        np.testing.assert_allclose(s2s.grad(switched)(0.5, k), want, rtol=1e-15)
    ks = np.array([0, 1, 0])
    got = s2s.vmap(s2s.grad(switched), in_axes=(0, 0))(XS, ks)
    np.testing.assert_allclose(got, [np.cos(x) if k == 0 else -np.sin(x) for x, k in zip(XS, ks)], rtol=1e-15)


def test_cond_vmap_takes_each_examples_branch():
    batch = np.stack([XS, XS / 10, XS * 2])  # sums 3.0, 0.3, 6.0: branches true, false, true
    out = s2s.vmap(cond_fn)(batch, batch + 1)
    np.testing.assert_allclose(out, np.stack([cond_fn(b, b + 1) for b in batch]), rtol=1e-15)


def below_five(v):
    return v < 5.0


def double(v):
    return v * 2.0


def cubed_after_doubling(x):
    return lax.while_loop(below_five, double, x) ** 3


def test_hessian_through_while_loop():
    """0.3 doubles 5 times: f(x) = (32 x)^3, f'' = 6 * 32^3 * x."""
    np.testing.assert_allclose(s2s.hessian(cubed_after_doubling)(0.3), 6 * 32.0 ** 3 * 0.3, rtol=1e-12)
