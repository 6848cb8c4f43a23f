"""Per-example gradients of a small two-layer model over a dataset larger than its chunks, on a
Dask cluster (2 workers), checked against NumPy.

The data live in Dask arrays chunked along the example axis; s2s's generated gradient runs on
them unchanged (its array module `xp` is `dask.array` for this call), so the result is a lazy
Dask array chunked the same way, computed by the cluster's workers. The trick for per-example
gradients without a batching transform: give every example its own copy of the weights (a
leading example axis); the gradient with respect to the copies is the per-example gradient.
When `s2s.vmap` exists, `vmap(grad(loss_one))` is checked too.

The cluster runs its 2 workers as threads of this process (processes=False): the same scheduler
and task graph as separate processes, without their start-up cost and fragility in CI.
"""
import sys

import numpy as np

try:
    import dask
    import dask.array as da
    from dask.distributed import Client, LocalCluster
except ImportError:
    sys.exit("this example needs Dask: pip install 's2s[dask]'")

import s2s

N, D, H, CHUNK = 2000, 8, 4, 250  # 2000 examples in chunks of 250: 8 chunks


def loss_copies(w1s, w2s, x, y):
    """Sum over examples of 0.5 * (model_i(x_i) - y_i)^2, example i using weights w1s[i], w2s[i]."""
    h = np.tanh(np.sum(x[:, :, None] * w1s, axis=1))
    out = np.sum(h * w2s, axis=1)
    return 0.5 * np.sum((out - y) ** 2)


def loss_one(w1, w2, x, y):
    out = np.sum(np.tanh(x @ w1) * w2)
    return 0.5 * (out - y) ** 2


def reference(w1, w2, x, y):
    """Hand-derived per-example gradients in NumPy."""
    h = np.tanh(x @ w1)
    r = h @ w2 - y
    g2 = r[:, None] * h
    g1 = x[:, :, None] * (r[:, None] * w2 * (1 - h ** 2))[:, None, :]
    return g1, g2


def main():
    rng = np.random.default_rng(0)
    w1, w2 = rng.standard_normal((D, H)) * 0.5, rng.standard_normal(H)
    x_np, y_np = rng.standard_normal((N, D)), rng.standard_normal(N)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        x, y = da.from_array(x_np, chunks=(CHUNK, D)), da.from_array(y_np, chunks=CHUNK)
        w1s = da.broadcast_to(w1, (N, D, H), chunks=(CHUNK, D, H))
        w2s = da.broadcast_to(w2, (N, H), chunks=(CHUNK, H))
        g1, g2 = s2s.grad(loss_copies, argnums=(0, 1))(w1s, w2s, x, y)
        print(f"workers: {len(client.scheduler_info()['workers'])}; data {x.shape} in {x.numblocks[0]} chunks; "
              f"per-example gradients {type(g1).__module__}.{type(g1).__name__} {g1.shape}, chunks {g1.chunks[0]}")
        assert g1.chunks[0] == x.chunks[0], "the gradient keeps the batch chunking"
        g1, g2 = dask.compute(g1, g2)
        r1, r2 = reference(w1, w2, x_np, y_np)
        np.testing.assert_allclose(g1, r1, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(g2, r2, rtol=1e-10, atol=1e-12)
        print(f"max |per-example grad - NumPy reference|: {max(abs(g1 - r1).max(), abs(g2 - r2).max()):.1e}")
        if hasattr(s2s, "vmap"):
            v1, v2 = s2s.vmap(s2s.grad(loss_one, argnums=(0, 1)), in_axes=(None, None, 0, 0))(w1, w2, x, y)
            np.testing.assert_allclose(np.asarray(v1), r1, rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(np.asarray(v2), r2, rtol=1e-10, atol=1e-12)
            print("ok: vmap(grad(loss_one)) on Dask agrees")
        mean_grad = s2s.grad(lambda w1, x, y: loss_copies(w1, w2s, x, y) / N)(w1s, x, y).sum(axis=0).compute()
        np.testing.assert_allclose(mean_grad, r1.mean(axis=0), rtol=1e-10, atol=1e-12)
    print("ok: per-example gradients on a 2-worker Dask cluster match NumPy")


if __name__ == "__main__":
    main()
