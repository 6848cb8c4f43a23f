"""The primitives: each operation s2s knows, declared once with its rules and its facts.

One declaration per primitive (`registry.prim`, or `linear`, `nondiff`, `elementwise`, which call
it) gives its signature and its facts: whether it is differentiable, which arguments carry no
derivative (`zero_args`), whether it broadcasts, is a reduction, may alias an input, its result's
shape or float-ness, whether a fused kernel computes it, the runtime helper of its diagonal form,
its array-method, `math`, operator and `operator`-module spellings, how array libraries other than
NumPy provide it (`neutral`, `dask`, `composed`, `widened`: s2s/backends/arrays.py reads them, handed over by
`arrays.learn` below) (the fields of `registry.Prim`), and its batching rule (`batch=SAME`,
`batch=along("axis")`, `batch=by("rt.batched_f")`: the runtime helper that batches it). Its
derivative rules follow it (`defvjp`, `defjvp`); a primitive is declared once and has one batching
rule (the registry refuses a second of either). rules_batch.py gives the core table's elementwise
and broadcasting ops without a rule of their own theirs by those facts, declares each batching
helper a primitive in its turn, and runs every primitive still without a rule once per example
(`batch_the_rest`). The transforms and the passes ask these declarations
(`registry.lookup(name).reduction`, ...) and keep no lists of operation names
(tests/architecture/test_primitive_declarations.py checks that); the fused kernels' emitters read
each function's spelling there too (`cuda`, `numba`, `numba_slow`).

Each family of operations has a rule file here and a runtime module beside it: rules.py (Python's
operators, elementwise functions, the core reductions and shape functions, and the helpers their
rules emit) with runtime/core.py and runtime/elementwise.py; rules_math.py with
runtime/elementwise.py; rules_reduce.py with runtime/reduce.py and runtime/composite.py;
rules_shape.py with runtime/shapes.py; rules_linalg.py with runtime/linalg.py and
runtime/linalg_norms.py; rules_special.py (SciPy's special functions, s2s.scipy) with
runtime/special.py; rules_jacobian.py with runtime/jacobian.py; rules_batch.py with
runtime/batch*.py; rules_batch_derivs.py (the batching helpers' derivatives, each example's own
rules, and the linearity facts that give their second derivatives) with runtime/batch_derivs.py;
rules_loops.py with runtime/loops.py; rules_conv.py (s2s.lax's convolution and
reduce_window windows) with runtime/conv.py; rules_signal.py (s2s.scipy.signal's convolve) with
runtime/signal.py; rules_trees.py (tree_util's flattening inside transformed code) with
runtime/trees.py; rules_vmap_nested.py (derivatives of vmap's helpers batched again) with
runtime/batch_nested.py; rules_idioms.py holds its helpers itself. rules_helpers.py declares the
runtime helpers rules call that s2s differentiates from their own source (composites): every `rt.`
name a rule uses is a declared primitive, so a helper is differentiable to any order or refused by
name.

To add an operation: declare it in its family's rule file, one line with its facts and its batching
rule, one line per derivative rule (`prim("xp.f", "x, axis=None", zero_args=REST,
batch=along("axis"))`, `defvjp("xp.f", x="rt.f_vjp(g, x, axis)")`), and write the runtime helpers
those rules name (`f_vjp`, a batching helper `batched_f`) in the family's runtime modules, each
listed in its module's `__all__`. To add a family: a new rules_<family>.py imported from rules.py,
and its runtime modules listed in `runtime.MODULES`. Nothing outside this package and s2s/runtime/
changes.
"""
from ...backends import arrays
from . import registry, rules_batch, rules_helpers, rules_loops, rules_vmap_nested  # noqa: F401  (declares every rule table, batching rules last)  # noqa: F401  (the helpers rules call, differentiated from their source)  # noqa: F401  (the vectorized loops' helpers, on top of the batching rules)  # noqa: F401  (derivatives of vmap's helpers batched again)

rules_batch.batch_the_rest()  # (last: a primitive without its own batching rule runs once per example)
arrays.learn(registry.PRIMS)  # (how array libraries provide each function: `neutral`, `dask`, `composed`, `widened`)
registry.builtins_declared()  # (the rules above are checked by registry.check_rules, in the tests)
