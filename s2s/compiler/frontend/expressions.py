"""The expression half of the normalizer: each expression kind lowered to an atom or a core-form
value, name and attribute reads resolved when transforming (`static`), and calls: a primitive, a
user function, a method of an array or a local value, or one of the call idioms (call_idioms.py).

`ExpressionLowering` is a mixin of `normalize.Normalizer`, which holds the state both halves
share (the Namer, the statements emitted so far, the current location, the aliases): a statement
lowers its expressions through `self.atom`/`self.expr`, and an expression that needs statements
(a comprehension, an inline loop) emits them through the statement half's `self.stmt`.
"""
from __future__ import annotations

import inspect
import types

import gast
import numpy as np

from ...base import record, tree
from ...errors import S2SError, S2STypeError, where
from ...library import numpy_inside
from .. import analysis
from ..ir import build
from ..primitives import keywords, registry
from . import (
    array_likes,
    at_updates,
    attr_callees,
    attr_stores,
    call_idioms,
    callee_updates,
    dict_calls,
    dict_updates,
    dtypes,
    function_calls,
    function_values,
    idioms,
    keyword_calls,
    numpy_forms,
    python_idioms,
    refusals,
    resolve,
    stars,
    static_locals,
    views,
)
from .reads import note as note_read
from .reads import stores_checker

_INDEXABLE = (np.ndarray, np.generic, list, tuple, dict, str, bytes, range, type, type(np.s_))  # np.s_: indices
# the type of NumPy's index-trick objects (np.r_, np.c_) -> the primitive `obj[...]` is (`index_trick`)
_CONCAT_TRICKS = {type(p.index_trick): k for k, p in registry.PRIMS.items() if p.index_trick is not None}
METHODS = {m for p in registry.PRIMS.values() for m in p.methods}  # the array methods that are primitives
ARRAY_ATTRS = {p.shape_query for p in registry.PRIMS.values() if p.shape_query} | {"dtype"}
COMPUTED_ATTRS = {"T", "real", "flat"}  # lowered to a function of the array (expr_Attribute)
tree.ARRAY_ATTRIBUTES.update(ARRAY_ATTRS | COMPUTED_ATTRS)  # a pytree node's field so named is refused
tree.COMPUTED_ATTRIBUTES.update(COMPUTED_ATTRS)
LIST_METHODS = {"append", "pop"}
UNSUPPORTED = {gast.AsyncWith: "async with", gast.Global: "global",
               gast.Nonlocal: "nonlocal", gast.Delete: "del", gast.AsyncFunctionDef: "async def",
               gast.AsyncFor: "async for", gast.ClassDef: "class",
               gast.Import: "import", gast.ImportFrom: "import", gast.Yield: "yield", gast.YieldFrom: "yield from",
               gast.Await: "await", gast.SetComp: "set comprehension",
               gast.Set: "set", gast.JoinedStr: "f-string",
               gast.Starred: "*args", gast.NamedExpr: ":="}


# s2s's own modules whose functions are not written in what s2s transforms (pytree objects):
# a call inside a transformed function is an error at the user's line, not inside s2s
_LIBRARY_NOT_TRANSFORMED = ("s2s.base.tree",)


def _is_transform(obj) -> bool:
    rec = record.of(obj)
    return rec is not None and rec.transform


_NotStatic = static_locals.NotStatic
_NOT_KNOWN = object()  # static_function: not a None or function known when transforming


def dotted_name(node) -> str:
    """A name or attribute chain as written (`np.linalg`), else the node's kind: for messages."""
    if isinstance(node, gast.Name):
        return node.id
    if isinstance(node, gast.Attribute):
        return dotted_name(node.value) + "." + node.attr
    return type(node).__name__


class ExpressionLowering:
    """Lowering of expressions, mixed into `normalize.Normalizer` (see the module docstring)."""

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
        return function_calls.local_function(self, node)

    def bindings(self):
        """(values assigned to each name, names otherwise changed) in the function."""
        return static_locals.bindings(self)

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
            return call_idioms.static_item(self, node)  # ACTIVATIONS["tanh"], LAYERS[0]
        raise _NotStatic()

    def expr_Attribute(self, node):
        if (held := attr_stores.read(self, node)) is not None:
            return held  # obj.a stored by this function: the local that holds it
        if isinstance(node.value, gast.Name) and node.value.id not in self.locals or \
                isinstance(node.value, gast.Attribute) and self.rooted_global(node.value):
            obj = self.static(node)
            if isinstance(obj, type) or resolve.prim_key(obj) is None and not resolve.is_user_function(obj):
                return self.value_of(node, dotted_name(node), obj)  # a constant, or a dtype like np.float64
            self.fail(node, f"`{dotted_name(node)}` is a function; call it.",
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

    def rooted_global(self, node) -> bool:
        held = getattr(self, "attr_locals", None)
        while isinstance(node, gast.Attribute):
            if held and analysis.dotted(node) in held:
                return False  # (`self.W.T` where this function holds `self.W` in a local: attr_stores.py)
            node = node.value
        return isinstance(node, gast.Name) and node.id not in self.locals

    def expr_BinOp(self, node):
        if type(node.op) not in analysis.BINOPS:
            self.fail(node, f"s2s does not support the operator `{type(node.op).__name__}`.")
        joined = stars.sequence_concat(self, node)
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
        a function (stax's `f(x) if rescale else x`, the function a closure was made with), `f is
        g` of two such, a bool an object's attribute holds (`not self.is_init`); else None."""
        if isinstance(node, gast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (gast.Is, gast.IsNot)):
            a, b = self.static_function(node.left), self.static_function(node.comparators[0])
            if a is _NOT_KNOWN or b is _NOT_KNOWN:
                return None
            return (a is b) == isinstance(node.ops[0], gast.Is)
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
            known = self.static_test(node.operand)
            return None if known is None else not known
        if isinstance(node, gast.Attribute) and self.rooted_global(node):
            try:  # a flag an object holds now (`if not self.is_init:`): reads.py watches it per call
                flag = self.static(node)
            except Exception:  # noqa: BLE001 - not known now
                flag = None
            if type(flag) is bool:
                return flag
        obj = self.static_function(node)
        return None if obj is _NOT_KNOWN else obj is not None

    def static_function(self, node):
        """The None or function a non-local name (or module attribute) is bound to, else _NOT_KNOWN."""
        if isinstance(node, gast.Constant) and node.value is None:
            return None
        if not (isinstance(node, gast.Name) and node.id not in self.locals and node.id not in self.fvalues
                or isinstance(node, gast.Attribute) and self.rooted_global(node)):
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
            return self.expr(stars.joined_tuple(self, node))
        return build.tuple_([self.atom(e) for e in node.elts])

    def expr_List(self, node):
        return build.list_([self.atom(e) for e in node.elts])

    def expr_Dict(self, node):
        if any(k is None for k in node.keys):
            self.fail(node, "s2s does not support `**` in dict literals.")
        return gast.Dict(keys=[self.atom(k) for k in node.keys], values=[self.atom(v) for v in node.values])

    def expr_DictComp(self, node):
        return dict_calls.dict_comp(self, node)

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
        if isinstance(node.value, (gast.Name, gast.Attribute)) and self.rooted_global(node.value) \
                and type(self.static(node.value)) in _CONCAT_TRICKS:
            return self.concat_trick(node, _CONCAT_TRICKS[type(self.static(node.value))])
        if isinstance(node.value, (gast.Name, gast.Attribute)) and self.rooted_global(node.value):
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
        items = [numpy_forms.index_trick_range(self, e) if isinstance(e, gast.Slice) else e for e in items]
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
        if at_updates.matches(self, node):
            return at_updates.lower(self, node)  # JAX's x.at[i].set(v): a store into a copy (frontend/at_updates.py)
        node = attr_stores.super_call(self, node) or node  # super().forward(x): the base's bound method
        if (lowered := dict_updates.call(self, node)) is not None:
            return lowered  # batchnorm(x, bn_param) storing `bn_param['k'] = v` (frontend/dict_updates.py)
        if (lowered := callee_updates.call(self, node)) is not None:
            return lowered  # softmax(y) doing `x -= m`: copy-in/copy-out (frontend/callee_updates.py)
        node = stars.expand_stars(self, node)
        self.refuse_out(node)
        lowered = call_idioms.call_of_call(self, node)
        if lowered is not None:
            return lowered
        func = node.func
        if not (isinstance(func, gast.Name) and (func.id in self.lifted or func.id not in self.locals)
                or isinstance(func, gast.Attribute) and self.rooted_global(func)) \
                and function_values.could_be(self, func):
            func = function_values.callee(self, func, function_values.value(self, func))
            node = gast.copy_location(gast.Call(func=func, args=node.args, keywords=node.keywords), node)
        if isinstance(func, gast.Lambda):
            self.expr_Lambda(func)
        if isinstance(func, gast.Attribute) and not self.rooted_global(func):
            lowered = call_idioms.method(self, node)
            return lowered if lowered is not None else self.method_call(node)
        if isinstance(func, gast.Attribute) and isinstance(self.static(func.value), np.ndarray):
            return self.method_call(node)  # a method of a global array
        if isinstance(func, gast.Name) and func.id in self.lifted:
            fn, free = self.lifted[func.id]
            lifted = idioms.lifted_with_arity(fn, len(free) + len(node.args),
                                                           tuple(k.arg for k in node.keywords))
            args = [build.name(v) for v in free] + [self.atom(a) for a in node.args]
            kws = {idioms.lifted_keyword(fn, lifted, k.arg): self.atom(k.value) for k in node.keywords}
            fn = lifted
            return build.call(build.name(self.bind(fn.__name__, fn)), args, kws)
        if node.keywords and any(k.arg is None for k in node.keywords):
            self.fail(node, "s2s does not support `**kwargs` in calls.")
        try:
            obj = self.static(func)
        except _NotStatic:
            called = call_idioms.parameter_called(self, node)
            if called is not None:  # resolved when it runs: a vector-space value (runtime/spaces.py)
                return called
            self.fail(node, "s2s can only call functions it can resolve when transforming: a NumPy function, "
                            "a module-level function, or a local defined with `def` at module level.",
                      function_calls.unresolved_hint(self, func))
        obj = getattr(obj, "__s2s_inside__", obj)  # a library function's stand-in in transformed code (tree_flatten)
        node, obj = attr_callees.pass_stored(self, node, obj)  # (a callee that reads an attribute stored here)
        if isinstance(obj, np.vectorize):  # a module-level np.vectorize(f), or a function decorated with it
            obj = numpy_inside.vectorize_function(obj) or obj
        if isinstance(obj, np.vectorize):
            self.fail(node, f"`{dotted_name(func)}` is an np.vectorize with `signature=` or `excluded=`, which s2s does "
                            "not follow.", "Call its function in a loop over the rows or elements you mean.", S2SError)
        key = call_idioms.call_method_primitive(obj)
        if key is not None:  # an object whose class's __call__ has rules: that primitive, the object first
            self.ns["ext"] = registry.EXT
            return build.call(key, [self.atom(func), *(self.atom(a) for a in node.args)],
                              {k.arg: self.atom(k.value) for k in node.keywords})
        function_calls.function_parameters_given(self, node, obj, dotted_name(func))
        node = function_calls.constant_pieces(self, function_calls.stand_in_call(self, node, obj), obj)
        refusal = getattr(obj, "__s2s_refuse__", None)  # a library function that must not be transformed
        if isinstance(refusal, str):
            self.fail(node, f"`{dotted_name(func)}`: {refusal}")
        foreign = resolve.foreign_library(obj)
        if foreign is not None:
            self.fail(node, f"s2s has no rules for `{dotted_name(func)}` ({foreign}).",
                      "s2s.scipy provides JAX's jax.scipy functions (docs/namespaces.md); write the step with "
                      "those and NumPy, or register rules with s2s.defvjp / s2s.defjvp.")
        lowered = call_idioms.call(self, node, obj)
        if lowered is not None:
            return lowered
        if keyword_calls.result_dtype_call(resolve.prim_key(obj), node):
            return keyword_calls.result_dtype(self, node, resolve.prim_key(obj))  # np.vstack(xs, dtype=...)
        einsum = resolve.prim_key(obj) == "xp.einsum"  # np.einsum and s2s.numpy.einsum (autograd.numpy's)
        if einsum:
            node = numpy_forms.einsum_sublists(self, node)
        args = [self.atom(a) for a in node.args]
        if einsum and args and not (isinstance(args[0], gast.Constant) and isinstance(args[0].value, str)):
            args[0] = self.tmp(build.call("rt.einsum_subscripts", [args[0]]))  # refuses the sublist form
        kws = {k.arg: self.atom(k.value) for k in node.keywords}
        key = resolve.prim_key(obj)
        if key is not None:
            args, kws = array_likes.as_arrays(self, node, key, args, kws)  # np.log([a, b]): an array
        if key in registry.PRODUCT_OPERANDS and any(k in registry.PRODUCT_KEYWORDS for k in kws):
            args, kws = self.product_keywords(node, key, args, kws)
        positional = getattr(registry.lookup(key), "positional", None) if key is not None else None
        if positional is not None and len(args) > positional:
            self.fail(node, f"`{dotted_name(node.func)}` takes at most {positional} positional arguments, as NumPy's "
                            f"does ({len(args)} given).", "Pass the others by keyword.", kind=S2STypeError)
        slots = keywords.array_slots(key) if key is not None else None
        if slots is not None and len(args) > slots:  # (np.meshgrid of four arrays: the fourth read as indexing=)
            self.fail(node, f"s2s follows `{dotted_name(node.func)}` of at most {slots} arrays ({len(args)} given).",
                      "Split the call into calls of fewer arrays.", kind=S2SError)
        if key is not None and isinstance(getattr(registry.lookup(key), "source", None), dict):
            args, kws = self.composite_arguments(registry.lookup(key), args, kws)
        if key is not None:
            self.refuse_positional_out(node, key, args, obj)
            kws = keywords.at_default(key, kws)  # (NumPy's defaults the declaration does not list: left out)
            if getattr(registry.lookup(key), "source", None) is not None:  # (a composite reads no inert keyword)
                kws = {k: v for k, v in kws.items() if k not in keywords.inert(key)}
        form = registry.keyword_form(key, kws, len(args))  # np.sum(..., where=m): NumPy's definition
        if form is not None:
            return views.keep_view(key, build.call(build.name(self.bind(form.__name__, form)), args, kws))
        if key is not None:
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
        self.fail(node, *refusals.unknown_call(dotted_name(func), obj))

    def make_node(self, node, cls, args, kws):
        """`Cls(a, k=b)` of a registered pytree node type or a namedtuple: `rt.make_node(Cls, [every
        parameter, in order])`, the defaults filled in here."""
        try:
            params = list(inspect.signature(cls).parameters.values())
            bound = inspect.Signature(params).bind(*args, **kws)
        except (TypeError, ValueError) as e:
            self.fail(node, f"`{dotted_name(node.func)}(...)`: {e}.", kind=S2STypeError)
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
                          f"Assign the result instead: `{dotted_name(k.value)} = {dotted_name(node.func)}(...)`.",
                          kind=S2SError)

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

    def refuse_positional_out(self, node, key, args, obj=np.ndarray):
        """`np.round(x, 2, y)`, `np.multiply(x, y, o)`, `x.sum(0, None, o)`: `out` passed by position
        (where NumPy's signature puts it, keywords.out_positions), refused as `out=y` is. `obj` is
        the function called (an array's method: np.ndarray); not NumPy's (`math.log(x, 2)`), its
        declaration says where `out` is."""
        if not key.startswith("xp."):  # (NumPy's `out`, not a helper's)
            return
        numpy_s = isinstance(obj, np.ufunc) or str(getattr(obj, "__module__", None)).split(".")[0] == "numpy"
        if any(k < len(args) and not (isinstance(args[k], gast.Constant) and args[k].value is None)
               for k in keywords.out_positions(key, numpy_s)):
            self.fail(node, "s2s does not support `out=` (here passed by position): the result is written into an "
                            "existing array, which s2s would not follow.",
                      f"Assign the result instead: `y = {dotted_name(node.func)}(...)`.", kind=S2SError)

    def method_call(self, node):
        func = node.func
        base = self.atom(func.value)
        args = [self.atom(a) for a in node.args]
        kws = {k.arg: self.atom(k.value) for k in node.keywords}
        m = func.attr
        if m in METHODS or m == "round":  # (`x.clip(lo, hi, o)`: NumPy's function's `out`, the array first)
            self.refuse_positional_out(node, "xp." + m, [base] + args)
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
        if m == "astype":  # (`casting=` other than 'unsafe': NumPy's check first, rt.cast_check)
            casting = args[2] if len(args) > 2 else kws.get("casting")
            dtype = args[0] if args else kws.get("dtype")
            if casting is not None and dtype is not None and \
                    not (isinstance(casting, gast.Constant) and casting.value == "unsafe"):
                base = self.tmp(build.call("rt.cast_check", [base, dtype, casting]))
            return views.astype(base, args, kws)
        if m == "item":  # (an element as a scalar: of a size-1 array, at a flat index, or at one per axis)
            if len(args) == 1 and not kws and not isinstance(node.args[0], gast.Tuple):
                return build.subscript(self.tmp(build.call("xp.ravel", [base])), args[0])
            whole = base if args else self.tmp(build.call("xp.reshape", [base, build.tuple_([])]))
            if kws:
                self.fail(node, "`ndarray.item()` takes no keyword arguments: NumPy raises TypeError for this call.",
                          "Pass the index positionally: `x.item(i)`, `x.item(i, j)`.")
            return build.subscript(whole, args[0] if len(args) == 1 else build.tuple_(args))  # (`m.item((0, 1))`)
        if m == "block_until_ready" and not args and not kws:
            return base  # JAX's wait for an asynchronous result: NumPy's is there already
        if m == "tolist":
            return call_idioms.tolist(self, base)
        if m in ("conj", "conjugate") and not args and not kws:
            return build.call("xp.conj", [base])  # (a complex array's conjugate; a real array's own values)
        if m in ("conj", "conjugate"):
            self.fail(node, f"`ndarray.{m}()` takes no arguments: NumPy raises TypeError for this call.",
                      f"Call `np.{m}(x, ...)` for the ufunc's keywords, or `x.{m}()`.")
        if m == "round":
            return build.call("xp.round", [base] + args, kws)
        if m == "clip" and len(args) <= 2 and set(kws) <= {"min", "max"} - set(("min", "max")[:len(args)]):
            bounds = args + [kws.get(k, build.const(None)) for k in ("min", "max")[len(args):]]
            return build.call("xp.clip", [base, *bounds])  # (the method's bounds are both optional: `x.clip(0.1)`)
        if m == "is_integer" and not args and not kws:  # a float's method (a shape computed with `/`)
            self.ns["ext"] = registry.EXT
            return build.call("ext.s2s_is_integer", [base])
        form = registry.keyword_form("xp." + m, kws) if m in METHODS else None
        if form is not None:  # x.sum(where=m)
            return build.call(build.name(self.bind(form.__name__, form)), [base] + args, kws)
        if m in METHODS:
            return keyword_calls.lower(self, node, "xp." + m, [base] + args, kws) or \
                build.call("xp." + m, [base] + args, kws)
        if isinstance(func.value, gast.Name) and m not in LIST_METHODS and not m.startswith("_") \
                and not hasattr(np.ndarray, m) and func.value.id in {a.id for a in self.fn.args.args}:
            if any(d.startswith(func.value.id + ".") for d in getattr(self, "attr_locals", {})):
                self.fail(node, f"s2s does not support the method `.{m}()` of `{func.value.id}`, whose attributes "
                                "the caller stored: the method would read them without their derivative.",
                          "Call the method in the function that stores the attributes.")
            self.ns["ext"] = registry.EXT  # a method of an object passed in (`dataset.getRandomContext(C)`)
            at = where(*self.where(node)) if self.where(node) else ""
            stored = build.name(self.bind("stored_here", stores_checker()))  # (refused when it runs)
            return build.call("ext.s2s_method", [base, build.const(m), self.tmp(build.tuple_(args)),
                                                 self.tmp(gast.Dict(keys=[build.const(k) for k in kws],
                                                                    values=list(kws.values()))),
                                                 build.const(at), stored])
        if m in LIST_METHODS:
            self.fail(node, f"s2s supports `.{m}(...)` as a statement of its own, on a list named by a local "
                            "variable" + ("." if isinstance(func.value, gast.Name) else
                                          ", not on an element or attribute of another value."),
                      f"Write `lst.{m}(...)` on its own line, with `lst` a local list (build a list that a "
                      "container holds under a name of its own, then store it).")
        self.fail(node, f"s2s does not support the method `.{m}()`.",
                  "Supported array methods: " + ", ".join(sorted(METHODS)) + "; lists: append, pop.")
