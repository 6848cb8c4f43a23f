"""The special functions s2s.scipy.special declares as primitives (primitives/rules_special.py):
each computed by SciPy's function on NumPy arrays, by `cupyx.scipy.special`'s on CuPy arrays,
and block by block on Dask arrays. SciPy is an optional dependency, imported on first use. Also
s2s.scipy.linalg's two helpers: the row order of an LU factorization from its pivots, and the
error a form s2s.scipy does not compute raises."""
from __future__ import annotations

import importlib

import numpy as np

from ..backends import arrays
from ..base import record
from ..errors import S2SError

# what generated code reaches as `rt.<name>` (s2s/runtime/__init__.py reads it)
__all__ = ("scipy_module", "scipy_unsupported", "lu_perm", "gammaln", "digamma", "polygamma", "erf", "erfc",
           "erfinv", "ndtri", "log_ndtr", "i0e", "i1e",
           "gammainc", "gammaincc", "betainc", "gamma", "rgamma", "gammasgn", "erfcinv", "i0", "i1", "iv", "ive", "j0",
           "j1", "jn", "y0", "y1", "yn", "stdtr", "order_of", "sqrtm", "solve_sylvester")


def scipy_module(name: str):
    """SciPy's submodule `name` ("special", "linalg", "stats"), or an error saying how to install it."""
    try:
        return importlib.import_module("scipy." + name)
    except ImportError as exc:
        raise S2SError(f"s2s.scipy needs SciPy, which is not installed: pip install 's2s[scipy]' ({exc})") from None


def scipy_unsupported(what: str, value=None):
    """Raise the error `what` when reached: a form of a SciPy function s2s.scipy does not compute
    (inside a transformed function, where `raise` cannot be written), or a derivative it has no
    rule for (in place of that derivative, so a gradient never silently omits it)."""
    raise S2SError(what)


def lu_perm(piv):
    """The row order `perm` with a[perm] = L U, from LAPACK's pivots `piv` (row k exchanged with row
    piv[k] at step k, k = 0, 1, ...), along the last axis (any leading axes: a batch of them)."""
    ns = arrays.namespace_of((piv,))
    if getattr(arrays.backend_of(piv), "name", "") == "dask":  # Dask lacks put_along_axis: the pivots on the host
        return ns.asarray(lu_perm(np.asarray(piv)))
    n = piv.shape[-1]
    perm = ns.broadcast_to(ns.arange(n), piv.shape).copy()
    for k in range(n):
        p = piv[..., k:k + 1]
        at_k = perm[..., k:k + 1].copy()
        ns.put_along_axis(perm, ns.full_like(p, k), ns.take_along_axis(perm, p, -1), -1)
        ns.put_along_axis(perm, p, at_k, -1)
    return perm


def _run(name: str, *args):
    """SciPy's special function `name` on `args`, on the backend the arrays among them live on."""
    backend = None
    for a in args:
        b = arrays.backend_of(a)
        if b is not None and b is not arrays.NUMPY:
            backend = b
    fn = getattr(scipy_module("special"), name)
    if backend is None:
        return fn(*args)
    if backend.special is not None:
        fn = getattr(backend.special(), name, None)
        if fn is None:
            raise S2SError(f"s2s: scipy.special.{name} has no {backend.name} version ({backend.name}'s special "
                           "functions lack it); move the data to NumPy first (CuPy: `x.get()`).")
        return fn(*args)
    if backend.name == "dask":
        return importlib.import_module("dask.array.core").elemwise(fn, *args)
    raise S2SError(f"s2s: scipy.special.{name} has no {backend.name} version; move the data to NumPy first.")


def gammaln(x):
    """log |Gamma(x)|."""
    return _run("gammaln", x)


def digamma(x):
    """psi(x) = d/dx log Gamma(x)."""
    return _run("digamma", x)


def polygamma(n, x):
    """The n-th derivative of digamma at x."""
    return _run("polygamma", n, x)


def erf(x):
    """The error function."""
    return _run("erf", x)


def erfc(x):
    """1 - erf(x), accurate where erf(x) is near 1."""
    return _run("erfc", x)


def erfinv(x):
    """The inverse of erf on (-1, 1)."""
    return _run("erfinv", x)


def ndtri(x):
    """The inverse of the standard normal CDF on (0, 1)."""
    return _run("ndtri", x)


def log_ndtr(x):
    """log of the standard normal CDF, accurate far into the lower tail."""
    return _run("log_ndtr", x)


def i0e(x):
    """exp(-|x|) I0(x): the exponentially scaled modified Bessel function of order 0."""
    return _run("i0e", x)


def i1e(x):
    """exp(-|x|) I1(x): the exponentially scaled modified Bessel function of order 1."""
    return _run("i1e", x)


def gammainc(a, x):
    """The regularized lower incomplete gamma function P(a, x)."""
    return _run("gammainc", a, x)


def gammaincc(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return _run("gammaincc", a, x)


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b)."""
    return _run("betainc", a, b, x)


def gamma(x):
    """The gamma function."""
    return _run("gamma", x)


def rgamma(x):
    """1 / Gamma(x), 0 at the poles of Gamma."""
    return _run("rgamma", x)


def gammasgn(x):
    """The sign of Gamma(x) (+1 or -1; 0 at the poles)."""
    return _run("gammasgn", x)


def erfcinv(x):
    """The inverse of erfc on (0, 2)."""
    return _run("erfcinv", x)


def i0(x):
    """The modified Bessel function of the first kind of order 0."""
    return _run("i0", x)


def i1(x):
    """The modified Bessel function of the first kind of order 1."""
    return _run("i1", x)


def iv(v, x):
    """The modified Bessel function of the first kind of real order v."""
    return _run("iv", v, x)


def ive(v, x):
    """exp(-|x|) iv(v, x): the exponentially scaled modified Bessel function of order v."""
    return _run("ive", v, x)


def j0(x):
    """The Bessel function of the first kind of order 0."""
    return _run("j0", x)


def j1(x):
    """The Bessel function of the first kind of order 1."""
    return _run("j1", x)


def jn(n, x):
    """The Bessel function of the first kind of order n (SciPy's jn is jv: a real order)."""
    return _run("jn", n, x)


def y0(x):
    """The Bessel function of the second kind of order 0."""
    return _run("y0", x)


def y1(x):
    """The Bessel function of the second kind of order 1."""
    return _run("y1", x)


def yn(n, x):
    """The Bessel function of the second kind of integer order n."""
    return _run("yn", n, x)


def stdtr(df, t):
    """The CDF of Student's t distribution with df degrees of freedom at t."""
    return _run("stdtr", df, t)


def order_of(v):
    """A Bessel function's order `v` as its derivative rules read it: the same value, carrying no
    derivative (the order is not differentiated), so a rule's own derivative never reaches it."""
    return v


def _on_numpy(name: str, *args) -> None:
    """Refuse arrays of another library for scipy.linalg's `name`, which only SciPy computes."""
    for a in args:
        b = arrays.backend_of(a)
        if b is not None and b is not arrays.NUMPY:
            raise S2SError(f"s2s: scipy.linalg.{name} has no {b.name} version ({b.name} lacks it); move the data "
                           "to NumPy first (CuPy: `x.get()`, Dask: `x.compute()`).")


def _stacked(fn, *mats):
    """`fn` of the matrices (the last two axes), once per matrix of their broadcast leading axes."""
    lead = np.broadcast_shapes(*(np.shape(m)[:-2] for m in mats))
    if not lead:
        return fn(*mats)
    mats = [np.broadcast_to(m, lead + np.shape(m)[-2:]) for m in mats]
    return np.stack([fn(*(m[k] for m in mats)) for k in np.ndindex(lead)]).reshape(lead + np.shape(mats[-1])[-2:])


def _real_sqrtm(a):
    r = scipy_module("linalg").sqrtm(a)
    if np.iscomplexobj(r):
        if np.any(r.imag != 0):
            raise S2SError("s2s: scipy.linalg.sqrtm of a matrix with negative real eigenvalues is complex; s2s "
                           "computes real values only.")
        r = r.real
    return r


def sqrtm(a):
    """The principal square root X of each matrix a (X @ X == a), real; a complex root is an error."""
    _on_numpy("sqrtm", a)
    return _stacked(_real_sqrtm, np.asarray(a, dtype=float))


def solve_sylvester(a, b, q):
    """X with a @ X + X @ b == q, for each matrix of the stacks a, b, q."""
    _on_numpy("solve_sylvester", a, b, q)
    return _stacked(scipy_module("linalg").solve_sylvester, *(np.asarray(m, dtype=float) for m in (a, b, q)))


for _name in __all__[3:]:  # each is the primitive of its name: transforms given one compile its rules
    record.attach(globals()[_name], prim="rt." + _name)
