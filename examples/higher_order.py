"""Higher-order derivatives by applying ``grad`` to generated code (seed tutorials 000, 002, 004).

``f(x) = x**3 + 2*x**2 - 3*x + 1`` has f' = 3x^2 + 4x - 3, f'' = 6x + 4, f''' = 6, f'''' = 0, so
at x = 0 the four derivatives are -3, 4, 6, 0 and at x = 1 they are 4, 10, 6, 0 (what JAX printed).
Each ``s2s.grad`` here differentiates the source that the previous one generated.

Also the quickstart's ``grad(jit(grad(jit(grad(sum_logistic)))))(1.0)``, printed by JAX as
-0.03532558, with and without ``jit``, checked against the hand-derived third derivative of the logistic
function, s(1 - s)(1 - 6s + 6s^2) with s = sigmoid(x).
"""

import numpy as np

import s2s


def f(x):
    return x**3 + 2 * x**2 - 3 * x + 1


def sum_logistic(x):
    return np.sum(1.0 / (1.0 + np.exp(-x)))


def main():
    dfdx = s2s.grad(f)
    d2fdx = s2s.grad(dfdx)
    d3fdx = s2s.grad(d2fdx)
    d4fdx = s2s.grad(d3fdx)
    hand = {
        0.0: [-3.0, 4.0, 6.0, 0.0],
        1.0: [4.0, 10.0, 6.0, 0.0],
    }
    for x, want in hand.items():
        print(f"x={x:g}")
        got = [d(x) for d in (dfdx, d2fdx, d3fdx, d4fdx)]
        for value in got:
            print(float(value))
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # and against the formulas at a point that is not in the tutorial
    x = -0.7
    got = [d(x) for d in (dfdx, d2fdx, d3fdx, d4fdx)]
    np.testing.assert_allclose(got, [3 * x**2 + 4 * x - 3, 6 * x + 4, 6.0, 0.0], rtol=1e-12, atol=1e-12)

    d3 = s2s.grad(s2s.grad(s2s.grad(sum_logistic)))(1.0)
    d3_jit = s2s.grad(s2s.jit(s2s.grad(s2s.jit(s2s.grad(sum_logistic)))))(1.0)
    print("grad(grad(grad(sum_logistic)))(1.0) =", float(d3))
    print("grad(jit(grad(jit(grad(sum_logistic)))))(1.0) =", float(d3_jit))
    s = 1.0 / (1.0 + np.exp(-1.0))
    for value in (d3, d3_jit):
        np.testing.assert_allclose(value, s * (1 - s) * (1 - 6 * s + 6 * s**2), rtol=1e-12)
        np.testing.assert_allclose(value, -0.03532558, rtol=1e-6)  # JAX, float32
    print("ok: matches the hand-derived derivatives")


if __name__ == "__main__":
    main()
