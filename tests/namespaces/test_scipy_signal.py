"""s2s.scipy.signal.convolve: SciPy's convolve (all axes), and autograd's generalized form with
`axes` and `dot_axes` (s2s.compat.autograd's autograd.scipy.signal). Values against a Python loop
over every pair of positions; grad against central finite differences; jvp against finite
differences along a direction; grad of grad against finite differences of the gradient; vmap
against a loop over examples; `scipy.signal.convolve` in user code against SciPy itself."""
import itertools

import numpy as np
import pytest
import scipy.signal

import s2s
from s2s.compat.autograd import signal as ag_signal
from s2s.scipy.signal import convolve

H = 1e-6
RNG = np.random.RandomState(0)


def loop_convolve(a, b, axes, dot_axes, mode):
    """The convolution by its definition: every pair of positions of a and b, one at a time."""
    ca, cb = axes if axes is not None else (range(a.ndim), range(a.ndim))
    ca, cb, da, db = list(ca), list(cb), list(dot_axes[0]), list(dot_axes[1])
    ia = [i for i in range(a.ndim) if i not in ca + da]
    ib = [i for i in range(b.ndim) if i not in cb + db]
    na, nb = [a.shape[i] for i in ca], [b.shape[i] for i in cb]
    full = np.zeros([a.shape[i] for i in ia] + [b.shape[i] for i in ib] + [n + m - 1 for n, m in zip(na, nb)])
    for pa in np.ndindex(*a.shape):
        for pb in np.ndindex(*b.shape):
            if any(pa[i] != pb[j] for i, j in zip(da, db)):
                continue
            at = tuple(pa[i] for i in ia) + tuple(pb[j] for j in ib) + tuple(pa[i] + pb[j] for i, j in zip(ca, cb))
            full[at] += a[pa] * b[pb]
    keep = []
    for n, m in zip(na, nb):
        start, size = {"full": (0, n + m - 1), "valid": (min(n, m) - 1, abs(n - m) + 1),
                       "same": ((m - 1) // 2, n)}[mode]
        keep.append(slice(start, start + size))
    return full[(slice(None),) * (len(ia) + len(ib)) + tuple(keep)]


# (a's shape, b's shape, axes, dot_axes): 1-D, 2-D both ways round, and convnet's layer (images
# N x C x H x W against filters C x F x h x w, convolved over H, W and summed over C)
CASES = [((7,), (3,), None, ((), ())), ((3,), (6,), None, ((), ())), ((5, 4), (2, 3), None, ((), ())),
         ((3, 2, 6, 5), (2, 3, 3, 2), ([2, 3], [2, 3]), ([1], [0])), ((3, 4, 5), (4, 2), ([1], [0]), ((), ()))]
MODES = ["full", "valid", "same"]
PARAMS = [pytest.param(*c, m, id=f"{c[0]}x{c[1]}-{m}") for c, m in itertools.product(CASES, MODES)]


@pytest.mark.parametrize("sa, sb, axes, dots, mode", PARAMS)
def test_values_match_a_loop_over_positions(sa, sb, axes, dots, mode):
    a, b = RNG.randn(*sa), RNG.randn(*sb)
    want = loop_convolve(a, b, axes, dots, mode)
    np.testing.assert_allclose(ag_signal.convolve(a, b, axes=axes, dot_axes=dots, mode=mode), want, atol=1e-12)
    np.testing.assert_allclose(convolve(a, b, mode, axes=axes, dot_axes=dots), want, atol=1e-12)


def _objective(axes, dots, mode, w):
    def f(a, b):
        return np.sum(np.tanh(ag_signal.convolve(a, b, axes=axes, dot_axes=dots, mode=mode)) * w)
    return f


def _fd(f, args, i):
    x = args[i]
    out = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        e = np.zeros_like(x)
        e[idx] = H
        up, down = list(args), list(args)
        up[i], down[i] = x + e, x - e
        out[idx] = (f(*up) - f(*down)) / (2 * H)
    return out


@pytest.mark.parametrize("sa, sb, axes, dots, mode", PARAMS)
def test_grad_and_jvp_match_finite_differences(sa, sb, axes, dots, mode):
    a, b = RNG.randn(*sa), RNG.randn(*sb)
    w = RNG.randn(*loop_convolve(a, b, axes, dots, mode).shape)
    f = _objective(axes, dots, mode, w)
    ga, gb = s2s.grad(f, argnums=(0, 1))(a, b)
    np.testing.assert_allclose(ga, _fd(f, (a, b), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gb, _fd(f, (a, b), 1), rtol=1e-6, atol=1e-8)
    va, vb = RNG.randn(*sa), RNG.randn(*sb)
    _, dy = s2s.jvp(f, (a, b), (va, vb))
    np.testing.assert_allclose(dy, (f(a + H * va, b + H * vb) - f(a - H * va, b - H * vb)) / (2 * H), rtol=1e-6)


@pytest.mark.parametrize("sa, sb, axes, dots, mode", [PARAMS[1], PARAMS[9], PARAMS[11]])
def test_grad_of_grad_matches_finite_differences(sa, sb, axes, dots, mode):
    a, b = RNG.randn(*sa), RNG.randn(*sb)
    w = RNG.randn(*loop_convolve(a, b, axes, dots, mode).shape)
    f = _objective(axes, dots, mode, w)
    v = RNG.randn(*sb)

    def g_dot_v(a, b):  # d/da of <grad_b f, v>: the mixed second derivative through both transposes
        return np.sum(s2s.grad(f, argnums=1)(a, b) * v)
    np.testing.assert_allclose(s2s.grad(g_dot_v)(a, b), _fd(g_dot_v, (a, b), 0), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("sa, sb, axes, dots, mode", [PARAMS[2], PARAMS[10]])
def test_vmap_matches_a_loop_over_examples(sa, sb, axes, dots, mode):
    a, bs = RNG.randn(*sa), RNG.randn(4, *sb)
    got = s2s.vmap(lambda b: ag_signal.convolve(a, b, axes=axes, dot_axes=dots, mode=mode))(bs)
    np.testing.assert_allclose(got, [loop_convolve(a, b, axes, dots, mode) for b in bs], atol=1e-12)
    w = RNG.randn(*loop_convolve(a, bs[0], axes, dots, mode).shape)
    f = _objective(axes, dots, mode, w)
    grads = s2s.vmap(s2s.grad(f), in_axes=(None, 0))(a, bs)
    np.testing.assert_allclose(grads, [s2s.grad(f)(a, b) for b in bs], rtol=1e-12)


def scipy_in_user_code(a, b):
    return np.sum(scipy.signal.convolve(a, b, mode="same") ** 2)


def test_scipy_signal_convolve_in_user_code_is_differentiated():
    a, b = RNG.randn(6, 5), RNG.randn(3, 2)
    assert np.isclose(s2s.jit(scipy_in_user_code)(a, b), scipy_in_user_code(a, b), rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(scipy_in_user_code)(a, b), _fd(scipy_in_user_code, (a, b), 0), rtol=1e-6)


def test_a_bad_mode_or_mismatched_valid_shapes_are_refused():
    with pytest.raises(ValueError, match="mode"):
        convolve(np.ones(3), np.ones(2), "wrap")
    with pytest.raises(ValueError, match="at least as large"):
        convolve(np.ones((3, 2)), np.ones((2, 3)), "valid")
