"""The primitive table: each op's signature and its derivative rules, declared as data.

A rule is a Python expression over the op's argument names, `ans` (the primal output), `g`
(the output cotangent, reverse mode), `d<arg>` (an argument's tangent, forward mode), `xp` (the
array module) and `rt` (s2s.runtime). Rules are parsed and their free names checked when they are
registered, so a bad rule fails at import.
"""
from __future__ import annotations

import dataclasses
import inspect
import types

import gast

from ... import runtime
from ...runtime._registered import register as register_with_runtime

RULE_NAMES = {"g", "ans", "xp", "rt", "tuple"}


@dataclasses.dataclass
class Prim:
    """One primitive: `name` is its spelling in generated code (`xp.exp`, `rt.unbroadcast`, `add`).
    Every fact below is given where the primitive is declared (`prim(name, sig, **facts)`); the
    transforms and passes ask these facts and keep no lists of operation names."""

    name: str
    params: tuple[str, ...]
    defaults: dict
    nondiff: bool = False          # output carries no derivative (comparisons, shapes, integers)
    broadcasting: bool = False     # elementwise over broadcast arguments: unbroadcast cotangents
    linear_in: tuple[str, ...] = ()  # jvp = the op applied to this argument's tangent
    list_args: tuple[str, ...] = ()  # arguments that are sequences of arrays (stack, concatenate)
    zero_args: tuple[str, ...] = ()  # arguments used only for their shape or as indices: no derivative
    tree_sum: bool = False         # output may be a pytree: tangent terms add with rt.tree_add
    same_shape: bool = False       # output has its (array) argument's shape
    real_of_complex: bool = False  # a real result of a complex argument (np.abs, np.real): its shape, not its dtype
    full_reduction: bool = False   # with axis=None and keepdims=False, the output is a scalar
    source: object = None          # computed by this runtime function, transformed from its source
    # ---- facts the optimization passes and the special transforms read ----
    reduction: bool = False        # `f(a, axis, keepdims)` with the array method `a.f(axis)`: shapes fold through it
    product: bool = False          # dot/matmul: `a @ b` for vectors and matrices
    dot_ranks: bool = False        # its result's rank is np.dot's of its operands' ranks (vmap on known ranks)
    maybe_scalar: bool = False     # a product whose result is a number for two vectors
    float_result: str = ""         # "always": a floating result whatever its real arguments; "keep": when one is
    fusable: str = ""              # "unary"/"binary": an elementwise kernel computes it (passes/fusion.py)
    cheap: bool = False            # a select-like op a fused kernel recomputes rather than stores (passes/recompute.py)
    broadcast_result: bool = False  # its result has the broadcast shape of its arguments (a helper like rt.pick)
    reverses_axes: bool = False    # with no axes (None), its result is its first argument with the axes reversed
    aliasing: bool = False         # a helper that may hand back one of its inputs itself
    result_like: int | None = None  # a helper whose result is an array shaped like this argument
    cotangent_of: int | None = None  # a helper computing the cotangent of a product's argument at this position
    shape_arg: int | None = None   # position of an argument used only for its shape
    fill: bool = False             # (g, like, axis, keepdims) -> g broadcast to `like`'s shape
    mutates: bool = False          # updates an argument in place: the first, or the one at `mutated`
    mutated: int = 0
    dot_like: bool = False         # a contraction JAX lowers to dot_general (s2s.checkpoint's dots_saveable)
    shape_only: tuple = ()         # positions of arguments read only for their shape and dtype (the tape's stubs)
    shape_only_for: tuple = ()     # (parameter, literal, positions): more of those where that argument is that
    #                                literal (rt.operand_cotangent's other addend, for op "add")
    effect: bool = False           # acts on something (a draw, a check, a print): never removed, moved or merged
    checks: bool = False           # raises where NumPy would (rt.inplace): reverse mode's forward sweep keeps it
    #                                even where its value carries a derivative no sweep reads (transforms/reverse.py)
    restores: bool = False         # hands back a value an effect saved earlier (a checkpoint's snapshot), not one
    #                                computed from its arguments (a trace cannot follow it: transforms/trace.py)
    tree_args: tuple[int, ...] = ()  # positions of arguments that may be whole pytrees (adjoints add leaf by leaf)
    tree_preserving: bool = False  # its result is a pytree when its first argument is (a copy)
    nested_ok: bool = False        # a batched helper that may run inside a vectorized loop (passes/loopvec.py)
    shape_query: str = ""          # "shape", "ndim" or "size": the array attribute of that name
    arith: str = ""                # "+", "-", "*" or "/": that arithmetic operation (the operator or its ufunc)
    diag: str = ""                 # "same": keeps its first argument's diagonal Jacobian; "zero": none (zeros)
    diag_form: str = ""            # the runtime helper the diagonal Jacobian uses in its place (transforms/diagonal.py)
    out_buffer: bool = False       # a ufunc whose result may be written into an operand's buffer (passes/reuse.py)
    loop_kernel: bool = False      # a function a compiled loop kernel calls on scalars (passes/loopkernel.py)
    stacks: bool = False           # builds an array from a list of arrays (a list built in a loop: a stack)
    dtype_by_cast: bool = False    # its `dtype=` is its result cast to that dtype (frontend/keyword_calls.py)
    range_result: bool = False     # returns a range (a loop over it stays a loop)
    record_copy: bool = False      # a backward sweep's own copy of its record: a plain tuple (transforms/reverse.py)
    real_identity: bool = False    # its first argument itself at real values (rt.real_cotangent, rt.real_result):
    #                                a trace keeps its node, a diagonal of float arrays drops it
    float_of_first: bool = False   # a Python float when its first argument is one (passes/algebra.py)
    written_out: str = ""          # a function as authors write it out, which this helper computes as written and
    #                                reverse mode differentiates as that function (transforms/tanh_idioms.py)
    methods: tuple[str, ...] = ()  # array methods that are this primitive (`x.sum()`; `x.flatten()` is xp.ravel)
    math_name: str = ""            # the function of Python's `math` module that is this primitive
    unbatched_result: bool = False  # batched, one result serves every example (a shape, a setting)
    batched_by: str = ""           # batch=SAME: its result is batched only where this argument is (the
    #                                others a backend or a tree's structure, every example's)
    refused: tuple[str, ...] = ()  # arguments whose derivative is an S2SError when one reaches them (`refuse`)
    inert: tuple[str, ...] = ()    # parameters of NumPy's function that change no value (einsum's `optimize`):
    #                                passed through; any other one not in `sig` is refused (primitives/keywords.py)
    unmodelled: tuple[str, ...] = ()  # parameters in `sig` (for binding by position) that no rule reads: a call
    #                                giving one at a value other than NumPy's default is refused
    rewrites: str = ""             # frontend/keyword_calls.py writes a call with these keywords as modelled calls
    #                                ("flat_order": ravel's order="F", "index_mode": take's mode=, ...)
    symbol: str = ""               # the Python operator that is this primitive ("+" is add; "unary -" is neg)
    builtin: str = ""              # the Python builtin that is this primitive (`max` of two arrays is xp.maximum)
    sequence_op: bool = False      # `+`/`*`, which also concatenate and repeat lists and tuples
    operator_fn: str = ""          # the `operator` module's function that is this operator ("truediv" for `/`)
    ufunc: str = ""                # an operator's NumPy ufunc, as the fused kernels call it ("subtract" for `-`)
    number_result: str = ""        # a Python number: "int" whatever its arguments (len, int), "float" (float),
    #                                "keep": an int when its argument is one (abs)
    index_trick: object = None     # NumPy's index-trick object whose `obj[...]` this computes (np.r_ for rt.r_)
    # ---- how the fused kernels spell it (s2s/emit: kernels, cupy_kernels, numba_kernels) ----
    cuda: str = ""                 # CUDA C: a math.h function (`exp`, `fabs`), or an operator: "-" (negate),
    #                                "*" (square), ">"/"<" (the operand that compares so, NaN first: maximum/minimum)
    numba: str = ""                # a numba loop kernel's call for it (`_exp`, the prelude's; `np.log`)
    numba_slow: bool = False       # numba's scalar call is slower than NumPy's SIMD loop (picks the kernel)
    array_loop: str = ""           # an array loop kernel's own function for it (emit/numba_arrayloops.py's prelude)
    backward_loop: tuple = ()      # a reverse sweep's helper a backward loop kernel calls as `_rt_<name>` (emit/
    #                                numba_arraypops.py): (its arguments, "v" a value, "i" an index, "n" None, "f"
    #                                False, "s" a string; the argument whose rank its result has, -1: the values' most)
    positional: int | None = None  # a composite's most positional arguments (the rest keyword-only, as NumPy's)
    # ---- how array libraries other than NumPy provide it (s2s/backends/arrays.py, s2s/backends/array_fill.py) ----
    neutral: bool = False          # on dtypes, shapes or Python values: NumPy's function serves every array library
    dask: str = ""                 # Dask's name for it, where Dask names it differently (xp.amax is Dask's `max`)
    composed: object = None        # maker(xp) of it from xp's other functions, for a library that lacks it (CuPy)
    widened: object = None         # maker(xp, the library's own) with NumPy's signature, where the library's takes less
    dtype_cast: bool = False       # its result is its argument cast to a dtype it is given (frontend/dtypes.py)
    dtype_gate: bool = False       # its first argument itself, there for its derivative rule only (jit drops it)
    any_dtype: bool = False        # a value read from an object s2s does not see into (an attribute): maybe complex

    @property
    def vjp(self) -> dict[str, str]:
        """This primitive's row of the VJP table: argument -> cotangent rule."""
        return VJP.setdefault(self.name, {})

    @property
    def jvp(self) -> dict[str, str]:
        """This primitive's row of the JVP table: argument -> tangent rule."""
        return JVP.setdefault(self.name, {})

    @property
    def batch(self):
        """This primitive's batching rule (None until one is declared with `defbatch`)."""
        return BATCH.get(self.name)


@dataclasses.dataclass(frozen=True)
class BatchRule:
    """How a primitive runs on batched operands (a declaration's `batch=`, or rules_batch.py): `kind`
    is "same" (elementwise), "broadcast", "axis" (shift the `axes` parameters past the batch axis;
    `none_axis` says what axis=None means: "all" per-example axes, "flat", "keep", "norm": "flat"
    when `ord` is None, else "all"), "helper"
    (runtime function `helper(flags, *args)`), "loop" (once per example) or "create" (refuses
    batched arguments). `fixed`: arguments that must be the same for every example (a shape)."""

    kind: str
    axes: tuple[str, ...] = ()
    helper: str = ""
    none_axis: str = "all"
    fixed: tuple[str, ...] = ()
    # NumPy takes axis 0 or -1 of a 0-d array (a ufunc's reduction or scan of a number, np.sum(x, axis=0),
    # np.cumsum; np.expand_dims's result axis); without it a 0-d example's axis is NumPy's AxisError
    # (np.mean, np.sort, np.flip of a number raise one)
    number: bool = False


# Batching rules a declaration gives with `batch=` (rules_batch.py declares those not yet moved)
SAME = BatchRule("same")            # elementwise, or on each example as a whole
BROADCAST = BatchRule("broadcast")  # elementwise over broadcast operands
LOOP = BatchRule("loop")            # once per example
CREATE = BatchRule("create")        # creation ops and queries: batched arguments are an error


def along(*axes: str, none: str = "keep", number: bool = False) -> BatchRule:
    """Batched by shifting these axis arguments past the batch axis (`none`: what None means;
    `number`: NumPy takes axis 0 or -1 of a 0-d array, BatchRule.number)."""
    return BatchRule("axis", axes=axes, none_axis=none, number=number)


def by(helper: str, fixed: tuple = ()) -> BatchRule:
    """Batched by runtime helper `helper(flags, *args)` (`fixed`: arguments the same for every example)."""
    return BatchRule("helper", helper=helper, fixed=fixed)


PRIMS: dict[str, Prim] = {}

# One table per transform, keyed by the primitive's name. The declarations below fill them.
VJP: dict[str, dict[str, str]] = {}   # name -> {argument: cotangent rule}        (reverse mode)
JVP: dict[str, dict[str, str]] = {}   # name -> {argument: tangent rule}          (forward mode)
BATCH: dict[str, BatchRule] = {}      # name -> batching rule, see `defbatch`     (vmap)
RANKED: dict[tuple, str] = {}         # (name, batched flags, ranks) -> expression, see `defranked`
# name -> (argument, helper `h(b_arg, g, <the op's other arguments>)` that adds the argument's
# cotangent into its adjoint in place): reverse mode's form for ops whose rule scatters a small
# cotangent into zeros the size of the argument (a batched `x[:, i]` in a loop)
VJP_IN_PLACE: dict[str, tuple[str, str]] = {}


# Functions users give rules with `s2s.defvjp`/`s2s.defjvp`, and callable rules: generated code
# reaches them as `ext.<key>` (each key unique; see s2s.api.custom).
EXT = types.SimpleNamespace()

# vmap's per-example fallbacks in the runtime call primitives by name and read their rules: this
# layer hands the tables (and `rt` itself) down to the runtime, which imports nothing above it
register_with_runtime(rt=runtime, prims=PRIMS, ext=EXT)


# The built-in tables' rules, checked by `check_rules` (tests/architecture) rather than parsed at
# every `import s2s` (a third of its time); rules declared after them (s2s.defvjp) are checked at once.
_BUILTIN_RULES: list[tuple[str, Prim, set[str]]] = []
_DEFERRING = True


def _check(rule: str, prim: Prim, extra: set[str]) -> None:
    if _DEFERRING:
        _BUILTIN_RULES.append((rule, prim, extra))
    else:
        _check_now(rule, prim, extra)


def check_rules() -> int:
    """Check the names every built-in rule uses (an unknown one is a ValueError); returns how many."""
    for args in _BUILTIN_RULES:
        _check_now(*args)
    return len(_BUILTIN_RULES)


def builtins_declared() -> None:
    """The built-in tables are complete: rules declared from now on are checked as they come."""
    global _DEFERRING
    _DEFERRING = False


def _check_now(rule: str, prim: Prim, extra: set[str]) -> None:
    tree = gast.parse(rule, mode="eval")
    free = {n.id for n in gast.walk(tree) if isinstance(n, gast.Name)}
    unknown = free - RULE_NAMES - set(prim.params) - extra
    if unknown:
        raise ValueError(f"rule {rule!r} for {prim.name} uses unknown names {sorted(unknown)}")


REST = "*rest"  # zero_args=REST: every parameter but the first (the array) carries no derivative


def _top_level_split(sig: str) -> list[str]:
    """`sig` split at its commas outside brackets (a default may be a tuple: fft2's `axes=(-2, -1)`)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(sig):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(sig[start:i])
            start = i + 1
    return parts + [sig[start:]]


def prim(name: str, sig: str = "x", **facts) -> Prim:
    """Declare primitive `name` with signature `sig`, e.g. "a, axis=None, keepdims=False", its
    facts (the fields of `Prim`) and its batching rule (`batch=`, a BatchRule). A primitive is
    declared once: a second declaration of `name` (which would silently replace the first one's
    facts) is refused."""
    if name in PRIMS:
        raise ValueError(f"prim: {name} is already declared; a primitive is declared once, with all its facts")
    params, defaults = [], {}
    for part in filter(None, (p.strip() for p in _top_level_split(sig))):
        if "=" in part:
            key, value = (s.strip() for s in part.split("=", 1))
            defaults[key] = eval(value, {})  # literal defaults only
            params.append(key)
        else:
            params.append(part)
    if facts.get("zero_args") == REST:
        facts["zero_args"] = tuple(params[1:])
    batch = facts.pop("batch", None)
    p = Prim(name, tuple(params), defaults, **facts)
    PRIMS[name] = p
    if batch is not None:
        defbatch(name, batch)
    return p


def defvjp(name: str, **rules: str) -> None:
    p = PRIMS[name]
    for arg, rule in rules.items():
        _check(rule, p, set())
        p.vjp[arg] = rule


def defjvp(name: str, **rules: str) -> None:
    p = PRIMS[name]
    for arg, rule in rules.items():
        _check(rule, p, {"d" + a for a in p.params})
        p.jvp[arg] = rule


def defbatch(name: str, rule: BatchRule) -> None:
    """Declare the batching rule of primitive `name`, for vmap (see `BatchRule`)."""
    if name not in PRIMS:
        raise KeyError(f"defbatch: {name} is not a declared primitive")
    if name in BATCH:  # (a second rule would silently replace the first: declare one, where the primitive is)
        raise ValueError(f"defbatch: {name} already has a batching rule ({BATCH[name]}); a primitive has one")
    BATCH[name] = rule


def defranked(name: str, flags: tuple, ranks: tuple, rule: str) -> None:
    """Declare that primitive `name`, batched with these per-argument batched flags and known
    per-example ranks, is the NumPy expression `rule` of its batched arguments (vmap specialized on
    ranks then needs no run-time helper that inspects them)."""
    p = PRIMS[name]
    _check(rule, p, set())
    RANKED[(name, tuple(flags), tuple(ranks))] = rule


def refuse(name: str, what: str, *args: str) -> None:
    """Arguments of primitive `name` that s2s does not differentiate with respect to: a derivative
    reaching one raises an S2SError naming `what` (never a silent zero). Arguments that carry no
    derivative by nature (shapes, indices, settings) are `zero_args` instead."""
    p = PRIMS[name]
    p.refused = tuple(dict.fromkeys(p.refused + args))
    for arg in args:
        defvjp(name, **{arg: f"rt.no_derivative(g, {what!r})"})
        defjvp(name, **{arg: f"rt.no_derivative(d{arg}, {what!r})"})


def elementwise(name: str, deriv: str, sig: str = "x", **facts) -> None:
    """A one-argument elementwise function with derivative `deriv` (in terms of x and ans)."""
    prim(name, sig, same_shape=True, **facts)
    defvjp(name, x=f"g * ({deriv})")
    defjvp(name, x=f"dx * ({deriv})")


def nondiff(*names: str, sig: str = "x", **facts) -> None:
    """Primitives whose output carries no derivative (comparisons, predicates, shapes, indices)."""
    for n in names:
        prim(n, sig, nondiff=True, **facts)


def linear(name: str, sig: str, arg: str, vjp: str, **facts) -> None:
    """An op linear in `arg`: its tangent is the op applied to the tangent; `vjp` is its transpose.
    Its other arguments carry no derivative unless `zero_args` says which do not."""
    p = prim(name, sig, linear_in=(arg,), **facts)
    if "zero_args" not in facts:
        p.zero_args = tuple(a for a in p.params if a != arg)
    defvjp(name, **{arg: vjp})


# Reductions whose `where=`/`initial=` forms are runtime functions written with primitives: the
# normalizer calls KEYWORD_FORMS[key] (transformed from its source like a user function) when a
# call of primitive `key` passes one of KEYWORD_FORM_ARGS.
KEYWORD_FORMS: dict[str, object] = {}
# (np.average's returned=: a pair; np.pad's constant_values: rules_shape.py)
KEYWORD_FORM_ARGS = ("where", "initial", "returned", "constant_values")

# JAX's products take `precision=` (how accelerators round float32 products; NumPy has one way,
# so it is dropped) and `preferred_element_type=` (the dtype the product is computed and returned
# in: the operands are cast to it). Per primitive: (first operand, operand count or None for all).
PRODUCT_OPERANDS = {"xp.dot": (0, 2), "xp.matmul": (0, 2), "xp.inner": (0, 2), "xp.vdot": (0, 2),
                    "xp.tensordot": (0, 2), "xp.linalg.matmul": (0, 2), "xp.einsum": (1, None)}
PRODUCT_KEYWORDS = ("precision", "preferred_element_type")

# NumPy functions (and the methods and attributes normalized to them: `.T`, `.reshape()`, `.real`)
# whose result may be a view of their first argument's array: the alias check (frontend/aliases.py)
# treats it as another name of that array
VIEW_CALLS = frozenset("xp." + n for n in (
    "reshape", "ravel", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray", "squeeze", "transpose",
    "swapaxes", "moveaxis", "expand_dims", "diagonal", "atleast_1d", "atleast_2d", "atleast_3d",
    "broadcast_to", "broadcast_arrays", "real", "imag", "flip", "fliplr", "flipud", "rot90", "split",
    "array_split", "hsplit", "vsplit", "dsplit", "matrix_transpose", "permute_dims", "unstack", "view",
    "lib.stride_tricks.sliding_window_view", "lib.stride_tricks.as_strided"))
# Functions whose result is an ndarray even at rank 0 (never a NumPy scalar, which `op=` rebinds):
# `a op= v` updates it in place, as NumPy does, under vmap too (frontend/dtypes.py, issue 44)
NDARRAY_RESULTS = frozenset("xp." + n for n in (
    "zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like", "array", "asarray",
    "copy", "eye", "identity", "arange", "linspace"))
# ... of each of their array arguments, not only the first
VIEW_EACH_CALLS = frozenset({"xp.broadcast_arrays"})

# The dtype of a result when no dtype is given (frontend/dtypes.py: what a store into it casts to):
# from the arguments' values (np.arange(3) holds integers, np.full(n, 0) too), or the first
# argument's (copies and creations like an array)
DTYPE_FROM_VALUES = frozenset({"xp.arange", "xp.full"})
# Functions (not ufuncs: theirs is read from their loops) whose result is floating for integer operands
FLOATING_FROM_INTEGERS = frozenset("xp." + n for n in (
    "mean", "average", "std", "var", "median", "nanmean", "nanstd", "nanvar", "nanmedian", "percentile", "quantile",
    "interp", "linspace", "cov", "corrcoef"))
DTYPE_OF_FIRST = frozenset("xp." + n for n in ("array", "asarray", "copy", "ascontiguousarray", "zeros_like",
                                                "ones_like", "empty_like", "full_like"))

# Calls that return a new array, never one of their arguments or a view of one (analysis/owned.py:
# arrays a function owns alone)
FRESH_CALLS = frozenset("xp." + n for n in ("zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like",
                                             "full_like", "eye", "identity", "arange"))

# Calls whose result is always an array (never a number or a list), and those of them whose result is
# a new C-contiguous array, whose reshape is a view (frontend/view_writes.py follows writes through both)
ARRAY_CALLS = frozenset("xp." + n for n in ("zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like",
                                            "full_like", "eye", "identity", "arange", "linspace", "outer", "array",
                                            "asarray", "copy"))
C_ORDER_CALLS = frozenset("xp." + n for n in ("zeros", "ones", "empty", "full", "eye", "identity", "arange", "linspace",
                                              "outer"))

# Products whose result is always a new array (never a view of an argument, nor the argument):
# a callee may update such an argument in place without the caller seeing it.
NEW_ARRAY_CALLS = frozenset("xp." + n for n in ("dot", "matmul", "outer", "inner", "tensordot", "kron", "cross"))


# Methods of lists, dicts and arrays that change their object: a call of one acts on something
# besides its result (reverse mode's check that a callee acts only through its result).
MUTATING_METHODS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update",
                              "setdefault", "popitem", "fill", "resize", "put", "itemset", "setflags"})


def product_operands(key: str | None, nargs: int) -> range:
    """The positions of a JAX product's operands among `nargs` positional arguments (empty for
    another primitive)."""
    if key not in PRODUCT_OPERANDS:
        return range(0)
    first, count = PRODUCT_OPERANDS[key]
    return range(first, nargs if count is None else min(nargs, first + count))


def keyword_form(key: str | None, keywords, nargs: int = 0) -> object | None:
    """The runtime function that computes primitive `key` with these keywords (a composite
    operation always; one with a form per count of positional arguments picks it), or None."""
    if key in KEYWORD_FORMS and any(k in KEYWORD_FORM_ARGS for k in keywords):
        return KEYWORD_FORMS[key]
    p = PRIMS.get(key) if key is not None else None
    if p is None or p.source is None:
        return None
    if not isinstance(p.source, dict):
        return p.source
    given = nargs + sum(k in p.params[nargs:max(n for n in p.source if n is not None)] for k in keywords)
    return p.source.get(given, p.source.get(None))  # (`np.cov(m, y=v)` is the form of two arrays)


def composite(name: str, fn, by_count: dict | None = None, positional: int | None = None) -> Prim:
    """Operation `name` computed by runtime function `fn` written with primitives: the normalizer
    calls `fn` in its place, so its reverse, forward and batched forms come from `fn`'s source.
    `by_count`: a form per count of positional arguments (no branch on which ones were given);
    `positional`: how many arguments NumPy's function takes by position (the rest keyword-only)."""
    sig = ", ".join(p.name if p.default is inspect.Parameter.empty else f"{p.name}={p.default!r}"
                    for p in inspect.signature(fn).parameters.values())
    p = prim(name, sig, source={**by_count, None: fn} if by_count else fn, positional=positional)
    BATCH[name] = BatchRule("source")
    return p


def lookup(name: str) -> Prim | None:
    return PRIMS.get(name)
