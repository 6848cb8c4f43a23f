"""`s2s.checkpoint` (JAX's `jax.checkpoint`, also `remat`): a function whose reverse-mode record
is its arguments, not its intermediates; the backward sweep runs its forward sweep again. A
policy (`checkpoint_policies`) names values that are saved all the same (the results of dot-like
operations, or values named with `checkpoint_name`): the forward sweep keeps those, and the
replayed one takes them instead of computing them again.

It is a function with its own rules, as `custom_vjp` is: reverse mode asks it for `split(mask)`,
forward mode for `jvp(mask)` (the function's own: nothing to recompute), vmap for `batched(mask)`.
"""
from __future__ import annotations

import functools
from collections.abc import Callable

import gast

from ..base import record
from ..compiler import analysis, driver
from ..compiler.ir import build
from ..compiler.primitives import registry
from ..errors import S2SError, S2STypeError
from ..runtime import checkpoint_name
from .custom import caller_of, generated_def

__all__ = ["checkpoint", "checkpoint_name", "checkpoint_policies", "remat"]

def _dot(kind) -> bool:
    """Whether operation `kind` is a contraction (what `dots_saveable` saves)."""
    p = registry.lookup(kind)
    return p is not None and p.dot_like


class Policy:
    """Which values of a checkpointed function its forward sweep saves: `saves(kind, name)` is
    called with each statement's operation (a rule-table key: "matmul", "xp.dot", ...) and, for
    `checkpoint_name(x, name)`, its name (else None)."""

    def __init__(self, label: str, saves: Callable[[str, str | None], bool]):
        self.label, self.saves = label, saves

    def __call__(self, kind, name=None) -> bool:
        return self.saves(kind, name)

    def __repr__(self):
        return f"checkpoint_policies.{self.label}"


class checkpoint_policies:
    """JAX's `jax.checkpoint_policies`, those that mean something for NumPy code."""

    nothing_saveable = Policy("nothing_saveable", lambda kind, name: False)
    dots_saveable = Policy("dots_saveable", lambda kind, name: _dot(kind))
    dots_with_no_batch_dims_saveable = Policy("dots_with_no_batch_dims_saveable", lambda kind, name: _dot(kind))
    everything_saveable = Policy("everything_saveable", lambda kind, name: kind != "rt.next_residual")

    @staticmethod
    def save_only_these_names(*names: str) -> Policy:
        chosen = frozenset(names)
        return Policy(f"save_only_these_names{tuple(names)!r}",
                      lambda kind, name: kind == "rt.checkpoint_name" and name in chosen)

    @staticmethod
    def save_any_names_but_these(*names: str) -> Policy:
        left = frozenset(names)
        return Policy(f"save_any_names_but_these{tuple(names)!r}",
                      lambda kind, name: kind == "rt.checkpoint_name" and name is not None and name not in left)


record.attach(checkpoint_name, prim="rt.checkpoint_name")


class checkpoint:
    """`fun` whose reverse-mode derivative recomputes its forward sweep in the backward sweep
    instead of keeping its intermediates, as `jax.checkpoint`: `checkpoint(f)`, `checkpoint(f,
    policy=checkpoint_policies.dots_saveable)`, or as a decorator (`@checkpoint` or
    `@checkpoint(policy=...)`). `prevent_cse` is accepted and has nothing to do (s2s never merges
    the recomputation with the forward sweep: it runs in the backward sweep's own call);
    `static_argnums` are accepted (every argument is a Python value already)."""

    def __new__(cls, fun=None, *, prevent_cse: bool = True, policy=None, static_argnums=()):
        if fun is None:  # @checkpoint(policy=...)
            return functools.partial(cls, prevent_cse=prevent_cse, policy=policy, static_argnums=static_argnums)
        return super().__new__(cls)

    def __init__(self, fun=None, *, prevent_cse: bool = True, policy=None, static_argnums=()):
        if not callable(fun):
            raise S2STypeError(f"checkpoint expects a function, got {fun!r}")
        if policy is not None and not callable(policy):
            raise S2STypeError("checkpoint: policy must be one of s2s.checkpoint_policies (or a function of "
                               f"(kind, name) -> bool), got {policy!r}")
        nums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in nums):
            raise S2STypeError(f"checkpoint: static_argnums must be ints, got {static_argnums!r}")
        functools.update_wrapper(self, fun)
        self.fun, self.prevent_cse, self.static_argnums = fun, bool(prevent_cse), nums
        self.policy = None if policy is checkpoint_policies.nothing_saveable else policy
        self._splits: dict = {}
        self.__s2s__ = record.Record(custom=self)

    def __call__(self, *args, **kwargs):
        return self.fun(*args, **kwargs)

    def __repr__(self):
        return f"checkpoint({getattr(self.fun, '__name__', self.fun)!r}, policy={self.policy!r})"

    def caller(self):
        return caller_of(self)

    def jvp(self, mask):
        """Forward mode keeps nothing for later: the function's own jvp."""
        return driver.jvp_function(self.fun, mask)

    def batched(self, mask):
        """This function batched on every argument (vmap calls it so), still checkpointed."""
        return checkpoint(driver.batch_function(self.fun, mask), policy=self.policy)

    def split(self, mask):
        """(fwd, bwd) of reverse mode: fwd keeps the arguments (and what the policy saves), bwd
        runs the forward sweep of the function again, then its backward sweep."""
        mask = tuple(mask)
        if mask not in self._splits:
            self._splits[mask] = self._build(mask)
        return self._splits[mask]

    def _build(self, mask):
        a = [f"a{i}" for i in range(len(mask))]
        args = build.tuple_(build.names(a))
        if draws(self.fun):
            return self._build_drawing(mask, a, args)
        if self.policy is None:
            ffwd, fbwd = driver.split_vjp(self.fun, mask)
            fwd = build.function("fwd", a, [build.ret(build.tuple_([build.call("fun", build.names(a)), args]))])
            bwd = build.function("bwd", ["saved", "g"], [
                build.assign(build.tuple_(build.names(a), store_=True), build.name("saved")),
                # the forward sweep again, recording
                build.assign(build.tuple_(build.names(["out", "record"]), store_=True), build.call("ffwd", build.names(a))),
                build.ret(build.call("fbwd", build.names(["record", "g"])))])
            glob = {"fun": self.fun, "ffwd": ffwd, "fbwd": fbwd}
            return generated_def(fwd, glob, "checkpoint_split"), generated_def(bwd, glob, "checkpoint_split")
        saves = statement_picker(self.policy)
        save = driver.saving_function(self.fun, self.policy, saves)
        rfwd, fbwd = driver.split_replay(self.fun, mask, self.policy, saves)
        fwd = build.function("fwd", a, [
            build.assign(build.tuple_(build.names(["out", "residuals"]), store_=True), build.call("save", build.names(a))),
            build.ret(build.tuple_([build.name("out"), build.tuple_([args, build.name("residuals")])]))])
        bwd = build.function("bwd", ["saved", "g"], [
            build.assign(build.tuple_(build.names(["args", "residuals"]), store_=True), build.name("saved")),
            build.assign(build.tuple_(build.names(a), store_=True), build.name("args")),
            # the forward sweep again, with the saved values
            build.assign(build.tuple_(build.names(["out", "record"]), store_=True),
                         build.call("rfwd", [build.call("iter", [build.name("residuals")]), *build.names(a)])),
            build.ret(build.call("fbwd", build.names(["record", "g"])))])
        glob = {"save": save, "rfwd": rfwd, "fbwd": fbwd}
        return generated_def(fwd, glob, "checkpoint_split"), generated_def(bwd, glob, "checkpoint_split")


    def _build_drawing(self, mask, a, args):
        """(fwd, bwd) of a function that draws random numbers: its forward sweep records its draws
        (ext.s2s_draw_log) beside its arguments, and the recomputation replays them, so it sees
        the draws the forward sweep saw (a dropout mask) and draws nothing new. Both run the same
        forward sweep (the policy's saved values are not used: everything is computed again)."""
        ffwd, fbwd = driver.split_vjp(self.fun, mask)  # (the same code both times: the same draws, in order)
        log = build.name("log")
        fwd = build.function("fwd", a, [
            build.assign("log", build.call("ext.s2s_draw_log", [])),
            build.assign(build.tuple_(build.names(["out", "record"]), store_=True), build.call("ffwd", build.names(a))),
            build.expr_stmt(build.call("ext.s2s_draw_end", [log])),
            build.ret(build.tuple_([build.name("out"), build.tuple_([args, log])]))])
        bwd = build.function("bwd", ["saved", "g"], [
            build.assign(build.tuple_(build.names(["args", "log"]), store_=True), build.name("saved")),
            build.assign(build.tuple_(build.names(a), store_=True), build.name("args")),
            # the forward sweep again, with the recorded draws
            build.expr_stmt(build.call("ext.s2s_draw_replay", [log])),
            build.assign(build.tuple_(build.names(["out", "record"]), store_=True), build.call("ffwd", build.names(a))),
            build.expr_stmt(build.call("ext.s2s_draw_end", [log])),
            build.ret(build.call("fbwd", build.names(["record", "g"])))])
        glob = {"ffwd": ffwd, "fbwd": fbwd, "ext": registry.EXT}
        return generated_def(fwd, glob, "checkpoint_split"), generated_def(bwd, glob, "checkpoint_split")


remat = checkpoint


def draws(fn, seen=None) -> bool:
    """Whether `fn`, or a function it calls, draws random numbers (NumPy's samplers, a
    RandomState's or a Generator's methods: ext.s2s_sample), so that a recomputation must replay
    them."""
    seen = set() if seen is None else seen
    if id(fn) in seen:
        return False
    seen.add(id(fn))
    rules = record.custom(fn)
    if rules is not None:
        inner = getattr(rules, "fun", None)
        return inner is not None and draws(inner, seen)
    try:
        core = driver.core_of(fn)
    except S2SError:
        return False  # (not transformable: its own transform reports it)
    for s in analysis.walk_stmts(core.node.body):
        value = getattr(s, "value", None)
        if not isinstance(value, gast.Call):
            continue
        kind = analysis.classify(value)
        if kind == "ext.s2s_sample":
            return True
        callee = core.ns.get(getattr(value.func, "id", None)) if kind == "call" else None
        if callee is not None and draws(callee, seen):
            return True
    return False


def statement_picker(policy):
    """The core-form statements whose value `policy` saves: `v = <op>(...)` with `policy(op, name)`."""
    def saves(s) -> bool:
        if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)):
            return False
        value = s.value
        if not isinstance(value, (gast.Call, gast.BinOp)):
            return False
        kind = analysis.classify(value)
        name = None
        if kind == "rt.checkpoint_name":
            given = value.args[1] if len(value.args) > 1 else next((k.value for k in value.keywords
                                                                    if k.arg == "name"), None)
            name = given.value if isinstance(given, gast.Constant) else None
        return bool(policy(kind, name))
    return saves
