"""Errors point at the user's code: file, line, the source line and a caret; always an S2SError.

Each offending line below carries a unique marker comment (``# E:<tag>``); the tests find the
line number of the marker in this file and check that the error message shows it.
"""

import math
import os
import re
import types

import numpy as np
import pytest

import s2s

G = 1.0
THIS_FILE = os.path.abspath(__file__)
BASENAME = os.path.basename(__file__)


def marker_line(tag: str) -> tuple[int, str]:
    """(line number, line text) of the one line in this file marked `# E:<tag>`."""
    with open(THIS_FILE) as f:
        pat = re.compile(rf"# E:{re.escape(tag)}(\s|$)")
        hits = [(i, line.rstrip("\n")) for i, line in enumerate(f, 1) if pat.search(line)]
    assert len(hits) == 1, f"marker {tag!r} found {len(hits)} times"
    return hits[0]


def error_of(call) -> s2s.S2SError:
    """Run `call`, which must raise; assert it raised an S2SError (never an internal error)."""
    with pytest.raises(Exception) as info:
        call()
    e = info.value
    assert isinstance(e, s2s.S2SError), f"expected S2SError, got {type(e).__name__}: {e}"
    return e


def assert_points_at(e: Exception, tag: str, token: str | None = None) -> str:
    """The message names this file and the marked line, shows its text and a caret under `token`.

    Returns the explanation: the message after the caret line (so a word found there was not
    merely copied from the user's source line).
    """
    msg = str(e)
    lineno, text = marker_line(tag)
    assert BASENAME in msg, msg
    assert re.search(re.escape(BASENAME) + rf":{lineno}\b", msg), f"line {lineno} not in:\n{msg}"
    assert text.strip() in msg, f"source line {text.strip()!r} not in:\n{msg}"
    assert "^" in msg, msg
    lines = msg.splitlines()
    src_idx = next(i for i, ln in enumerate(lines) if ln.strip() == text.strip())
    caret_line = lines[src_idx + 1]
    assert caret_line.strip() == "^", f"no caret line under the source line:\n{msg}"
    if token is not None:
        col = caret_line.index("^")
        shown = lines[src_idx]
        # a caret on the parenthesis that opens the construct counts: `(lambda z: ...)(y)`
        assert shown[col:].lstrip("(").startswith(token), f"caret not under {token!r}:\n{msg}"
    explanation = "\n".join(lines[src_idx + 2:])
    assert explanation.strip(), f"no explanation after the caret:\n{msg}"
    return explanation


# --------------------------------------------------------------------------- unsupported syntax


def uses_try(x):
    y = x * 2.0
    try:
        return np.sum(y + 1.0)  # E:try
    finally:  # (the return would have to run the finally block first)
        y = y * 3.0


class _Ctx:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def uses_with(x):
    with _Ctx():  # E:with
        y = x * 2.0
    return np.sum(y)


def uses_global(x):
    global G  # E:global
    G = np.sum(x)
    return G


def make_uses_nonlocal():
    c = 2.0

    def uses_nonlocal(x):
        nonlocal c  # E:nonlocal
        return np.sum(x) * c

    return uses_nonlocal


def uses_yield(x):
    yield np.sum(x)  # E:yield


def uses_del(x):
    y = x * 2.0
    z = y + 1.0
    del y  # E:del
    return np.sum(z)


def uses_async_def(x):
    async def inner():  # E:async_def
        return 1.0
    return np.sum(x)


async def is_async(x):  # E:async_fn
    return np.sum(x)


def uses_lambda(x):
    y = x * 2.0
    return np.sum(np.asarray([lambda z: z * z]) * y)  # E:lambda


def uses_star_args(*xs, axis=0):  # E:star_args
    return np.sum(xs[0])


def uses_kwonly(x, *, scale=1.0):  # E:kwonly
    return np.sum(x) * scale


def uses_import(x):
    import math as m  # E:import
    return np.sum(x) * m.pi


def uses_class(x):
    class Local:  # E:class
        pass
    return np.sum(x)


def uses_bad_method(x):
    return np.sum(x.byteswap())  # E:bad_method


def uses_bad_attr(x):
    return np.sum(x.flags)  # E:bad_attr


def uses_attr_assign(x):
    x.foo = 1.0  # E:attr_assign
    return np.sum(x)


def make_kwargs():
    return {"axis": 0}


def uses_kwargs_call(x):
    kw = make_kwargs()  # its keys are not known when transforming
    return np.sum(np.sum(x, **kw))  # E:kwargs_call


def identity_decorator(fn):
    return fn


@identity_decorator
def decorated_with_del(x):
    y = x * 2.0
    del y  # E:decorated
    return np.sum(x)


class Model:
    @staticmethod
    def loss(x):
        y = x * 2.0
        with _Ctx():  # E:in_class
            y = y + 1.0
        return np.sum(y)


def nested_blocks(x):
    s = 0.0
    for i in range(3):
        if i > 0:
            try:
                s = s + np.sum(x)
                continue  # E:nested_blocks
            finally:
                pass
    return s


def multiline_call(x):
    y = (x * 2.0 +
         np.fft.hfft(x))  # E:multiline
    return np.sum(y)


LOCATION_CASES = [
    ("decorated", decorated_with_del, "del"),
    ("in_class", Model.loss, "with"),
    ("nested_blocks", nested_blocks, "continue"),
    ("multiline", multiline_call, "np.fft.hfft"),
]


@pytest.mark.parametrize("tag, fn, token", LOCATION_CASES, ids=[c[0] for c in LOCATION_CASES])
def test_error_location_in_decorated_indented_nested_and_multiline_code(tag, fn, token):
    e = error_of(lambda: s2s.grad(fn)(np.array([1.0, 2.0])))
    assert_points_at(e, tag, token)


SYNTAX_CASES = [
    # (tag, function, args, caret token, words the message mentions)
    ("try", uses_try, "return", ["try", "finally"]),
    ("with", uses_with, "with", ["with"]),
    ("global", uses_global, "global", ["global"]),
    ("nonlocal", make_uses_nonlocal(), "nonlocal", ["nonlocal"]),
    ("del", uses_del, "del", ["del"]),
    ("async_def", uses_async_def, "async", ["async"]),
    ("lambda", uses_lambda, "lambda", ["lambda"]),
    ("star_args", uses_star_args, None, ["*args"]),
    ("kwonly", uses_kwonly, None, ["keyword-only"]),
    ("import", uses_import, "import", ["import"]),
    ("class", uses_class, "class", ["class"]),
    ("bad_method", uses_bad_method, None, ["byteswap"]),
    ("bad_attr", uses_bad_attr, None, ["flags"]),
    ("attr_assign", uses_attr_assign, "x.foo", ["attribute"]),
    ("kwargs_call", uses_kwargs_call, None, ["**kw"]),
]


@pytest.mark.parametrize("tag, fn, token, words", SYNTAX_CASES, ids=[c[0] for c in SYNTAX_CASES])
def test_unsupported_syntax_points_at_line(tag, fn, token, words):
    e = error_of(lambda: s2s.grad(fn)(np.array([1.0, 2.0])))
    explanation = assert_points_at(e, tag, token)
    for w in words:
        assert w in explanation, f"{w!r} not in the explanation:\n{e}"


@pytest.mark.parametrize("tag, fn, token, words", SYNTAX_CASES[:9], ids=[c[0] for c in SYNTAX_CASES[:9]])
def test_unsupported_syntax_in_value_and_grad_and_vjp(tag, fn, token, words):
    e = error_of(lambda: s2s.value_and_grad(fn)(np.array([1.0, 2.0])))
    assert_points_at(e, tag, token)
    e = error_of(lambda: s2s.vjp(fn, np.array([1.0, 2.0])))
    assert_points_at(e, tag, token)


def test_async_function_itself_is_rejected():
    e = error_of(lambda: s2s.grad(is_async)(np.array([1.0, 2.0])))
    msg = str(e)
    lineno, _ = marker_line("async_fn")
    assert BASENAME in msg and "async" in msg
    assert re.search(re.escape(BASENAME) + rf":{lineno}\b", msg), msg


def test_error_in_helper_points_at_helper_line():
    def caller(x):
        return uses_try(x) * 2.0

    e = error_of(lambda: s2s.grad(caller)(np.array([1.0, 2.0])))
    assert_points_at(e, "try", "return")


def test_syntax_error_is_raised_again_on_second_call():
    f = s2s.grad(uses_del)
    e1 = error_of(lambda: f(np.array([1.0])))
    e2 = error_of(lambda: f(np.array([1.0])))
    assert str(e1) == str(e2)


# --------------------------------------------------------------------------- missing rules


def uses_fft(x):
    return np.sum(np.abs(np.fft.hfft(x)))  # E:fft


def uses_eig(x):
    w, _v = np.linalg.eig(x)  # E:eig
    return np.sum(w)


def uses_math_gamma(x):
    return math.gamma(x)  # E:gamma


@pytest.mark.parametrize("tag, fn, arg, name", [
    ("fft", uses_fft, np.array([1.0, 2.0, 3.0]), "hfft"),
    ("eig", uses_eig, np.eye(3), "eig"),
    ("gamma", uses_math_gamma, 1.5, "gamma"),
], ids=["fft", "eig", "math.gamma"])
def test_numpy_function_without_rule_is_named(tag, fn, arg, name):
    e = error_of(lambda: s2s.grad(fn)(arg))
    explanation = assert_points_at(e, tag)
    assert name in explanation, str(e)
    assert "rule" in explanation or "support" in explanation, str(e)


# --------------------------------------------------------------------------- unreadable source


def test_function_built_by_exec_source_cannot_be_read():
    ns = {"np": np}
    exec("def made_by_exec(x):\n    return np.sum(x * x)\n", ns)  # noqa: S102
    fn = ns["made_by_exec"]
    assert fn(np.array([1.0, 2.0])) == 5.0
    e = error_of(lambda: s2s.grad(fn)(np.array([1.0, 2.0])))
    msg = str(e)
    assert "made_by_exec" in msg
    assert re.search(r"cannot read the source|source cannot be read", msg), msg


def test_function_from_compiled_code_object_source_cannot_be_read():
    module_code = compile("def from_code(x):\n    return np.sum(x * 3.0)\n", "<generated>", "exec")
    code = next(c for c in module_code.co_consts if isinstance(c, types.CodeType))
    fn = types.FunctionType(code, {"np": np}, "from_code")
    assert fn(np.array([1.0])) == 3.0
    e = error_of(lambda: s2s.grad(fn)(np.array([1.0, 2.0])))
    msg = str(e)
    assert "from_code" in msg
    assert re.search(r"cannot read the source|source cannot be read", msg), msg
    e = error_of(lambda: s2s.vjp(fn, np.array([1.0, 2.0])))
    assert re.search(r"cannot read the source|source cannot be read", str(e))


def test_builtin_function_is_rejected_with_s2s_error():
    """A built-in without derivative rules (NumPy functions with rules transform directly, as in JAX)."""
    import math
    e = error_of(lambda: s2s.grad(math.gamma)(1.0))
    assert "gamma" in str(e)


# --------------------------------------------------------------------------- undefined names


def uses_undefined(x):
    return np.sum(x) * UNDEFINED_GLOBAL_XYZ  # E:undefined  # noqa: F821


def uses_undefined_call(x):
    return np.sum(undefined_helper_xyz(x))  # E:undefined_call  # noqa: F821


def test_undefined_global_name():
    e = error_of(lambda: s2s.grad(uses_undefined)(np.array([1.0, 2.0])))
    msg = str(e)
    assert "UNDEFINED_GLOBAL_XYZ" in msg
    assert "not defined" in msg
    lineno, _ = marker_line("undefined")
    assert re.search(re.escape(BASENAME) + rf":{lineno}\b", msg), msg
    assert "^" in msg


def test_undefined_function_name():
    e = error_of(lambda: s2s.grad(uses_undefined_call)(np.array([1.0, 2.0])))
    msg = str(e)
    assert "undefined_helper_xyz" in msg
    assert "not defined" in msg
    lineno, _ = marker_line("undefined_call")
    assert re.search(re.escape(BASENAME) + rf":{lineno}\b", msg), msg


# --------------------------------------------------------------------------- run-time errors


def vector_out(x):
    return x * 2.0


def scalar_loss(x):
    return np.sum(x * x)


def aux_not_pair(x):
    return np.sum(x)


def test_non_scalar_output_message():
    e = error_of(lambda: s2s.grad(vector_out)(np.array([1.0, 2.0])))
    assert isinstance(e, TypeError)
    assert "scalar" in str(e)
    assert "(2,)" in str(e)


def test_integer_input_message():
    e = error_of(lambda: s2s.grad(scalar_loss)(np.array([1, 2])))
    assert isinstance(e, TypeError)
    assert "int" in str(e)


def test_python_int_input_message():
    e = error_of(lambda: s2s.grad(scalar_loss)(3))
    assert isinstance(e, TypeError)
    assert "int" in str(e)


def test_has_aux_without_pair_message():
    e = error_of(lambda: s2s.grad(aux_not_pair, has_aux=True)(np.array([1.0, 2.0])))
    assert "has_aux" in str(e)


def test_source_of_plain_function_is_an_error():
    e = error_of(lambda: s2s.source(scalar_loss))
    assert isinstance(e, TypeError)
    assert "scalar_loss" in str(e)


def addone(v):
    v += 1.0
    return np.sum(v)


def calls_addone(x):
    y = x * 2.0
    return addone(y) + np.sum(y)


def test_in_place_update_of_a_callee_parameter_is_seen_by_the_caller():
    # (issue 45: the caller's y is updated, as in NumPy; frontend/callee_updates.py)
    x = np.array([0.5, -1.0, 2.0])
    assert s2s.jit(calls_addone)(x) == pytest.approx(calls_addone(x))
    np.testing.assert_allclose(s2s.grad(calls_addone)(x), [4.0, 4.0, 4.0])  # d/dx of 2 * sum(2x + 1)


def copy_then_set(v):
    v = v.copy()
    v[0] = 1.0
    return np.sum(v)


def calls_copy_then_set(x):
    return copy_then_set(x * 2.0)


def test_callee_that_copies_its_parameter_first_is_fine():
    np.testing.assert_allclose(s2s.grad(calls_copy_then_set)(np.ones(3)), [0.0, 2.0, 2.0])


def uses_nonlocal(x):
    t = 0.0

    def inner(z):
        nonlocal t
        t = z
        return z
    return inner(x) + t


def test_nonlocal_in_a_nested_def_is_an_s2s_error():
    with pytest.raises(s2s.S2SError, match="nonlocal") as info:
        s2s.grad(uses_nonlocal)(1.0)
    assert f"test_errors.py:{uses_nonlocal.__code__.co_firstlineno + 4}" in str(info.value)
