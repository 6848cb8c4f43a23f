"""Compile once per key; a changed function, global or closure gives new code; thread-safe."""

import importlib.util
import os
import textwrap
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import s2s
from s2s.compiler import driver

SCALE = 2.0


def cached_loss(x):
    return np.sum(np.sin(x) * x)


def cached_loss_2(x, y):
    return np.sum(x * y * y)


def reads_scale(x):
    return SCALE * np.sum(x * x)


def load_module(path, name):
    """Import the .py file at `path` as a fresh module object (not put in sys.modules)."""
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def write(path, text):
    with open(path, "w") as f:
        f.write(textwrap.dedent(text))


@pytest.fixture
def count_compiles(monkeypatch):
    """Count calls of the compiler's code generator (s2s.compiler.driver.compile_fn)."""
    calls = []
    real = driver.compile_fn

    def counting(name, *args, **kwargs):
        calls.append(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(driver, "compile_fn", counting)
    return calls


# --------------------------------------------------------------------------- compile once


def test_grad_twice_shares_compiled_object():
    assert s2s.grad(cached_loss).compiled is s2s.grad(cached_loss).compiled


def test_value_and_grad_and_vjp_share_across_calls():
    assert s2s.value_and_grad(cached_loss).compiled is s2s.value_and_grad(cached_loss).compiled
    assert s2s.grad(cached_loss_2, argnums=(0, 1)).compiled is s2s.grad(cached_loss_2, argnums=(0, 1)).compiled


def test_different_specs_get_different_code():
    g0 = s2s.grad(cached_loss_2, argnums=0).compiled
    g1 = s2s.grad(cached_loss_2, argnums=1).compiled
    g01 = s2s.grad(cached_loss_2, argnums=(0, 1)).compiled
    vg = s2s.value_and_grad(cached_loss_2).compiled
    assert len({id(g0), id(g1), id(g01), id(vg)}) == 4
    x, y = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    np.testing.assert_allclose(g0(x, y), y * y)
    np.testing.assert_allclose(g1(x, y), 2 * x * y)


def test_compiles_once_for_many_grad_calls(tmp_path, count_compiles):
    path = tmp_path / "once_mod.py"
    write(path, """
        import numpy as np

        def loss(x):
            return np.sum(np.exp(x) * x)
    """)
    mod = load_module(path, "once_mod")
    x = np.array([0.1, 0.2])
    results = [s2s.grad(mod.loss)(x) for _ in range(5)]
    for r in results:
        np.testing.assert_allclose(r, np.exp(x) * (x + 1.0))
    assert count_compiles == ["grad_loss"]
    assert s2s.source(s2s.grad(mod.loss)) == s2s.source(s2s.grad(mod.loss))
    assert count_compiles == ["grad_loss"]


def test_calling_compiled_many_times_does_not_recompile(count_compiles):
    g = s2s.grad(cached_loss)
    g(np.array([1.0]))
    before = len(count_compiles)
    for i in range(10):
        np.testing.assert_allclose(g(np.array([float(i)])), np.sin(i) + i * np.cos(i))
    assert len(count_compiles) == before


# --------------------------------------------------------------------------- redefinition


def test_redefined_function_in_module_gets_new_code(tmp_path):
    path = tmp_path / "redef_mod.py"
    write(path, """
        import numpy as np

        def f(x):
            return np.sum(x * x)
    """)
    mod = load_module(path, "redef_mod")
    x = np.array([1.0, 2.0, 3.0])
    g1 = s2s.grad(mod.f)
    np.testing.assert_allclose(g1(x), 2 * x)
    src1 = s2s.source(g1)

    new_text = textwrap.dedent("""
        import numpy as np

        def f(x):
            return np.sum(x * x * x) + 1.0
    """)
    write(path, new_text)
    exec(compile(new_text, str(path), "exec"), mod.__dict__)  # noqa: S102
    g2 = s2s.grad(mod.f)
    np.testing.assert_allclose(g2(x), 3 * x * x)
    assert s2s.source(g2) != src1
    assert g2.compiled is not g1.compiled
    # the old transformed function still computes the old gradient
    np.testing.assert_allclose(g1(x), 2 * x)


def test_reloaded_module_gets_new_code(tmp_path):
    path = tmp_path / "reload_mod.py"
    write(path, """
        import numpy as np

        def f(x):
            return np.sum(np.sin(x))
    """)
    x = np.array([0.5, 1.5])
    np.testing.assert_allclose(s2s.grad(load_module(path, "reload_mod").f)(x), np.cos(x))
    write(path, """
        import numpy as np

        def f(x):
            return np.sum(np.cos(x)) * 2.0
    """)
    np.testing.assert_allclose(s2s.grad(load_module(path, "reload_mod").f)(x), -2.0 * np.sin(x))


def _make_square():
    def f(x):
        return np.sum(x * x)
    return f


def _make_cube():
    def f(x):
        return np.sum(x * x * x)
    return f


def test_two_functions_same_name_different_bodies():
    f1, f2 = _make_square(), _make_cube()
    assert f1.__name__ == f2.__name__ == "f"
    x = np.array([1.0, -2.0])
    g1, g2 = s2s.grad(f1), s2s.grad(f2)
    np.testing.assert_allclose(g1(x), 2 * x)
    np.testing.assert_allclose(g2(x), 3 * x * x)
    assert g1.compiled is not g2.compiled
    assert s2s.source(g1) != s2s.source(g2)


# --------------------------------------------------------------------------- globals and closures


def test_changed_global_constant_gives_new_result(monkeypatch):
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(s2s.grad(reads_scale)(x), 2 * SCALE * x)
    monkeypatch.setitem(globals(), "SCALE", 5.0)
    np.testing.assert_allclose(s2s.grad(reads_scale)(x), 10.0 * x)
    monkeypatch.setitem(globals(), "SCALE", 2.0)
    np.testing.assert_allclose(s2s.grad(reads_scale)(x), 4.0 * x)


def test_changed_global_in_module(tmp_path):
    path = tmp_path / "glob_mod.py"
    write(path, """
        import numpy as np

        K = 3.0
        W = np.array([1.0, 2.0])

        def f(x):
            return K * np.dot(W, x) ** 2
    """)
    mod = load_module(path, "glob_mod")
    x = np.array([0.5, -1.0])
    d = np.dot(mod.W, x)
    np.testing.assert_allclose(s2s.grad(mod.f)(x), 3.0 * 2 * d * mod.W)
    mod.K = 7.0
    np.testing.assert_allclose(s2s.grad(mod.f)(x), 7.0 * 2 * d * mod.W)
    mod.W = np.array([-3.0, 0.25])
    d = np.dot(mod.W, x)
    np.testing.assert_allclose(s2s.grad(mod.f)(x), 7.0 * 2 * d * mod.W)


def test_changed_global_read_by_helper(tmp_path):
    path = tmp_path / "helper_glob_mod.py"
    write(path, """
        import numpy as np

        C = 2.0

        def helper(z):
            return C * z * z

        def f(x):
            return np.sum(helper(x))
    """)
    mod = load_module(path, "helper_glob_mod")
    x = np.array([0.5, -1.0])
    np.testing.assert_allclose(s2s.grad(mod.f)(x), 4.0 * x)
    mod.C = 10.0
    assert mod.f(x) == pytest.approx(10.0 * np.sum(x * x))
    np.testing.assert_allclose(s2s.grad(mod.f)(x), 20.0 * x)


def test_rebound_global_helper_function(tmp_path):
    path = tmp_path / "rebind_mod.py"
    write(path, """
        import numpy as np

        def square(z):
            return z * z

        def cube(z):
            return z * z * z

        helper = square

        def f(x):
            return np.sum(helper(x))
    """)
    mod = load_module(path, "rebind_mod")
    x = np.array([0.5, -1.0])
    np.testing.assert_allclose(s2s.grad(mod.f)(x), 2 * x)
    mod.helper = mod.cube
    np.testing.assert_allclose(s2s.grad(mod.f)(x), 3 * x * x)


def _make_scaled(k):
    def loss(x):
        return np.sum(k * x * x)
    return loss


def test_closures_with_different_values():
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(s2s.grad(_make_scaled(2.0))(x), 4.0 * x)
    np.testing.assert_allclose(s2s.grad(_make_scaled(3.0))(x), 6.0 * x)
    np.testing.assert_allclose(s2s.grad(_make_scaled(np.array([1.0, -1.0])))(x), 2.0 * x * np.array([1.0, -1.0]))
    np.testing.assert_allclose(s2s.grad(_make_scaled(np.array([2.0, 0.5])))(x), 2.0 * x * np.array([2.0, 0.5]))


def test_closure_cell_changed_after_definition():
    k = 1.0

    def loss(x):
        return k * np.sum(x * x)

    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(s2s.grad(loss)(x), 2.0 * x)
    k = 4.0
    assert loss(x) == pytest.approx(4.0 * 5.0)
    np.testing.assert_allclose(s2s.grad(loss)(x), 8.0 * x)


# --------------------------------------------------------------------------- threads


def test_threads_transform_and_call_same_function(tmp_path):
    path = tmp_path / "thread_mod.py"
    write(path, """
        import numpy as np

        def layer(w, x):
            return np.tanh(np.dot(x, w))

        def loss(w, x, y):
            h = layer(w, x)
            return np.mean((h - y) ** 2) + 0.1 * np.sum(w * w)
    """)
    mod = load_module(path, "thread_mod")
    rng = np.random.default_rng(0)
    cases = [(rng.standard_normal((3, 2)), rng.standard_normal((5, 3)), rng.standard_normal((5, 2)))
             for _ in range(32)]

    def expected(w, x, y):
        h = np.tanh(x @ w)
        dh = 2.0 * (h - y) / h.size
        return x.T @ (dh * (1 - h * h)) + 0.2 * w

    start = threading.Barrier(8)

    def work(i):
        if i < 8:
            start.wait(timeout=10)
        g = s2s.grad(mod.loss)
        return i, g.compiled, g(*cases[i])

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(work, range(len(cases))))
    assert len({id(c) for _, c, _ in results}) == 1
    for i, _, got in results:
        np.testing.assert_allclose(got, expected(*cases[i]), rtol=1e-12, atol=1e-14)


def test_threads_transform_different_functions(tmp_path):
    path = tmp_path / "thread_many_mod.py"
    defs = ["import numpy as np\n"]
    for k in range(8):
        defs.append(f"def f{k}(x):\n    return np.sum(x ** {k + 2}) * {k + 1}.0\n")
    path.write_text("\n".join(defs))
    mod = load_module(path, "thread_many_mod")
    x = np.array([0.5, 1.5, -1.0])
    start = threading.Barrier(8)

    def work(k):
        start.wait(timeout=10)
        fn = getattr(mod, f"f{k}")
        v, g = s2s.value_and_grad(fn)(x)
        return k, v, g

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(work, range(8)))
    for k, v, g in results:
        p = k + 2
        assert v == pytest.approx(np.sum(x ** p) * (k + 1))
        np.testing.assert_allclose(g, (k + 1) * p * x ** (p - 1), rtol=1e-13)


def test_module_file_path_is_absolute(tmp_path):
    """Sanity check of the helper used above: functions loaded from tmp files have readable source."""
    path = tmp_path / "abs_mod.py"
    write(path, """
        def f(x):
            return x * 2.0
    """)
    mod = load_module(path, "abs_mod")
    assert os.path.isabs(mod.f.__code__.co_filename)
    assert s2s.grad(mod.f)(1.5) == 2.0
