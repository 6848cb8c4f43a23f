"""Python builtins called the ways people call them: `pow(a, b)`, `sum(xs, start)` (positional or
`start=`, over a display, a comprehension, a generator or a list's rows), and `max`/`min` of several
arguments with `key=`. s2s refused them as unknown functions. `pow(a, b)` is `a ** b`; `sum(xs, s)`
adds in Python's order (`s + xs[0] + xs[1] ...`, so jit gives the same bits); `max(a, b, key=f)` is
the first argument with the largest key. Each is checked under jit (bit for bit), vmap (a loop),
grad and jvp (central differences)."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s

X = np.array([0.31, -0.55, 0.72, 1.15, 0.43, -0.27])


def powers(x):
    return pow(x[0], 3) + pow(x[1], 2.0) + np.sum(pow(np.abs(x), 1.5))


def sum_with_start(x):
    return sum([x[0], x[1] ** 2], x[2])


def sum_with_start_keyword(x):
    return sum((v * 2.0 for v in x[:3]), start=x[3]) * sum([x[4]], start=1.0)


def sum_of_rows_with_start(x):
    rows = x.reshape(2, 3)
    return np.sum(sum(rows, np.ones(3)) ** 2) + sum([r[0] for r in rows], 0.5)


def max_and_min_with_key(x):
    return max(x[0], x[1], key=abs) * 2.0 + min(x[2], -x[3], x[4], key=lambda t: t * t)


FORMS = [powers, sum_with_start, sum_with_start_keyword, sum_of_rows_with_start, max_and_min_with_key]


@pytest.mark.parametrize("f", FORMS, ids=[f.__name__ for f in FORMS])
def test_the_builtin_is_python_s_under_every_transform(f):
    assert s2s.jit(f)(X) == f(X)
    xs = np.stack([X, -0.6 * X + 0.1, X[::-1]])
    np.testing.assert_allclose(s2s.vmap(f)(xs), [f(x) for x in xs], rtol=1e-14)
    g = fd_grad(f, X)
    np.testing.assert_allclose(s2s.grad(f)(X), g, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2s.jvp(f, (X,), (np.ones(6),))[1], np.sum(g), rtol=1e-6, atol=1e-8)


def test_pow_with_a_modulus_is_refused_at_the_line():
    def f(x):
        return pow(3, 2, 5) * x[0] + pow(x[1], 2)

    with pytest.raises(s2s.S2SError, match=r"test_builtin_calls_with_more_arguments.py:\d+(.|\n)*`pow`"):
        s2s.grad(f)(X)
