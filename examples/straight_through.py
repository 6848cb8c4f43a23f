"""The straight-through estimator with ``stop_gradient`` (seed tutorials 000 and 002).

``round`` has derivative zero almost everywhere, so nothing learns through it. The
straight-through trick keeps its value on the forward pass and pretends it is the identity on
the backward pass:

    straight_through_f(x) = x + stop_gradient(round(x) - x)

(the tutorials write the same thing as ``zero + stop_gradient(f(x))`` with
``zero = x - stop_gradient(x)``; both spellings are checked).

Checked against the hand-derived answers: the value equals ``round(x)``, the gradient of
``round`` is 0 and the straight-through gradient is 1 (elementwise for arrays). JAX printed
3.0, 3.0, 0.0 and 1.0.
"""

import numpy as np

import s2s


def f(x):
    return np.round(x)  # non-differentiable: derivative 0 almost everywhere


def straight_through_f(x):
    return x + s2s.stop_gradient(np.round(x) - x)


def straight_through_f_tutorial(x):
    # The tutorials' spelling: an exactly-zero term (Sterbenz lemma) with an exactly-one gradient.
    zero = x - s2s.stop_gradient(x)
    return zero + s2s.stop_gradient(f(x))


def weighted_sum(x, w):
    return np.sum(straight_through_f(x) * w)


def main():
    x = 3.2
    print("f(x):", f(x))
    print("straight_through_f(x):", straight_through_f(x))
    df = s2s.grad(f)(x)
    dst = s2s.grad(straight_through_f)(x)
    print("grad(f)(x):", df)
    print("grad(straight_through_f)(x):", dst)
    assert f(x) == 3.0 and straight_through_f(x) == 3.0
    assert df == 0.0 and dst == 1.0
    assert straight_through_f_tutorial(x) == 3.0 and s2s.grad(straight_through_f_tutorial)(x) == 1.0

    # On arrays, inside a bigger function: the gradient flows through as if round were x -> x.
    xs = np.array([-1.7, -0.2, 0.4, 2.5, 3.2])
    w = np.array([1.0, -2.0, 3.0, -4.0, 5.0])
    g = s2s.grad(weighted_sum)(xs, w)
    print("grad of sum(straight_through_f(x) * w) wrt x:", g)
    np.testing.assert_array_equal(straight_through_f(xs), np.round(xs))
    np.testing.assert_array_equal(g, w)
    print("ok: values equal round(x); gradients are 0 for round and 1 (times w) straight through")


if __name__ == "__main__":
    main()
