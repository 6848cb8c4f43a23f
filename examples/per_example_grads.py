"""Per-example gradients: ``jit(vmap(grad(td_loss), in_axes=(None, 0, 0, 0)))`` (seeds 000 and 002).

``grad(td_loss)`` is the TD(0) update for one transition (``stop_gradient`` on the target);
``vmap`` with ``in_axes=(None, 0, 0, 0)`` maps it over a batch of transitions while sharing one
``theta``; ``jit`` compiles the result. Checked against a Python loop over the transitions, each
with the hand-derived update ``-2 * delta * s_tm1``, and against JAX's printed
[[-2.4 -4.8  2.4], [-2.4 -4.8  2.4]] for the tutorial's batch of two equal transitions.
"""

import numpy as onp

import s2s.numpy as jnp
from s2s import block_until_ready, grad, jit, stop_gradient, vmap


def value_fn(theta, state):
    return jnp.dot(theta, state)


def td_loss(theta, s_tm1, r_t, s_t):
    v_tm1 = value_fn(theta, s_tm1)
    target = r_t + value_fn(theta, s_t)
    return (stop_gradient(target) - v_tm1) ** 2


def main():
    theta = jnp.array([0.1, -0.1, 0.0])
    s_tm1 = jnp.array([1.0, 2.0, -1.0])
    r_t = jnp.array(1.0)
    s_t = jnp.array([2.0, 1.0, 0.0])

    perex_grads = jit(vmap(grad(td_loss), in_axes=(None, 0, 0, 0)))
    tutorial = block_until_ready(perex_grads(theta, jnp.stack([s_tm1, s_tm1]), jnp.stack([r_t, r_t]),
                                             jnp.stack([s_t, s_t])))
    print("per-example gradients (tutorial batch):\n", tutorial)
    onp.testing.assert_allclose(tutorial, [[-2.4, -4.8, 2.4], [-2.4, -4.8, 2.4]], rtol=1e-12)

    rng = onp.random.default_rng(0)
    b_s_tm1, b_s_t = rng.normal(size=(8, 3)), rng.normal(size=(8, 3))
    b_r_t = rng.normal(size=8)
    out = perex_grads(theta, b_s_tm1, b_r_t, b_s_t)
    for i in range(8):
        delta = b_r_t[i] + theta @ b_s_t[i] - theta @ b_s_tm1[i]
        onp.testing.assert_allclose(out[i], -2 * delta * b_s_tm1[i], rtol=1e-12)
        onp.testing.assert_allclose(out[i], grad(td_loss)(theta, b_s_tm1[i], b_r_t[i], b_s_t[i]), rtol=1e-12)
    print("ok: 8 random transitions match a Python loop of grad and -2*delta*s_tm1")


if __name__ == "__main__":
    main()
