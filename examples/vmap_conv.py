"""``vmap`` of a 1-D convolution written with a Python loop (seed tutorial 000).

``convolve`` handles one signal and one kernel; ``vmap`` turns it into a batched function, with
the batch axis first (the default), last (``in_axes=1, out_axes=1``) or only on the signals
(``in_axes=[0, None]``), and composes with ``jit``. Every result is checked against a Python loop
over the batch and against the numbers JAX printed: [[11. 20. 29.], [11. 20. 29.]].
"""

import numpy as onp

import s2s.numpy as jnp
from s2s import jit, vmap


def convolve(x, w):
    output = []
    for i in range(1, len(x) - 1):
        output.append(jnp.dot(x[i - 1 : i + 2], w))
    return jnp.array(output)


def looped(xs, ws):
    """The independent reference: convolve each pair in a Python loop, with plain NumPy."""
    return onp.stack([[onp.dot(x[i - 1 : i + 2], w) for i in range(1, len(x) - 1)] for x, w in zip(xs, ws)])


def main():
    x = jnp.arange(5)
    w = jnp.array([2.0, 3.0, 4.0])
    xs = jnp.stack([x, x + 1.0])
    ws = jnp.stack([w, 2 * w])
    want = looped(xs, ws)

    print("convolve(x, w):", convolve(x, w))
    onp.testing.assert_allclose(convolve(x, w), [11.0, 20.0, 29.0])

    batched = vmap(convolve)(xs, ws)
    print("vmap(convolve)(xs, ws):\n", batched)
    onp.testing.assert_allclose(batched, want)

    transposed = vmap(convolve, in_axes=1, out_axes=1)(jnp.transpose(xs), jnp.transpose(ws))
    print("in_axes=1, out_axes=1:\n", transposed)
    onp.testing.assert_allclose(transposed, want.T)

    shared_w = vmap(convolve, in_axes=[0, None])(xs, w)
    print("in_axes=[0, None]:\n", shared_w)
    onp.testing.assert_allclose(shared_w, looped(xs, [w, w]))

    jitted = jit(vmap(convolve))(xs, ws)
    onp.testing.assert_allclose(jitted, want)
    same = jnp.stack([x, x]), jnp.stack([w, w])
    onp.testing.assert_allclose(vmap(convolve)(*same), [[11.0, 20.0, 29.0], [11.0, 20.0, 29.0]])
    print("ok: every batching matches a Python loop and JAX's printed [[11. 20. 29.] ...]")


if __name__ == "__main__":
    main()
