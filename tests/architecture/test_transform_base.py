"""The shared transform machinery (s2s.compiler.transforms.base): how a new transform plugs in.

A transform subclasses `Transform`, gets the callee versions it needs from the `Callees`
interface it is handed (here a stub, in s2s the driver), and returns `GeneratedFn`s.
"""
import gast
import numpy as np
import pytest

import s2s
from s2s.compiler.driver import CALLEES, core_of
from s2s.compiler.emit.loader import compile_fn
from s2s.compiler.ir import build
from s2s.compiler.transforms.base import Companions, GeneratedFn, Transform, header_for


def helper(a, scale=3.0):
    return a * scale


def body_fn(x, y):
    z = helper(x)
    w = z + y
    k = len(y)
    return w * k


class StubCallees:
    """Records what the transform asked for; gives back the callee itself."""

    def __init__(self):
        self.asked = []

    def core(self, fn):
        self.asked.append(("core", fn.__name__))
        return core_of(fn)

    def split(self, fn, mask):
        self.asked.append(("split", fn.__name__, mask))
        return fn, fn

    def jvp(self, fn, mask):
        self.asked.append(("jvp", fn.__name__, mask))
        return fn

    def has_rules(self, fn):
        return False


class Doubling(Transform):
    """A toy transform: `return 2 * out`, and a `d_` companion for every active variable."""

    def __init__(self, core, active_params, calls):
        super().__init__(core, active_params, calls)
        self.marks = Companions(self.namer, "d_")

    def run(self) -> GeneratedFn:
        body = list(self.body[:-1])
        for s in self.body:
            if isinstance(s, gast.Assign) and isinstance(s.value, gast.Call) and isinstance(s.value.func, gast.Name) \
                    and s.value.func.id in self.core.ns:
                fn = self.core.ns[s.value.func.id]
                self.calls.jvp(fn, (True,) * len(self.bind_call(fn, s.value)))
        out = self.body[-1].value
        doubled = self.namer.fresh("t")
        body += [build.assign(doubled, build.binop(build.const(2.0), gast.Mult(), out)), build.ret(build.name(doubled))]
        name = self.namer.exact(f"double_{self.core.name}")
        return GeneratedFn(name, build.function(name, self.core.params, body), {**self.core.ns, **self.ns},
                           self.core.filename, header_for("double", self.core))


def test_a_new_transform_plugs_in_through_the_base_and_the_callee_interface():
    core = core_of(body_fn)
    stub = StubCallees()
    t = Doubling(core, ["x"], stub)
    assert {"x", "z", "w"} <= t.active and "k" not in t.active  # activity comes with the base
    assert t.marks.name("z") == "d_z" and t.marks.var_of("d_z") == "z"
    gen = t.run()
    assert stub.asked == [("jvp", "helper", (True, True))]  # the default `scale` was bound
    f = compile_fn(gen.name, gen.node, gen.ns, gen.filename, gen.header)
    x, y = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    np.testing.assert_allclose(f(x, y), 2.0 * body_fn(x, y))
    assert s2s.source(f).startswith("# s2s: double of body_fn (")


def test_fail_points_at_the_users_line():
    core = core_of(body_fn)
    t = Doubling(core, ["x"], CALLEES)
    stmt = t.body[0]
    with pytest.raises(s2s.S2SError, match=r"test_transform_base.py:\d+"):
        t.fail(stmt, "this statement is not supported by the toy transform")


def test_one_namer_owns_every_name_of_the_scope():
    core = core_of(body_fn)
    t = Doubling(core, ["x"], CALLEES)
    fresh = {t.namer.fresh("t") for _ in range(5)}
    assert not fresh & build.names_in(core.node)
    assert t.marks.name("w") not in fresh and t.namer.exact("w") == "w_1"
