"""TD(0) update with and without ``stop_gradient`` (seed tutorials 000 and 002).

The value of a state is linear in the parameters, ``v_theta(s) = theta . s``. The TD(0) update is
the gradient of the pseudo-loss ``(r_t + v(s_t) - v(s_tm1)) ** 2`` *if* the target
``r_t + v(s_t)`` is treated as a constant; ``stop_gradient`` says exactly that.

Checked against the hand-derived gradients

    naive:          2 * delta * (s_t - s_tm1)
    stop_gradient: -2 * delta * s_tm1          where delta = r_t + theta.s_t - theta.s_tm1

and, for the naive loss, against central differences. JAX printed [ 2.4 -2.4  2.4] and
[-2.4 -4.8  2.4].
"""

import numpy as np

import s2s


def value_fn(theta, state):
    return np.dot(theta, state)


def td_loss_naive(theta, s_tm1, r_t, s_t):
    v_tm1 = value_fn(theta, s_tm1)
    target = r_t + value_fn(theta, s_t)
    return (target - v_tm1) ** 2


def td_loss(theta, s_tm1, r_t, s_t):
    v_tm1 = value_fn(theta, s_tm1)
    target = r_t + value_fn(theta, s_t)
    return (s2s.stop_gradient(target) - v_tm1) ** 2


def central_differences(f, x, eps=1e-6):
    """Gradient of scalar ``f`` at vector ``x`` by central differences, one coordinate at a time."""
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(len(x))])


def main():
    theta = np.array([0.1, -0.1, 0.0])
    s_tm1 = np.array([1.0, 2.0, -1.0])
    r_t = np.array(1.0)
    s_t = np.array([2.0, 1.0, 0.0])

    naive = s2s.grad(td_loss_naive)(theta, s_tm1, r_t, s_t)
    update = s2s.grad(td_loss)(theta, s_tm1, r_t, s_t)
    print("grad of the naive TD loss:       ", naive)
    print("grad with stop_gradient (TD(0)): ", update)

    delta = r_t + theta @ s_t - theta @ s_tm1
    np.testing.assert_allclose(naive, 2 * delta * (s_t - s_tm1), rtol=1e-12)
    np.testing.assert_allclose(update, -2 * delta * s_tm1, rtol=1e-12)
    np.testing.assert_allclose(naive, [2.4, -2.4, 2.4], rtol=1e-12)
    np.testing.assert_allclose(update, [-2.4, -4.8, 2.4], rtol=1e-12)
    fd = central_differences(lambda th: td_loss_naive(th, s_tm1, r_t, s_t), theta)
    np.testing.assert_allclose(naive, fd, rtol=1e-7, atol=1e-9)
    # Outside a transform stop_gradient is the identity: both losses have the same value.
    assert td_loss(theta, s_tm1, r_t, s_t) == td_loss_naive(theta, s_tm1, r_t, s_t)
    print("ok: matches 2*delta*(s_t - s_tm1), -2*delta*s_tm1 and central differences")


if __name__ == "__main__":
    main()
