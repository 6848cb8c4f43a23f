"""np.lib.stride_tricks.sliding_window_view (issue 45 item 6): windows against NumPy under jit and
vmap, gradients (the windows' cotangents added back where each window starts) and tangents
against central differences, jvp against vjp, vmap of grad against a loop, second derivatives, a
vectorized conv2d forward with strides against a loop convolution, and max pooling; the refusals:
NumPy's own read-only error for a write into the view, `writeable=True`, an in-place update of the
array read later through its windows, and `as_strided` with a shape or strides."""
import numpy as np
import pytest
from helpers_compare import fd_grad, fd_hessian
from numpy.lib.stride_tricks import as_strided, sliding_window_view

import s2s

RNG = np.random.default_rng(4506)

CALLS = [
    ("1d", lambda x: sliding_window_view(x, 3), (7,)),
    ("2d_all_axes", lambda x: sliding_window_view(x, (2, 3)), (4, 5)),
    ("one_axis", lambda x: sliding_window_view(x, 2, axis=0), (4, 3)),
    ("negative_axis", lambda x: np.lib.stride_tricks.sliding_window_view(x, window_shape=3, axis=-1), (2, 6)),
    ("two_axes_3d", lambda x: sliding_window_view(x, (2, 2), axis=(1, 2)), (2, 4, 3)),
    ("repeated_axis", lambda x: sliding_window_view(x, (2, 3), axis=(0, 0)), (6, 2)),
    ("strided_windows", lambda x: sliding_window_view(x, (3, 3), axis=(0, 1))[::2, ::2], (7, 6)),
]
IDS = [c[0] for c in CALLS]


def _loss(op):
    def loss(x):
        w = op(x)
        return np.sum(np.sin(w) * np.arange(w.size).reshape(w.shape) / w.size)
    return loss


@pytest.mark.parametrize("name, op, shape", CALLS, ids=IDS)
def test_value_under_jit_and_vmap_is_numpys(name, op, shape):
    x = RNG.standard_normal(shape)
    np.testing.assert_array_equal(s2s.jit(op)(x), op(x))
    batch = RNG.standard_normal((3,) + shape)
    np.testing.assert_array_equal(s2s.vmap(op)(batch), np.stack([op(b) for b in batch]))


@pytest.mark.parametrize("name, op, shape", CALLS, ids=IDS)
def test_grad_jvp_and_vjp_match_central_differences(name, op, shape):
    x, v = RNG.standard_normal(shape), RNG.standard_normal(shape)
    f = _loss(op)
    want = fd_grad(f, x)
    np.testing.assert_allclose(s2s.grad(f)(x), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2s.jvp(f, (x,), (v,))[1], np.sum(want * v), rtol=1e-6, atol=1e-8)
    windows, tangent = s2s.jvp(op, (x,), (v,))
    np.testing.assert_array_equal(tangent, op(v))  # linear: the tangent's windows
    u = RNG.standard_normal(np.shape(windows))
    (ct,) = s2s.vjp(op, x)[1](u)
    np.testing.assert_allclose(np.sum(ct * v), np.sum(u * tangent), rtol=1e-12)


@pytest.mark.parametrize("name, op, shape", CALLS, ids=IDS)
def test_vmap_of_grad_matches_a_loop(name, op, shape):
    f = _loss(op)
    batch = RNG.standard_normal((3,) + shape)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(batch), np.stack([s2s.grad(f)(b) for b in batch]),
                               rtol=1e-12, atol=1e-14)


def test_second_derivatives():
    x = RNG.standard_normal((4, 3))
    f = _loss(CALLS[2][1])
    np.testing.assert_allclose(s2s.hessian(f)(x), fd_hessian(f, x), rtol=1e-5, atol=1e-7)


def conv2d(x, k, stride):
    """A vectorized conv2d forward (N, C, H, W) * (O, C, kh, kw): pad, take every window with
    sliding_window_view, keep every stride-th, contract with the kernel."""
    kh, kw = k.shape[2:]
    xpad = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    windows = sliding_window_view(xpad, (kh, kw), axis=(2, 3))[..., ::stride, ::stride, :, :]
    return np.einsum("nchwij,ocij->nohw", windows, k)


def conv2d_loop(x, k, stride):
    n, c, h, w = x.shape
    o, _, kh, kw = k.shape
    xpad = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    oh, ow = (h + 2 - kh) // stride + 1, (w + 2 - kw) // stride + 1
    out = np.zeros((n, o, oh, ow))
    for b in range(n):
        for f in range(o):
            for i in range(oh):
                for j in range(ow):
                    out[b, f, i, j] = np.sum(xpad[b, :, i * stride:i * stride + kh, j * stride:j * stride + kw] * k[f])
    return out


@pytest.mark.parametrize("stride", [1, 2])
def test_a_vectorized_conv2d_forward_and_its_gradients(stride):
    x, k = RNG.standard_normal((2, 3, 5, 6)), RNG.standard_normal((4, 3, 3, 3))
    np.testing.assert_allclose(conv2d(x, k, stride), conv2d_loop(x, k, stride), atol=1e-12)
    np.testing.assert_allclose(s2s.jit(conv2d, static_argnums=2)(x, k, stride), conv2d_loop(x, k, stride), atol=1e-12)
    target = RNG.standard_normal(conv2d_loop(x, k, stride).shape)

    def loss(x, k):
        return np.mean((np.maximum(conv2d(x, k, stride), 0.0) - target) ** 2)

    gx, gk = s2s.grad(loss, argnums=(0, 1))(x, k)
    np.testing.assert_allclose(gx, fd_grad(lambda t: loss(t, k), x), rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(gk, fd_grad(lambda t: loss(x, t), k), rtol=1e-5, atol=1e-8)
    per_example = s2s.vmap(s2s.grad(lambda xi, k: loss(xi[None], k), argnums=1), in_axes=(0, None))(x, k)
    np.testing.assert_allclose(per_example, [s2s.grad(lambda t: loss(xi[None], t))(k) for xi in x],
                               rtol=1e-12, atol=1e-14)


def test_max_pooling_through_windows():
    x = RNG.standard_normal((2, 6, 6))

    def pool(x):
        return np.max(sliding_window_view(x, (2, 2), axis=(1, 2))[:, ::2, ::2], axis=(-2, -1))

    def pool_loop(x):
        return np.array([[[np.max(x[b, 2 * i:2 * i + 2, 2 * j:2 * j + 2]) for j in range(3)] for i in range(3)]
                         for b in range(2)])

    np.testing.assert_array_equal(s2s.jit(pool)(x), pool_loop(x))
    f = lambda x: np.sum(pool(x) ** 2)  # noqa: E731
    np.testing.assert_allclose(s2s.grad(f)(x), fd_grad(f, x), rtol=1e-6, atol=1e-8)


def test_a_write_into_the_view_raises_numpys_error():
    def f(x):
        w = sliding_window_view(x, 3)
        w[0, 0] = 5.0
        return np.sum(w)

    x = np.arange(6.0)
    with pytest.raises(ValueError, match="read-only"):
        f(x)
    for transform in (s2s.grad(f), s2s.jit(f), lambda x: s2s.jvp(f, (x,), (x,))):
        with pytest.raises(ValueError, match="read-only"):
            transform(x.copy())


def test_writeable_and_as_strided_are_refused_at_the_users_line():
    x = np.arange(6.0)
    with pytest.raises(s2s.S2SError, match="writeable"):
        s2s.grad(lambda x: np.sum(sliding_window_view(x, 3, writeable=True)))(x)
    with pytest.raises(s2s.S2SError, match="as_strided") as info:
        s2s.grad(lambda x: np.sum(as_strided(x, (3,), (8,))))(x)
    assert "test_sliding_window.py" in str(info.value)


def test_an_update_read_later_through_the_windows_is_refused():
    """The windows are a view: `x[0] = ...` after taking them changes what they read (in NumPy), which
    s2s's functional updates would not see, so it is refused rather than differentiated wrongly."""
    def f(x):
        x = x * 1.0
        w = sliding_window_view(x, 3)
        x[0] = x[1] ** 2
        return np.sum(w ** 2)

    with pytest.raises(s2s.S2SError, match="also refers to"):
        s2s.grad(f)(np.arange(6.0))
