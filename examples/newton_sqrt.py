"""Reverse mode through a ``while`` loop whose trip count depends on the data.

Newton's iteration for sqrt(a), ``x <- (x + a / x) / 2`` from ``x = a``, runs until
``|x * x - a| < 1e-12``: how many steps it takes depends on ``a``. JAX cannot reverse-differentiate
this (``grad`` of a ``lax.while_loop`` is an error, and a Python ``while`` on a traced value fails
under ``jit``). s2s keeps the loop: the forward sweep counts the iterations and saves the values
each one overwrites; the backward sweep runs that many iterations in reverse.

Checked against the hand-derived derivative d sqrt(a) / da = 1 / (2 sqrt(a)) and against
central differences of the plain Python function.
"""

import numpy as np

import s2s


def newton_sqrt(a):
    x = a
    while np.abs(x * x - a) >= 1e-12:
        x = 0.5 * (x + a / x)
    return x


def newton_steps(a):
    """How many iterations ``newton_sqrt(a)`` makes (plain Python, for the printout)."""
    x, n = a, 0
    while abs(x * x - a) >= 1e-12:
        x, n = 0.5 * (x + a / x), n + 1
    return n


def main():
    dsqrt = s2s.grad(newton_sqrt)
    for a in [0.25, 2.0, 9.0, 30.0]:
        value, g = newton_sqrt(a), dsqrt(a)
        exact = 1.0 / (2.0 * np.sqrt(a))
        eps = 1e-6 * a
        fd = (newton_sqrt(a + eps) - newton_sqrt(a - eps)) / (2 * eps)
        print(f"a = {a:5}: {newton_steps(a)} steps, sqrt = {value:.15f}, "
              f"d/da = {float(g):.15f}  (1/(2 sqrt a) = {exact:.15f})")
        np.testing.assert_allclose(value, np.sqrt(a), rtol=1e-12)
        np.testing.assert_allclose(g, exact, rtol=1e-9)
        np.testing.assert_allclose(g, fd, rtol=1e-6)
    print("ok: gradients match 1/(2 sqrt(a)) and central differences")


if __name__ == "__main__":
    main()
