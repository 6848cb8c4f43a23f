"""Hessian-vector products without forming the Hessian: forward mode over reverse mode.

``hvp(f, x, v) = jvp(grad(f), (x,), (v,))[1]`` costs a small constant times one gradient,
whatever the size of ``x``. For ``f(x) = sum(tanh(x) ** 3)`` the Hessian is diagonal with entries
``(6t - 12t^3)(1 - t^2)``, ``t = tanh(x)`` (hand-derived), so ``H v`` is that times ``v``; also
checked against central differences of the hand-written gradient along ``v``.
"""

import numpy as np

import s2s


def f(x):
    return np.sum(np.tanh(x) ** 3)


def hvp(fun, x, v):
    return s2s.jvp(s2s.grad(fun), (x,), (v,))[1]


def grad_hand(x):
    t = np.tanh(x)
    return 3 * t**2 * (1 - t**2)


def main():
    rng = np.random.default_rng(0)
    x, v = rng.normal(size=1000), rng.normal(size=1000)
    hv = hvp(f, x, v)
    print("H v [:4] =", hv[:4])

    t = np.tanh(x)
    np.testing.assert_allclose(hv, (6 * t - 12 * t**3) * (1 - t**2) * v, rtol=1e-12, atol=1e-14)
    eps = 1e-6
    fd = (grad_hand(x + eps * v) - grad_hand(x - eps * v)) / (2 * eps)
    np.testing.assert_allclose(hv, fd, rtol=1e-5, atol=1e-8)

    # jvp on its own: the directional derivative of f, and f's value, in one pass.
    out, tangent = s2s.jvp(f, (x,), (v,))
    print("f(x) =", out, " f'(x) v =", tangent)
    np.testing.assert_allclose(out, f(x), rtol=1e-14)
    np.testing.assert_allclose(tangent, grad_hand(x) @ v, rtol=1e-12)
    print("ok: H v matches the hand-derived diagonal Hessian and central differences")


if __name__ == "__main__":
    main()
