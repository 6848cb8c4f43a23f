"""The trace transform (s2s/compiler/transforms/trace.py) as source: after each op the statement that
builds its node from its arguments' nodes, callees traced, the printed module runnable on its own
(`python -m s2s dump --transform trace`), compiled once per function and mask, and refusals at the
user's line."""
import numpy as np
import pytest

from s2s.api import cli
from s2s.api import entry_points as api
from s2s.api.sources import dump_source, transformed_source
from s2s.compiler import driver
from s2s.errors import S2SError


def avg(a, b):
    return (a + b) / 2


def fun(x):
    y = np.sin(x + x)
    return avg(y, y)


class N:
    """A node that compares by its function's name, argnums, parents and value."""

    def __init__(self, name, argnums, parents, value):
        self.key = (name, argnums, parents, value)

    def __eq__(self, other):
        return isinstance(other, N) and self.key == other.key

    def __repr__(self):
        return f"N{self.key}"


def make(value, f, args, kwargs, argnums, parents):
    return N(f.__name__, argnums, parents, value)


def test_each_op_is_followed_by_the_statement_that_builds_its_node():
    lines = [line.strip() for line in transformed_source(fun, "trace").splitlines()]
    at = lines.index("y = xp.sin(t0)")
    assert lines[at - 1] == "n_t0 = rt.trace_op(make_node, t0, add, (x, x), {}, (n_x, n_x))"
    assert lines[at + 1] == "n_y = rt.trace_op(make_node, y, xp.sin, (t0,), {}, (n_t0,))"
    assert "t1, n_t1 = trace_avg(make_node, y, y, n_y, n_y)" in lines  # the callee, traced
    assert "return t1, n_t1" in lines
    assert "def trace_avg(make_node, a, b, n_a, n_b):" in lines


def test_the_dumped_module_runs_on_its_own():
    ns: dict = {}
    exec(compile(dump_source(fun, "trace"), "<dump>", "exec"), ns)
    root = N("x", (), (), 0.25)
    value, node = ns["trace_fun"](make, 0.25, root)
    s = np.sin(0.5)
    assert value == s
    b = N("add", (0, 1), (root, root), 0.5)
    c = N("sin", (0,), (b,), s)
    d = N("add", (0, 1), (c, c), 2 * s)
    assert node == N("divide", (0,), (d,), s)


def test_python_m_s2s_dump_trace(tmp_path, capsys, monkeypatch):
    path = tmp_path / "trace_target_mod.py"
    path.write_text("import numpy as np\n\n\ndef f(x):\n    return np.exp(x) * x\n")
    monkeypatch.setattr("sys.path", list(__import__("sys").path))
    assert cli.main(["dump", f"{path}:f", "--transform", "trace"]) == 0
    out = capsys.readouterr().out
    assert "def trace_f(make_node, x, n_x):" in out and "rt.trace_op(make_node, t1, multiply, (t0, x)" in out
    assert cli.main(["dump", f"{path}:f", "--transform", "grad", "--transform", "trace"]) == 0
    assert "def trace_grad_f(make_node, x, n_x):" in capsys.readouterr().out
    assert cli.main(["dump", f"{path}:f", "--transform", "trace", "--transform", "grad"]) == 2
    assert "--transform trace comes last" in capsys.readouterr().err


def late(x):
    a = 1.0
    b = 1.0
    for i in range(3):
        b = a * 2.0
        a = x + 1.0
    return b


def test_a_loop_body_reads_the_nodes_its_later_statements_make():
    lines = [line.strip() for line in transformed_source(late, "trace").splitlines()]
    assert "n_b = rt.trace_op(make_node, b, multiply, (a, 2.0), {}, (n_a, None))" in lines
    assert "n_a = None" in lines and "n_b = None" in lines  # before the loop: no node yet


def test_compiled_once_per_function_and_mask():
    assert driver.trace_function(fun, (True,)) is driver.trace_function(fun, (True,))


def two(x, c):
    return x * c


def test_only_the_traced_arguments_have_nodes():
    root = N("x", (), (), 3.0)
    value, node = api.trace(two, make, (3.0, 4.0), (root, None))
    assert value == 12.0 and node == N("multiply", (0,), (root,), 12.0)
    assert "def trace_two(make_node, x, c, n_x):" in transformed_source(two, "trace", argnums=0)


def refused(x):
    return np.sin(x, out=x)


def test_what_s2s_cannot_compile_is_refused_at_the_users_line():
    with pytest.raises(S2SError, match="test_trace_transform.py"):
        api.trace(refused, make, (np.ones(2),), (N("x", (), (), 1.0),))


def looped(x):
    y = x
    for i in range(20):
        y = np.sin(y) * x
    return np.sum(y)


def test_a_gradient_with_checkpoints_is_refused():
    """Values restored from a checkpoint would start the trace anew (no parents): refused."""
    from s2s import grad
    x = np.array([0.3, 0.5])
    with pytest.raises(S2SError, match="cannot trace `rt.checkpoint_restore`.*checkpoint"):
        api.trace(grad(looped, checkpoint=64), make, (x,), (N("x", (), (), x),))
    value, node = api.trace(grad(looped), make, (x,), (N("x", (), (), x),))  # without: traced
    np.testing.assert_allclose(value, grad(looped)(x), rtol=1e-15)
    assert node.key[0] == "add"
