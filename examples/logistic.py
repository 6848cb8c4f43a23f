"""Gradient of a sum of logistic functions (seed tutorial 004, the JAX quickstart).

``sum_logistic(x) = sum(1 / (1 + exp(-x)))`` at ``x = arange(3.)``. JAX printed
``[0.25       0.19661197 0.10499357]``, computed in float32; s2s computes in float64 here, so it
prints the float64 values ``[0.25       0.19661193 0.10499359]`` (they agree with JAX's to float32
precision).

Checked against central differences (the tutorial's ``first_finite_differences``, with a smaller
step in float64) and against the hand-derived derivative ``sigmoid(x) * (1 - sigmoid(x))``.
"""

import numpy as np

import s2s


def sum_logistic(x):
    return np.sum(1.0 / (1.0 + np.exp(-x)))


def first_finite_differences(f, x, eps=1e-6):
    return np.array([(f(x + eps * v) - f(x - eps * v)) / (2 * eps) for v in np.eye(len(x))])


def main():
    x_small = np.arange(3.0)
    derivative_fn = s2s.grad(sum_logistic)
    g = derivative_fn(x_small)
    fd = first_finite_differences(sum_logistic, x_small)
    print(g)
    print(fd)

    sigmoid = 1.0 / (1.0 + np.exp(-x_small))
    np.testing.assert_allclose(g, sigmoid * (1.0 - sigmoid), rtol=1e-14)
    np.testing.assert_allclose(g, fd, rtol=1e-8)
    np.testing.assert_allclose(g, [0.25, 0.19661197, 0.10499357], rtol=1e-6)  # JAX, float32
    print("ok: matches sigmoid*(1-sigmoid), central differences, and JAX's float32 output")


if __name__ == "__main__":
    main()
