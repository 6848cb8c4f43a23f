"""`s2s.scipy`: JAX's `jax.scipy` namespaces, `special`, `stats`, `linalg` and `signal` (convolve).

The special functions SciPy computes natively (gammaln, digamma, polygamma, erf, erfc, erfinv,
erfcinv, ndtri, log_ndtr, gamma, rgamma, gammasgn, the Bessel functions, stdtr, the incomplete
gamma and beta functions) and linalg's sqrtm and solve_sylvester are primitives with derivative
and batching rules at every order (s2s/compiler/primitives/rules_special.py); everything else is ordinary
Python over those and NumPy calls, so s2s transforms it like user code. A transformed function
that calls SciPy itself (`scipy.special.gammaln`, `scipy.stats.norm.logpdf`,
`scipy.linalg.cholesky`) is given these functions in their place. SciPy is an optional
dependency: pip install 's2s[scipy]'.
"""
from __future__ import annotations

import sys

try:
    import scipy as _scipy  # noqa: F401
except ImportError as _exc:
    raise ImportError(f"s2s.scipy needs SciPy, which is not installed: pip install 's2s[scipy]' ({_exc})") from None

from . import linalg, signal, special, stats  # noqa: E402

__all__ = ["linalg", "signal", "special", "stats"]


def counterparts(loaded: tuple[str, ...]) -> dict[int, tuple[object, object]]:
    """id(SciPy's object) -> (that object, kept alive; s2s.scipy's function or distribution module of
    its name), for SciPy's namespaces `loaded` ("special", "stats", "linalg") already imported.
    The frontend reads SciPy's objects in a transformed function as these (frontend/resolve.py)."""
    out: dict[int, tuple[object, object]] = {}
    for sub in loaded:
        theirs, ours = sys.modules["scipy." + sub], globals().get(sub)
        if ours is None:
            continue
        for name in ours.__all__:
            obj = getattr(theirs, name, None)
            if obj is not None and not isinstance(obj, type(sys)):
                out[id(obj)] = (obj, getattr(ours, name))
    return out
