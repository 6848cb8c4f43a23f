"""What a newcomer meets (issue 43): an S2SError's traceback shows the user's frames only (s2s's
behind S2S_TRACEBACK=full), functions s2s cannot read are named for what they are, and a
refusal names the construct in words true under every transform, jit included."""
import functools
import os
import subprocess
import sys
import textwrap
import traceback

import numpy as np
import pytest

import s2s
from s2s import config
from s2s.base import tracebacks

X = np.array([0.3, -0.7, 1.1])
HERE = os.path.abspath(__file__)
history = []
counter = 0


def uses_global(x):
    global counter
    counter += 1
    return np.sum(np.sin(x))


def appends(x):
    history.append(x)
    return np.sum(x)


def uses_fft(x):
    return np.sum(np.fft.hfft(x))


def square(x):
    return np.sum(x ** 2)


@pytest.fixture(autouse=True)
def filtered():
    saved = config.read("traceback")
    config.update("traceback", "filtered")
    yield
    config.update("traceback", saved)


def _frames(e: BaseException) -> list:
    return traceback.extract_tb(e.__traceback__)


def _internal(frames) -> list:
    return [f for f in frames if tracebacks.internal(f.filename)]


def _bad_cotangent():
    _, vjp_fn = s2s.vjp(square, X)
    vjp_fn(np.ones(2))


def _fast_path_then_bad_arity():
    g = s2s.grad(square)
    g(X)
    g(X)  # the generated fast path serves this call and the next
    g(X, 1.0)


CALLS = {
    "grad_call": lambda: s2s.grad(uses_global)(X),
    "grad_argnums": lambda: s2s.grad(square, argnums="x"),
    "jit_call": lambda: s2s.jit(uses_global)(X),
    "vmap_call": lambda: s2s.vmap(uses_global)(np.stack([X, X])),
    "jvp": lambda: s2s.jvp(uses_global, (X,), (X,)),
    "vjp": lambda: s2s.vjp(uses_global, X),
    "vjp_fn": _bad_cotangent,
    "hessian": lambda: s2s.hessian(uses_global)(X),
    "jacrev": lambda: s2s.jacrev(uses_global)(X),
    "fast_path": _fast_path_then_bad_arity,
    "source": lambda: s2s.source(s2s.grad(uses_global)),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_an_s2s_error_shows_the_users_frames_only(name):
    with pytest.raises(s2s.S2SError) as info:
        CALLS[name]()
    frames = _frames(info.value)
    assert not _internal(frames), [f"{f.filename}:{f.lineno}" for f in frames]
    assert frames and frames[-1].filename == HERE  # the user's own frame is the innermost
    assert "S2S_TRACEBACK=full" in "".join(traceback.format_exception(info.value))
    config.update("traceback", "full")
    with pytest.raises(s2s.S2SError) as info:
        CALLS[name]()
    assert _internal(_frames(info.value))  # the setting keeps s2s's frames


def test_the_message_still_names_the_users_line():
    with pytest.raises(s2s.S2SError) as info:
        s2s.grad(uses_global)(X)
    line = uses_global.__code__.co_firstlineno + 1
    assert f"test_error_tracebacks.py:{line}" in str(info.value) and "global counter" in str(info.value)


def test_chained_exceptions_lose_internal_frames_and_other_errors_are_untouched():
    code = compile("def internal_helper():\n    raise KeyError('k')\n", "<s2s:helper>", "exec")
    ns = {}
    exec(code, ns)  # noqa: S102 - a function whose frames count as s2s's own
    try:
        try:
            ns["internal_helper"]()
        except KeyError as cause:
            raise s2s.S2SError("message") from cause
    except s2s.S2SError as e:
        err = e
    assert _internal(_frames(err.__cause__))
    tracebacks.hide_internal(err)
    assert not _internal(_frames(err.__cause__)) and len(err.__notes__) == 1
    tracebacks.hide_internal(err)
    assert len(err.__notes__) == 1  # noted once, however many entry points it passes
    try:
        ns["internal_helper"]()
    except KeyError as e:
        plain = e
    tracebacks.hide_internal(plain)  # not an S2SError: an internal error keeps every frame
    assert _internal(_frames(plain))


def test_the_setting_is_validated_and_read_from_the_environment():
    with pytest.raises(s2s.S2SError, match="'filtered', 'full'"):
        config.update("traceback", "off")
    env = dict(os.environ, S2S_TRACEBACK="full")
    out = subprocess.run([sys.executable, "-c", "import s2s; print(s2s.config.read('traceback'))"],
                         capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "full"


SCRIPT = textwrap.dedent("""\
    import numpy as np
    import s2s

    counter = 0


    def f(x):
        global counter
        counter += 1
        return np.sum(x)


    s2s.grad(f)(np.ones(3))
    """)


def test_a_script_prints_its_own_frames_only(tmp_path):
    (tmp_path / "script.py").write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if k != "S2S_TRACEBACK"}
    out = subprocess.run([sys.executable, "script.py"], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert out.returncode == 1
    files = [ln for ln in out.stderr.splitlines() if ln.startswith("  File ")]
    assert files == ['  File "' + str(tmp_path / "script.py") + '", line 13, in <module>'], out.stderr
    assert "script.py:8" in out.stderr and "global counter" in out.stderr
    full = subprocess.run([sys.executable, "script.py"], capture_output=True, text=True, cwd=tmp_path,
                          env=dict(env, S2S_TRACEBACK="full"))
    assert sum(ln.startswith("  File ") for ln in full.stderr.splitlines()) > 3
    assert os.sep + "s2s" + os.sep in full.stderr


# ------------------------------------------------------------------ functions s2s cannot read

@functools.lru_cache(maxsize=64)
def cached(x):
    return x * 2.0


def calls_cached(x):
    return np.sum(cached(x))


@pytest.mark.parametrize("transform", ["grad", "jit", "vmap", "jvp", "vjp"])
def test_an_lru_cache_function_is_named_with_what_to_transform(transform):
    run = {"grad": lambda: s2s.grad(cached)(1.0), "jit": lambda: s2s.jit(cached)(1.0),
           "vmap": lambda: s2s.vmap(cached)(X), "jvp": lambda: s2s.jvp(cached, (1.0,), (1.0,)),
           "vjp": lambda: s2s.vjp(cached, 1.0)}[transform]
    with pytest.raises(s2s.S2SError, match="functools.lru_cache") as info:
        run()
    assert "cached.__wrapped__" in str(info.value)
    assert s2s.grad(cached.__wrapped__)(1.0) == 2.0  # the advice works


@pytest.mark.parametrize("transform", [s2s.grad, s2s.jit])
def test_an_lru_cache_callee_is_named_under_every_transform(transform):
    with pytest.raises(s2s.S2SError) as info:
        transform(calls_cached)(X)
    assert "lru_cache" in str(info.value) and "cached.__wrapped__" in str(info.value)
    assert "derivative" not in str(info.value)


def test_a_numba_function_is_named_with_its_py_func():
    numba = pytest.importorskip("numba")
    compiled = numba.njit(square)
    with pytest.raises(s2s.S2SError, match="numba") as info:
        s2s.grad(compiled)(X)
    assert "square.py_func" in str(info.value)
    np.testing.assert_allclose(s2s.grad(compiled.py_func)(X), 2 * X, rtol=1e-12)


def test_a_function_built_by_exec_says_where_sources_are_kept():
    ns = {"np": np}
    exec("def made(x):\n    return np.sum(x)\n", ns)  # noqa: S102
    with pytest.raises(s2s.S2SError) as info:
        s2s.grad(ns["made"])(X)
    assert "exec()" in str(info.value) and "Jupyter, IPython" in str(info.value)


CODE = "import numpy as np, s2s\ndef f(x):\n    return np.sum(x * x)\ns2s.grad(f)(np.ones(2))\n"


@pytest.mark.parametrize("how", ["-c", "stdin"])
def test_python_c_and_stdin_say_what_to_do_without_internal_frames(how):
    env = {k: v for k, v in os.environ.items() if k != "S2S_TRACEBACK"}
    args = [sys.executable, "-c", CODE] if how == "-c" else [sys.executable, "-"]
    out = subprocess.run(args, capture_output=True, text=True, env=env, input=None if how == "-c" else CODE)
    assert out.returncode == 1
    said = "`python -c`" if how == "-c" else "piped to `python -`"
    assert said in out.stderr and "Put it in a .py file" in out.stderr and "Jupyter" in out.stderr, out.stderr
    assert sum(ln.startswith("  File ") for ln in out.stderr.splitlines()) == 1, out.stderr


# ------------------------------------------------------------------ refusals named for what they are

@pytest.mark.parametrize("transform", [s2s.grad, s2s.jit, s2s.vmap])
def test_a_global_statement_is_named_a_side_effect(transform):
    with pytest.raises(s2s.S2SError) as info:
        transform(uses_global)(np.stack([X, X]) if transform is s2s.vmap else X)
    msg = str(info.value)
    assert "`global counter`" in msg and "module variable" in msg and "Return the new value" in msg
    assert "if/for/while" not in msg and "derivative rule" not in msg


@pytest.mark.parametrize("transform", [s2s.grad, s2s.jit, s2s.vmap])
def test_appending_to_a_global_list_is_named_a_side_effect(transform):
    with pytest.raises(s2s.S2SError) as info:
        transform(appends)(np.stack([X, X]) if transform is s2s.vmap else X)
    msg = str(info.value)
    assert "`history.append(...)` changes `history`, a list that lives outside the function" in msg
    assert "derivative rule" not in msg and "supported NumPy function" not in msg
    assert history == []


def test_an_unknown_function_under_jit_is_not_called_a_missing_derivative():
    with pytest.raises(s2s.S2SError) as info:
        s2s.jit(uses_fft)(X)
    first = str(info.value).splitlines()[3]
    assert "np.fft.hfft" in first and "not among the operations s2s knows" in first
    assert "no derivative rule" not in str(info.value)


def test_local_lists_are_still_supported():
    def builds(x):
        parts = []
        parts.append(x * 2.0)
        return np.sum(parts[0])
    np.testing.assert_allclose(s2s.grad(builds)(X), 2 * np.ones(3), rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(builds)(X), builds(X), rtol=1e-12)


TABLE = {"w": 1.0}


def writes_global(x):
    TABLE["w"] = x
    return np.sum(x)


def writes_attribute(x):
    writes_attribute.last = x
    return np.sum(x)


@pytest.mark.parametrize("transform", [s2s.grad, s2s.jit])
def test_writing_into_a_global_is_named_and_an_attribute_store_is_made(transform):
    with pytest.raises(s2s.S2SError) as info:
        transform(writes_global)(X)
    msg = str(info.value)
    assert "`TABLE[...] = v` writes into `TABLE`, which lives outside the function" in msg
    assert "mine = TABLE.copy()" in msg and "Copy the array" not in msg
    assert TABLE == {"w": 1.0}
    transform(writes_attribute)(X)  # an attribute store is accepted (issue 45): the plain function's effect
    np.testing.assert_array_equal(writes_attribute.last, X)


def uses_set(x):
    seen = {1, 2}
    return np.sum(x) * len(seen)


def test_an_unsupported_expression_says_what_to_write_instead():
    with pytest.raises(s2s.S2SError) as info:
        s2s.jit(uses_set)(X)
    assert "`set`" in str(info.value) and "Use a list or a tuple" in str(info.value)
