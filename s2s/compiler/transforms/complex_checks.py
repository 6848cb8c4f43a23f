"""Where reverse mode needs JAX's complex checks: `rt.real_result` (grad and jacrev refuse a complex
output without holomorphic=True) and `rt.real_cotangent` (a real argument's gradient is the real
part of a complex cotangent). Both are emitted only where analysis/complexness.py says a complex
value may arise, given which parameters may be complex at run time, so the gradient of real code
carries neither: no call per gradient, and jit's fused kernels stay whole."""
from __future__ import annotations

import gast

from ..analysis.complexness import Complexness
from ..ir import build
from ..ir.core import CoreFn
from .base import Callees


class Fact:
    """The complexness of `core`'s values when the parameters at positions `complex_params` may be
    complex (None: any of them may; `()`: none, as at a call whose arguments were checked real)."""

    def __init__(self, core: CoreFn, complex_params: tuple | None, calls: Callees | None):
        names = None if complex_params is None else {core.params[i] for i in complex_params if i < len(core.params)}
        self.fact = Complexness(core.node.body, core.params, core.ns, names, _core_reader(calls))
        self.anywhere = self.fact.anywhere()

    def output(self) -> bool:
        """Whether the function's output may be complex."""
        return self.fact.returns()

    def real_cotangent(self, grad, param: str):
        """`rt.real_cotangent(grad, param)` where a complex cotangent may reach a parameter, else `grad`."""
        return build.call("rt.real_cotangent", [grad, build.name(param)]) if self.anywhere else grad

    def real_output(self, out, what: str, namer) -> list:
        """JAX's check that the output `out` (a Name) is real, for the transform `what`, where it may
        not be; no statement where it certainly is."""
        if not self.output():
            return []
        name = out.id if isinstance(out, gast.Name) else out
        return [build.assign(namer.fresh("real"), build.call("rt.real_result", [build.name(name), build.const(what)]))]


def _core_reader(calls):
    """The core form of a plain callee, through the driver (None without one)."""
    if calls is None:
        return None
    return calls.core
