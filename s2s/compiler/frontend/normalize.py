"""Normalize a function into s2s's core form (A-normal form), the input of every transform.

The grammar of the core form is in `s2s.compiler.ir.core`.

One module of about 940 lines, on purpose: `Normalizer` is one visitor (a method per statement
and per expression kind) whose lowerings share the state of the function being lowered (its
Namer, the statements emitted so far, the current source location, the aliases and rebound
names), so its halves would call each other across files. What stands alone already has a
module: name resolution (resolve.py), aliases (aliases.py), jumps (jumps.py), lifting nested
functions (lift.py), calls of library idioms (idioms_calls.py).
"""
from __future__ import annotations

import copy
import inspect
import types

import gast
import numpy as np

from ...base import record, tree
from ...errors import S2SError, S2SSyntaxError, S2STypeError, error_at, where
from ...library import numpy_inside
from .. import analysis
from ..ir import build
from ..ir.core import CoreFn, local_names
from ..ir.names import Namer
from ..primitives import registry
from . import (
    aliases,
    attr_stores,
    callee_updates,
    contexts,
    dtypes,
    elements,
    function_values,
    guards,
    hygiene,
    idioms_calls,
    keyword_calls,
    lift,
    python_idioms,
    refusals,
    resolve,
    static_locals,
    views,
)
from .jumps import restructure
from .reads import note as note_read

_INDEXABLE = (np.ndarray, np.generic, list, tuple, dict, str, bytes, range, type, type(np.s_))  # np.s_: indices
# the type of NumPy's index-trick objects (np.r_, np.c_) -> the primitive `obj[...]` is (`index_trick`)
_CONCAT_TRICKS = {type(p.index_trick): k for k, p in registry.PRIMS.items() if p.index_trick is not None}
METHODS = {m for p in registry.PRIMS.values() for m in p.methods}  # the array methods that are primitives
ARRAY_ATTRS = {p.shape_query for p in registry.PRIMS.values() if p.shape_query} | {"dtype"}
COMPUTED_ATTRS = {"T", "real", "flat"}  # lowered to a function of the array (expr_Attribute)
tree.ARRAY_ATTRIBUTES.update(ARRAY_ATTRS | COMPUTED_ATTRS)  # a pytree node's field so named is refused
tree.COMPUTED_ATTRIBUTES.update(COMPUTED_ATTRS)
LIST_METHODS = {"append", "pop"}
_AUGOPS = {gast.Add: "+=", gast.Sub: "-=", gast.Mult: "*=", gast.Div: "/=", gast.Pow: "**=",
           gast.MatMult: "@=", gast.FloorDiv: "//=", gast.Mod: "%="}
UNSUPPORTED = {gast.AsyncWith: "async with", gast.Global: "global",
               gast.Nonlocal: "nonlocal", gast.Delete: "del", gast.AsyncFunctionDef: "async def",
               gast.AsyncFor: "async for", gast.ClassDef: "class",
               gast.Import: "import", gast.ImportFrom: "import", gast.Yield: "yield", gast.YieldFrom: "yield from",
               gast.Await: "await", gast.SetComp: "set comprehension",
               gast.Set: "set", gast.JoinedStr: "f-string",
               gast.Starred: "*args", gast.NamedExpr: ":="}


class Normalizer:
    """Lower one parsed function to core form; see the module docstring."""

    def __init__(self, fn_node, env: resolve.Env, filename: str, line_offset: int = 0, col_offset: int = 0,
                 source_lines=None, compile_nested=None):
        self.fn = fn_node = hygiene.rename_reserved(fn_node)
        self.fn = fn_node = python_idioms.rewrite(fn_node, env.lookup)  # (reversed, a, *rest = x, :=)
        self.compile_nested = compile_nested  # (name, node, ns, filename) -> function, from the driver
        self.env = env
        self.filename = filename
        self.line_offset = line_offset
        self.col_offset = col_offset
        self.locals = local_names(fn_node)
        self.static_locals = static_locals.find(fn_node, self.locals, self.static)
        if self.static_locals:  # `m = np`: `m` is read as the module itself
            self.locals -= set(self.static_locals)
            self.env.scopes.insert(0, dict(self.static_locals))
        self.fvalues: dict = {}  # local name -> the function (or collection of them) it holds
        self.fscope: dict = {}  # generated names of functions known now, resolved as globals
        self.env.scopes.insert(0, self.fscope)
        self.namer = Namer(build.names_in(fn_node) | {"xp", "rt", "ext"})
        self.ns: dict = {}
        self.out: list = []
        self.loc = None
        self.source_lines = source_lines
        self.lifted: dict = {}
        self.ranges: set[str] = set()  # names that hold range objects (loops over them stay loops)
        self.aliases = aliases.Aliases(fn_node)
        self.containers: set[str] = set()  # names bound to a list or dict the function built
        self.typed: set[str] = set()  # names of arrays that may hold integers (frontend/dtypes.py)
        self.rebound: set[str] = set()
        self.inplace_params: dict[str, int] = {}  # parameter -> line of an in-place update of it
        self.loops: list = []
        self.current = fn_node

    # ---- errors and locations ----
    def where(self, node):
        line = getattr(node, "lineno", None)
        col = getattr(node, "col_offset", None)
        return (self.filename, None if line is None else line + self.line_offset,
                None if col is None else col + self.col_offset)

    def fail(self, node, msg, hint="", kind=S2SSyntaxError):
        raise error_at(self.where(node), msg, hint, kind)

    def emit(self, stmt):
        if self.loc is not None:  # core-form statements carry positions in the user's file
            stmt.lineno, stmt.col_offset = self.loc[0] + self.line_offset, self.loc[1] + self.col_offset
        self.out.append(stmt)
        return stmt

    def tmp(self, value, base="t") -> gast.Name:
        n = self.namer.fresh(base)
        self.link(n, value)
        self.emit(build.assign(n, value))
        return build.name(n)

    def link(self, target: str, value) -> None:
        """Record what `target = value` makes `target` share with other names: the same array or
        list (a name, a view `m[i]`, an element `lst[0]`), its elements (a list, tuple, set or dict
        display holding names), or a shallow copy's elements (`list(a)`), so that an update in
        place through one name is checked against reads of the others (aliases.py)."""
        known = lambda e: isinstance(e, gast.Name) and (e.id in self.locals or self.aliases.known(e.id))  # noqa: E731
        builds = isinstance(value, (gast.List, gast.Dict)) or isinstance(value, gast.Name) and value.id in \
            self.containers or isinstance(value, gast.Call) and isinstance(value.func, gast.Name) \
            and self.env.lookup(value.func.id)[1] in (list, dict)
        (self.containers.add if builds else self.containers.discard)(target)  # a list or dict: it holds items
        src = value.value if isinstance(value, gast.Subscript) else value
        if known(src):
            if src is not value and src.id in self.containers:  # an item or a slice of a list or dict
                if isinstance(value.slice, gast.Slice):  # a new list holding the same items
                    self.aliases.forget(target)
                    self.aliases.share_elements(target, src.id)
                    self.containers.add(target)
                else:
                    self.aliases.link(target, src.id, element=True, whole=False)
                return
            self.aliases.link(target, src.id, element=src is not value)
            return
        viewed = [a for a in views.viewed(value) if known(a)]  # (np.broadcast_arrays(a, b): views of each)
        if viewed:
            self.aliases.link(target, viewed[0].id)  # a view of the argument's array
            for a in viewed[1:]:
                self.aliases.hold(target, a.id)
            return
        self.aliases.forget(target)
        if isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and len(value.args) == 1 \
                and known(value.args[0]) and self.env.lookup(value.func.id)[1] in (list, tuple, dict):
            self.aliases.share_elements(target, value.args[0].id)
            if value.args[0].id not in self.containers:  # (list(M) of an array: M's rows, views of M)
                self.aliases.hold(target, value.args[0].id)
        held = value.values if isinstance(value, gast.Dict) else \
            value.elts if isinstance(value, (gast.List, gast.Tuple, gast.Set)) else []
        for e in held:
            if known(e):
                self.aliases.hold(target, e.id)

    # ---- entry ----
    def run(self) -> CoreFn:
        fn = self.fn
        if isinstance(fn, gast.AsyncFunctionDef):
            self.fail(fn, "s2s does not support `async def` functions.", "Transform a plain `def` function.")
        a = fn.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
            self.fail(fn, "s2s transforms functions with plain positional parameters only "
                          "(no *args, **kwargs, keyword-only or positional-only parameters).",
                      "Pass extra values as explicit parameters or a tuple.")
        saved, self.out = self.out, []
        attr_stores.begin(self)  # (an attribute the function stores and reads: read when the call starts)
        first, self.out = self.out, saved
        body = first + self.block(fn.body)
        body = restructure(body, self.namer)
        node = build.function(fn.name, [p.id for p in a.args], body)
        if getattr(fn, "lineno", None) is not None:
            node.lineno = fn.lineno + self.line_offset
        return CoreFn(fn.name, node, self.ns, self.filename, dict(self.inplace_params))

    def block(self, stmts) -> list:
        saved, self.out = self.out, []
        for s in stmts:
            self.stmt(s)
        out, self.out = self.out, saved
        return out

    def header(self, s) -> str:
        line = getattr(s, "lineno", None)
        if line is None or self.source_lines is None:
            return ""
        idx = line + self.line_offset - 1
        return self.source_lines[idx].strip() if 0 <= idx < len(self.source_lines) else ""

    # ---- statements ----
    def stmt(self, s):
        if type(s) in UNSUPPORTED:
            self.fail(s, *refusals.statement(UNSUPPORTED[type(s)], getattr(s, "names", ())))
        if isinstance(s, gast.Expr) and isinstance(s.value, gast.Constant):
            return  # docstrings and bare literals
        self.loc = (s.lineno, s.col_offset) if hasattr(s, "lineno") else self.loc
        if hasattr(s, "lineno"):
            self.current = s
        text = self.header(s)
        if text:
            self.emit(build.comment(text))
        method = getattr(self, "stmt_" + type(s).__name__, None)
        if method is None:
            self.fail(s, f"s2s does not support `{type(s).__name__}` statements inside a transformed function.")
        method(s)

    def stmt_Pass(self, s):
        pass

    def stmt_Break(self, s):
        self.emit(gast.Break())

    def stmt_Continue(self, s):
        self.emit(gast.Continue())

    def stmt_Return(self, s):
        value = self.atom(s.value) if s.value is not None else build.const(None)
        self.emit(build.ret(value))

    def stmt_Assert(self, s):
        guards.lower_assert(self, s)

    def stmt_Raise(self, s):
        guards.lower_raise(self, s)

    def stmt_With(self, s):
        contexts.lower_with(self, s)

    def stmt_Try(self, s):
        contexts.lower_try(self, s)

    def stmt_Expr(self, s):
        v = s.value
        if attr_stores.append(self, s):
            return  # self.hs.append(h) of an object's list (frontend/attr_stores.py)
        if isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) and v.func.attr in ("append", "extend") \
                and self.is_local(v.func.value):
            if isinstance(v.func.value, gast.Name):
                self.check_alias(s, v.func.value.id, f"{v.func.value.id}.{v.func.attr}(...)", "list")
            lst = self.atom(v.func.value)
            arg = self.atom(v.args[0])
            if v.func.attr == "extend":
                self.fail(s, "s2s supports building lists with `append`, not `extend`.",
                          "Use a loop of `append` calls or `+` on lists.")
            if isinstance(lst, gast.Name) and isinstance(arg, gast.Name):
                self.aliases.hold(lst.id, arg.id)
            if isinstance(lst, gast.Name) and lst.id in self.params_unassigned():
                self.inplace_params[lst.id] = self.where(s)[1]  # the caller's list
            self.emit(build.expr_stmt(build.call(build.attr(lst, "append"), [arg])))
            return
        value = self.expr(v)
        if isinstance(value, gast.Call):
            self.tmp(value, "_")

    def stmt_AnnAssign(self, s):
        if s.value is not None:
            self.assign_to(s.target, self.expr(s.value))

    def stmt_Assign(self, s):
        if idioms_calls.vjp_assign(self, s):
            return
        if isinstance(s.value, gast.Lambda) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name):
            self.stmt_FunctionDef(lift.lambda_to_def(s.targets[0].id, s.value, s))
            return
        if len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) and s.targets[0].id in self.static_locals:
            return  # an alias of a module or function, resolved where it is read
        if len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) and function_values.could_be(self, s.value):
            function_values.bind_local(self, s, s.targets[0].id, function_values.value(self, s.value))
            return  # a function (or a collection of them), resolved where it is called or passed
        if len(s.targets) == 1 and (value := self.swapped_reads(s.targets[0], s.value)) is not None:
            if not views.stores_in_order(self, s.targets[0], s.value, value):
                self.assign_to(s.targets[0], value)
            return
        if len(s.targets) == 1:
            self.assign_to(s.targets[0], self.expr(s.value))
            return
        v = self.atom(s.value)
        for t in s.targets:
            self.assign_to(t, v)

    def swapped_reads(self, target, value):
        """`a[i], a[j] = a[j], a[i]`: the right side's element reads of an array the targets write,
        each copied when 0-d (rt.element_copy: on CuPy `a[j]` is a 0-d view, which would read the
        value the first target writes); None for any other assignment."""
        if not (isinstance(target, (gast.Tuple, gast.List)) and isinstance(value, (gast.Tuple, gast.List))):
            return None
        written = {e.value.id for e in target.elts if isinstance(e, gast.Subscript) and isinstance(e.value, gast.Name)}
        reads = [isinstance(e, gast.Subscript) and isinstance(e.value, gast.Name) and e.value.id in written
                 for e in value.elts]
        if not any(reads):
            return None
        elts = [self.tmp(build.call("rt.element_copy", [self.atom(e)])) if r else self.atom(e)
                for e, r in zip(value.elts, reads)]
        return build.tuple_(elts)

    def params_unassigned(self) -> set[str]:
        """Parameters not yet rebound: they still name the caller's arrays."""
        return {a.id for a in self.fn.args.args} - self.rebound

    def check_alias(self, s, name, what, thing="array", elements=False):
        """Reject an in-place update of `name` that another name for the same array (or list) would see
        (`elements`: an update of an element, which shallow copies of the list hold too); inside a
        loop, again from the state each later iteration starts in."""
        loops = list(self.loops)
        self.aliases.check(lambda: self._check_alias(s, name, what, thing, elements, loops))

    def _check_alias(self, s, name, what, thing, elements, loops):
        sharers = self.aliases.sharers(name, elements)  # (computed once: a walk over every name)
        for p in self.params_unassigned() & sharers:
            self.inplace_params.setdefault(p, self.where(s)[1])  # through a view or an element: the caller's
        later = self.aliases.read_later(sharers, s, loops)
        later = later or attr_stores.held(self, sharers)  # (an object holds it after the call)
        if later and thing == "list":
            self.fail(s, f"`{what}` changes the list that `{later[0]}` also refers to, and `{later[0]}` is read "
                         "afterwards; s2s differentiates a list changed in place through one name only.",
                      f"Make `{later[0]}` a copy where it is bound (`{later[0]} = list(...)`).")
        if later and elements:
            self.fail(s, f"`{what}` changes an element in place, and `{later[0]}` refers to that element too "
                         f"(NumPy updates the array, wherever it is held) and is read afterwards; s2s would "
                         "not see that change.",
                      f"Write `{name}[...] = {name}[...] {_AUGOPS.get(type(s.op), '+=')[:-1]} ...`, which replaces "
                      "the element instead of changing it.")
        if later:
            self.fail(s, f"`{what}` changes the array that `{later[0]}` also refers to (NumPy updates it in "
                         f"place), and `{later[0]}` is read afterwards; s2s would not see that change.",
                      f"Make `{later[0]}` a copy where it is bound (`{later[0]} = ....copy()`), or write "
                      f"`{name} = {name} + ...` and update the other name explicitly.")

    def stmt_AugAssign(self, s):
        t = s.target
        op = type(s.op)
        if isinstance(t, gast.Name):
            self.check_alias(s, t.id, f"{t.id} {_AUGOPS.get(type(s.op), '?=')} ...")
            if t.id in self.params_unassigned():
                self.inplace_params[t.id] = self.where(s)[1]  # NumPy updates the caller's array
            self.aliases.forget(t.id)
            self.emit(build.assign(t.id, build.binop(build.name(t.id), op(), self.atom(s.value))))
        elif isinstance(t, gast.Subscript):
            if isinstance(t.value, gast.Name):
                self.check_alias(s, t.value.id, f"{t.value.id}[...] {_AUGOPS.get(type(s.op), '?=')} ...", elements=True)
                if t.value.id in self.params_unassigned():
                    self.inplace_params[t.value.id] = self.where(s)[1]
            base = self.atom(build.load(t.value))
            index = self.index(t.slice)
            old = self.tmp(build.subscript(base, copy.deepcopy(index)))
            new = self.tmp(build.binop(old, op(), self.atom(s.value)))
            self.emit(build.assign(build.subscript(base, index, store_=True), new))
        elif isinstance(t, gast.Attribute):
            attr_stores.aug_store(self, s)  # self.n += 1
        else:
            self.fail(s, "s2s supports `+=` and friends on names and subscripts only.")

    def assign_to(self, target, value):
        if isinstance(target, gast.Name):
            self.rebound.add(target.id)
            elements.note_read(self, target.id, value)  # (t = a[j]: a number or a view, known at run time)
            self.link(target.id, value)
            dtypes.bind(self, target.id, value)
            if isinstance(value, gast.Call) and (p := registry.lookup(analysis.dotted(value.func))) is not None \
                    and p.range_result:
                self.ranges.add(target.id)
            else:
                self.ranges.discard(target.id)
            self.emit(build.assign(target.id, value))
        elif isinstance(target, (gast.Tuple, gast.List)):
            src = value if build.is_atom(value) else self.tmp(value)
            names = []
            nested = []
            for e in target.elts:
                if isinstance(e, gast.Name):
                    names.append(build.name(e.id, store=True))
                elif isinstance(e, gast.Starred):
                    self.fail(e, "s2s does not support starred unpacking (`a, *rest = ...`).",
                              "Index the sequence explicitly instead.")
                else:
                    n = self.namer.fresh("t")
                    names.append(build.name(n, store=True))
                    nested.append((e, n))
            self.emit(gast.Assign(targets=[build.tuple_(names, store_=True)], value=src, type_comment=None))
            for k, n in enumerate(names):  # each name an item of the value (a row: a view)
                item = value.elts[k] if isinstance(value, gast.Tuple) and len(value.elts) == len(names) else None
                if item is not None:
                    self.link(n.id, item)
                elif isinstance(src, gast.Name) and (src.id in self.locals or self.aliases.known(src.id)):
                    self.aliases.link(n.id, src.id, element=True)
                else:
                    self.aliases.forget(n.id)
            for e, n in nested:
                self.assign_to(e, build.name(n))
        elif isinstance(target, gast.Subscript):
            if isinstance(target.value, gast.Subscript) and elements.nested_store(self, target, value):
                return  # xs[t][i] = v into a list the function built
            if not self.is_local(target.value):
                self.fail(target, *refusals.store_into(_dotted(target.value), _rooted_in(target.value, self.locals)))
            elements.detach_before_store(self, target.value.id)
            self.check_alias(self.current, target.value.id, f"{target.value.id}[...] = ...")
            if target.value.id in self.params_unassigned():
                self.inplace_params[target.value.id] = self.where(self.current)[1]
            base = self.atom(build.load(target.value))
            index = self.index(target.slice)
            v = value if build.is_atom(value) else self.tmp(value)
            if isinstance(v, gast.Name) and target.value.id in self.containers:  # (an array copies the values)
                self.aliases.hold(target.value.id, v.id)
            v = dtypes.stored(self, target, target.value.id, v)  # (cast to the array's dtype)
            self.emit(build.assign(build.subscript(base, index, store_=True), v))
        elif isinstance(target, gast.Attribute):
            attr_stores.store(self, target, value)  # self.Z = Z (frontend/attr_stores.py)
        else:
            self.fail(target, f"s2s does not support assigning to `{type(target).__name__}`.")

    def stmt_If(self, s):
        known = self.static_test(s.test)
        if known is not None:
            for t in s.body if known else s.orelse:
                self.stmt(t)
            return
        test = self.atom(s.test)
        loc = self.loc
        self.aliases.begin_branch()
        body = self.block(s.body)
        self.aliases.else_branch()
        orelse = self.block(s.orelse)
        self.aliases.end_branch()  # a name may be what either branch made it
        self.loc = loc
        self.emit(build.if_(test, body, orelse))

    def loop_body(self, stmts) -> list:
        """A loop's body; the alias check runs it again from the state later iterations start in
        (the iterable and the loop's test before it are evaluated once)."""
        with self.aliases.loop():
            return self.block(stmts)

    def stmt_While(self, s):
        self.loops.append(s)
        try:
            self.while_loop(s)
        finally:
            self.loops.pop()

    def while_loop(self, s):
        loc = self.loc
        header = self.header(s)
        saved, self.out = self.out, []
        cond = self.atom(s.test)
        cond_stmts, self.out = self.out, saved
        body = self.loop_body(s.body)
        self.loc = loc
        has_continue = any(isinstance(n, gast.Continue) for n in analysis.loop_level(body))
        if isinstance(cond, gast.Constant) and cond.value is True:
            loop = build.while_(build.const(True), body)
        elif has_continue or not isinstance(cond, gast.Name):
            stop = self.namer.fresh("t")
            cond_stmts.append(build.assign(stop, build.not_(cond)))
            check = build.if_(build.name(stop), [gast.Break()])
            loop = build.while_(build.const(True), cond_stmts + [check] + body)
        else:
            self.out.extend(copy.deepcopy(cond_stmts))
            again = [build.comment(header + "  (the condition again)")] if header and cond_stmts else []
            loop = build.while_(cond, body + again + cond_stmts)
        self.loop_with_else(loop, s.orelse)

    def loop_with_else(self, loop, orelse):
        if not orelse:
            self.emit(loop)
            return
        flag = self.namer.fresh("broke")
        self.emit(build.assign(flag, build.const(False)))
        _set_before_breaks(loop.body, flag)
        self.emit(loop)
        self.emit(build.if_(build.name(flag), [], self.block(orelse)))

    def stmt_For(self, s):
        self.loops.append(s)
        try:
            self.for_loop(s)
        finally:
            self.loops.pop()

    def for_loop(self, s):
        if idioms_calls.loop_over_functions(self, s):
            return
        it = s.iter
        loc = self.loc
        if isinstance(it, gast.Call) and isinstance(it.func, gast.Name) and not self.is_local(it.func):
            kind = it.func.id
            found, obj = self.env.lookup(kind)
            if found and obj is range:
                args = [self.atom(a) for a in it.args]
                # a loop variable the body reassigns is copied from a fresh one, so that the
                # backward sweep can restore it like any other variable
                plain = isinstance(s.target, gast.Name) and s.target.id not in _stored(s.body)
                var = s.target.id if plain else self.namer.fresh("i")
                body = [] if plain else self.assign_stmts(s.target, build.name(var))
                body += self.loop_body(s.body)
                self.loc = loc
                self.loop_with_else(build.for_range(var, args, body), s.orelse)
                return
            if found and obj is enumerate and len(it.args) == 1 and isinstance(it.args[0], gast.Call) \
                    and isinstance(it.args[0].func, gast.Name) and self.env.lookup(it.args[0].func.id)[1] is zip:
                self.for_indexed(s, "enumerate_zip", [self.atom(a) for a in it.args[0].args])
                return
            if found and obj is enumerate:
                start = it.args[1] if len(it.args) > 1 else next(
                    (k.value for k in it.keywords if k.arg == "start"), None)
                self.for_indexed(s, kind, [self.atom(it.args[0])], None if start is None else self.atom(start))
                return
            if found and obj is zip:
                self.for_indexed(s, kind, [self.atom(a) for a in idioms_calls.zip_args(self, it, s.target)])
                return
        if isinstance(it, gast.Name) and it.id in self.ranges and isinstance(s.target, gast.Name) \
                and s.target.id not in _stored(s.body):
            body = self.loop_body(s.body)  # a loop over a range object kept in a variable (generated code)
            self.loc = loc
            self.loop_with_else(gast.For(target=build.name(s.target.id, store=True), iter=build.name(it.id), body=body,
                                         orelse=[], type_comment=None), s.orelse)
            return
        if idioms_calls.is_dict(self, it):  # `for k in d`: over the dict's keys
            self.for_indexed(s, "iter", [self.tmp(idioms_calls.keys_of(self, self.atom(it)))])
            return
        self.for_indexed(s, "iter", [self.atom(it)])

    def for_indexed(self, s, kind, seqs, start=None):
        """`for x in seq` (arrays: rows; lists; zip; enumerate) becomes a loop over an index."""
        loc = self.loc
        i = self.namer.fresh("i")
        rebound = _stored(s.body)
        seqs = [self.tmp(q, "seq") if isinstance(q, gast.Name) and q.id in rebound else q for q in seqs]
        if kind in ("zip", "enumerate_zip"):
            n = self.tmp(build.call("len", [seqs[0]]), "n")
            for q in seqs[1:]:
                m = self.tmp(build.call("len", [q]), "n")
                c = self.tmp(gast.Compare(left=m, ops=[gast.Lt()], comparators=[n]))
                self.emit(build.if_(c, [build.assign(n.id, m)]))
        else:
            n = self.tmp(build.call("len", [seqs[0]]), "n")
        saved, self.out = self.out, []
        items = [self.tmp(build.subscript(q, build.name(i))) for q in seqs]
        if kind == "enumerate":
            count = build.name(i) if start is None else self.tmp(build.binop(build.name(i), gast.Add(), start))
            value = build.tuple_([count, items[0]])
        elif kind == "zip":
            value = build.tuple_(items)
        elif kind == "enumerate_zip":
            value = build.tuple_([build.name(i), self.tmp(build.tuple_(items))])
        else:
            value = items[0]
        head, self.out = self.out, saved
        body = head + self.assign_stmts(s.target, value) + self.loop_body(s.body)
        self.loc = loc
        self.loop_with_else(build.for_range(i, [n], body), s.orelse)

    def assign_stmts(self, target, value) -> list:
        saved, self.out = self.out, []
        self.assign_to(target, value if build.is_atom(value) or isinstance(value, gast.Tuple) else self.tmp(value))
        out, self.out = self.out, saved
        return out

    def stmt_FunctionDef(self, s):
        if s.decorator_list:
            self.fail(s, "s2s does not support decorators on a `def` inside a transformed function.",
                      "Define the decorated function at module level.")
        self.lifted[s.name] = lift.lift(self, s)
        self.aliases.forget(s.name)
        for d in s.args.defaults + [d for d in s.args.kw_defaults if d is not None]:
            if isinstance(d, gast.Name) and (d.id in self.locals or self.aliases.known(d.id)):
                self.aliases.hold(s.name, d.id)  # `def g(v=y)` keeps y's array: `y += 1` changes g's default

    # ---- expressions ----
    def is_local(self, node) -> bool:
        return isinstance(node, gast.Name) and node.id in self.locals

    def atom(self, node) -> gast.expr:
        v = self.expr(node)
        return v if build.is_atom(v) else self.tmp(v)

    def expr(self, node) -> gast.expr:
        if type(node) in UNSUPPORTED:
            self.fail(node, *refusals.expression(UNSUPPORTED[type(node)]))
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            self.fail(node, f"s2s does not support `{type(node).__name__}` expressions in a transformed function.")
        out = method(node)
        return dtypes.gate(self, node, out) if isinstance(node, gast.Call) else out  # (a dtype decides its derivative)

    def expr_Constant(self, node):
        return build.const(node.value)

    def expr_Name(self, node):
        if node.id in self.fvalues or node.id in self.lifted:
            function_values.refuse_as_data(self, node)
        if node.id in self.locals:
            return build.name(node.id)
        found, obj = self.env.lookup(node.id)
        if not found:
            self.fail(node, f"name `{node.id}` is not defined.", kind=S2SError)
        return self.value_of(node, node.id, obj)

    def value_of(self, node, label, obj):
        if isinstance(obj, (bool, int, float, complex, str, type(None))) and not isinstance(obj, np.generic):
            return build.const(obj)
        if isinstance(obj, types.ModuleType):
            self.fail(node, f"s2s does not resolve the module `{label}` stored in a variable: its functions "
                            "would be opaque values, not calls it can differentiate.",
                      f"Call `{label}.f(...)` directly, or bind the alias once at the top of the function "
                      "(`m = np`) and never rebind it.", kind=S2SError)
        bound = self.bind(label, obj)
        return build.name(bound)

    def bind(self, label, obj) -> str:
        return self.namer.bind(self.ns, label, obj)

    def local_function(self, node):
        """(lifted function, its free locals) for a lambda, local def or partial made here."""
        return idioms_calls._local_function(self, node)

    def bindings(self):
        """(values assigned to each name, names otherwise changed) in the function."""
        return idioms_calls._bindings(self)

    def static(self, node):
        """Evaluate a non-local name, attribute chain or transform call at compile time."""
        if isinstance(node, gast.Name) and node.id not in self.locals:
            found, obj = self.env.lookup(node.id)
            if not found:
                self.fail(node, f"name `{node.id}` is not defined.", kind=S2SError)
            return resolve.counterpart(obj)
        if isinstance(node, gast.Attribute):
            base = self.static(node.value)
            try:
                value = getattr(base, node.attr)
            except AttributeError:
                self.fail(node, f"`{node.attr}` is not an attribute of {getattr(base, '__name__', base)!r}.",
                          kind=S2SError)
            attr_stores.check_read(self, node, base)  # (an attribute a transformed function stores into)
            note_read("attr", base, node.attr, value)  # (the code is reused while it holds this value)
            return resolve.counterpart(value)
        if isinstance(node, gast.Constant):
            return node.value
        if isinstance(node, gast.Tuple):
            return tuple(self.static(e) for e in node.elts)
        if isinstance(node, gast.List):
            return [self.static(e) for e in node.elts]
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and isinstance(node.operand, gast.Constant):
            return -node.operand.value
        if isinstance(node, gast.Call):
            func = self.static(node.func)
            if _is_transform(func):
                args = [self.static(a) for a in node.args]
                kws = {k.arg: self.static(k.value) for k in node.keywords}
                return func(*args, **kws)
            self.fail(node, "s2s can only call a transform (grad, jit, ...) of a function known when "
                            "the outer function is transformed, like `grad(loss)(params, x)`.")
        if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Constant):
            return idioms_calls.static_item(self, node)  # ACTIVATIONS["tanh"], LAYERS[0]
        raise _NotStatic()

    def expr_Attribute(self, node):
        if (held := attr_stores.read(self, node)) is not None:
            return held  # obj.a stored by this function: the local that holds it
        if isinstance(node.value, gast.Name) and node.value.id not in self.locals or \
                isinstance(node.value, gast.Attribute) and self._rooted_global(node.value):
            obj = self.static(node)
            if isinstance(obj, type) or resolve.prim_key(obj) is None and not resolve.is_user_function(obj):
                return self.value_of(node, _dotted(node), obj)  # a constant, or a dtype like np.float64
            self.fail(node, f"`{_dotted(node)}` is a function; call it.",
                      "s2s resolves a function where it is called, where it is passed straight to a "
                      "function (specialized on it), or in `for f in (np.sin, g):` over a list written there "
                      "or a global list; a function stored in a local variable is not resolved: write the "
                      "calls out.")
        base = self.atom(node.value)
        if node.attr == "T":
            return build.call("xp.transpose", [base])
        if node.attr in ARRAY_ATTRS:
            return build.attr(base, node.attr)
        if node.attr == "real":
            return build.call("xp.real", [base])
        if node.attr == "flat":
            return build.call("xp.ravel", [base])
        at = where(*self.where(node)) if self.where(node) else ""  # (named by a refusal at run time)
        return build.call("rt.node_field", [base, build.const(node.attr), build.const(at)])  # a pytree node's field

    def _rooted_global(self, node) -> bool:
        while isinstance(node, gast.Attribute):
            node = node.value
        return isinstance(node, gast.Name) and node.id not in self.locals

    def expr_BinOp(self, node):
        if type(node.op) not in analysis.BINOPS:
            self.fail(node, f"s2s does not support the operator `{type(node.op).__name__}`.")
        joined = idioms_calls.sequence_concat(self, node)
        if joined is not None:
            return joined
        return build.binop(self.atom(node.left), type(node.op)(), self.atom(node.right))

    def expr_UnaryOp(self, node):
        operand = self.atom(node.operand)
        if isinstance(node.op, gast.UAdd):
            return operand
        if isinstance(node.op, gast.USub) and isinstance(operand, gast.Constant) \
                and isinstance(operand.value, (int, float)) and not isinstance(operand.value, bool):
            return build.const(-operand.value)  # a negative literal stays a literal
        return gast.UnaryOp(op=type(node.op)(), operand=operand)

    def expr_Compare(self, node):
        left = self.atom(node.left)
        if len(node.ops) == 1:
            return gast.Compare(left=left, ops=[type(node.ops[0])()], comparators=[self.atom(node.comparators[0])])
        result = self.namer.fresh("t")
        saved, self.out = self.out, []
        prev = left
        conds = []
        for op, comp in zip(node.ops, node.comparators):
            saved2, self.out = self.out, []
            right = self.atom(comp)
            c = self.tmp(gast.Compare(left=prev, ops=[type(op)()], comparators=[right]))
            conds.append((self.out, c))
            self.out = saved2
            prev = right
        self.out = saved
        # a < b < c  ->  r = a < b; if r: r = b < c
        body = conds[-1][0] + [build.assign(result, conds[-1][1])]
        for stmts, c in reversed(conds[:-1]):
            body = stmts + [build.assign(result, c), build.if_(build.name(result), body)]
        self.out.extend(body)
        return build.name(result)

    def expr_BoolOp(self, node):
        result = self.namer.fresh("t")
        is_and = isinstance(node.op, gast.And)
        body: list = []
        for v in reversed(node.values):
            saved, self.out = self.out, []
            a = self.atom(v)
            stmts = self.out + [build.assign(result, a)]
            self.out = saved
            if body:
                test = build.name(result)
                stmts.append(build.if_(test, body) if is_and else build.if_(test, [gast.Pass()], body))
            body = stmts
        self.out.extend(body)
        return build.name(result)

    def static_test(self, node):
        """True/False for a test s2s decides when transforming: a non-local name bound to None or to
        a function (stax's `f(x) if rescale else x`, the function a closure was made with), or `f is
        g` of two such; else None."""
        if isinstance(node, gast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (gast.Is, gast.IsNot)):
            a, b = self.static_function(node.left), self.static_function(node.comparators[0])
            if a is _NOT_KNOWN or b is _NOT_KNOWN:
                return None
            return (a is b) == isinstance(node.ops[0], gast.Is)
        obj = self.static_function(node)
        return None if obj is _NOT_KNOWN else obj is not None

    def static_function(self, node):
        """The None or function a non-local name (or module attribute) is bound to, else _NOT_KNOWN."""
        if isinstance(node, gast.Constant) and node.value is None:
            return None
        if not (isinstance(node, gast.Name) and node.id not in self.locals and node.id not in self.fvalues
                or isinstance(node, gast.Attribute) and self._rooted_global(node)):
            return _NOT_KNOWN
        try:
            obj = self.static(node)
        except Exception:  # noqa: BLE001 - not known now
            return _NOT_KNOWN
        return obj if obj is None or callable(obj) and not isinstance(obj, type) else _NOT_KNOWN

    def expr_IfExp(self, node):
        known = self.static_test(node.test)
        if known is not None:
            return self.expr(node.body if known else node.orelse)
        test = self.atom(node.test)
        result = self.namer.fresh("t")
        saved, self.out = self.out, []
        self.aliases.begin_branch()
        value = self.expr(node.body)
        self.link(result, value)
        self.emit(build.assign(result, value))
        body, self.out = self.out, []
        self.aliases.else_branch()
        value = self.expr(node.orelse)
        self.link(result, value)
        self.aliases.end_branch()  # either branch's value
        self.emit(build.assign(result, value))
        orelse, self.out = self.out, saved
        self.emit(build.if_(test, body, orelse))
        return build.name(result)

    def expr_Tuple(self, node):
        if any(isinstance(e, gast.Starred) for e in node.elts):  # (*x.shape, 2): tuples joined
            return self.expr(idioms_calls.joined_tuple(self, node))
        return build.tuple_([self.atom(e) for e in node.elts])

    def expr_List(self, node):
        return build.list_([self.atom(e) for e in node.elts])

    def expr_Dict(self, node):
        if any(k is None for k in node.keys):
            self.fail(node, "s2s does not support `**` in dict literals.")
        return gast.Dict(keys=[self.atom(k) for k in node.keys], values=[self.atom(v) for v in node.values])

    def expr_DictComp(self, node):
        return idioms_calls.dict_comp(self, node)

    def expr_ListComp(self, node):
        result = self.namer.fresh("t")
        self.emit(build.assign(result, build.list_([])))
        inner = gast.Expr(value=gast.Call(func=build.attr(build.name(result), "append"), args=[node.elt], keywords=[]))
        for gen in reversed(node.generators):
            for cond in reversed(gen.ifs):
                inner = gast.If(test=cond, body=[inner], orelse=[])
            inner = gast.For(target=gen.target, iter=gen.iter, body=[inner], orelse=[], type_comment=None)
        self.locals.add(result)
        for n in gast.walk(inner):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                self.locals.add(n.id)
        gast.copy_location(inner, node)
        build.located(inner, node, only_missing=True, kinds=(gast.stmt,))
        src, self.source_lines = self.source_lines, None
        self.stmt(inner)
        self.source_lines = src
        return build.name(result)

    def expr_GeneratorExp(self, node):
        """A generator expression is consumed right away (by sum, np.array, ...): build the list."""
        return self.expr_ListComp(node)

    def expr_Subscript(self, node):
        if isinstance(node.value, (gast.Name, gast.Attribute)) and self._rooted_global(node.value) \
                and type(self.static(node.value)) in _CONCAT_TRICKS:
            return self.concat_trick(node, _CONCAT_TRICKS[type(self.static(node.value))])
        if isinstance(node.value, (gast.Name, gast.Attribute)) and self._rooted_global(node.value):
            self.check_indexable(node, self.static(node.value))
        base = self.atom(node.value)
        return build.subscript(base, self.index(node.slice))

    def check_indexable(self, node, obj):
        """`obj[i]` of a global that is no array or container (`np.s_`, `np.mgrid`, an object with
        `__getitem__`) by a computed index: s2s would treat its result as a constant, so a
        derivative through it would silently be zero."""
        if isinstance(obj, _INDEXABLE) or not hasattr(type(obj), "__getitem__"):
            return
        if all(isinstance(n, gast.Constant) or not isinstance(n, gast.expr) or isinstance(n, gast.Slice)
               and all(p is None or isinstance(p, gast.Constant) for p in (n.lower, n.upper, n.step))
               for n in ([node.slice] if not isinstance(node.slice, gast.Tuple) else node.slice.elts)):
            return
        self.fail(node, f"s2s cannot differentiate through indexing an object of type {type(obj).__name__} with a computed "
                        "index: it would treat the result as a constant.",
                  "Compute the value with NumPy functions s2s knows (see docs/operations.md), or index an array.")

    def concat_trick(self, node, helper):
        """`np.r_[a, b]` / `np.c_[a, b]` of arrays and numbers: a call with derivative rules."""
        items = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        if any(isinstance(e, gast.Constant) and isinstance(e.value, str) for e in items):
            self.fail(node, f"s2s differentiates `np.{helper[3:]}[...]` of arrays, numbers and slices, not of "
                            "directive strings.", "Build the array with np.concatenate / np.stack.")
        items = [idioms_calls.index_trick_range(self, e) if isinstance(e, gast.Slice) else e for e in items]
        return build.call(helper, [self.atom(build.tuple_(list(items)))])

    def index(self, sl):
        if isinstance(sl, gast.Slice):
            return gast.Slice(lower=self.opt_atom(sl.lower), upper=self.opt_atom(sl.upper),
                              step=self.opt_atom(sl.step))
        if isinstance(sl, gast.Tuple):
            return build.tuple_([self.index(e) for e in sl.elts])
        return self.atom(sl)

    def opt_atom(self, node):
        return None if node is None else self.atom(node)

    def expr_Lambda(self, node):
        self.fail(node, "s2s does not support a lambda used as data (in an array, returned, appended to a list).",
                  "Call it, pass it to a function, or keep it in a tuple, list or dict that you index with "
                  "constants or loop over.")

    def expr_Call(self, node):
        node = attr_stores.super_call(self, node) or node  # super().forward(x): the base's bound method
        if (lowered := callee_updates.call(self, node)) is not None:
            return lowered  # softmax(y) doing `x -= m`: copy-in/copy-out (frontend/callee_updates.py)
        node = idioms_calls.expand_stars(self, node)
        self.refuse_out(node)
        lowered = idioms_calls.call_of_call(self, node)
        if lowered is not None:
            return lowered
        func = node.func
        if not (isinstance(func, gast.Name) and (func.id in self.lifted or func.id not in self.locals)
                or isinstance(func, gast.Attribute) and self._rooted_global(func)) \
                and function_values.could_be(self, func):
            func = function_values.callee(self, func, function_values.value(self, func))
            node = gast.copy_location(gast.Call(func=func, args=node.args, keywords=node.keywords), node)
        if isinstance(func, gast.Lambda):
            self.expr_Lambda(func)
        if isinstance(func, gast.Attribute) and not self._rooted_global(func):
            lowered = idioms_calls.method(self, node)
            return lowered if lowered is not None else self.method_call(node)
        if isinstance(func, gast.Attribute) and isinstance(self.static(func.value), np.ndarray):
            return self.method_call(node)  # a method of a global array
        if isinstance(func, gast.Name) and func.id in self.lifted:
            fn, free = self.lifted[func.id]
            lifted = idioms_calls.idioms.lifted_with_arity(fn, len(free) + len(node.args),
                                                           tuple(k.arg for k in node.keywords))
            args = [build.name(v) for v in free] + [self.atom(a) for a in node.args]
            kws = {idioms_calls.idioms.lifted_keyword(fn, lifted, k.arg): self.atom(k.value) for k in node.keywords}
            fn = lifted
            return build.call(build.name(self.bind(fn.__name__, fn)), args, kws)
        if node.keywords and any(k.arg is None for k in node.keywords):
            self.fail(node, "s2s does not support `**kwargs` in calls.")
        try:
            obj = self.static(func)
        except _NotStatic:
            called = idioms_calls.parameter_called(self, node)
            if called is not None:  # resolved when it runs: a vector-space value (runtime/spaces.py)
                return called
            self.fail(node, "s2s can only call functions it can resolve when transforming: a NumPy function, "
                            "a module-level function, or a local defined with `def` at module level.",
                      idioms_calls.unresolved_hint(self, func))
        obj = getattr(obj, "__s2s_inside__", obj)  # a library function's stand-in in transformed code (tree_flatten)
        attr_stores.check_call(self, node, obj)  # (a callee that reads an attribute stored here)
        if isinstance(obj, np.vectorize):  # a module-level np.vectorize(f), or a function decorated with it
            obj = numpy_inside.vectorize_function(obj) or obj
        if isinstance(obj, np.vectorize):
            self.fail(node, f"`{_dotted(func)}` is an np.vectorize with `signature=` or `excluded=`, which s2s does "
                            "not follow.", "Call its function in a loop over the rows or elements you mean.", S2SError)
        key = idioms_calls.call_method_primitive(obj)
        if key is not None:  # an object whose class's __call__ has rules: that primitive, the object first
            self.ns["ext"] = registry.EXT
            return build.call(key, [self.atom(func), *(self.atom(a) for a in node.args)],
                              {k.arg: self.atom(k.value) for k in node.keywords})
        idioms_calls.function_parameters_given(self, node, obj, _dotted(func))
        node = idioms_calls.constant_pieces(self, idioms_calls.stand_in_call(self, node, obj), obj)
        refusal = getattr(obj, "__s2s_refuse__", None)  # a library function that must not be transformed
        if isinstance(refusal, str):
            self.fail(node, f"`{_dotted(func)}`: {refusal}")
        foreign = resolve.foreign_library(obj)
        if foreign is not None:
            self.fail(node, f"s2s has no rules for `{_dotted(func)}` ({foreign}).",
                      "s2s.scipy provides JAX's jax.scipy functions (docs/namespaces.md); write the step with "
                      "those and NumPy, or register rules with s2s.defvjp / s2s.defjvp.")
        lowered = idioms_calls.call(self, node, obj)
        if lowered is not None:
            return lowered
        einsum = resolve.prim_key(obj) == "xp.einsum"  # np.einsum and s2s.numpy.einsum (autograd.numpy's)
        if einsum:
            node = idioms_calls.einsum_sublists(self, node)
        args = [self.atom(a) for a in node.args]
        if einsum and args and not (isinstance(args[0], gast.Constant) and isinstance(args[0].value, str)):
            args[0] = self.tmp(build.call("rt.einsum_subscripts", [args[0]]))  # refuses the sublist form
        kws = {k.arg: self.atom(k.value) for k in node.keywords}
        key = resolve.prim_key(obj)
        if key in registry.PRODUCT_OPERANDS and any(k in registry.PRODUCT_KEYWORDS for k in kws):
            args, kws = self.product_keywords(node, key, args, kws)
        positional = getattr(registry.lookup(key), "positional", None) if key is not None else None
        if positional is not None and len(args) > positional:
            self.fail(node, f"`{_dotted(node.func)}` takes at most {positional} positional arguments, as NumPy's "
                            f"does ({len(args)} given).", "Pass the others by keyword.", kind=S2STypeError)
        if key is not None and isinstance(getattr(registry.lookup(key), "source", None), dict):
            args, kws = self.composite_arguments(registry.lookup(key), args, kws)
        form = registry.keyword_form(key, kws, len(args))  # np.sum(..., where=m): NumPy's definition
        if form is not None:
            return views.keep_view(key, build.call(build.name(self.bind(form.__name__, form)), args, kws))
        if key is not None:
            self.refuse_positional_out(node, key, args)
            lowered = keyword_calls.lower(self, node, key, args, kws, obj)
            if lowered is not None:
                return lowered
            if key == "stop_gradient":
                self.ns["stop_gradient"] = obj
            if key.startswith("ext."):
                self.ns["ext"] = registry.EXT
            return build.call(key, args, kws)
        if (lowered := python_idioms.builtin_call(self, obj, args, kws)) is not None:
            return lowered  # round, any, all; max/min of one list: Python's whole-value comparison
        if obj in (range, len, float, int, print, isinstance, bool, str, slice):
            return build.call(obj.__name__, args, kws)
        if obj in (max, min) and len(args) >= 2 and not kws:
            out = args[0]
            for a in args[1:]:
                out = self.tmp(build.call("xp.maximum" if obj is max else "xp.minimum", [out, a]))
            return out
        if obj in (list, tuple) and len(args) == 1 and not kws:
            return build.call(obj.__name__, args)
        if obj is sum and len(args) == 1 and not kws:
            return build.call("rt.list_sum", args)  # Python's sum over a list of numbers or arrays
        if _is_transform(obj) and obj.__name__ == "stop_gradient":
            self.ns["stop_gradient"] = obj
            return build.call("stop_gradient", args, kws)
        if isinstance(obj, types.FunctionType) and obj.__module__ in _LIBRARY_NOT_TRANSFORMED:
            self.fail(node, f"s2s cannot transform its own library function `{obj.__module__}.{obj.__name__}` "
                            "inside a transformed function.",
                      "Call it outside the function you transform, or write the tuple/list/dict operations out "
                      "(indexing, comprehensions), which s2s differentiates.")
        if isinstance(obj, type) and tree.is_node_type(obj):
            return self.make_node(node, obj, args, kws)
        if resolve.is_user_function(obj):
            label = getattr(obj, "__name__", "fn")
            return build.call(build.name(self.bind(label if label != "<lambda>" else "lambda_", obj)), args, kws)
        self.fail(node, *refusals.unknown_call(_dotted(func), obj))

    def make_node(self, node, cls, args, kws):
        """`Cls(a, k=b)` of a registered pytree node type or a namedtuple: `rt.make_node(Cls, [every
        parameter, in order])`, the defaults filled in here."""
        try:
            params = list(inspect.signature(cls).parameters.values())
            bound = inspect.Signature(params).bind(*args, **kws)
        except (TypeError, ValueError) as e:
            self.fail(node, f"`{_dotted(node.func)}(...)`: {e}.", kind=S2STypeError)
        if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params):
            self.fail(node, f"s2s builds a `{cls.__name__}` in a transformed function only when its constructor has "
                            "plain parameters (no *args, **kwargs or keyword-only ones).", kind=S2SError)
        values = [bound.arguments[p.name] if p.name in bound.arguments else self.value_of(node, p.name, p.default)
                  for p in params]
        return build.call("rt.make_node", [build.name(self.bind(cls.__name__, cls)), self.tmp(build.list_(values))])

    def product_keywords(self, node, key, args, kws):
        """JAX's `precision=` dropped and `preferred_element_type=T` applied: a product's operands
        cast to T (`xp.asarray(a, dtype=T)`), so it is computed and returned in T."""
        kws = dict(kws)
        kws.pop("precision", None)
        dtype = kws.pop("preferred_element_type", None)
        if dtype is not None and not (isinstance(dtype, gast.Constant) and dtype.value is None):
            args = list(args)
            for i in registry.product_operands(key, len(args)):
                args[i] = self.tmp(build.call("xp.asarray", [args[i]], {"dtype": dtype}))
        return args, kws

    def refuse_out(self, node):
        """`f(x, out=y)` writes into `y`, which s2s would not see: a derivative through `y` would
        silently be zero. Refused unless `out=None`."""
        for k in node.keywords:
            if k.arg == "out" and not (isinstance(k.value, gast.Constant) and k.value.value is None):
                self.fail(node, "s2s does not support `out=`: the result is written into an existing array, "
                                "which s2s would not follow.",
                          f"Assign the result instead: `{_dotted(k.value)} = {_dotted(node.func)}(...)`.", kind=S2SError)

    @staticmethod
    def composite_arguments(p, args, kws):
        """A composite with a form per count of arrays (`np.cov(m)`, `np.cov(m, y)`): its optional
        arguments passed by keyword, and those given as None (their default) left out, so that
        `np.cov(m, None, False)` and `np.cov(m, y=None)` pick the form of one array."""
        first = min(n for n in p.source if n is not None)
        kws = {**dict(zip(p.params[first:], args[first:])), **kws}
        kws = {k: v for k, v in kws.items() if not (isinstance(v, gast.Constant) and v.value is None
                                                    and p.defaults.get(k, 0) is None)}
        return args[:first], kws

    def refuse_positional_out(self, node, key, args):
        """`np.round(x, 2, y)`: `out` passed by position, refused as `out=y` is."""
        p = registry.lookup(key) if key.startswith("xp.") else None  # (NumPy's `out`, not a helper's)
        k = p.params.index("out") if p is not None and "out" in p.params else len(args)
        if k < len(args) and not (isinstance(args[k], gast.Constant) and args[k].value is None):
            self.fail(node, "s2s does not support `out=` (here passed by position): the result is written into an "
                            "existing array, which s2s would not follow.",
                      f"Assign the result instead: `y = {_dotted(node.func)}(...)`.", kind=S2SError)

    def method_call(self, node):
        func = node.func
        base = self.atom(func.value)
        args = [self.atom(a) for a in node.args]
        kws = {k.arg: self.atom(k.value) for k in node.keywords}
        m = func.attr
        if m == "pop" and not args:
            if isinstance(func.value, gast.Name):
                self.check_alias(node, func.value.id, f"{func.value.id}.pop()", "list")
                if func.value.id in self.params_unassigned():
                    self.inplace_params[func.value.id] = self.where(node)[1]  # the caller's list
            return build.call(build.attr(base, "pop"), [])
        if m in ("reshape", "transpose") and len(args) > 1:
            args = [self.tmp(build.tuple_(args))]
        if m == "flatten":
            return keyword_calls.lower(self, node, "xp.ravel", [base] + args, kws) or build.call("xp.ravel", [base])
        if m == "astype":
            return views.astype(base, args, kws)
        if m == "item":
            return build.call("float", [base])
        if m == "tolist":
            return idioms_calls.tolist(self, base)
        if m == "conj":
            return build.call("xp.real", [base])
        if m == "round":
            return build.call("xp.round", [base] + args, kws)
        form = registry.keyword_form("xp." + m, kws) if m in METHODS else None
        if form is not None:  # x.sum(where=m)
            return build.call(build.name(self.bind(form.__name__, form)), [base] + args, kws)
        if m in METHODS:
            return keyword_calls.lower(self, node, "xp." + m, [base] + args, kws) or \
                build.call("xp." + m, [base] + args, kws)
        if m in LIST_METHODS:
            self.fail(node, f"s2s supports `.{m}(...)` as a statement of its own, on a list named by a local "
                            "variable" + ("." if isinstance(func.value, gast.Name) else
                                          ", not on an element or attribute of another value."),
                      f"Write `lst.{m}(...)` on its own line, with `lst` a local list (build a list that a "
                      "container holds under a name of its own, then store it).")
        self.fail(node, f"s2s does not support the method `.{m}()`.",
                  "Supported array methods: " + ", ".join(sorted(METHODS)) + "; lists: append, pop.")


# s2s's own modules whose functions are not written in what s2s transforms (pytree objects):
# a call inside a transformed function is an error at the user's line, not inside s2s
_LIBRARY_NOT_TRANSFORMED = ("s2s.base.tree",)


def _is_transform(obj) -> bool:
    rec = record.of(obj)
    return rec is not None and rec.transform


_NotStatic = idioms_calls.NotStatic
_NOT_KNOWN = object()  # static_function: not a None or function known when transforming


def _rooted_in(node, names) -> bool:
    """Whether expression `node` reads one of `names` (`x.T` of a local `x`)."""
    return any(isinstance(n, gast.Name) and n.id in names for n in gast.walk(node))


def _dotted(node) -> str:
    if isinstance(node, gast.Name):
        return node.id
    if isinstance(node, gast.Attribute):
        return _dotted(node.value) + "." + node.attr
    return type(node).__name__


def _stored(stmts) -> set[str]:
    """Names assigned anywhere in `stmts` (the original, unnormalized statements)."""
    return {n.id for s in stmts for n in gast.walk(s) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}


def _set_before_breaks(stmts, flag):
    for i in range(len(stmts) - 1, -1, -1):
        s = stmts[i]
        if isinstance(s, gast.Break):
            stmts.insert(i, build.assign(flag, build.const(True)))
        elif isinstance(s, gast.If):
            _set_before_breaks(s.body, flag)
            _set_before_breaks(s.orelse, flag)
