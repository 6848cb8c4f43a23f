"""The operations s2s recognizes, and which rules each has: the data behind `python -m s2s ops`
and the coverage table of docs/operations.md."""
from __future__ import annotations

import numpy as np

from ..compiler.frontend.expressions import METHODS
from ..compiler.frontend.resolve import math_functions
from ..compiler.primitives import registry, rules  # noqa: F401  (fills the registry)

_METHOD_PRIM = {m: key for key, p in registry.PRIMS.items() for m in p.methods}  # `x.flatten()`: xp.ravel


def _has(p: registry.Prim, table: str) -> bool:
    """Whether every argument a derivative can flow through has a rule of this kind."""
    if p.nondiff or p.source is not None:  # a composite: its rules come from its source
        return True
    rules_ = p.vjp if table == "vjp" else p.jvp
    args = [a for a in p.params if a not in p.zero_args and not a.startswith("*")]
    return all(a in rules_ or (table == "jvp" and a in p.linear_in) for a in args)


def _numpy_object(name: str):
    obj = np
    for part in name.split("."):
        obj = getattr(obj, part, None)
    return obj


def operations() -> list[dict]:
    """One row per operation a user can write: NumPy functions, array methods, operators."""
    rows = []
    for key, p in sorted(registry.PRIMS.items()):
        if key.startswith("xp.") and _numpy_object(key[3:]) is not None:
            rows.append(_row("np." + key[3:], "function", p))
    for m in sorted(METHODS):
        p = registry.PRIMS.get(_METHOD_PRIM[m])
        if p is not None and hasattr(np.ndarray, m):
            rows.append(_row("ndarray." + m, "method", p))
    for p in registry.PRIMS.values():  # (in the order of their declarations)
        if p.symbol:
            rows.append(_row(p.symbol, "operator", p))
    for name, key in sorted(math_functions().items()):
        rows.append(_row("math." + name, "math", registry.PRIMS[key]))
    for p in registry.PRIMS.values():
        if p.builtin:
            rows.append(_row(p.builtin, "builtin", p))
    return rows


def _row(name: str, kind: str, p: registry.Prim) -> dict:
    return {"name": name, "kind": kind, "primitive": p.name, "differentiable": not p.nondiff,
            "vjp": _has(p, "vjp"), "jvp": _has(p, "jvp"), "batch": p.batch is not None,
            "batch_loop": p.batch is not None and p.batch.kind == "loop"}


def summary(rows: list[dict]) -> dict:
    return {"operations": len(rows),
            "differentiable_with_vjp_and_jvp": sum(r["differentiable"] and r["vjp"] and r["jvp"] for r in rows),
            "without_derivative": sum(not r["differentiable"] for r in rows),
            "with_batch_rule": sum(r["batch"] for r in rows),
            "batched_by_loop": sum(r["batch_loop"] for r in rows),
            "differentiable_all_rules_vectorized": sum(r["differentiable"] and r["vjp"] and r["jvp"] and r["batch"]
                                                       and not r["batch_loop"] for r in rows)}


def _mark(r: dict, table: str) -> str:
    if not r[table]:
        return ""
    if table == "batch":
        return "loop" if r["batch_loop"] else "yes"
    return "zero" if not r["differentiable"] else "yes"


def text(rows: list[dict]) -> str:
    width = max(len(r["name"]) for r in rows)
    lines = [f"{'operation':<{width}}  vjp   jvp   batch"]
    lines += [f"{r['name']:<{width}}  {_mark(r, 'vjp'):<5} {_mark(r, 'jvp'):<5} {_mark(r, 'batch')}" for r in rows]
    s = summary(rows)
    lines.append(f"{s['operations']} operations: {s['differentiable_with_vjp_and_jvp']} differentiable with VJP and "
                 f"JVP rules, {s['without_derivative']} without derivative (zero tangent), "
                 f"{s['with_batch_rule']} with batching rules ({s['with_batch_rule'] - s['batched_by_loop']} "
                 f"vectorized, {s['batched_by_loop']} once per example); "
                 f"{s['differentiable_all_rules_vectorized']} differentiable with VJP, JVP and a vectorized "
                 "batching rule")
    return "\n".join(lines)


def markdown(rows: list[dict]) -> str:
    """The coverage table of docs/operations.md (`python -m s2s ops --markdown`): operations grouped by kind
    and by which rules they have."""
    s = summary(rows)
    out = [f"{s['operations']} operations: {s['differentiable_with_vjp_and_jvp']} differentiable with reverse "
           f"(VJP) and forward (JVP) rules, {s['without_derivative']} recognized without derivative "
           "(zero: integer, boolean or piecewise-constant results), "
           f"{s['with_batch_rule']} with batching rules for vmap, "
           f"{s['with_batch_rule'] - s['batched_by_loop']} of them vectorized (\"loop\": run once per example); "
           f"{s['differentiable_all_rules_vectorized']} differentiable operations have all three rules, "
           "vectorized.", "",
           "| kind | VJP | JVP | batch | count | operations |", "|---|---|---|---|---|---|"]
    groups: dict[tuple, list[str]] = {}
    for r in rows:
        key = (r["kind"], _mark(r, "vjp") or "no", _mark(r, "jvp") or "no", _mark(r, "batch") or "no")
        groups.setdefault(key, []).append(f"`{r['name']}`".replace("|", "\\|"))  # (`|` would end a cell)
    for (kind, vjp, jvp, batch), names in groups.items():
        out.append(f"| {kind} | {vjp} | {jvp} | {batch} | {len(names)} | {', '.join(names)} |")
    return "\n".join(out)
