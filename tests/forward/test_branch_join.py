"""Forward mode's join of tangents at `if`s and loops (transforms/base.join over the tangents the
branches changed, base.Defined): a tangent that dies at a branch no path touched is kept, not
dropped, and must never be read again. Programs where tangents die at one `if` and their variables
are assigned again in a later branch, a loop or both; jvp and jacfwd against central differences."""

import numpy as np
import pytest

import s2s


def dies_then_reassigned(x):
    a = np.sin(x)
    b = a * 2.0
    if np.sum(x) > 0.0:  # a is dead after this if: every path assigns it before reading it
        c = b + 1.0
    else:
        c = b - 1.0
    if np.sum(c) > 100.0:
        a = np.cos(c)
    else:
        a = c * 3.0
    return np.sum(a * b)


def dies_then_loop(x):
    a = np.tanh(x)
    b = a * a
    if np.sum(b) > 0.5:
        b = b * 0.5
    s = x * 0.0
    for i in range(3):
        a = b * (i + 1.0)  # a assigned again in the loop, then read
        s = s + np.sin(a)
    return np.sum(s)


def branch_in_loop_in_branch(x):
    y = x * 1.0
    z = np.cos(x)
    if np.sum(x) > -5.0:
        for i in range(4):
            if np.sum(y) > 1.0:
                y = y * 0.9 + z
            else:
                z = np.sin(y)
                y = y + z
    else:
        y = y - 1.0
    t = np.exp(z * 0.1)
    if np.sum(t) > 0.0:
        z = t * y
    return np.sum(y * z)


def many_ifs(x):
    y = x * 0.5
    for k in range(2):
        y = np.sin(y) + x
    if np.sum(y) > 1.0:
        y = y * 0.9
    w = np.cos(y)
    if np.sum(w) > 10.0:
        w = w * 2.0
    else:
        y = y + w
    if np.sum(y) < -100.0:
        y = y * 0.0
    u = y * w
    if np.sum(u) > 0.1:
        w = u + 1.0
    return np.sum(w * y + u)


PROGRAMS = (dies_then_reassigned, dies_then_loop, branch_in_loop_in_branch, many_ifs)


def central(f, x, v, eps=1e-6):
    return (f(x + eps * v) - f(x - eps * v)) / (2 * eps)


@pytest.mark.parametrize("fn", PROGRAMS, ids=[f.__name__ for f in PROGRAMS])
@pytest.mark.parametrize("seed", (0, 1))
def test_jvp_and_jacfwd_through_joins_match_central_differences(fn, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1.0, 1.5, 5)
    v = rng.normal(size=5)
    out, tangent = s2s.jvp(fn, (x,), (v,))
    np.testing.assert_allclose(out, fn(x), rtol=1e-12)
    np.testing.assert_allclose(tangent, central(fn, x, v), rtol=1e-6, atol=1e-8)
    jac = s2s.jacfwd(fn)(x)
    want = np.array([central(fn, x, e) for e in np.eye(5)])
    np.testing.assert_allclose(jac, want, rtol=1e-6, atol=1e-8)
