"""Small-array kernels (jit, with numba): consecutive statements of arithmetic on float64 vectors of
one known length below the fused kernels' size (a version for small arrays, whose shapes it was
built for) become one call of a compiled loop over the elements, `s2s.compiler.emit.numba_small`.

NumPy spends about 0.23 µs per operation on a small array (the call, the dispatch, a new array);
a compiled loop over every element of seven operations costs one call, about 0.4 µs (W6's Hessian
of sum(tanh(x)**3) at n=3: the seven products and differences of its diagonal).

Before (t a float64 vector of 3)::

    u0 = t * t
    d = 1.0 - u0
    u7 = d * t
    s = u7 * d - u0 * u7
    r = 6.0 * s
    return rt.diag_of_vector(r, x)

After::

    r = small_0(t)
    return rt.diag_of_vector(r, x)

Only `+ - * /`, negation and `** 2` of vectors of that one shape (no broadcasting), Python float
parameters and number literals: IEEE operations numba computes as NumPy does, in the same order,
so the values are bitwise NumPy's (a NaN's sign and payload aside). Every statement is an
assignment bound once whose value has an array operand; the names read after the run are the
kernel's results. A run of fewer than
`MIN_OPS` operations stays as it is. `known["small"]` lists the kernels (name, parameters, the
parameters that are arrays, results, statements, the arrays' shape); the kernel runs the statements with NumPy until
it has been called `numba_small.HOT` times, then compiles (so a function called a few times never
waits for numba).

In a loop's body (an RNN's backward step, the same statements every iteration) the arrays may be
matrices or of more axes, of one known shape, whose dtype and layout the version need not know: the
kernel runs the loop over their elements in C order only where every array is a C-ordered float64
NumPy array of that shape (NumPy's result of such operands is C-ordered, so a later reduction reads
it in the same order), and the statements otherwise. There a name may be bound twice in the run
(`b = 2 * u; b = b + 2 * v`) where the run holds all its bindings and reads it after the first.
"""
from __future__ import annotations

import collections
import math

import gast

from .. import analysis
from ..ir import build
from .base import Pass
from .constants import float64_ranks

MIN_OPS = 5  # a compiled call costs about two NumPy operations on a small array
_KERNEL_NAMES = frozenset({"i", "np", "numba"})


def _ops(e, arrays: set, floats: set) -> int | None:
    """The number of operations of arithmetic expression `e` over `arrays`, `floats` and number
    literals, or None if it is not one."""
    if isinstance(e, gast.Name):
        return 0 if e.id in arrays or e.id in floats else None
    if isinstance(e, gast.Constant):  # (spelled in the kernel's source as NumPy reads it: finite)
        return 0 if analysis.number_literal(e) and math.isfinite(e.value) else None
    if isinstance(e, gast.UnaryOp) and isinstance(e.op, gast.USub):
        n = _ops(e.operand, arrays, floats)
        return None if n is None else n + 1
    if isinstance(e, gast.BinOp) and isinstance(e.op, gast.Pow):
        two = isinstance(e.right, gast.Constant) and type(e.right.value) in (int, float) and e.right.value == 2
        n = _ops(e.left, arrays, floats) if two else None
        return None if n is None else n + 1
    if isinstance(e, gast.BinOp) and isinstance(e.op, analysis.ARITH):
        a, b = _ops(e.left, arrays, floats), _ops(e.right, arrays, floats)
        return None if a is None or b is None else a + b + 1
    return None


def small_kernels(body: list, params, facts) -> tuple[list, bool]:
    """(Final stage, jit, small arrays of known shapes, numba.) Runs of arithmetic as kernels (module docstring)."""
    known = facts["known"]
    offered, shapes = known.get("small"), known.get("name_shapes")
    if offered is None or not shapes or known.get("fuse"):
        return body, False
    counts = analysis.assigned_counts(body, params)
    ranks = {n: r for n, r in float64_ranks(body, params, known).items() if type(r) is int and r >= 1}
    floats = {n for n in known.get("floats") or () if counts.get(n) == 1}
    last = {n: j for j, s in enumerate(body) for n in analysis.loads([s])}  # name -> its last reader
    out, changed = _kernels(body, lambda k, run, n: last.get(n, -1) >= k + len(run), ranks, shapes, counts, floats,
                            offered, False)
    loops = [s for s in analysis.walk_stmts(out) if isinstance(s, (gast.For, gast.While))]
    if loops:  # (a loop's body: a name it assigns is a result where anything but the run reads it)
        everywhere = collections.Counter(analysis.loads(out))
        for loop in loops:
            def read_after(k, run, n):
                return everywhere[n] > collections.Counter(analysis.loads(run))[n]

            loop.body, c = _kernels(loop.body, read_after, ranks, shapes, counts, floats, offered, True)
            changed = changed or c
    return out, changed


def _kernels(body, read_after, ranks, shapes, counts, floats, offered, loop) -> tuple[list, bool]:
    """`body` (a block) with its runs of at least `MIN_OPS` operations as kernel calls
    (`read_after(k, run, name)`: whether `name`, which the run from `body[k]` assigns, is read
    after it)."""
    out, k, changed = [], 0, False
    while k < len(body):
        run, ops, shape = _run(body, k, ranks, shapes, counts, floats, loop)
        stmts = [s for s in run if not build.is_comment(s)]
        assigned = list(dict.fromkeys(s.targets[0].id for s in stmts))
        results = [n for n in assigned if read_after(k, run, n)]
        if ops < MIN_OPS or not results:
            out += body[k:k + max(1, len(run))]  # (a run's later statements start shorter runs)
            k += max(1, len(run))
            continue
        inputs = sorted(set().union(*(build.names_in(s.value) for s in stmts)) - set(assigned))
        name = f"small_{len(offered)}"
        arrays = [n for n in inputs if _shape(shapes, n, loop) == shape and (loop or n in ranks)]
        offered.append((name, inputs, arrays, results, stmts, shape))
        call = build.call(name, [build.name(n) for n in inputs])
        target = build.name(results[0], store=True) if len(results) == 1 else \
            build.tuple_([build.name(n, store=True) for n in results], store_=True)
        out += [s for s in run if build.is_comment(s)] + [build.assign(target, call)]
        k += len(run)
        changed = True
    return out, changed


def _run(body, k, ranks, shapes, counts, floats, loop=False):
    """(statements, operations, shape) of the longest run of kernel statements from `body[k]`: each
    assigns a name bound once an arithmetic value with an operand among the arrays of the run's
    one shape (the first statement's) or the names the run assigned before it. In a loop's body
    (`loop`) the arrays are any of one known shape of rank 2 or more (their dtype and layout are
    tested when the kernel runs), and a name may be bound more than once where the run holds
    every binding and reads it only after the first."""
    run, shape, arrays, ops = [], None, set(), 0
    for s in body[k:]:
        if build.is_comment(s):
            run.append(s)
            continue
        if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
                and (counts[s.targets[0].id] == 1 or loop)):
            break
        names = build.names_in(s.value)
        if names & _KERNEL_NAMES or any(n.startswith("_") for n in names | {s.targets[0].id}):
            break  # (the kernel's own names: its loop index, module and buffers)
        if shape is None:
            shape = next((_shape(shapes, n, loop) for n in sorted(names)
                          if (loop or n in ranks) and _shape(shapes, n, loop)), None)
        here = arrays | {n for n in names if (loop or n in ranks) and _shape(shapes, n, loop) == shape}
        n = _ops(s.value, here, floats) if shape is not None and names & here else None
        if n is None:
            break
        arrays, ops = here | {s.targets[0].id}, ops + n
        run.append(s)
    if loop:
        run = _whole_bindings(run, counts)
        ops = sum(_ops(s.value, arrays, floats) or 0 for s in run if not build.is_comment(s))
    while run and build.is_comment(run[-1]):
        run.pop()
    return run, ops, shape


def _whole_bindings(run, counts) -> list:
    """`run` cut before the first statement that reads a name the run binds later, or that binds a
    name bound outside the run too (a kernel's names hold their last value; none is read before it
    is bound)."""
    held = collections.Counter(s.targets[0].id for s in run if not build.is_comment(s))
    bound: set = set()
    for j, s in enumerate(run):
        if build.is_comment(s):
            continue
        t = s.targets[0].id
        if held[t] != counts[t] or build.names_in(s.value) & (set(held) - bound):
            return run[:j]
        bound.add(t)
    return run


def _shape(shapes, n, loop=False):
    """`n`'s shape if it is a known vector's (or, in a loop's body, of rank 2 or more). (Outside
    loops, vectors only: NumPy lays an elementwise result of matrices out in its operands' order,
    C or Fortran, which a later sum reads in, where the loop writes C order; in a loop the kernel
    tests that its arrays are C-ordered.)"""
    s = shapes.get(n)
    if s is None or not all(type(d) is int for d in s):
        return None
    return s if len(s) == 1 and not loop or len(s) >= 2 and loop else None


PASS = Pass("small_kernels", small_kernels)
