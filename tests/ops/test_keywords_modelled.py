"""Keywords that change values are modelled by every path or refused (issue 44, family 2), and the
internal crashes of family 7 work or are S2SErrors. Each case compares the plain function with jit,
vmap against a loop over examples, and grad/jvp against central differences."""
import math

import numpy as np
import pytest

import s2s
from s2s import lax
from s2s.errors import S2SError

A = np.array([[1.0, 2.0, -0.5], [3.0, 4.0, 0.7]])
V = np.array([0.3, -1.2, 2.0, 0.9])
W4 = np.arange(6.0)


def _fd(f, args, i, eps=1e-6):
    out = np.zeros(np.shape(args[i]))
    for idx in np.ndindex(out.shape):
        e = np.zeros(out.shape)
        e[idx] = eps
        plus, minus = list(args), list(args)
        plus[i], minus[i] = args[i] + e, args[i] - e
        out[idx] = (f(*plus) - f(*minus)) / (2 * eps)
    return out


def _check(f, *args, vmap=True):
    """jit == plain; grad and jvp == central differences in every argument; vmap == a loop."""
    want = f(*args)
    np.testing.assert_allclose(s2s.jit(f)(*args), want, rtol=1e-12, atol=1e-12)
    grads = s2s.grad(f, argnums=tuple(range(len(args))))(*args)
    rng = np.random.default_rng(0)
    d = tuple(rng.standard_normal(np.shape(a)) for a in args)
    fds = [_fd(f, args, i) for i in range(len(args))]
    for g, fd in zip(grads, fds):
        np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(s2s.jvp(f, args, d)[1], sum(np.sum(fd * t) for fd, t in zip(fds, d)), rtol=1e-6,
                               atol=1e-7)
    if vmap:
        batch = tuple(np.stack([a, 1.5 * a - 0.25]) for a in args)
        loop = [f(*ex) for ex in zip(*batch)]
        np.testing.assert_allclose(s2s.vmap(f)(*batch), loop, rtol=1e-12, atol=1e-12)


def flatten_f(a):
    return np.sum(a.flatten("F") * W4 ** 2)


def ravel_f(a):
    return np.sum(np.ravel(a, order="F") * W4) + np.sum(a.ravel("F") ** 3 * W4)


def reshape_f(a):
    return np.sum(np.reshape(a, (3, 2), order="F") * np.arange(6.0).reshape(3, 2)) + \
        np.sum(a.reshape(3, 2, order="F")[0] ** 2)


def reshape_f_shape_variable(a):
    shape = (3, 2)
    return np.sum(np.reshape(a, shape, order="F")[:, 0] * np.array([1.0, 2.0, 3.0]))


def ravel_c(a):
    return np.sum(np.ravel(a, order="C") * W4) + np.sum(a.flatten(order=None) * W4)


@pytest.mark.parametrize("f", [flatten_f, ravel_f, reshape_f, reshape_f_shape_variable, ravel_c])
def test_order_f_is_modelled_by_every_path(f):
    """`A.flatten("F")` (jit gave C order's value: 14.0 where NumPy gives 13.0), ravel, reshape:
    read in Fortran order by the value, jit, grad, jvp and vmap alike."""
    _check(f, A)


def jit_changes_no_value(a):
    return np.sum(a.flatten("F") * np.arange(4.0))


def test_the_issue_example():
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert jit_changes_no_value(a) == 19.0 and s2s.jit(jit_changes_no_value)(a) == 19.0
    np.testing.assert_array_equal(s2s.grad(jit_changes_no_value)(a), [[0.0, 2.0], [1.0, 3.0]])


def ravel_any(a):
    return np.sum(np.ravel(a, order="A"))


def ravel_k(a):
    return np.sum(a.flatten("K"))


@pytest.mark.parametrize("f", [ravel_any, ravel_k])
def test_memory_layout_orders_are_refused(f):
    """order="A"/"K" follow the array's memory layout, which s2s does not see: refused at the line."""
    for t in (s2s.jit, s2s.grad):
        with pytest.raises(S2SError, match="order="):
            t(f)(A)


def take_clip(v):
    return np.sum(np.take(v, [-1, 0, 9], mode="clip") * np.array([1.0, 10.0, 100.0]))


def take_wrap(v):
    return np.sum(np.take(v, [5, -6, 1], mode="wrap") * np.array([1.0, 10.0, 100.0]))


def take_clip_axis(a):
    return np.sum(np.take(a, [-3, 7], axis=1, mode="clip") ** 2) + np.sum(a.take([4], axis=0, mode="wrap"))


@pytest.mark.parametrize("f, x", [(take_clip, V), (take_wrap, V), (take_clip_axis, A)])
def test_take_modes(f, x):
    """mode="clip" clips -1 to 0 (it is not "last"), "wrap" reads modulo the length; out-of-range
    indices worked in the value but crashed the derivatives."""
    _check(f, x)


def chol_upper(s):
    return np.sum(np.linalg.cholesky(s @ s.T + np.eye(3), upper=True) * np.array([[1.0, 2.0, 3.0]] * 3))


def chol_lower(s):
    return np.sum(np.linalg.cholesky(s @ s.T + np.eye(3), upper=False) ** 2)


@pytest.mark.parametrize("f", [chol_upper, chol_lower])
def test_cholesky_upper(f):
    _check(f, np.array([[1.0, 0.2, 0.1], [0.3, 0.9, -0.2], [0.0, 0.4, 1.1]]))


def clip_all(x, lo, hi):
    return np.sum(np.clip(x, lo, hi) * np.array([1.0, 2.0, 3.0, 4.0]))


def test_clip_with_crossed_bounds():
    """Where lo > hi NumPy returns hi: its derivative is hi's, not lo's nor x's."""
    x = np.array([0.5, 1.5, 2.5, -1.0])
    lo = np.array([2.0, 0.0, 0.0, 1.0])
    hi = np.array([1.0, 1.0, 3.0, 0.5])
    _check(clip_all, x, lo, hi)


def pinv_cut(a):
    return np.sum(np.linalg.pinv(a, rcond=1e-2))


def pinv_rtol(a):
    return np.sum(np.linalg.pinv(a, rtol=0.05) * np.array([[1.0, 2.0, 0.5], [3.0, -1.0, 0.2]]).T)


def test_pinv_rcond_and_rtol_are_numpys_cutoff():
    """rcond= and rtol= give NumPy's value; a derivative where the cutoff drops a singular value is
    refused (it changes the derivative; s2s's rule is the full-rank pseudo-inverse's), and one
    where it drops none is the full pinv's."""
    p = np.array([[1.0, 0.0], [0.0, 1e-3]])
    np.testing.assert_allclose(s2s.jit(pinv_cut)(p), pinv_cut(p), rtol=1e-12)
    for t in (s2s.grad, s2s.jacfwd):
        with pytest.raises(S2SError, match="drops 1 singular value"):
            t(pinv_cut)(p)
    _check(pinv_cut, np.array([[1.0, 0.2], [0.1, 0.5]]))
    _check(pinv_rtol, A, vmap=True)


def concat_none(a):
    return np.sum(np.concatenate([a, a * 2.0], axis=None) * np.arange(12.0))


def test_concatenate_axis_none():
    """vmap ran across the examples; grad crashed (family 7)."""
    _check(concat_none, A)


def prod_empty(x):
    return np.prod(x[4:]) + np.prod(x[1:]) + np.sum(np.prod(x[None, 3:3], axis=1))


def solve_stack(s, b):
    return np.sum(np.sin(np.linalg.solve(s, b)))


def linspace_step(x):
    a, step = np.linspace(0.0, x, 5, retstep=True)
    b, step2 = np.linspace(x, 2.0 * x, 4, endpoint=False, retstep=True)
    return np.sum(a) * step + np.sum(b * step2)


def qr_r(a):
    return np.sum(np.linalg.qr(a, mode="r") ** 2 * np.array([[1.0, 2.0], [0.0, 3.0]]))


def log_base(x):
    return math.log(x, 2) * math.log(x + 1.0, 10.0)


def max_initial(x):
    return np.max(x[4:], initial=0.5) + np.max(x, initial=1.0) + np.min(x[:0], initial=-2.0)


def scan_tuple(x):
    def body(c, xs):
        a, b = xs
        return c * 0.5 + a * b, (c, a * c)
    c, (y1, y2) = lax.scan(body, 1.0, (x, x * 2.0))
    return c + np.sum(y1) + np.sum(y2 ** 2)


def test_family_7_crashes_work():
    """Each raised an internal error: np.prod of an empty slice (grad), np.linalg.solve of a stack
    with a 1-d b, np.linspace(retstep=True), qr(mode="r"), math.log(x, 2), np.max of an empty
    array with initial=, lax.scan over a tuple of arrays."""
    _check(prod_empty, V)
    rng = np.random.default_rng(3)
    _check(solve_stack, rng.standard_normal((2, 3, 3)) * 0.3 + 2.0 * np.eye(3), np.array([1.0, -2.0, 0.5]))
    _check(linspace_step, np.array(1.3))
    _check(qr_r, np.array([[1.0, 2.0], [0.5, -1.0], [0.3, 0.8]]))
    _check(log_base, np.array(2.5), vmap=False)
    assert s2s.grad(log_base)(2.5) == pytest.approx(_fd(lambda x: log_base(float(x)), (np.array(2.5),), 0))
    _check(max_initial, V)
    _check(scan_tuple, V)


def max_where_no_initial(x):
    return np.max(x, where=x > 0.0)


def test_max_where_without_initial_is_numpys_error():
    """NumPy raises (maximum has no identity); s2s gave a number."""
    with pytest.raises(ValueError):
        max_where_no_initial(V)
    for t in (s2s.jit, s2s.grad):
        with pytest.raises((ValueError, S2SError)):
            t(max_where_no_initial)(V)


def write_stats(x, stats):
    h = np.sum(x ** 2)
    stats["h"] = h
    return h


def test_writing_a_new_key_into_a_dict_argument():
    """grad raised KeyError (the backward sweep saved the key's old item, which did not exist)."""
    np.testing.assert_allclose(s2s.grad(write_stats)(V, {}), 2 * V)
    stats = {}
    assert s2s.jit(write_stats)(V, stats) == write_stats(V, {}) and stats["h"] == write_stats(V, {})


def delta(s, y):
    n = s.shape[0]
    e = np.exp(s - np.max(s, axis=1, keepdims=True))
    d = e / np.sum(e, axis=1, keepdims=True)
    d[range(n), y] -= 1
    return d


def delta_loss(s, y):
    return np.sum(delta(s, y) ** 2)


def test_vmap_grad_of_a_callee_indexing_with_a_range():
    """`d[range(n), y] -= 1` in a callee: vmap(grad) raised IndexError in lift_rank_to_slot (the
    range, kept in the record, was read as a batched index)."""
    rng = np.random.default_rng(5)
    s = rng.standard_normal((4, 3))
    ys = np.array([[0, 2, 1, 2], [1, 1, 0, 2]])
    g = s2s.grad(delta_loss)
    want = np.stack([g(s, y) for y in ys])
    np.testing.assert_allclose(s2s.vmap(g, in_axes=(None, 0))(s, ys), want, rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(g, in_axes=(0, 0))(np.stack([s, s]), ys), want, rtol=1e-12)
    ss = np.stack([s, 2.0 * s])
    np.testing.assert_allclose(s2s.vmap(g, in_axes=(0, None))(ss, ys[0]), np.stack([g(r, ys[0]) for r in ss]),
                               rtol=1e-12)
    np.testing.assert_allclose(g(s, ys[0]), _fd(lambda t: delta_loss(t, ys[0]), (s,), 0), rtol=1e-6, atol=1e-8)


def conv(x, w, spec):
    return lax.conv_general_dilated(x, w, (1,) * (x.ndim - 2), "VALID", dimension_numbers=spec)


def conv_whio(x, w_hwio):
    return conv(x, np.transpose(w_hwio, (1, 0, 2, 3)), ("NHWC", "WHIO", "NHWC"))


def conv_hwio(x, w_hwio):
    return conv(x, w_hwio, ("NHWC", "HWIO", "NHWC"))


def conv_hwdio(x, w):
    return conv(x, w, ("NHWDC", "HWDIO", "NHWDC"))


def conv_dhwio(x, w):
    return conv(x, np.transpose(w, (2, 0, 1, 3, 4)), ("NHWDC", "DHWIO", "NHWDC"))


def test_conv_kernel_letters_pair_with_the_inputs_letters():
    """A kernel whose spatial letters are not in the input's order ('WHIO' with 'NHWC') paired its
    W with the input's H; the same kernel in any letter order gives one convolution."""
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal((1, 4, 5, 2)), rng.standard_normal((2, 3, 2, 1))
    ref = np.zeros((1, 3, 3, 1))
    for i in range(3):
        for j in range(3):
            ref[:, i, j, :] = np.einsum("nhwc,hwco->no", x[:, i:i + 2, j:j + 3, :], w)
    np.testing.assert_allclose(conv_hwio(x, w), ref, rtol=1e-12)
    np.testing.assert_allclose(conv_whio(x, w), ref, rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(conv_whio)(x, w), ref, rtol=1e-12)
    x3, w3 = rng.standard_normal((1, 4, 5, 3, 2)), rng.standard_normal((2, 3, 2, 2, 1))
    np.testing.assert_allclose(conv_hwdio(x3, w3), conv_dhwio(x3, w3), rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(conv_hwdio)(x3, w3), conv_dhwio(x3, w3), rtol=1e-12)


def array_ndmin(v):
    a = np.array(v, ndmin=3)
    return np.sum(a * np.arange(1.0, 5.0)) * a.ndim + np.sum(np.array(v[:2], ndmin=2) @ np.ones((2, 3)))


def isclose_tolerances(v):
    near = np.isclose(v, np.array([0.25, -1.0, 2.2, 1.0]), rtol=0.05, atol=0.1)
    return np.sum(np.where(near, v * v, v)) + np.sum(np.isclose(v, v[::-1], 0.0, 0.5, True) * v)


@pytest.mark.parametrize("f", [array_ndmin, isclose_tolerances])
def test_ndmin_and_isclose_tolerances_are_modelled(f):
    """np.array(x, ndmin=k) prepends ones to the shape (a reshape); np.isclose's rtol, atol and
    equal_nan decide which entries are close. Both were refused by the sweep."""
    _check(f, V)
    assert np.array(V, ndmin=3).shape == s2s.jit(lambda v: np.array(v, ndmin=3))(V).shape == (1, 1, 4)


def test_ndmin_with_a_dtype_stays_refused():
    with pytest.raises(S2SError, match="ndmin="):
        s2s.grad(lambda v: np.sum(np.array(v, dtype=np.float64, ndmin=2)))(V)
