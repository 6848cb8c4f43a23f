"""s2s.lax.conv_general_dilated, reduce_window and their shape helpers against a direct NumPy
loop (the definition: dilate, pad, slide the window), their VJP, JVP and second derivatives
against central finite differences, their batching against a loop over examples."""
import numpy as np
import pytest

import s2s
from s2s import lax
from s2s.errors import S2SValueError

RNG = np.random.default_rng(7)
H = 1e-6


def _dilate_pad(x, dil, pads):
    """(N, C, A, B) dilated by `dil` then padded by `pads` (negative: cropped), by assignment."""
    n, c, a, b = x.shape
    xd = np.zeros((n, c, (a - 1) * dil[0] + 1, (b - 1) * dil[1] + 1))
    for i in range(a):
        for j in range(b):
            xd[:, :, i * dil[0], j * dil[1]] = x[:, :, i, j]
    (lo0, hi0), (lo1, hi1) = pads
    xp = np.zeros((n, c, xd.shape[2] + max(lo0, 0) + max(hi0, 0), xd.shape[3] + max(lo1, 0) + max(hi1, 0)))
    xp[:, :, max(lo0, 0):max(lo0, 0) + xd.shape[2], max(lo1, 0):max(lo1, 0) + xd.shape[3]] = xd
    return xp[:, :, -min(lo0, 0):xp.shape[2] + min(hi0, 0), -min(lo1, 0):xp.shape[3] + min(hi1, 0)]


def conv_loop(x, w, strides, pads, ld=(1, 1), rd=(1, 1), groups=1):
    """NCHW x OIHW -> NCHW, by the definition."""
    xp = _dilate_pad(x, ld, pads)
    o, i, k0, k1 = w.shape
    e0, e1 = (k0 - 1) * rd[0] + 1, (k1 - 1) * rd[1] + 1
    m0, m1 = (xp.shape[2] - e0) // strides[0] + 1, (xp.shape[3] - e1) // strides[1] + 1
    out = np.zeros((x.shape[0], o, m0, m1))
    per = o // groups
    for oc in range(o):
        g = oc // per
        for p in range(m0):
            for q in range(m1):
                win = xp[:, g * i:(g + 1) * i, p * strides[0]:p * strides[0] + e0:rd[0],
                         q * strides[1]:q * strides[1] + e1:rd[1]]
                out[:, oc, p, q] = np.sum(win * w[oc], axis=(1, 2, 3))
    return out


# (lhs NCHW shape, rhs OIHW shape, strides, padding given, the pairs it means, lhs dil, rhs dil, groups)
CASES = [
    ((2, 3, 7, 6), (4, 3, 3, 2), (1, 1), "VALID", ((0, 0), (0, 0)), None, None, 1),
    ((2, 3, 7, 6), (4, 3, 3, 2), (2, 1), "SAME", ((1, 1), (0, 1)), None, None, 1),   # out 4 x 6
    ((1, 2, 6, 5), (2, 2, 4, 4), (2, 2), "SAME_LOWER", ((1, 1), (2, 1)), None, None, 1),
    ((2, 4, 5, 6), (6, 2, 2, 3), (1, 2), ((1, 2), (0, -1)), ((1, 2), (0, -1)), (2, 1), (1, 2), 2),
    ((1, 2, 8, 8), (3, 2, 2, 2), (3, 2), ((2, 0), (1, 1)), ((2, 0), (1, 1)), None, (3, 2), 1),
]


def _args(case):
    lhs_shape, rhs_shape, strides, padding, pairs, ld, rd, groups = case
    return RNG.normal(size=lhs_shape), RNG.normal(size=rhs_shape), (strides, padding, ld, rd, groups, pairs)


def _conv(settings):
    strides, padding, ld, rd, groups, _ = settings
    return lambda x, w: lax.conv_general_dilated(x, w, strides, padding, ld, rd, feature_group_count=groups)


def _loop(settings):
    strides, _, ld, rd, groups, pairs = settings
    return lambda x, w: conv_loop(x, w, strides, pairs, ld or (1, 1), rd or (1, 1), groups)


@pytest.mark.parametrize("case", CASES)
def test_conv_matches_the_definition_and_its_shape_helper(case):
    x, w, settings = _args(case)
    got = _conv(settings)(x, w)
    np.testing.assert_allclose(got, _loop(settings)(x, w), rtol=1e-12, atol=1e-12)
    if settings[2] is None and settings[3] is None:
        assert lax.conv_general_shape_tuple(x.shape, w.shape, settings[0], settings[1], None) == got.shape


def test_dimension_numbers_are_layouts_of_the_same_convolution():
    x, w = RNG.normal(size=(2, 3, 7, 6)), RNG.normal(size=(4, 3, 3, 2))
    want = conv_loop(x, w, (2, 1), ((1, 1), (0, 1)))
    xh, wh = np.transpose(x, (0, 2, 3, 1)), np.transpose(w, (2, 3, 1, 0))  # NHWC, HWIO
    dn = ("NHWC", "HWIO", "NHWC")
    got = lax.conv_general_dilated(xh, wh, (2, 1), "SAME", dimension_numbers=dn)
    np.testing.assert_allclose(got, np.transpose(want, (0, 2, 3, 1)), rtol=1e-12, atol=1e-12)
    assert lax.conv_general_shape_tuple(xh.shape, wh.shape, (2, 1), "SAME", dn) == got.shape == (2, 4, 6, 4)
    assert lax.conv_dimension_numbers(xh.shape, wh.shape, dn) == ((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    got = lax.conv_general_dilated(xh, wh, (2, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NCHW"))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", CASES)
def test_vjp_and_jvp_match_finite_differences(case):
    x, w, settings = _args(case)
    conv = _conv(settings)
    ct = RNG.normal(size=conv(x, w).shape)
    dx, dw = RNG.normal(size=x.shape), RNG.normal(size=w.shape)

    def f(a, b):
        return np.sum(conv(a, b) * ct)
    gx, gw = s2s.grad(f, argnums=(0, 1))(x, w)
    fd = (f(x + H * dx, w + H * dw) - f(x - H * dx, w - H * dw)) / (2 * H)
    np.testing.assert_allclose(np.sum(gx * dx) + np.sum(gw * dw), fd, rtol=1e-6, atol=1e-7)
    y, dy = s2s.jvp(conv, (x, w), (dx, dw))
    np.testing.assert_allclose(y, conv(x, w), rtol=1e-12, atol=1e-12)
    fd = (conv(x + H * dx, w + H * dw) - conv(x - H * dx, w - H * dw)) / (2 * H)
    np.testing.assert_allclose(dy, fd, rtol=1e-6, atol=1e-7)


def test_second_derivatives_match_finite_differences_of_the_gradient():
    x, w, settings = _args(CASES[3])
    conv = _conv(settings)

    def f(a, b):
        return np.sum(np.tanh(conv(a, b)))
    g = s2s.grad(f, argnums=(0, 1))
    dx, dw = RNG.normal(size=x.shape), RNG.normal(size=w.shape)
    hx, hw = s2s.grad(lambda a, b: sum(np.sum(t * d) for t, d in zip(g(a, b), (dx, dw))), argnums=(0, 1))(x, w)
    plus, minus = g(x + H * dx, w + H * dw), g(x - H * dx, w - H * dw)
    np.testing.assert_allclose(hx, (plus[0] - minus[0]) / (2 * H), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(hw, (plus[1] - minus[1]) / (2 * H), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("argnums", [(0, 1), 0, 1])
@pytest.mark.parametrize("axes", [(0, None), (None, 0), (0, 0)])
def test_vmap_and_per_example_gradients_match_a_loop(axes, argnums):
    _, _, settings = _args(CASES[1])
    conv = _conv(settings)
    xs, ws = RNG.normal(size=(3, 2, 3, 7, 6)), RNG.normal(size=(3, 4, 3, 3, 2))
    x, w = (xs if axes[0] == 0 else xs[0]), (ws if axes[1] == 0 else ws[0])
    pick = [(x[k] if axes[0] == 0 else x, w[k] if axes[1] == 0 else w) for k in range(3)]
    np.testing.assert_allclose(s2s.vmap(conv, in_axes=axes)(x, w), [conv(a, b) for a, b in pick], rtol=1e-12)

    def loss(a, b):
        return np.sum(np.sin(conv(a, b)))
    got = s2s.vmap(s2s.grad(loss, argnums=argnums), in_axes=axes)(x, w)
    got = got if isinstance(argnums, tuple) else (got,)
    for k, (a, b) in enumerate(pick):
        want = s2s.grad(loss, argnums=argnums)(a, b)
        for g, h in zip(got, want if isinstance(argnums, tuple) else (want,)):
            np.testing.assert_allclose(g[k], h, rtol=1e-10, atol=1e-12)


def test_conv_refuses_what_it_does_not_compute():
    x, w = np.ones((2, 2, 4, 4)), np.ones((2, 1, 2, 2))
    with pytest.raises(S2SValueError, match="batch_group_count"):
        lax.conv_general_dilated(x, w, (1, 1), "VALID", batch_group_count=2)
    with pytest.raises(S2SValueError, match="String padding"):
        lax.conv_general_dilated(x, w, (1, 1), "SAME", lhs_dilation=(2, 2))
    with pytest.raises(S2SValueError, match="feature_group_count"):
        lax.conv_general_dilated(x, w, (1, 1), "VALID", feature_group_count=3)


# ---------------------------------------------------------------- reduce_window


def window_loop(x, init, op, window, strides, pairs, base=None, wdil=None):
    """reduce_window by the definition, on a 4-d operand: dilate, pad with init, fold each window."""
    base, wdil = base or (1,) * 4, wdil or (1,) * 4
    shape = [(n - 1) * b + 1 + lo + hi for n, b, (lo, hi) in zip(x.shape, base, pairs)]
    xp = np.full(shape, init)
    xp[tuple(slice(lo, lo + (n - 1) * b + 1, b) for n, b, (lo, _) in zip(x.shape, base, pairs))] = x
    span = [(w - 1) * r + 1 for w, r in zip(window, wdil)]
    out_shape = [(s - e) // st + 1 for s, e, st in zip(shape, span, strides)]
    out = np.empty(out_shape)
    for pos in np.ndindex(*out_shape):
        win = xp[tuple(slice(p * st, p * st + e, r) for p, st, e, r in zip(pos, strides, span, wdil))]
        acc = init
        for v in win.ravel():
            acc = op(acc, v)
        out[pos] = acc
    return out


WINDOWS = [  # window, strides, padding given, the pairs it means, base dilation, window dilation
    ((1, 2, 2, 1), (1, 1, 1, 1), "SAME", ((0, 0), (0, 1), (0, 1), (0, 0)), None, None),
    ((1, 3, 2, 1), (1, 2, 1, 1), "VALID", ((0, 0),) * 4, None, (1, 2, 1, 1)),
    ((2, 3, 1, 1), (1, 2, 2, 1), ((0, 1), (1, 1), (0, 0), (0, 0)), ((0, 1), (1, 1), (0, 0), (0, 0)), (1, 2, 1, 1),
     None),
]
X = RNG.normal(size=(2, 7, 6, 3))


@pytest.mark.parametrize("case", WINDOWS)
@pytest.mark.parametrize("op, init", [(lax.max, -np.inf), (lax.add, 0.0)], ids=["max", "add"])
def test_reduce_window_matches_the_definition_and_its_shape_helpers(case, op, init):
    window, strides, padding, pairs, base, wdil = case
    got = lax.reduce_window(X, init, op, window, strides, padding, base, wdil)
    np.testing.assert_allclose(got, window_loop(X, init, op, window, strides, pairs, base, wdil), rtol=1e-12)
    assert [tuple(p) for p in lax.padtype_to_pads(X.shape, window, strides, padding)] == list(pairs)
    assert lax.reduce_window_shape_tuple(X.shape, window, strides, pairs, base, wdil) == got.shape


@pytest.mark.parametrize("case", WINDOWS)
@pytest.mark.parametrize("op, init", [(lax.max, -np.inf), (lax.add, 0.0)], ids=["max", "add"])
def test_reduce_window_derivatives_and_batching(case, op, init):
    window, strides, padding, _, base, wdil = case

    def pool(x):
        return lax.reduce_window(x, init, op, window, strides, padding, base, wdil)
    ct = RNG.normal(size=pool(X).shape)
    dx = RNG.normal(size=X.shape)

    def f(x):
        return np.sum(pool(x) * ct)
    fd = (f(X + H * dx) - f(X - H * dx)) / (2 * H)
    np.testing.assert_allclose(np.sum(s2s.grad(f)(X) * dx), fd, rtol=1e-6, atol=1e-7)
    y, dy = s2s.jvp(pool, (X,), (dx,))
    np.testing.assert_allclose(dy, (pool(X + H * dx) - pool(X - H * dx)) / (2 * H), rtol=1e-6, atol=1e-7)
    assert np.all(np.isfinite(dy))  # the padding's -inf never reaches a tangent
    xs = RNG.normal(size=(3,) + X.shape)
    np.testing.assert_allclose(s2s.vmap(pool)(xs), [pool(x) for x in xs], rtol=1e-12)
    got = s2s.vmap(s2s.grad(lambda x: np.sum(np.sin(pool(x)))))(xs)
    want = [s2s.grad(lambda x: np.sum(np.sin(pool(x))))(x) for x in xs]
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


DN = ("NHWC", "HWIO", "NHWC")


def conv_pool(w, x):  # stax's Conv then MaxPool, on one NHWC example
    y = lax.conv_general_dilated(x[None], w, (1, 1), "SAME", dimension_numbers=DN)
    return lax.reduce_window(y, -np.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")


@pytest.mark.parametrize("axes", [(None, 0), (0, 0), (0, None)])
def test_grad_through_a_vmapped_convolution_and_per_example_gradients_of_a_layer(axes):
    ws, xs = RNG.normal(size=(3, 2, 2, 2, 3)), RNG.normal(size=(3, 4, 4, 2))
    w, x = (ws if axes[0] == 0 else ws[0]), (xs if axes[1] == 0 else xs[0])
    pick = [(w[k] if axes[0] == 0 else w, x[k] if axes[1] == 0 else x) for k in range(3)]

    def loss(w, x):
        return np.sum(np.sin(conv_pool(w, x)))
    got = s2s.vmap(s2s.grad(loss, argnums=(0, 1)), in_axes=axes)(w, x)
    for k, (a, b) in enumerate(pick):
        for g, h in zip(got, s2s.grad(loss, argnums=(0, 1))(a, b)):
            np.testing.assert_allclose(g[k], h, rtol=1e-10, atol=1e-12)

    def total(w, x):  # grad of a function that calls vmap: the batched convolution differentiated
        return np.sum(np.cos(s2s.vmap(conv_pool, in_axes=axes)(w, x)))
    dw, dx = RNG.normal(size=w.shape), RNG.normal(size=x.shape)
    gw, gx = s2s.grad(total, argnums=(0, 1))(w, x)
    fd = (total(w + H * dw, x + H * dx) - total(w - H * dw, x - H * dx)) / (2 * H)
    np.testing.assert_allclose(np.sum(gw * dw) + np.sum(gx * dx), fd, rtol=1e-6, atol=1e-7)
    _, dy = s2s.jvp(lambda w, x: s2s.vmap(conv_pool, in_axes=axes)(w, x), (w, x), (dw, dx))
    want = (s2s.vmap(conv_pool, in_axes=axes)(w + H * dw, x + H * dx)
            - s2s.vmap(conv_pool, in_axes=axes)(w - H * dw, x - H * dx)) / (2 * H)
    np.testing.assert_allclose(dy, want, rtol=1e-6, atol=1e-7)
