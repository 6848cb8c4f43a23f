"""grad and value_and_grad as objects with one compiled version per set of arguments that may be
complex (issue 45, section 5). JAX refuses grad of a complex output without holomorphic=True;
the generated code checks that (`rt.real_result`) only where a complex value may arise
(compiler/analysis/complexness.py), which depends on which arguments may be complex:

- a call runs the version for real arguments, after the cheap test of every argument that the
  complex route (api/holomorphic.py) makes anyway: one with a complex argument runs the version
  for those arguments;
- jit starts from the version for its arguments' dtypes (`for_arguments`);
- any other transform of it (vmap, grad of grad, a call inside a transformed function), which
  cannot know its arguments' dtypes, from the version where any argument may be complex.
"""
from __future__ import annotations

import numpy as np

from ..base import record
from ..compiler import driver
from ..compiler.frontend import idioms
from .calls import Transformed


class Gradient(Transformed):
    """`grad(fun)` or `value_and_grad(fun)` (see the module docstring)."""

    def __init__(self, kind: str, fun, argnums, has_aux: bool, with_value: bool, checkpoint):
        self._grad_args = (fun, argnums, has_aux, with_value, checkpoint)
        super().__init__(kind, fun, lambda: driver.grad_function(*self._grad_args), None, kind)
        self._complex_versions: dict = {}
        self.__s2s__ = record.Record(target=lambda: self.version(None))

    def _forget(self) -> None:
        self._complex_versions.clear()

    def version(self, complex_params: tuple | None):
        """The compiled version for arguments of which those at `complex_params` may be complex
        (None: any may be; `()`: none, the version a call runs)."""
        if complex_params == () or idioms.has_varargs(self._root):
            return self.compiled
        self._check_key()
        fn = self._complex_versions.get(complex_params)
        if fn is None:
            fn = self._complex_versions[complex_params] = self._note(
                driver.grad_function(*self._grad_args, complex_params=complex_params))
        return fn

    def for_arguments(self, kinds: dict, dtypes: dict | None = None):
        """The version a call with these arguments runs (`kinds`: position -> ndim of a NumPy
        array, or "float"; `dtypes`: position -> an array's dtype char): `jit(grad(f))` starts
        from it, so a version for real arrays carries no check."""
        dtypes = dtypes or {}
        try:
            n = self._nparams
        except (TypeError, ValueError):
            return self.version(None)
        maybe = tuple(i for i in range(n) if not (kinds.get(i) == "float" or type(kinds.get(i)) is int
                                                  and np.dtype(dtypes.get(i, "O")).kind in "biuf"))
        return self.version(maybe)
