"""Statements that share a line (`a = np.zeros(2); b = a; a += x`) are ordered by (line, column)
in the alias check, as on separate lines: before, positions were compared by line only, so the
rebinding `b = a` on the update's line counted as after the update, `b`'s read on the next line
looked like a read of a new value, and jit returned 0.0 and grad [0, 0] with no error. Each
one-line form here behaves as its multi-line twin: refused with the same S2SError, or accepted
with the plain function's value and central differences' gradient."""
import numpy as np
import pytest

import s2s
from s2s.errors import S2SError


def alias_one_line(x):
    a = np.zeros(2); b = a; a += x  # noqa: E702
    return np.sum(b * x)


def alias_lines(x):
    a = np.zeros(2)
    b = a
    a += x
    return np.sum(b * x)


def view_one_line(x):
    a = x * 1.0; b = a[0:1]; a *= 2  # noqa: E702
    return np.sum(b * x)


def view_lines(x):
    a = x * 1.0
    b = a[0:1]
    a *= 2
    return np.sum(b * x)


def rebound_before_one_line(x):
    a = x * 1.0; b = a; b = x * 3.0; a += x  # noqa: E702
    return np.sum(a * b)


def rebound_after_one_line(x):
    a = x * 1.0; b = a; a += x; b = x * 3.0  # noqa: E702
    return np.sum(a * b)


def loop_one_line(x):
    a = x * 1.0
    for _ in range(2): c = a * 2.0; a += c  # noqa: E701, E702
    return np.sum(a * x)


def loop_alias_one_line(x):
    a = x * 1.0
    for _ in range(2): b = a; a += x; s = np.sum(b)  # noqa: E701, E702
    return s


def loop_alias_lines(x):
    a = x * 1.0
    for _ in range(2):
        b = a
        a += x
        s = np.sum(b)
    return s


def store_one_line(x):
    a = x * 1.0; b = a; a[0] = 5.0 * x[1]  # noqa: E702
    return np.sum(b * x)


def store_lines(x):
    a = x * 1.0
    b = a
    a[0] = 5.0 * x[1]
    return np.sum(b * x)


def append_one_line(x):
    a = [x * 1.0]; b = a; a.append(x)  # noqa: E702
    return np.sum(b[-1] * x)


def append_lines(x):
    a = [x * 1.0]
    b = a
    a.append(x)
    return np.sum(b[-1] * x)


def row_one_line(x):
    m = np.outer(x, x); t = m[0]; m[0] = 3.0 * x  # noqa: E702
    return np.sum(t * x) + np.sum(m)


def row_lines(x):
    m = np.outer(x, x)
    t = m[0]
    m[0] = 3.0 * x
    return np.sum(t * x) + np.sum(m)


REFUSED = [(alias_one_line, alias_lines), (loop_alias_one_line, loop_alias_lines), (store_one_line, store_lines),
           (append_one_line, append_lines)]
# (a view's update: frontend/view_writes.py takes `b = a[0:1]` again after `a *= 2`, on one line as on three)
ACCEPTED = [view_one_line, view_lines, row_one_line, row_lines, rebound_before_one_line, rebound_after_one_line,
            loop_one_line]
X = np.array([0.7, -1.3])


def _central(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


@pytest.mark.parametrize("one, lines", REFUSED, ids=[p[0].__name__ for p in REFUSED])
@pytest.mark.parametrize("transform", ["jit", "grad", "vmap", "jvp"])
def test_one_line_refused_as_on_lines(one, lines, transform):
    def run(f):
        if transform == "jvp":
            return s2s.jvp(f, (X,), (np.ones(2),))
        if transform == "vmap":
            return s2s.vmap(f)(np.stack([X, 2 * X]))
        return getattr(s2s, transform)(f)(X)
    outcomes = []
    for f in (one, lines):
        with pytest.raises(S2SError) as err:
            run(f)
        outcomes.append(str(err.value).split("\n", 1)[1].splitlines()[-2:])
    assert "changes" in " ".join(outcomes[0])
    assert outcomes[0] == outcomes[1]  # the same message, at the one-line statement's column


@pytest.mark.parametrize("f", ACCEPTED, ids=lambda f: f.__name__)
def test_one_line_accepted_values(f):
    np.testing.assert_allclose(s2s.jit(f)(X), f(X), rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(f)(X), _central(f, X), rtol=1e-6, atol=1e-8)
    xs = np.stack([X, 2 * X, -X])
    np.testing.assert_allclose(s2s.vmap(f)(xs), [f(r) for r in xs], rtol=1e-12)
    t = np.array([0.3, -0.2])
    val, tan = s2s.jvp(f, (X,), (t,))
    np.testing.assert_allclose(val, f(X), rtol=1e-12)
    np.testing.assert_allclose(tan, (f(X + 1e-6 * t) - f(X - 1e-6 * t)) / 2e-6, rtol=1e-6, atol=1e-8)
