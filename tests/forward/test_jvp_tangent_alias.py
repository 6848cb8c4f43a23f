"""A tangent that is its input itself (`d_x * 1.0`, or `rt.operand_cotangent_t` passing the tangent of a
broadcast-free `+` through) must be copied before its primal is updated in place: otherwise
`acc[0] = v` writes into the caller's tangent array and into every other value sharing it, and
the JVP reads its own write (found by tools/fuzz.py, seed 702, property jvp_vjp)."""
import numpy as np

import s2s


def fuzz_702(x, y):
    acc = x * 1.0
    t = 1.5
    acc = acc + 0.5 * np.tanh(t)
    acc[0] += np.sum(x) * 0.5
    acc[:2] += ((x) + 0.0 * x)[1:]
    return np.sum(acc * acc)


def overwritten(x):
    acc = x * 1.0
    t = 1.5
    acc = acc + 0.5 * np.tanh(t)
    acc[0] = 3.0
    return np.sum(acc) + np.sum(x * x)


def _directional_fd(f, args, u, h=1e-6):
    plus = f(*[a + h * d for a, d in zip(args, u)])
    minus = f(*[a - h * d for a, d in zip(args, u)])
    return (plus - minus) / (2 * h)


def test_jvp_leaves_the_callers_tangents_alone_and_is_right():
    rng = np.random.default_rng(702)
    x, y = rng.standard_normal(3), rng.standard_normal(3)
    u = (rng.standard_normal(3), rng.standard_normal(3))
    kept = tuple(a.copy() for a in u)
    out, t = s2s.jvp(fuzz_702, (x, y), u)
    np.testing.assert_array_equal(u[0], kept[0])
    np.testing.assert_array_equal(u[1], kept[1])
    np.testing.assert_allclose(t, _directional_fd(fuzz_702, (x, y), kept), rtol=1e-7)
    # and <v, J u> == <vjp(v), u>
    _, vjp_fn = s2s.vjp(fuzz_702, x, y)
    cx, cy = vjp_fn(1.0)
    np.testing.assert_allclose(t, np.sum(cx * kept[0]) + np.sum(cy * kept[1]), rtol=1e-10)


def test_a_tangent_overwritten_in_place_against_the_hand_derived_value():
    x = np.array([0.3, -1.2, 2.0])
    u = np.array([1.0, 2.0, -0.5])
    _, t = s2s.jvp(overwritten, (x,), (u.copy(),))
    # d/dx [3 + sum(x[1:] + c) + sum(x*x)] . u = sum(u[1:]) + 2 x . u
    np.testing.assert_allclose(t, np.sum(u[1:]) + 2 * x @ u, rtol=1e-12)
    np.testing.assert_allclose(s2s.jacfwd(overwritten)(x), s2s.grad(overwritten)(x), rtol=1e-12)
