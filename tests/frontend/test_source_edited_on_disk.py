"""A module's file edited on disk after import (issue 44, family 1): s2s refuses the new text.

The function still computes the old code; s2s reads the file as it is now. An edit within the
same lines (`np.sin` to `np.exp`) keeps the definition's name, first line and parameters, so
s2s compiles the text it read and compares it with the function's code (frontend/code_match.py).
Every kind of definition left unedited must still be accepted: module functions, nested defs
and closures, lambdas, methods (name mangling, `super()`), decorated functions, comprehensions,
defaults, `from __future__ import annotations`.
"""
import importlib.util
import linecache
import os
import sys
import textwrap

import numpy as np
import pytest

import s2s
from s2s.compiler.frontend import code_match
from s2s.compiler.frontend.parse import parse_function

X = np.array([0.3, -0.7, 1.1])


def _module(tmp_path, name, text):
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(text))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod, path


def _edit(path, old, new):
    text = path.read_text()
    assert old in text
    stat = path.stat()
    path.write_text(text.replace(old, new))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2 * 10 ** 9))  # (a .pyc keyed by whole seconds
    linecache.checkcache(str(path))                                        # would hide a reload's edit)


def _fd(f, x, eps=1e-6):
    return np.array([(f(x + e) - f(x - e)) / (2 * eps) for e in np.eye(len(x)) * eps])


@pytest.mark.parametrize("transform", ["grad", "jit", "vmap", "jvp"])
def test_an_edit_on_the_same_line_is_refused(tmp_path, transform):
    name = f"s2s_edited_{transform}"
    mod, path = _module(tmp_path, name, """
        import numpy as np


        def h(x):
            return np.sum(np.sin(x))
        """)
    _edit(path, "np.sin", "np.exp")  # same length, same line: only the code can tell
    assert mod.h(X) == pytest.approx(np.sum(np.sin(X)))  # the function still computes sin
    run = {"grad": lambda: s2s.grad(mod.h)(X), "jit": lambda: s2s.jit(mod.h)(X),
           "vmap": lambda: s2s.vmap(mod.h)(np.stack([X, X])), "jvp": lambda: s2s.jvp(mod.h, (X,), (X,))}[transform]
    with pytest.raises(s2s.S2SError, match="source file changed since 'h' was defined") as info:
        run()
    assert f"{name}.py:5" in str(info.value) and "eload the module" in str(info.value)
    mod.__spec__.loader.exec_module(mod)  # a reload, as the message says: the function is the file's text again
    assert mod.h(X) == pytest.approx(np.sum(np.exp(X)))
    np.testing.assert_allclose(s2s.grad(mod.h)(X), np.exp(X), rtol=1e-12)


@pytest.mark.parametrize("old, new", [
    ("2.0 * x", "3.0 * x"),           # a constant
    ("np.tanh(", "np.sinh("),         # a name
    ("v + 1.0", "v - 1.0"),           # an operator
    ("(1.0, 0.0)", "(1.0, -0.0)"),    # a signed zero in a nested code object
    ("k * v", "v * k"),               # operand order in a comprehension
    ("offset=1.0", "offset=2.0"),     # a default (the code is the same: the default is the function's)
    ("'Doc.'", "'Edited.'"),          # a docstring: no computation changes
])
def test_edits_inside_nested_code_are_refused(tmp_path, old, new):
    name = f"s2s_edited_nested_{abs(hash(old)) % 10 ** 8}"
    mod, path = _module(tmp_path, name, """
        import numpy as np


        def g(x, offset=1.0):
            '''Doc.'''
            y = 2.0 * x
            s = sum(k * v for k, v in enumerate([0.5, 1.0]))
            f = lambda v: np.tanh(v + 1.0) * np.copysign(1.0, 0.0)
            return np.sum(f(y)) + s + offset
        """)
    _edit(path, old, new)
    if old.startswith(("offset", "'")):  # a default lives on the function, not in its code, and a
        parse_function(mod.g)              # docstring computes nothing: accepted (s2s reads the
        return                             # default from the function)
    with pytest.raises(s2s.S2SError, match="source file changed"):
        parse_function(mod.g)


KINDS = '''
from __future__ import annotations

import functools

import numpy as np


def plain(x, scale=2.0):
    """A docstring."""
    return np.sum(np.sin(x) * scale)


def with_comprehension(x):
    parts = [x[i] * float(i) for i in range(3)]
    total = {k: v for k, v in zip("abc", parts)}
    return sum(parts) + total["a"] + sum(p ** 2 for p in parts)


def make_closure(c):
    def closure(x):
        inner = lambda v: v * c
        return np.sum(inner(x) ** 2)
    return closure


def make_nested():
    w = 3.0

    def outer(x):
        def deeper(y: np.ndarray) -> float:
            return np.sum(y * w)
        return deeper(x) + w
    return outer


LAMBDA = lambda x: np.sum(x ** 3)
PAIR = [lambda x: np.sum(x), lambda x: np.sum(x * 2.0)]


def deco(fn):
    @functools.wraps(fn)
    def wrapped(x):
        return fn(x) * 2.0
    return wrapped


@deco
def decorated(x):
    return np.sum(np.cos(x))


@functools.lru_cache(maxsize=None)
def _cached_constant():
    return 2.0


class Base:
    def scale(self):
        return 1.5


class Model(Base):
    __private = 4.0
    k = lambda self, x: np.sum(x) * 0.5

    scale_ = 4.0

    def __init__(self):
        self.__w = self.w = np.array([1.0, 2.0, 3.0])

    def loss(self, x):
        return np.sum(self.w * x ** 2) * Model.scale_

    def mangled(self, x):
        return np.sum(self.__w * x ** 2) * Model.__private

    def uses_super(self, x):
        return np.sum(x) * super().scale()

    @staticmethod
    def static(x):
        return np.sum(x * x)

    @classmethod
    def klass(cls, x):
        return np.sum(x) * 2.0

    class Inner:
        def __call__(self, x):
            return np.sum(x * self.__doc_free())

        def __doc_free(self):
            return 3.0


def make_class():
    bias = 0.25

    class Local:
        def f(self, x):
            return np.sum(x + bias)
    return Local()
'''


@pytest.fixture(scope="module")
def kinds(tmp_path_factory):
    mod, _ = _module(tmp_path_factory.mktemp("kinds"), "s2s_code_kinds", KINDS)
    return mod


def _kinds(m):
    model = m.Model()
    return {
        "plain": m.plain, "comprehension": m.with_comprehension, "closure": m.make_closure(1.5),
        "nested": m.make_nested(), "lambda": m.LAMBDA, "same_line_lambda_0": m.PAIR[0],
        "same_line_lambda_1": m.PAIR[1], "decorated": m.decorated, "decorated_inner": m.decorated.__wrapped__,
        "method": model.loss, "mangled": model.mangled, "super": model.uses_super, "static": m.Model.static,
        "classmethod": m.Model.klass,
        "class_lambda": model.k, "nested_class_call": m.Model.Inner().__call__,
        "private_method": m.Model.Inner()._Inner__doc_free, "local_class_method": m.make_class().f,
        "cache_body": m._cached_constant.__wrapped__,
    }


@pytest.mark.parametrize("kind", [
    "plain", "comprehension", "closure", "nested", "lambda", "same_line_lambda_0", "same_line_lambda_1",
    "decorated", "decorated_inner", "method", "mangled", "super", "static", "classmethod", "class_lambda",
    "nested_class_call", "private_method", "local_class_method", "cache_body"])
def test_every_kind_of_unedited_definition_is_accepted(kinds, kind):
    fn = _kinds(kinds)[kind]
    func = getattr(fn, "__func__", fn)
    parse_function(func)  # no refusal
    segment_checked = [k for k in code_match._CHECKED if k[0] is func.__code__]
    assert segment_checked, "the code was compared"
    assert all(code_match._CHECKED[k] for k in segment_checked)


@pytest.mark.parametrize("kind", ["plain", "comprehension", "closure", "nested", "lambda", "same_line_lambda_1",
                                  "decorated", "method", "static", "classmethod", "local_class_method"])
def test_unedited_definitions_transform_to_the_right_gradient(kinds, kind):
    fn = _kinds(kinds)[kind]
    np.testing.assert_allclose(s2s.grad(fn)(X), _fd(fn, X), rtol=1e-6, atol=1e-8)


def with_assert(x):
    assert x.shape == (3,), "a vector"  # pytest rewrites this test file's asserts: the code is not the text's
    return np.sum(x ** 2)


def test_code_rewritten_by_an_import_hook_is_accepted():
    assert any("@py" in n for n in code_match._all_names(with_assert.__code__))  # (pytest rewrote it)
    np.testing.assert_allclose(s2s.grad(with_assert)(X), 2 * X, rtol=1e-12)
