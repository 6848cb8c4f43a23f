"""vmap composed with grad or jacrev, where the direct transform does not apply, as generated
wrappers around functions the driver built.

- `vmap(grad(f))` whose gradient code cannot be batched (its tape under per-example control
  flow) runs as the gradient of the batched `f` summed over the examples (`summed_fn`, then
  `batched_grad_fn` around its gradient): the examples are independent, so each one's slice of
  that gradient is its own gradient.
- `vmap(jacrev(f))` likewise runs as the Jacobian of the summed batched `f` (`batched_jacrev_fn`),
  with the example axis moved first.
- `vmap(vmap(grad(f)))` called on arrays runs as one `vmap(grad(f))` over both batch axes merged
  into one (`merged_vmap_fn`): the gradient's record is batched once, not twice.

Each builder returns a `GeneratedFn` in core form that the driver compiles like any other. The
last two helpers here are what the merged wrapper calls at run time (it finds them in its
namespace, as a dump shows).
"""
from __future__ import annotations

import numpy as np

from ...base.tree import tree_map
from ..ir import build
from ..ir.core import CoreFn
from ..ir.names import Namer
from .base import GeneratedFn, header_for


class _Wrapper:
    """The statements, names and namespace of one generated wrapper."""

    def __init__(self, names, taken=()):
        self.namer = Namer({"xp", "rt", *taken})
        self.params = [self.namer.exact(n if n.isidentifier() else f"a{i}") for i, n in enumerate(names)]
        self.ns: dict = {}
        self.body: list = []

    def value(self, label: str, obj):
        """An atom for `obj`: a literal for an int or None, else a name bound in the namespace."""
        if obj is None or type(obj) is int:
            return build.const(obj)
        return build.name(self.namer.bind(self.ns, label, obj))

    def callee(self, label: str, fn) -> str:
        return self.namer.bind(self.ns, label, fn)

    def let(self, base: str, expr) -> str:
        """`base = expr` under a fresh name for `base`; the name."""
        name = self.namer.exact(base)
        self.body.append(build.assign(name, expr))
        return name

    def set(self, name: str, expr) -> None:
        self.body.append(build.assign(name, expr))

    def args(self) -> list:
        return [build.name(p) for p in self.params]

    def done(self, fname: str, out: str, filename: str, header: str) -> GeneratedFn:
        self.body.append(build.ret(build.name(out)))
        name = self.namer.exact(fname)
        return GeneratedFn(name, build.function(name, self.params, self.body), self.ns, filename, header)


def _label(core: CoreFn) -> str:
    return core.name.replace("<lambda>", "lambda_")


def moved_params(n: int, nums: tuple, in_axes) -> list[bool]:
    """Which of `n` parameters the summed batched function takes batched: the mapped ones and
    the differentiated ones (an unmapped one broadcast first, so each example gets its own)."""
    specs = list(in_axes) if isinstance(in_axes, tuple) else [in_axes] * n
    return [i in nums or specs[i] is not None for i in range(n)]


def summed_fn(core: CoreFn, names, batched, kind: str, has_aux: bool = False, with_value: bool = False):
    """`batched` (vmap of the user's `core`, batch at axis 0 of its output) followed by the sum over
    the examples: for grad, the sum of per-example scalars (with what `has_aux`/`with_value`
    keep beside it); for jacrev, `(sum over axis 0, the batched output)`."""
    w = _Wrapper(names)
    v = w.let("v", build.call(build.name(w.callee(f"vmap_{_label(core)}", batched)), w.args()))
    if kind == "jacrev":
        total = w.let("total", build.call("xp.sum", [build.name(v)], {"axis": build.const(0)}))
        out = w.let("out", build.tuple_([build.name(total), build.name(v)]))
    else:
        scalars = w.let("scalars", build.subscript(build.name(v), build.const(0))) if has_aux else v
        total = w.let("total", build.call("rt.sum_examples", [build.name(scalars)]))
        if with_value:
            out = w.let("out", build.tuple_([build.name(total), build.name(v)]))
        elif has_aux:
            aux = w.let("aux", build.subscript(build.name(v), build.const(1)))
            out = w.let("out", build.tuple_([build.name(total), build.name(aux)]))
        else:
            out = total
    header = header_for("vmap", core, f"summed over the examples (the {kind} of the sum is each example's)")
    return w.done(f"summed_vmap_{_label(core)}", out, core.filename, header)


def _batched_entry(w: _Wrapper, names, moved, in_axes, axis_size) -> str:
    """vmap's first statements: the batch size (JAX's checks of `in_axes` against the arguments)
    and the moved arguments with their batch axis in front."""
    n = len(w.params)
    args = w.let("args", build.tuple_(w.args()))
    batch_size = w.let("batch_size", build.call("rt.vmap_size", [build.name(args), w.value("in_axes", in_axes),
                                                                 w.value("axis_size", axis_size),
                                           w.value("names", tuple(names[:n]))]))
    specs = list(in_axes) if isinstance(in_axes, tuple) else [in_axes] * n
    for p, spec, m in zip(w.params, specs, moved):
        if m:
            w.set(p, build.call("rt.vmap_in", [build.name(p), w.value(f"in_axes_{p}", spec), build.name(batch_size)]))
    return batch_size


def batched_grad_fn(core: CoreFn, names, grad_summed, moved, with_value: bool, in_axes, out_axes,
                    axis_size) -> GeneratedFn:
    """vmap(grad(f)) as `grad_summed` (the gradient of `summed_fn`'s function, with its value
    beside it when `with_value`), the batch axes moved as vmap moves them."""
    w = _Wrapper(names)
    batch_size = _batched_entry(w, names, moved, in_axes, axis_size)
    g = w.let("g", build.call(build.name(w.callee(f"grad_summed_vmap_{_label(core)}", grad_summed)), w.args()))
    if with_value:  # the gradient of the sum with the batched value as its aux: (value, gradient)
        grads, value = w.namer.exact("grads"), w.namer.exact("value")
        w.set(build.tuple_([build.name(grads), build.name(value)], store_=True), build.name(g))
        w.set(g, build.tuple_([build.name(value), build.name(grads)]))
    out = w.let("out", build.call("rt.vmap_out", [build.name(g), w.value("out_axes", out_axes), build.name(batch_size)]))
    header = header_for("vmap of grad", core, f"as the gradient of the examples' sum, in_axes={in_axes!r}")
    return w.done(f"vmap_grad_{_label(core)}", out, core.filename, header)


def batched_jacrev_fn(core: CoreFn, names, jac_summed, moved, argnums, in_axes, out_axes,
                      axis_size) -> GeneratedFn:
    """vmap(jacrev(f)) as `jac_summed` (jacrev of `summed_fn`'s function, the batched output as
    its aux): its Jacobian, `out.shape[1:] + (examples,) + in shape` per differentiated argument,
    with the example axis moved first."""
    w = _Wrapper(names)
    batch_size = _batched_entry(w, names, moved, in_axes, axis_size)
    res = w.let("res", build.call(build.name(w.callee(f"jacrev_summed_vmap_{_label(core)}", jac_summed)), w.args()))
    j, v = w.namer.exact("jac"), w.namer.exact("v")
    w.set(build.tuple_([build.name(j), build.name(v)], store_=True), build.name(res))
    nd = w.let("nd", build.call("xp.ndim", [build.name(v)]))
    axis = w.let("axis", build.template("nd - 1", nd=build.name(nd)))
    parts = [j] if isinstance(argnums, int) else [w.namer.exact(f"jac{k}") for k in range(len(argnums))]
    if not isinstance(argnums, int):
        w.set(build.tuple_([build.name(p) for p in parts], store_=True), build.name(j))
    for p in parts:
        w.set(p, build.call("xp.moveaxis", [build.name(p), build.name(axis), build.const(0)]))
    if not isinstance(argnums, int):
        w.set(j, build.tuple_([build.name(p) for p in parts]))
    out = w.let("out", build.call("rt.vmap_out", [build.name(j), w.value("out_axes", out_axes), build.name(batch_size)]))
    header = header_for("vmap of jacrev", core, f"as the Jacobian of the examples' sum, in_axes={in_axes!r}")
    return w.done(f"vmap_jacrev_{_label(core)}", out, core.filename, header)


def merged_vmap_fn(core: CoreFn, kind: str, names, flat, outer: tuple, inner: tuple, specs0, specs1) -> GeneratedFn:
    """vmap(vmap(g)) (g: `kind` of `core`, grad or value_and_grad) as one vmap of g (`flat`, every
    argument either axis mapped at takes its batch
    at axis 0) over the two batch axes merged into one of B0 * B1 examples. `outer`/`inner`:
    (in_axes, out_axes, axis_size) of the two vmaps; `specs0`/`specs1`: their int-or-None axis per
    argument. The sizes are checked as the two vmaps check them (the inner one on the first
    outer example), so errors name the same arguments and axes."""
    w = _Wrapper(names)
    shown = w.value("names", tuple(names[:len(w.params)]))
    args = w.let("args", build.tuple_(w.args()))
    n0 = w.let("n_outer", build.call("rt.vmap_size", [build.name(args), w.value("in_axes_outer", outer[0]),
                                                build.const(outer[2]), shown]))
    examples = []
    for p, a0 in zip(w.params, specs0):
        if a0 is None:
            examples.append(build.name(p))
        else:
            examples.append(build.name(w.let(f"{p}_example", build.call("xp.take", [build.name(p), build.const(0)],
                                                                  {"axis": build.const(a0)}))))
    firsts = w.let("examples", build.tuple_(examples))
    n1 = w.let("n_inner", build.call("rt.vmap_size", [build.name(firsts), w.value("in_axes_inner", inner[0]),
                                                build.const(inner[2]), shown]))
    merge = w.callee("merge_batch_axes", merge_batch_axes)
    for p, a0, a1 in zip(w.params, specs0, specs1):
        if a0 is not None or a1 is not None:
            w.set(p, build.call(merge, [build.name(p), build.const(a0), build.const(a1), build.name(n0), build.name(n1)]))
    out = w.let("out", build.call(build.name(w.callee(flat.__name__, flat)), w.args()))
    w.set(out, build.call(w.callee("split_batch_axes", split_batch_axes),
                      [build.name(out), build.name(n0), build.name(n1), build.const(outer[1]), build.const(inner[1])]))
    header = header_for(f"vmap of vmap of {kind}", core, f"as one vmap over both batch axes merged, "
                                                         f"in_axes={outer[0]!r} outside and {inner[0]!r} inside")
    return w.done(f"merged_{flat.__name__}", out, core.filename, header)


def pullback_fn(core: CoreFn, bwd, picks: tuple) -> GeneratedFn:
    """The pullback of `y, pullback = s2s.vjp(f, *primals)` called inside a transformed function:
    `pullback(saved, primals, ct)` runs f's backward sweep `bwd` on the forward sweep's record and returns
    the cotangents at `picks` (the primals'; the sweep's others belong to free locals and
    parameters left to their defaults). Generated, so it transforms further: a VJP of a VJP."""
    w = _Wrapper(["saved", "primals", "ct"])
    saved, primals, ct = w.args()
    cts = w.let("cts", build.call(build.name(w.callee(f"backward_{_label(core)}", bwd)), [saved, ct]))
    out = w.let("out", build.tuple_([build.subscript(build.name(cts), build.const(i)) for i in picks]))
    # (a list primal's cotangent is a list, as vjp's outside: s2s/api/arg_structure.py)
    out = w.let("out", build.call("rt.restructure", [build.name(out), primals]))
    out = w.let("out", build.call("rt.real_cotangent", [build.name(out), primals]))  # (a real primal's: real)
    return w.done(f"pullback_{_label(core)}", out, core.filename, header_for("pullback", core, "(s2s.vjp inside)"))


# ---------------------------------------------------------------- run by the merged wrapper

def merge_batch_axes(a, outer, inner, n_outer: int, n_inner: int):
    """Argument `a` of vmap(vmap(g)) with its outer batch axis `outer` and its per-example inner
    one `inner` (None: not mapped by that vmap, broadcast) as one leading axis of
    n_outer * n_inner examples, outer-major."""
    a = np.asarray(a)
    if outer is None:
        a = np.broadcast_to(a[None], (n_outer,) + a.shape)
    elif a.ndim:
        a = np.moveaxis(a, outer % a.ndim, 0)
    if inner is None:
        a = np.broadcast_to(a[:, None], (n_outer, n_inner) + a.shape[1:])
    else:
        a = np.moveaxis(a, 1 + inner % (a.ndim - 1), 1)
    return np.reshape(a, (n_outer * n_inner,) + a.shape[2:])


def split_batch_axes(out, n_outer: int, n_inner: int, out_outer: int, out_inner: int):
    """The merged vmap's result (every leaf batched at axis 0) as vmap(vmap(g)) gives it: the
    inner batch axis at `out_inner` of each example, the outer one at `out_outer`."""
    def split(leaf):
        leaf = np.reshape(leaf, (n_outer, n_inner) + np.shape(leaf)[1:])
        leaf = np.moveaxis(leaf, 1, 1 + out_inner % (leaf.ndim - 1))
        return np.moveaxis(leaf, 0, out_outer % leaf.ndim)
    return tree_map(split, out)
