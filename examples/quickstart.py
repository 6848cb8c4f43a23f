"""JAX's quickstart (seed tutorial 004) with s2s: random keys, device_put, block_until_ready, grad.

``random.normal(random.PRNGKey(0), (10,))`` draws JAX's numbers bit for bit: today's JAX prints
``JAX_TODAY`` (checked exactly), and the tutorial's 2020 JAX printed ``SEED_PRINTED``, whose
float32 inverse error function differed in the last one or two bits (checked to 1e-6). Then
``device_put`` / ``block_until_ready`` around the tutorial's matrix product (NumPy: ``device_put``
makes arrays, ``block_until_ready`` returns its argument; see docs/backends.md), and ``grad`` of a
logistic sum against the tutorial's printed gradient and central finite differences.
The parts of the tutorial that need ``vmap`` live elsewhere.
"""

import time

import numpy as onp

import s2s
import s2s.numpy as np
from s2s import device_put, grad, jit, random

# normal(PRNGKey(0), (10,)) as printed by JAX 0.10.2 (../shared/reference/jax-random-vectors.txt).
JAX_TODAY = onp.array([
    -0.37211090326309204, 0.2642311453819275, -0.18252767622470856, -0.7368196845054626,
    -0.440303772687912, -0.152144193649292, -0.6713534593582153, -0.5908641219139099,
    0.7316888570785522, 0.5673025846481323,
], dtype=onp.float32)
# ... and as the 2020 tutorial printed it.
SEED_PRINTED = onp.array([
    -0.372111, 0.2642311, -0.18252774, -0.7368198, -0.44030386, -0.15214427, -0.6713536,
    -0.59086424, 0.73168874, 0.56730247,
])
SEED_GRAD = onp.array([0.25, 0.19661197, 0.10499357])
SEED_GRAD3 = -0.03532558


def sum_logistic(x):
    return np.sum(1.0 / (1.0 + np.exp(-x)))


def first_finite_differences(f, x):
    eps = 1e-3
    return onp.array([(f(x + eps * v) - f(x - eps * v)) / (2 * eps) for v in onp.eye(len(x))])


def main():
    key = random.PRNGKey(0)
    x = random.normal(key, (10,))
    print(x)
    assert x.dtype == onp.float32
    onp.testing.assert_array_equal(x, JAX_TODAY)
    onp.testing.assert_allclose(x, SEED_PRINTED, rtol=1e-6, atol=0)
    print("ok: JAX's numbers (bit for bit; the 2020 print to 1e-6)")

    size = 1000  # the tutorial uses 3000; smaller keeps the example quick
    x = random.normal(key, (size, size), dtype=onp.float32)
    start = time.perf_counter()
    xxt = s2s.block_until_ready(np.dot(x, x.T))  # JAX: np.dot(x, x.T).block_until_ready()
    print(f"dot(x, x.T) with block_until_ready, {size}x{size} float32: {time.perf_counter() - start:.3f} s")

    y = onp.random.default_rng(0).normal(size=(size, size)).astype(onp.float32)
    y_dev = device_put(y)
    yyt = s2s.block_until_ready(np.dot(y_dev, y_dev.T))
    onp.testing.assert_allclose(yyt, y @ y.T, rtol=1e-5)
    onp.testing.assert_allclose(xxt, xxt.T, rtol=1e-5)
    tree = device_put({"w": y, "b": [1.0, 2.0]})
    assert isinstance(tree["b"][0], onp.ndarray) and s2s.block_until_ready(tree) is tree
    print("ok: device_put / block_until_ready on arrays and pytrees")

    x_small = np.arange(3.0)
    derivative_fn = grad(sum_logistic)
    d = derivative_fn(x_small)
    print(d)
    fd = first_finite_differences(sum_logistic, x_small)
    print(fd)
    onp.testing.assert_allclose(d, SEED_GRAD, rtol=1e-6)
    onp.testing.assert_allclose(d, fd, atol=1e-6)
    print("ok: grad matches the tutorial and finite differences")

    d3 = grad(jit(grad(jit(grad(sum_logistic)))))(1.0)
    print(d3)
    onp.testing.assert_allclose(d3, SEED_GRAD3, rtol=1e-6)
    print("ok: grad(jit(grad(jit(grad(f))))) matches the tutorial")


if __name__ == "__main__":
    main()
