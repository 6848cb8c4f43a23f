"""Normalize a function into s2s's core form (A-normal form), the input of every transform.

The grammar of the core form is in `s2s.compiler.ir.core`. `Normalizer` is one visitor, a method
per statement and per expression kind, whose lowerings share the state of the function being
lowered (its Namer, the statements emitted so far, the current source location, the aliases and
rebound names). This module holds that state and the statements (assignments and their alias
checks, loops, branches, local defs); expressions.py the expressions and calls, as a mixin of the
same class. What stands alone has its own module: name resolution (resolve.py), static facts about
locals (static_locals.py), call idioms (call_idioms.py and the modules it asks), aliases
(aliases.py), jumps (jumps.py), lifting nested functions (lift.py).
"""
from __future__ import annotations

import copy

import gast

from ...errors import S2SSyntaxError, error_at
from .. import analysis
from ..ir import build
from ..ir.core import SOURCE_FILE, CoreFn
from ..ir.names import Namer
from ..primitives import registry
from . import (
    aliases,
    attr_stores,
    census,
    contexts,
    dict_calls,
    dtypes,
    elements,
    function_calls,
    function_lists,
    function_loops,
    function_values,
    guards,
    handlers,
    hygiene,
    lift,
    python_idioms,
    refusals,
    resolve,
    stars,
    static_locals,
    targets,
    transform_results,
    view_writes,
    views,
)
from .expressions import UNSUPPORTED, ExpressionLowering, dotted_name
from .jumps import restructure

_AUGOPS = {gast.Add: "+=", gast.Sub: "-=", gast.Mult: "*=", gast.Div: "/=", gast.Pow: "**=",
           gast.MatMult: "@=", gast.FloorDiv: "//=", gast.Mod: "%="}


class Normalizer(ExpressionLowering):
    """Lower one parsed function to core form; see the module docstring."""

    def __init__(self, fn_node, env: resolve.Env, filename: str, line_offset: int = 0, col_offset: int = 0,
                 source_lines=None, compile_nested=None):
        facts = census.Census(fn_node)  # (what the rewrites ask of the whole def: one walk, again after a change)
        self.fn = fn_node = hygiene.rename_reserved(fn_node, facts)
        facts = facts.current()
        self.fn = fn_node = python_idioms.rewrite(fn_node, env.lookup, facts)  # (reversed, a, *rest = x, :=)
        facts = facts.current()
        self.fn = fn_node = transform_results.rewrite(fn_node, env.lookup, facts)  # (s2s.vjp(f, x)[1](ct))
        facts = facts.current()
        self.fn = fn_node = function_lists.rewrite(fn_node, facts)  # (fs.append(term) in a loop: a list of functions)
        facts = facts.current()
        if not filename.startswith("<s2s"):  # (a transform's output: its temporaries' views are the alias check's)
            self.fn = fn_node = view_writes.rewrite(fn_node, env.lookup, facts)  # (row = M[i]; row *= 2: M[i] *= 2)
        self.census = facts = facts.current()  # (normalization reads the def and never rewrites it)
        self.compile_nested = compile_nested  # (name, node, ns, filename) -> function, from the driver
        self.env = env
        self.filename = filename
        self.line_offset = line_offset
        self.col_offset = col_offset
        self.locals = set(facts.locals)
        self.static_locals = static_locals.find(fn_node, self.locals, self.static, facts.stores)
        if self.static_locals:  # `m = np`: `m` is read as the module itself
            self.locals -= set(self.static_locals)
            self.env.scopes.insert(0, dict(self.static_locals))
        self.fvalues: dict = {}  # local name -> the function (or collection of them) it holds
        self.fscope: dict = {}  # generated names of functions known now, resolved as globals
        self.env.scopes.insert(0, self.fscope)
        self.namer = Namer(facts.names | {"xp", "rt", "ext"})
        self.ns: dict = {}
        self.out: list = []
        self.loc = None
        self.source_lines = source_lines
        self.lifted: dict = {}
        self.ranges: set[str] = set()  # names that hold range objects (loops over them stay loops)
        self.aliases = aliases.Aliases(fn_node, facts.of(gast.Name))
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
        dtypes.bind(self, n, value)
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
            if src is not value and (src.id in self.containers or isinstance(value.slice, gast.Constant)
                                     and isinstance(value.slice.value, str)):  # an item of a list or dict
                # (a string key reads a dict's item, `param['eps']`: a store into another slot leaves it)
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
        body = handlers.bind_unset(body, [p.id for p in a.args])
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
        if build.is_comment(s):  # generated code transformed again: the user's statement it stands for
            self.out.append(build.copy_comment(s, ("lineno", "col_offset", SOURCE_FILE)))
            return
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
        handlers.lower_try(self, s)

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
        if function_calls.vjp_assign(self, s):
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
            r = build.binop(build.name(t.id), op(), self.atom(s.value))
            self.emit(build.assign(t.id, dtypes.inplace(self, s, build.name(t.id), r)))  # (NumPy's dtype, shape)
        elif isinstance(t, gast.Subscript):
            if isinstance(t.value, gast.Name):
                self.check_alias(s, t.value.id, f"{t.value.id}[...] {_AUGOPS.get(type(s.op), '?=')} ...", elements=True)
                if t.value.id in self.params_unassigned():
                    self.inplace_params[t.value.id] = self.where(s)[1]
            base = self.atom(build.load(t.value))
            index = self.index(t.slice)
            old = self.tmp(build.subscript(base, copy.deepcopy(index)))
            sliced = any(isinstance(n, gast.Slice) or isinstance(n, gast.Constant) and n.value is Ellipsis
                         for n in gast.walk(t.slice))  # (`a[...]`, `a[1:]`: an array even at rank 0)
            new = self.tmp(dtypes.inplace(self, s, old, build.binop(old, op(), self.atom(s.value)), sliced))
            if isinstance(base, gast.Name):  # (a store into an integer array truncates: no derivative)
                new = dtypes.stored(self, s, base.id, new)
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
            target, later = targets.plan(target, self.namer.fresh)  # (in Python's order: `a, _, _ = ...`)
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
            for name, n in later:
                self.assign_to(build.name(name, store=True), build.name(n))
        elif isinstance(target, gast.Subscript):
            if isinstance(target.value, gast.Subscript) and elements.nested_store(self, target, value):
                return  # xs[t][i] = v into a list the function built
            if not self.is_local(target.value) and attr_stores.container_store(self, target, value):
                return  # self.ctx["X"] = X into a dict an object holds (frontend/attr_stores.py)
            if not self.is_local(target.value):
                self.fail(target, *refusals.store_into(dotted_name(target.value), _rooted_in(target.value, self.locals)))
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
        if function_loops.loop_over_functions(self, s):
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
                self.for_indexed(s, kind, [self.atom(a) for a in stars.zip_args(self, it, s.target)])
                return
        if isinstance(it, gast.Name) and it.id in self.ranges and isinstance(s.target, gast.Name) \
                and s.target.id not in _stored(s.body):
            body = self.loop_body(s.body)  # a loop over a range object kept in a variable (generated code)
            self.loc = loc
            self.loop_with_else(gast.For(target=build.name(s.target.id, store=True), iter=build.name(it.id), body=body,
                                         orelse=[], type_comment=None), s.orelse)
            return
        if dict_calls.is_dict(self, it):  # `for k in d`: over the dict's keys
            self.for_indexed(s, "iter", [self.tmp(dict_calls.keys_of(self, self.atom(it)))])
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


def _rooted_in(node, names) -> bool:
    """Whether expression `node` reads one of `names` (`x.T` of a local `x`)."""
    return any(isinstance(n, gast.Name) and n.id in names for n in gast.walk(node))


def _stored(stmts) -> set[str]:
    """Names assigned anywhere in `stmts` (the original, unnormalized statements)."""
    return {n.id for n in analysis.iter_nodes(stmts) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}


def _set_before_breaks(stmts, flag):
    for i in range(len(stmts) - 1, -1, -1):
        s = stmts[i]
        if isinstance(s, gast.Break):
            stmts.insert(i, build.assign(flag, build.const(True)))
        elif isinstance(s, gast.If):
            _set_before_breaks(s.body, flag)
            _set_before_breaks(s.orelse, flag)
