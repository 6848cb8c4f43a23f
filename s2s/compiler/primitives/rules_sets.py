"""NumPy's set operations (np.unique, union1d, intersect1d, setdiff1d, setxor1d, unique_values):
selections of their inputs' entries, computed by runtime/sets.py's definitions written with
primitives (a gather at a host map of first occurrences), so their derivatives, forward, reverse
and batched, come from that source. The maps are NumPy's own function run once per example under
vmap (a result whose size differs per example is refused there, as in JAX)."""
from __future__ import annotations

from ... import runtime as _rt
from .registry import LOOP, composite, prim, refuse

for _n, _sig in (("unique_map", "ar, return_index, return_inverse, return_counts, axis, equal_nan, sorted"),
                 ("union1d_map", "ar1, ar2"), ("intersect1d_map", "ar1, ar2, assume_unique, return_indices"),
                 ("setdiff1d_map", "ar1, ar2, assume_unique"), ("setxor1d_map", "ar1, ar2, assume_unique")):
    prim("rt." + _n, _sig, nondiff=True, zero_args=tuple(_sig.split(", ")), batch=LOOP)  # (integers)
composite("xp.unique", _rt.unique, positional=5)  # (equal_nan and sorted by keyword, as NumPy's)
composite("xp.unique_values", _rt.unique_values)
for _n in ("union1d", "intersect1d", "setdiff1d", "setxor1d"):
    composite("xp." + _n, getattr(_rt, _n))
# NumPy 2's unique_counts/_inverse/_all return named tuples s2s does not build: their values are
# the input's, so a derivative reaching them is refused rather than silently 0
for _n in ("unique_counts", "unique_inverse", "unique_all"):
    prim("xp." + _n, "x", batch=LOOP)
    refuse("xp." + _n, f"np.{_n} (use np.unique with return_counts/return_inverse)", "x")
