"""autograd.tracer's Node and trace over s2s (s2s/compiler/transforms/trace.py): the graph a trace records
(each node's function, its parents and their positions) against graphs derived by hand from the
function's code, node values against NumPy evaluating the same expressions, and every node's
value against its recorded function applied to its recorded arguments."""
import operator
import re
import warnings

import corpus
import foreign_harness as harness
import numpy as np
import pytest

import s2s
from s2s.api import entry_points as api
from s2s.compat import autograd as ag
from s2s.compat.autograd.tracer import Node, trace


class Recorder(Node):
    """Keeps every node of a trace, in the order they were made (`log`, shared through parents)."""

    def __init__(self, value, fun, args, kwargs, parent_argnums, parents):
        self.value, self.fun, self.name, self.args, self.kwargs = value, fun, fun.__name__, args, kwargs
        self.argnums, self.parents = parent_argnums, parents
        self.log = parents[0].log
        self.log.append(self)

    def initialize_root(self, x):
        self.value, self.name, self.parents, self.argnums, self.log = x, "x", (), (), []


def run(f, x):
    """(value, end node, the root followed by the nodes made, in order)."""
    root = Recorder.new_root(x)
    value, end = trace(root, f, x)
    return value, end, [root] + root.log


def graph(nodes) -> list:
    """Each node made as (its function's name, parent_argnums, the positions of its parents in
    `nodes`: 0 is the root)."""
    index = {id(n): i for i, n in enumerate(nodes)}
    return [(n.name, tuple(n.argnums), [index[id(p)] for p in n.parents]) for n in nodes[1:]]


def check_values(nodes):
    """Every node's value is its function applied to its arguments (NumPy recomputing it)."""
    for n in nodes[1:]:
        if n.fun is not operator.setitem:
            _assert_same(n.fun(*n.args, **n.kwargs), n.value, n.name)


def _assert_same(got, want, what):
    if isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want), what
        for g, w in zip(got, want):
            _assert_same(g, w, what)
        return
    assert np.shape(got) == np.shape(want), what
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300, err_msg=what)


# ---- straight-line code: constants, several parents ----

def with_constants(x):
    return np.sin(x) * 2.0 + 1.0


def test_constants_are_arguments_not_parents():
    value, end, nodes = run(with_constants, 0.7)
    assert graph(nodes) == [("sin", (0,), [0]), ("multiply", (0,), [1]), ("add", (0,), [2])]
    assert nodes[2].args == (np.sin(0.7), 2.0) and nodes[3].args[1] == 1.0
    assert end is nodes[-1] and value == end.value == np.sin(0.7) * 2.0 + 1.0
    check_values(nodes)


def several_parents(x):
    return x * np.exp(x) - x


def test_an_op_of_two_traced_values_has_both_as_parents():
    value, end, nodes = run(several_parents, 0.3)
    assert graph(nodes) == [("exp", (0,), [0]), ("multiply", (0, 1), [0, 1]), ("subtract", (0, 1), [2, 0])]
    assert value == 0.3 * np.exp(0.3) - 0.3
    check_values(nodes)


# ---- control flow ----

def branch(x):
    if x > 0:
        y = x * x
    else:
        y = -x * 3.0
    return y + 1.0


@pytest.mark.parametrize("x, want", [
    (2.0, [("greater", (0,), [0]), ("multiply", (0, 1), [0, 0]), ("add", (0,), [2])]),
    (-2.0, [("greater", (0,), [0]), ("negative", (0,), [0]), ("multiply", (0,), [2]), ("add", (0,), [3])]),
])
def test_a_branch_traces_the_path_taken(x, want):
    value, end, nodes = run(branch, x)
    assert graph(nodes) == want  # (a comparison is a NumPy function too: autograd records it)
    assert value == branch(x) and end is nodes[-1]
    check_values(nodes)


def late(x):
    a = 1.0
    b = 1.0
    for i in range(3):
        b = a * 2.0  # a depends on x from the second iteration on
        a = x + 1.0
    return b


def test_a_loop_carries_a_node_made_by_a_later_statement_of_its_body():
    value, end, nodes = run(late, 0.5)
    assert graph(nodes) == [("add", (0,), [0]), ("multiply", (0,), [1]), ("add", (0,), [0]),
                            ("multiply", (0,), [3]), ("add", (0,), [0])]
    assert end is nodes[4] and value == 3.0
    check_values(nodes)


def doubling(x):
    y = x
    while y < 10.0:
        y = y * 2.0
        if y > 5.0:
            break
    return y


def test_a_while_loop_with_a_break():
    value, end, nodes = run(doubling, 1.5)
    assert graph(nodes) == [("less", (0,), [0]), ("multiply", (0,), [0]), ("greater", (0,), [2]),
                            ("less", (0,), [2]), ("multiply", (0,), [2]), ("greater", (0,), [5])]
    assert end is nodes[5] and value == 6.0
    check_values(nodes)


# ---- callees, primitives of the user's, containers, arrays ----

def avg(a, b):
    return (a + b) / 2


def scale(v, c):
    return v * c


def calls_helpers(x):
    return avg(np.sin(x), scale(3.0, 2.0))


def test_callees_are_traced_and_a_call_on_constants_makes_no_node():
    value, end, nodes = run(calls_helpers, 0.4)
    assert graph(nodes) == [("sin", (0,), [0]), ("add", (0,), [1]), ("divide", (0,), [2])]
    assert nodes[2].args == (np.sin(0.4), 6.0) and nodes[3].args == (np.sin(0.4) + 6.0, 2)
    assert value == (np.sin(0.4) + 6.0) / 2
    check_values(nodes)


@s2s.custom_vjp
def cube(x):
    return x ** 3


cube.defvjp(lambda x: (x ** 3, x), lambda x, g: (3 * x ** 2 * g,))


def uses_cube(x):
    return np.sin(cube(x))


def test_a_function_with_its_own_rules_is_one_node_as_an_autograd_primitive():
    value, end, nodes = run(uses_cube, 0.5)
    assert graph(nodes) == [("cube", (0,), [0]), ("sin", (0,), [1])]
    assert value == np.sin(0.125)


def lists(x):
    items = []
    for i in range(3):
        items.append(x * i)
    last = items.pop()
    pair = (last, 2.0)
    a, b = pair
    d = {"u": a, "v": items[1]}
    return d["u"] * b + d["v"]


def test_lists_tuples_and_dicts_carry_their_items_nodes():
    value, end, nodes = run(lists, 1.5)
    assert graph(nodes) == [("multiply", (0,), [0]), ("multiply", (0,), [0]), ("multiply", (0,), [0]),
                            ("multiply", (0,), [3]), ("add", (0, 1), [4, 2])]
    assert [n.args[1] for n in nodes[1:4]] == [0, 1, 2]
    assert value == 1.5 * 2 * 2.0 + 1.5
    check_values(nodes)


def dict_keys_unpacked(x):
    d = {"a": x, "b": 2.0}
    k1, k2 = d  # the keys, which have no node
    return d[k1] * 3.0


def slice_assigned(x):
    items = [1.0, 2.0, 3.0]
    items[0:2] = [x, x * 2.0]
    return items[1] + items[2]


def popped_from_list_of_x(x):
    items = list(x)
    last = items.pop()
    items.append(last * 2.0)
    return items[0] + items[-1]


@pytest.mark.parametrize("f, x", [(dict_keys_unpacked, 1.5), (slice_assigned, 1.5),
                                  (popped_from_list_of_x, np.array([1.0, 2.0, 3.0]))])
def test_container_updates_keep_the_dependence_on_x(f, x):
    value, end, nodes = run(f, x)
    assert value == f(x) and end is nodes[-1]
    check_values([n for n in nodes if n.name != "setitem"])
    reached, todo = set(), [end]
    while todo:
        n = todo.pop()
        reached.add(id(n))
        todo += [p for p in n.parents if id(p) not in reached]
    assert id(nodes[0]) in reached


def indexing(x):
    return np.sum(x[0] * x[1:])


def test_array_indexing_is_a_getitem_node():
    x = np.array([2.0, 3.0, 5.0])
    value, end, nodes = run(indexing, x)
    assert graph(nodes) == [("__getitem__", (0,), [0]), ("__getitem__", (0,), [0]), ("multiply", (0, 1), [1, 2]),
                            ("sum", (0,), [3])]
    assert nodes[1].args[1] == 0 and nodes[2].args[1] == slice(1, None, None)
    assert value == 16.0
    check_values(nodes)


def weighted(w):
    return np.average(np.array([1.0, 2.0, 3.0]), weights=w)


def test_a_traced_keyword_argument_is_a_parent_at_its_name():
    w = np.array([1.0, 1.0, 2.0])
    value, end, nodes = run(weighted, w)
    assert graph(nodes) == [("average", ("weights",), [0])]
    assert np.array_equal(nodes[1].kwargs["weights"], w) and value == (1.0 + 2.0 + 6.0) / 4
    check_values(nodes)


# ---- nested traces: the derivative's own ops ----

def fun(x):  # print_trace.py's
    y = np.sin(x + x)
    return avg(y, y)


def test_a_trace_of_grad_records_the_derivative_ops_that_depend_on_x():
    x = 1.0
    value, end, nodes = run(ag.grad(fun), x)
    # the forward sweep, then the backward sweep's ops on values that depend on x: autograd's
    # print_trace output (tests/programs/foreign/reference/autograd.json) has the same ops
    assert graph(nodes) == [("add", (0, 1), [0, 0]), ("sin", (0,), [1]), ("add", (0, 1), [2, 2]),
                            ("divide", (0,), [3]), ("cos", (0,), [1]), ("multiply", (1,), [5]),
                            ("add", (0, 1), [6, 6])]
    want = [2 * x, np.sin(2 * x), 2 * np.sin(2 * x), np.sin(2 * x), np.cos(2 * x), np.cos(2 * x), 2 * np.cos(2 * x)]
    np.testing.assert_allclose([n.value for n in nodes[1:]], want, rtol=1e-15)
    assert nodes[6].args[0] == 1.0  # the seed, which does not depend on x
    assert end is nodes[-1] and value == 2 * np.cos(2 * x)
    check_values(nodes)


def test_a_trace_of_a_second_derivative():
    value, end, nodes = run(ag.grad(ag.grad(fun)), 0.3)
    np.testing.assert_allclose(value, -4 * np.sin(0.6), rtol=1e-14)
    assert end.value == value and end in nodes
    check_values(nodes)


# ---- an output that does not depend on x ----

def constant(x):
    return 3.0 * 2.0


def shape_only(x):
    return np.ones(np.shape(x)).sum()


@pytest.mark.parametrize("f, want", [(constant, 6.0), (shape_only, 3.0)])
def test_an_output_independent_of_x_has_no_node_and_warns(f, want):
    root = Recorder.new_root(np.zeros(3))
    with pytest.warns(UserWarning, match="Output seems independent of input"):
        value, end = trace(root, f, np.zeros(3))
    assert value == want and end is None and root.log == []


def test_a_derivative_independent_of_x_has_no_node():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value, end, nodes = run(ag.grad(lambda x: 3.0 * x), 2.0)
    assert value == 3.0 and end is None and [str(w.message) for w in caught] == ["Output seems independent of input."]


def test_new_root_calls_initialize_root_without_init():
    root = Recorder.new_root(1.5)
    assert root.value == 1.5 and root.log == [] and type(root) is Recorder


# ---- autograd's two tracer examples, against the recorded runs ----

def test_print_trace_prints_autogradss_lines():
    """Every line is autograd's but one: autograd's gradient sum is `vs.add(a, b)`, whose first
    argument is the vector space; s2s's is `+` (docs/porting-from-autograd.md)."""
    want = harness.reference("autograd")["print_trace"]["stdout"]
    got = harness.run("autograd", "print_trace", "s2s")
    assert got.splitlines() == [re.sub(r"add\(ArrayVSpace_\{[^}]*\},", "add(", line) for line in want.splitlines()]
    assert "add(ArrayVSpace_" in want


def _canonical(dot: str) -> str:
    """A DOT graph with its node ids (`node_<id(...)>`, which differ run to run) numbered in order."""
    ids: dict[str, str] = {}
    return re.sub(r"node_\d+", lambda m: ids.setdefault(m.group(), f"n{len(ids)}"), dot)


def test_dot_graph_prints_autogradss_graph():
    want = harness.reference("autograd")["dot_graph"]["stdout"]
    got = harness.run("autograd", "dot_graph", "s2s")
    assert _canonical(got) == _canonical(want)


# ---- every function of the control-flow corpus, and its gradient ----

@pytest.mark.parametrize("fn, make_args", corpus.CORPUS, ids=[fn.__name__ for fn, _ in corpus.CORPUS])
def test_corpus_traces_agree_with_numpy(fn, make_args):
    """Loops, branches, early returns, in-place updates, lists, callees, recursion: the traced run
    returns the function's value, and each node's value is NumPy's for its function and arguments
    (arguments as they were at the op, though the code updates arrays and lists in place later);
    a gradient traced to no node is the same at a nearby point."""
    rng = np.random.default_rng(0)
    args = make_args(rng)
    for f in (fn, s2s.grad(fn)):
        roots = [Recorder.new_root(a) for a in args]
        for r in roots:
            r.log = roots[0].log
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (a gradient that does not depend on x: checked below)
            value, end = api.trace(f, Recorder, args, roots)
        _assert_same(value, f(*args) if f is not fn else fn(*args), fn.__name__)
        nodes = roots[:1] + roots[0].log
        check_values(nodes)
        if end is not None and not isinstance(end, (tuple, list, dict)):
            _assert_same(end.value, value, fn.__name__)
        elif f is fn:
            raise AssertionError(f"{fn.__name__}'s output has no node")
        else:
            near = tuple(a + 1e-3 * rng.uniform(0.5, 1.0, np.shape(a)) for a in args)
            _assert_same(f(*near), value, f"{fn.__name__}: a gradient with no node that changes with x")


def test_corpus_graphs_are_autogradss_where_autograd_is_installed(monkeypatch):
    """A live comparison (autograd is not needed otherwise): autograd's own tracer on the corpus
    functions of one argument that it runs (it refuses in-place updates), node for node: each
    node's function name, parent_argnums and parents. autograd builds `np.array(list)` from one
    node per item; s2s's is one node: graphs are compared up to there."""
    real = pytest.importorskip("autograd.tracer")
    if not hasattr(real, "new_box"):  # s2s's module under autograd's name (an alias left in place)
        pytest.skip("autograd's own tracer is not the one imported")
    anp = pytest.importorskip("autograd.numpy")
    compared = 0
    for fn, make_args in corpus.CORPUS:
        args = make_args(np.random.default_rng(0))
        if len(args) != 1:
            continue
        monkeypatch.setattr(corpus, "np", anp)  # the corpus's `np` is autograd's for its run
        ours = type("Ours", (Recorder, real.Node), {})
        root = ours.new_root(args[0])
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                real.trace(root, fn, args[0])
        except Exception:  # noqa: BLE001 - what autograd cannot run (in-place updates) is not compared
            continue
        finally:
            monkeypatch.setattr(corpus, "np", np)
        theirs = graph([root] + root.log)
        value, end, nodes = run(fn, args[0])
        cut = next((i for i, g in enumerate(theirs) if g[0] == "_array_from_scalar_or_array"), len(theirs))
        assert graph(nodes)[:cut] == theirs[:cut], fn.__name__
        assert cut < len(theirs) or len(nodes) - 1 == len(theirs), fn.__name__
        compared += 1
    assert compared >= 40


def test_getval_and_isbox_see_no_box():
    from s2s.compat.autograd.tracer import getval, isbox
    x = np.ones(2)
    assert getval(x) is x and getval(1.5) == 1.5 and not isbox(x)


def test_a_jacobian_of_a_numpy_function_is_traced():
    """(A ufunc's signature names `out=None`, which its generated Jacobian does not take.)"""
    x = np.array([0.3, -0.5])
    value, end, nodes = run(ag.jacobian(np.tanh), x)
    np.testing.assert_allclose(value, np.diag(1 - np.tanh(x) ** 2), rtol=1e-14)
    assert end is nodes[-1] and nodes[1].name == "tanh"
    check_values(nodes)
