"""Derivatives of the batching helpers (`rt.batched_<op>`), from the rules of the op they batch.

A batched helper is its op mapped over the batch axis, so its VJP (JVP) with respect to an argument
is the op's own VJP (JVP) rule applied to each example (runtime/batch_derivs.py), summed over the
examples for an argument they share. Each of those per-example derivatives is a primitive in turn,
`ext.pe_<kind>__<op>__<argument number>(flags, t_, a0, ..., an)`, whose own rules say what is known
of the op's second derivatives from its linearity facts:

- linear: the op is linear in this argument, the others held fixed (a product is linear in each
  factor, `linear_in` ops in their one argument). Then its Jacobian for that argument does not
  depend on it, and `J h = op(args with h in its place)`, which transposes and differentiates the
  per-example derivatives for every other argument: the derivatives of any order are again
  per-example derivatives (or the helper itself, for a tangent).
- flat: the op's Jacobian for this argument does not depend on it (affine, or linear by pieces:
  sorting, quantiles, interpolation's abscissa): its derivative with respect to itself is zero.
- joint: the op is linear in these arguments together (np.append's two arrays): the Jacobian for
  one depends on none of them.

Any other second derivative is refused by name when it is needed (never a silent zero).
"""
from __future__ import annotations

from ... import runtime as _rt
from ...base import record
from ...runtime import batch_derivs
from .registry import BATCH, EXT, LOOP, PRIMS, RULE_NAMES, defjvp, defvjp, prim

RULE_NAMES.add("ext")

prim("rt.zero_or_refuse", "x, like, what", nondiff=True, batch=LOOP)

_AB, _OPERANDS = ("a", "b"), tuple("abcdef")
# linear in each of these arguments, the others held fixed (beyond the `linear_in` declarations)
LINEAR = {
    "xp.tensordot": _AB, "xp.linalg.tensordot": _AB, "xp.vdot": _AB, "xp.kron": _AB, "xp.cross": _AB,
    "xp.linalg.cross": _AB, "xp.vecdot": _AB, "xp.linalg.vecdot": _AB, "xp.matvec": _AB, "xp.vecmat": _AB,
    "xp.einsum": _OPERANDS, "rt.einsum_n": _OPERANDS, "xp.convolve": ("a", "v"), "xp.correlate": ("a", "v"),
    "xp.linalg.solve": ("b",), "xp.average": ("a",), "xp.interp": ("fp",), "rt.interp_apply": ("fp",),
    "xp.polyval": ("p",), "xp.gradient": ("f",), "rt.dot_vjp_a": ("v", "b"), "rt.dot_vjp_b": ("v", "a"),
    "rt.max_vjp": ("v",), "rt.lax_conv_t_lhs": ("ct", "rhs"), "rt.lax_conv_t_rhs": ("ct", "lhs"),
    "xp.outer": _AB, "xp.linalg.outer": ("x1", "x2"), "xp.full_like": ("fill_value",),
    "rt.signal_convolve": _AB, "rt.signal_convolve_t_a": ("ct", "b"), "rt.signal_convolve_t_b": ("ct", "a"),
}
# the Jacobian for this argument does not depend on it (affine, or linear by pieces)
FLAT = {
    "xp.diff": ("a",), "xp.pad": ("array",), "xp.partition": ("a",), "xp.quantile": ("a",),
    "xp.percentile": ("a",), "xp.nanquantile": ("a",), "xp.nanpercentile": ("a",), "xp.interp": ("x",),
    "rt.interp_apply": ("x",),
}
# linear in these arguments together
JOINT = {"rt.add_at": ("acc", "v"), "xp.append": ("arr", "values"), "xp.select": ("choicelist", "default"),
         "xp.linspace": ("start", "stop"),
         "xp.meshgrid": ("x", "y", "z")}

for _table in (LINEAR, FLAT, JOINT):  # (a misspelled argument would silently be a nonlinear one)
    for _op, _args in _table.items():
        assert set(_args) <= set(PRIMS[_op].params), (_op, _args)


# per-example derivatives computed on the whole batch at once by vmap's own helpers: (kind, op,
# argument number) -> fast(flags, t, *the op's arguments)
FAST = {
    ("vjp", "xp.outer", 0): lambda flags, t, a, b: _rt.batched_outer_vjp(flags, t, a, b, 0),
    ("vjp", "xp.outer", 1): lambda flags, t, a, b: _rt.batched_outer_vjp(flags, t, a, b, 1),
    ("jvp", "xp.outer", 0): lambda flags, t, a, b: _rt.batched_outer(flags, t, b),
    ("jvp", "xp.outer", 1): lambda flags, t, a, b: _rt.batched_outer(flags, a, t),
    ("vjp", "xp.full", 1): lambda flags, t, shape, fill_value, dtype: _rt.batched_full_t(flags, t, fill_value),
    ("vjp", "xp.full_like", 1): lambda flags, t, a, fill_value, dtype: _rt.batched_full_t(flags, t, fill_value),
    **{(kind, "xp.linspace", w): (lambda fn, w: lambda flags, t, start, stop, num, endpoint, retstep, dtype, axis:
                                  fn(flags, t, start, stop, num, endpoint, axis, w))(fn, w)
       for kind, fn in (("vjp", _rt.batched_linspace_t), ("jvp", _rt.batched_linspace_jvp)) for w in (0, 1)},
}
# helpers with vectorized rules of their own, whose derivatives beyond the first are the per-example
# ones (the rules above, computed by FAST at the first order): helper -> op
ADOPTED = {"rt.batched_outer": "xp.outer", "rt.batched_full": "xp.full", "rt.batched_full_like": "xp.full_like",
           "rt.batched_linspace": "xp.linspace"}


def _linear(p) -> set:
    return set(p.linear_in) | set(LINEAR.get(p.name, ()))


def _name(kind: str, op: str, w: int) -> str:
    return f"ext.pe_{kind}__{op.replace('.', '_')}__{w}"


def _zero(p, w: int) -> set:
    """The positions of the arguments the Jacobian for argument `w` does not depend on."""
    params = p.params
    out = {j for j, q in enumerate(params) if q in p.zero_args}
    me = params[w]
    if me in _linear(p) or me in FLAT.get(p.name, ()):
        out.add(w)
    joint = JOINT.get(p.name, ())
    if me in joint:
        out |= {j for j, q in enumerate(params) if q in joint}
    return out


def _call(fn: str, t: str, args: list[str], at: int | None = None, value: str = "") -> str:
    args = list(args)
    if at is not None:
        args[at] = value
    return f"{fn}(flags, {t}, {', '.join(args)})"


_DONE: set[str] = set()


def _declare(op: str, label: str) -> None:
    """The per-example VJP and JVP of `op` for each differentiable argument, as primitives with
    rules (`label`: the batched helper, named when a derivative is refused)."""
    if op in _DONE:
        return
    _DONE.add(op)
    p = PRIMS[op]
    n = len(p.params)
    args = [f"a{j}" for j in range(n)]
    diff = [w for w, q in enumerate(p.params) if q not in p.zero_args]
    for w in diff:
        for kind in ("vjp", "jvp"):
            name = _name(kind, op, w)
            zero = ("flags",) + tuple(args[j] for j in sorted(_zero(p, w)))
            prim(name, "flags, t_, " + ", ".join(args), zero_args=zero, tree_sum=True,
                 tree_args=tuple(range(1, n + 2)), batch=LOOP)
            fn = batch_derivs.per_example(kind, op, w, label, FAST.get((kind, op, w)))
            record.attach(fn, prim=name)  # (a call of it is that primitive, not a function to transform)
            setattr(EXT, name[4:], fn)
    lin = _linear(p)
    for w in diff:
        zero = _zero(p, w)
        vjp, jvp = _name("vjp", op, w), _name("jvp", op, w)
        defvjp(vjp, t_=_call(jvp, "g", args))
        defjvp(vjp, t_=_call(vjp, "dt_", args))
        defvjp(jvp, t_=_call(vjp, "g", args))
        defjvp(jvp, t_=_call(jvp, "dt_", args))
        for j in diff:
            if j in zero:
                continue
            a = args[j]
            refused = f"`{label}` (its derivative for `{p.params[w]}`, with respect to `{p.params[j]}`)"
            no_v, no_d = f"rt.zero_or_refuse(g, {a}, {refused!r})", f"rt.zero_or_refuse(d{a}, ans, {refused!r})"
            if j == w:
                for fn in (vjp, jvp):
                    defvjp(fn, **{a: no_v})
                    defjvp(fn, **{a: no_d})
                continue
            me_linear = p.params[w] in lin
            # VJP_w(g) is J_w^T g, and J_w h = op(h in place of argument w) when op is linear in it
            defvjp(vjp, **{a: _call(_name("vjp", op, j), "t_", args, w, "g") if me_linear else no_v})
            defvjp(jvp, **{a: _call(_name("vjp", op, j), "g", args, w, "t_") if me_linear else no_v})
            # VJP_w is linear in argument j when op is; JVP_w(d) is op(d in place of w) when linear in w
            defjvp(vjp, **{a: _call(vjp, "t_", args, j, "d" + a) if p.params[j] in lin else no_d})
            if me_linear:
                defjvp(jvp, **{a: _call(_name("jvp", op, j), "d" + a, args, w, "t_")})
            else:
                defjvp(jvp, **{a: _call(jvp, "t_", args, j, "d" + a) if p.params[j] in lin else no_d})


def _op_of(helper: str):
    """The op whose batching helper `helper` is, with its arguments in the op's order (after
    `flags`, and before a `kw` of keywords no rule reads), or None."""
    h = PRIMS[helper]
    for op, rule in BATCH.items():
        if rule.kind != "helper" or rule.helper != helper:
            continue
        p = PRIMS[op]
        if any(q.startswith("*") for q in p.params) or p.nondiff or p.source is not None:
            continue
        if h.params == ("flags", "args"):  # `batched_f(flags, *args)`: called with the op's arguments, in order
            h.params, h.defaults = ("flags",) + p.params, dict(p.defaults)
            for table in (h.vjp, h.jvp):
                table.pop("args", None)
        rest = h.params[1:-1] if h.params[-1:] == ("kw",) else h.params[1:]
        if len(rest) == len(p.params):
            return op
    return None


_SLOTS = tuple(f"a{j}" for j in range(7))
for _kind in ("vjp", "jvp"):
    prim(f"rt.map_examples_{_kind}", "fn, which, flags, t_, " + ", ".join(f"{a}=None" for a in _SLOTS),
         zero_args=("fn", "which", "flags"), tree_sum=True, tree_args=tuple(range(3, 11)), batch=LOOP)
    for _a in ("t_",) + _SLOTS:  # (the op is known only when it runs: refused by name beyond the first order)
        defvjp(f"rt.map_examples_{_kind}", **{_a: "rt.no_batched_derivative(g, 'map_examples (an op run once per "
                                                   "example), at order 2')"})
        defjvp(f"rt.map_examples_{_kind}", **{_a: f"rt.no_batched_derivative(d{_a}, 'map_examples (an op run once "
                                                   "per example), at order 2')"})


def derive_helpers() -> None:
    """Every batching helper whose derivatives are refused (`rt.no_batched_derivative`) gets the
    per-example derivatives of its op, argument by argument, where the op has rules."""
    for j, a in enumerate(_SLOTS):  # an op without a vectorized batching rule, run once per example
        defvjp("rt.map_examples", **{a: f"rt.map_examples_vjp(fn, {j}, flags, g, {', '.join(_SLOTS)})"})
        defjvp("rt.map_examples", **{a: f"rt.map_examples_jvp(fn, {j}, flags, d{a}, {', '.join(_SLOTS)})"})
    for helper in [n for n in PRIMS if n.startswith("rt.batched_")]:
        h = PRIMS[helper]
        adopted = ADOPTED.get(helper)
        if adopted is not None:
            for table in (h.vjp, h.jvp):  # (its rules, replaced by the per-example ones below)
                for q in PRIMS[adopted].params:
                    if q not in PRIMS[adopted].zero_args:
                        table[q] = "rt.no_batched_derivative(g, 'adopted')"
        if not any("no_batched_derivative" in r for r in h.vjp.values()):
            continue
        op = adopted or _op_of(helper)
        if op is None:
            continue
        p = PRIMS[op]
        _declare(op, helper[3:])
        names = list(h.params[1:1 + len(p.params)])
        keywords = h.params[-1:] == ("kw",)
        lin = _linear(p)
        h.tree_sum = h.tree_sum or p.tree_sum
        for w, q in enumerate(p.params):
            hq = names[w]
            if "no_batched_derivative" not in h.vjp.get(hq, "no_batched_derivative"):
                continue
            if q in p.zero_args:  # (a shape, an index, a setting: no derivative, as for the op)
                h.zero_args = tuple(dict.fromkeys(h.zero_args + (hq,)))
                h.vjp.pop(hq, None)
                h.jvp.pop(hq, None)
                continue
            defvjp(helper, **{hq: _call(_name("vjp", op, w), "g", names)})
            if q in lin and not keywords:  # linear: the helper itself on the tangent, vectorized
                defjvp(helper, **{hq: f"{helper}(flags, {', '.join(names[:w] + ['d' + hq] + names[w + 1:])})"})
            else:
                defjvp(helper, **{hq: _call(_name("jvp", op, w), "d" + hq, names)})
