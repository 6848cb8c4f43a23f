"""Hessians (seed tutorials 000, 002 and 004), written the JAX way with ``import s2s.numpy as jnp``.

The Hessian of ``f(x) = x . x`` is ``2 I``. The tutorials build it as ``jacfwd(grad(f))`` (forward
over reverse) or ``jacfwd(jacrev(f))``; ``s2s.hessian`` is the same composition.

Also the Hessian of ``g(x) = sum(tanh(x) ** 3)``, which is diagonal with entries
``(6t - 12t^3)(1 - t^2)`` for ``t = tanh(x)`` (hand-derived), and is checked against central
differences of the hand-written gradient ``3t^2(1 - t^2)`` too.
"""

import numpy as np

import s2s
import s2s.numpy as jnp


def f(x):
    return jnp.dot(x, x)


def g(x):
    return jnp.sum(jnp.tanh(x) ** 3)


def hessian_via_jacfwd_grad(fun):
    return s2s.jacfwd(s2s.grad(fun))


def g_grad_hand(x):
    t = np.tanh(x)
    return 3 * t**2 * (1 - t**2)


def main():
    x = np.array([1.0, 2.0, 3.0])
    H = s2s.hessian(f)(x)
    print(H)
    np.testing.assert_allclose(H, 2 * np.eye(3), rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(hessian_via_jacfwd_grad(f)(x), 2 * np.eye(3), atol=1e-14)
    np.testing.assert_allclose(s2s.jacfwd(s2s.jacrev(f))(x), 2 * np.eye(3), atol=1e-14)
    # the version a call with a float vector runs: its diagonal is the number 2.0, decided when built
    src = s2s.source(s2s.hessian(f), x)
    print(src)
    assert "rt.diag_const(x, 2.0)" in src

    x = np.random.default_rng(0).normal(size=5)
    Hg = s2s.hessian(g)(x)
    t = np.tanh(x)
    print("diag of the Hessian of sum(tanh(x)**3):", np.diag(Hg))
    np.testing.assert_allclose(Hg, np.diag((6 * t - 12 * t**3) * (1 - t**2)), rtol=1e-12, atol=1e-14)
    eps = 1e-6
    fd = np.stack([(g_grad_hand(x + eps * e) - g_grad_hand(x - eps * e)) / (2 * eps) for e in np.eye(5)])
    np.testing.assert_allclose(Hg, fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2s.jacrev(s2s.jacrev(g))(x), Hg, rtol=1e-12, atol=1e-14)
    print("ok: 2*I for dot(x, x); diag((6t - 12t^3)(1 - t^2)) for sum(tanh(x)**3)")


if __name__ == "__main__":
    main()
