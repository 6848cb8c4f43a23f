"""vmap of second derivatives of functions with loops: a `for` loop's range is one for every
example, even where it travels in a batched record (the hessian's jacfwd of jacrev replays the
backward sweep's loop under its own vmap); checked against a Python loop of the same transform
over the examples. A loop whose trip count differs per example is refused with an S2SError, or
is right."""
import numpy as np
import pytest

import s2s
from s2s.errors import S2SError


def chained_loop(x):
    s = 0.0
    for i in range(3):
        s = s + np.sin(x[i] * s + x[i]) * x[(i + 1) % 3]
    return s


def loop_over_length(x):
    s = x[0]
    for i in range(1, len(x)):
        s = np.tanh(s * x[i]) + x[i - 1] * x[i]
    return s * s


def nested_loops(x):
    s = 0.0
    for i in range(2):
        for j in range(3):
            s = s + np.cos(x[j] * (i + 1.0)) * x[(j + i) % 3]
    return s


def per_example_trips(x):
    s = x[0]
    while s < 5.0:
        s = s * 1.5 + x[1] * s
    return s * x[2]


XS = np.array([[1.0, 0.2, 0.5], [3.0, 0.1, 2.0], [0.5, 0.3, 1.0], [4.0, 0.5, 1.5]])
SECOND = {"hessian": s2s.hessian, "jacfwd_grad": lambda f: s2s.jacfwd(s2s.grad(f)),
          "jacrev_grad": lambda f: s2s.jacrev(s2s.grad(f)), "jacfwd_jacrev": lambda f: s2s.jacfwd(s2s.jacrev(f))}


@pytest.mark.parametrize("f", [chained_loop, loop_over_length, nested_loops], ids=lambda f: f.__name__)
@pytest.mark.parametrize("kind", sorted(SECOND))
def test_vmap_of_second_derivative_of_a_loop(f, kind):
    t = SECOND[kind]
    ref = np.stack([t(f)(x) for x in XS])
    np.testing.assert_allclose(s2s.vmap(t(f))(XS), ref, rtol=1e-12, atol=1e-12)


def test_vmap_of_hessian_matches_finite_differences_of_the_gradient():
    """An independent reference: central differences of the gradient, per example."""
    g, eps = s2s.grad(chained_loop), 1e-6
    out = s2s.vmap(s2s.hessian(chained_loop))(XS)
    for x, h in zip(XS, out):
        fd = np.stack([(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(3)], axis=1)
        np.testing.assert_allclose(h, fd, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("kind", sorted(SECOND))
def test_per_example_trip_count_is_right_or_refused(kind):
    t = SECOND[kind]
    ref = np.stack([t(per_example_trips)(x) for x in XS])
    try:
        out = s2s.vmap(t(per_example_trips))(XS)
    except S2SError as e:
        assert "per example" in str(e)
        return
    np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-12)
