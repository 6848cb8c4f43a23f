"""Comparisons shared by tests: pytrees of arrays equal to a tolerance, two implementations of one
float computation within the ulps s2s guarantees, a Hessian from central differences of s2s's
gradient (the gradient itself is checked against differences elsewhere), and a jit gradient of two
arrays checked against grad and central differences."""
import numpy as np

import s2s


def assert_trees_close(a, b, same_type=False, rtol=1e-12, atol=1e-12):
    """`a` and `b` the same tree (lists/tuples/dicts) with leaves equal to `rtol`/`atol`;
    `same_type` also requires tuple vs list to match."""
    if isinstance(a, (tuple, list)):
        assert (type(a) is type(b) if same_type else isinstance(b, (tuple, list))) and len(a) == len(b)
        for x, y in zip(a, b):
            assert_trees_close(x, y, same_type, rtol, atol)
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            assert_trees_close(a[k], b[k], same_type, rtol, atol)
    else:
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def assert_same_computation(got, want, ulps=4, trips=1):
    """`got` and `want` compute the same floats by different code (a numba or C kernel against
    NumPy, jit against the plain function): equal to `ulps` ulps of the largest value per step,
    over `trips` steps of a recurrence. Transcendental functions differ by an ulp or two between
    libraries and between the SIMD paths NumPy picks per CPU at run time, and a recurrence
    carries each step's difference forward, so the bound grows with the trip count. Only
    arithmetic, comparisons and `sqrt` in the same order are bitwise on every CPU."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    eps = np.finfo(want.dtype).eps if want.dtype.kind in "fc" else 0.0
    finite = np.isfinite(want)
    scale = float(np.max(np.abs(want[finite]))) if finite.any() else 0.0
    tol = ulps * eps * trips
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale)


def fd_hessian(f, x, eps=1e-5):
    """The Hessian of scalar `f` at `x` (shape x.shape + x.shape) from central differences of
    `s2s.grad(f)`."""
    g = s2s.grad(f)
    x = np.asarray(x, dtype=float)
    cols = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = eps
        e = e.reshape(x.shape)
        cols.append((np.asarray(g(x + e)) - np.asarray(g(x - e))).ravel() / (2 * eps))
    return np.stack(cols, axis=-1).reshape(x.shape + x.shape)


def fd_grad(f, x, eps=1e-6):
    """The gradient of scalar `f` at array `x` from central differences of `f` itself."""
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


def fd_grad_of(f, args, k, eps=1e-6):
    """`fd_grad` of `f(*args)` in its argument `k`, the others held."""
    return fd_grad(lambda v: f(*args[:k], v, *args[k + 1:]), args[k], eps)


def assert_jit_grad_of_both(fn, got, args):
    """`got`, `jit(grad(fn, argnums=(0, 1)))(*args)` of a scalar `fn` of two arrays: bitwise the
    gradient `grad` gives without jit, each argument's within central differences, and `jit(fn)`
    gives `fn`'s value."""
    want = s2s.grad(fn, argnums=(0, 1))(*args)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
    for k in (0, 1):
        np.testing.assert_allclose(got[k], fd_grad_of(fn, args, k), rtol=1e-6, atol=1e-8)
    assert s2s.jit(fn)(*args) == fn(*args)


def leaves(x) -> list:
    """The arrays of a result that may be a tuple or list of them, nested, in order."""
    if isinstance(x, (tuple, list)):
        return [leaf for e in x for leaf in leaves(e)]
    return [np.asarray(x)]
