"""Reverse mode computes a value that carries no derivative and that only the output's value reads
when it may raise (issue 44): `grad` does not return the output, so its forward sweep used to drop
`y = n / (n - 3)` and return a number where the plain function raises. The rule keeps only
statements that may raise and nothing reads: ordinary gradients' code gets no reader."""
import numpy as np
import pytest

import s2s
from tests.support.helpers_compare import fd_grad

X = np.array([0.3, 0.7, 1.1])


def shape_ratio(x):
    n = x.shape[0]
    y = n / (n - 3)
    return np.sum(np.sin(y)) + np.sum(x ** 2)


def shape_ratio_ok(x):
    n = x.shape[0]
    y = n / (n - 2)
    return np.sum(np.sin(y)) + np.sum(x ** 2)


def mlp(w, x):
    h = np.tanh(x @ w)
    n = x.shape[0]
    return np.sum(h ** 2) / n + 0.1 * np.sum(w * w)


@pytest.mark.parametrize("transform", [
    lambda f: s2s.grad(f)(X), lambda f: s2s.value_and_grad(f)(X), lambda f: s2s.hessian(f)(X),
    lambda f: s2s.jacrev(f)(X), lambda f: s2s.jit(s2s.grad(f))(X), lambda f: s2s.vjp(f, X)[1](1.0),
    lambda f: s2s.vmap(s2s.grad(f))(np.stack([X, X])),
], ids=["grad", "value_and_grad", "hessian", "jacrev", "jit_grad", "vjp", "vmap_grad"])
def test_every_reverse_transform_raises_the_plain_error(transform):
    with pytest.raises(ZeroDivisionError):
        shape_ratio(X)
    with pytest.raises(ZeroDivisionError):
        transform(shape_ratio)


def test_the_kept_chain_changes_no_value():
    np.testing.assert_allclose(s2s.grad(shape_ratio_ok)(X), fd_grad(shape_ratio_ok, X), rtol=1e-7)
    v, g = s2s.value_and_grad(shape_ratio_ok)(X)
    assert v == pytest.approx(shape_ratio_ok(X), rel=1e-14)
    np.testing.assert_allclose(g, 2 * X, rtol=1e-14)


def test_an_ordinary_gradient_gets_no_reader():
    """Every value of mlp's forward sweep is read by the backward sweep: nothing is added."""
    w = np.array([[0.2, -0.4], [0.5, 0.1], [-0.3, 0.7]])
    x = np.array([[0.3, 0.7, 1.1], [0.5, -0.2, 0.4]])
    assert "s2s_keep" not in s2s.source(s2s.grad(mlp))
    np.testing.assert_allclose(s2s.grad(mlp)(w, x), fd_grad(lambda v: mlp(v, x), w), rtol=1e-6)


def test_only_the_chain_that_may_raise_is_computed():
    """grad of shape_ratio_ok computes the inactive chain the output's value reads (it may raise)
    and keeps one reader at its end."""
    src = s2s.source(s2s.grad(shape_ratio_ok))
    assert src.count("s2s_keep") == 1


def test_the_dead_chain_search_stops_when_nothing_more_can_die(monkeypatch):
    """analysis.raising.unread_raising drops dead statements round after round; it stops once the
    statements a round dropped read only names no remaining statement assigns (here the
    parameter `x`), without the liveness of one more round that would find nothing, and finds the
    same readers as when it runs that round."""
    import gast

    from s2s.compiler.analysis import raising

    code = ("n = x.shape[0]\nm = n - 3\nr = n / m\na = x * 2.0\nb = a + r\nc = b * 3.0\n"
            "d = x + 1.0\nout = d * 2.0\n")
    rounds = []

    class Counting(raising.Faint):
        def __init__(self, *args, **kwargs):
            rounds.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(raising, "Faint", Counting)

    def search():
        body = gast.parse(code).body
        del rounds[:]
        keep = raising.unread_raising(body, set(body[:3]), live_at_end=frozenset({"out"}))
        return sorted(s.targets[0].id for s in keep), len(rounds)

    early, early_rounds = search()
    monkeypatch.setattr(raising, "_may_die", lambda *args: True)
    full, full_rounds = search()
    assert early == full == ["r"]  # `r = n / m` may raise and only the dropped `b` read it
    assert (early_rounds, full_rounds) == (3, 4)


def _search(monkeypatch, code, candidates, live_at_end, full=False, every_round=False):
    """(targets kept, liveness rounds) of unread_raising on `code`; `full`: without the early stop
    after a round; `every_round`: nor the one before the first round."""
    import gast

    from s2s.compiler.analysis import raising
    rounds = []

    class Counting(raising.Faint):
        def __init__(self, *args, **kwargs):
            rounds.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(raising, "Faint", Counting)
    if full:
        monkeypatch.setattr(raising, "_may_die", lambda *args: True)
    if every_round:
        monkeypatch.setattr(raising, "_all_read", lambda *args: False)
    body = gast.parse(code).body
    mine = {s for s in raising.walk_stmts(body) if raising.simple(s) and s.targets[0].id in candidates}
    keep = raising.unread_raising(body, mine, live_at_end=frozenset(live_at_end))
    monkeypatch.undo()
    return sorted(s.targets[0].id for s in keep), len(rounds)


@pytest.mark.parametrize("code, kept, rounds", [
    # the dropped `u` reads `t`, which `out` reads later: no assignment loses its last reader
    ("n = x.shape[0]\nm = n - 3\nr = n / m\nt = x * 2.0\nu = t + 1.0\nout = t * 3.0\n", ["r"], 1),
    # under an `if`, the same
    ("n = x.shape[0]\nr = n / (n - 3)\nt = x * 2.0\nif c:\n    u = t + 1.0\nout = t * 3.0\n", ["r"], 1),
    # `t` is read only by the dropped `u`: its assignment may die next round (and does)
    ("n = x.shape[0]\nm = n - 3\nr = n / m\nt = x * 2.0\nu = t + 1.0\nout = x * 3.0\n", ["r"], 2),
    # in a loop, a later read may lead back to the dropped one: the next round runs
    ("n = x.shape[0]\nr = n / (n - 3)\nt = x * 2.0\nfor i in k:\n    u = t + 1.0\n    v = t\nout = t * 3.0\n",
     ["r"], 2),
    # the dropped statement reads what it assigns: the next round runs
    ("n = x.shape[0]\nr = n / (n - 3)\nt = x * 2.0\nt = t + 1.0\nout = x * 3.0\n", ["r"], 2),
])
def test_a_round_stops_when_what_the_dropped_statements_read_stays_read(monkeypatch, code, kept, rounds):
    """unread_raising stops after a round whose dropped statements (outside loops) read only names
    still live after them: the round after would find nothing. It finds what the search run to
    the end finds, and stops earlier where the argument holds (`rounds`)."""
    early = _search(monkeypatch, code, {"r"}, {"out"})
    full = _search(monkeypatch, code, {"r"}, {"out"}, full=True)
    assert early[0] == full[0] == kept
    assert early[1] == rounds
    assert full[1] >= early[1]


@pytest.mark.parametrize("code, candidates, rounds", [
    # each value that may raise is read later by a test, directly or through another such value
    ("n = x.shape[0]\nr = n / (n - 3)\nc = r > 1.0\nif c:\n    t = x * 2.0\nout = x * 3.0\n", {"r", "c"}, 0),
    ("n = x.shape[0]\nif b:\n    r = n / (n - 3)\nt = x * 2.0\nif r:\n    t = x\nout = x * 3.0\n", set(), 0),
    ("n = x.shape[0]\nif b:\n    r = n / (n - 3)\nt = x * 2.0\nout = x * 3.0\nx.append(r)\n", {"r"}, 0),
    # `r` assigned twice: the liveness analysis decides
    ("n = x.shape[0]\nr = n / (n - 3)\nif b:\n    r = n / 2\nc = r > 1.0\nif c:\n    t = x\nout = x\n", {"r", "c"}, 1),
    # read only by a statement that is no candidate (it could be dropped): the analysis decides
    ("n = x.shape[0]\nr = n / (n - 3)\nu = r + 1.0\nif u:\n    t = x\nout = x\n", {"r"}, 1),
    # read only by a statement that a round drops: kept, after two rounds
    ("n = x.shape[0]\nr = n / (n - 3)\nif b:\n    u = r + 1.0\nout = x\n", {"r"}, 2),
])
def test_no_liveness_analysis_when_every_value_that_may_raise_is_read(monkeypatch, code, candidates, rounds):
    """unread_raising keeps nothing, and analyses nothing, when each candidate that may raise is
    assigned once and read after it by a top-level statement no round drops (`_all_read`); the
    search run to the end finds the same readers."""
    candidates = candidates or {"r"}
    early = _search(monkeypatch, code, candidates, {"out"})
    full = _search(monkeypatch, code, candidates, {"out"}, full=True, every_round=True)
    assert early[0] == full[0] == (["r"] if rounds == 2 else [])
    assert early[1] == rounds
