"""Helpers that generated code calls as `rt.<name>`, each taking its array module from its arguments.

One module per rule family, each with one export list (`__all__`) that this namespace is built from:

- core: broadcasting, casts, pytrees, in-place accumulation, the copies that keep functions pure
- tape_copies: the backward sweep's own copies of the forward sweep's records
- elementwise: derivatives of elementwise functions (rules.py's operators, rules_math)
- views: NumPy's views in a tuple assignment's right side (rules_views)
- dtypes: what an integer, bool or complex result dtype does to a derivative (rules_dtypes)
- shapes, reduce, linalg: transposes and derivatives of shape, reduction and linear-algebra ops
  (rules_shape, rules_reduce, rules_linalg)
- composite: operations computed by NumPy's definition written with primitives (registry.composite)
- sets: np.unique and the set operations as gathers at a map of first occurrences (rules_sets)
- jacobian: the basis and the assembly of Jacobians (rules_jacobian)
- batch: vmap's machinery (sizes, in/out axes, masks, the per-example fallback `map_examples`)
- batch_core, batch_shape, batch_reduce, batch_linalg: batching helpers `batched_<op>(flags, *args)`
  (named by `batch=by(...)` where each op is declared), by the family of the op they batch
- loops: helpers of vectorized loops (rules_loops)
- known_loops: the windows and short loops' dots of vectorized loops a jit version decided when
  compiled (passes/loopfold.py)
- deferred_sums: a loop's sum of outer products kept as rows and added as matrix products (jit's
  passes/accumulate.py)
- item_sums: a dict's cotangent added into an accumulator item by item, in place where the
  accumulator alone holds it (jit's passes/tree_items.py and passes/owned_sums.py)
- row_sums: a table's cotangent kept as the rows a callee added, added row by row into the
  caller's accumulator (jit's passes/row_sums.py)
- selects: a select's cotangent on NumPy numbers, a number instead of a 0-d array (jit's
  passes/scalar_selects.py)
- special: SciPy's special functions that are primitives (rules_special), SciPy imported on first use
- trees: pytree flattening inside transformed code (rules_trees)
- conv: s2s.lax's convolution and reduce_window windows (rules_conv)
- signal: s2s.scipy.signal's convolve, autograd's with axes and dot_axes (rules_signal)
- fft: np.fft's transforms by name and their transposes (rules_fft)
- index_updates: JAX's `x.at[i].<op>(v)`: out-of-bound modes, which value `.min`/`.max` keep (rules_updates)
- least_squares: np.linalg.lstsq's derivatives at full rank (rules_linalg)
- windows: sliding_window_view's transpose, a scatter-add of the windows (rules_shape)
- batch_masks: vmap of a selection by a mask that differs per example, kept at its array's shape
- batch_nested: transposes of vmap's helpers batched again (rules_vmap_nested)
- batch_derivs: the batching helpers' derivatives, each example's own rule (rules_batch_derivs)
- trace: the nodes of traced code (transforms/trace.py, autograd's tracer)
- spaces: calls of vector-space values (a parameter called), resolved when they run (rules_spaces)

The modules whose names start with `_` are what those share and generated code never calls:
`_values` (a value's shape, size, float dtype), `_examples` (per-example plumbing: a tree mapped
under in_axes, results stacked, an op by its primitive name), `_batch_operands` (facts about
batched operands), `_batch_checks` (vmap's refusals of value-dependent shapes), `_index_layout` (the batched key
that keeps NumPy's advanced-indexing layout per example), `_linalg_common`
(the einsum parser, the matrix product) and `_registered` (the rule tables and this namespace, as
the compiler registers them). They have no export list, and only this package imports them, but
for `_registered`'s `register`, which the rule tables' registry calls to hand them down.

A name exported twice is an error, so `rt.<name>` always means one function.
"""
from . import (
    batch,
    batch_core,
    batch_derivs,
    batch_linalg,
    batch_masks,
    batch_nested,
    batch_reduce,
    batch_shape,
    checkpoints,
    composite,
    conv,
    core,
    deferred_sums,
    dtypes,
    elementwise,
    fft,
    index_updates,
    item_sums,
    jacobian,
    known_loops,
    least_squares,
    linalg,
    linalg_norms,
    loops,
    reduce,
    row_sums,
    selects,
    sets,
    shapes,
    signal,
    spaces,
    special,
    tape_copies,
    trace,
    trees,
    views,
    windows,
)

MODULES = (core, elementwise, shapes, reduce, linalg, linalg_norms, composite, jacobian, batch, batch_core, batch_shape,
           batch_reduce, batch_linalg, batch_nested, batch_derivs, loops, special, checkpoints, conv, signal, trees,
           tape_copies, trace, spaces, dtypes, views, sets, fft, least_squares, windows,
           index_updates, batch_masks, deferred_sums, item_sums, known_loops, row_sums, selects)


def _build(modules) -> dict:
    """`rt.<name>` -> function, from each module's `__all__`."""
    names: dict = {}
    for m in modules:
        for n in m.__all__:
            if n in names:
                raise ImportError(f"s2s.runtime: {n} is exported by both {names[n].__module__} and {m.__name__}")
            names[n] = getattr(m, n)
    return names


globals().update(_build(MODULES))
__all__ = [n for m in MODULES for n in m.__all__]
