"""The liveness and definite-assignment tables (shared views instead of a set per statement)
agree with the textbook set-per-statement dataflow, written out here as the reference, on
every statement of straight-line, branching and looping bodies (break/continue included)."""
import textwrap

import gast
import pytest

from s2s.compiler import analysis


def reference_liveness(body):
    after, before = {}, {}

    def block(stmts, live, loop):
        for s in reversed(stmts):
            after[s] = set(live)
            live = stmt(s, live, loop)
            before[s] = set(live)
        return live

    def stmt(s, live, loop):
        if isinstance(s, gast.If):
            return set(analysis.loads(s.test)) | block(s.body, live, loop) | block(s.orelse, live, loop)
        if isinstance(s, (gast.For, gast.While)):
            head = set(live) | (set(analysis.loads(s.test)) if isinstance(s, gast.While) else set())
            while True:
                new = head | block(s.body, head | set(live), (set(live), head)) | set(live)
                if new == head:
                    break
                head = new
            return head | set(analysis.loads(s.iter if isinstance(s, gast.For) else s.test))
        if isinstance(s, gast.Break):
            return set(loop[0]) if loop else set(live)
        if isinstance(s, gast.Continue):
            return set(loop[1]) if loop else set(live)
        if isinstance(s, gast.Assign) and not isinstance(s.targets[0], gast.Subscript):
            return (set(live) - set(analysis.targets(s))) | set(analysis.loads(s.value))
        return set(live) | set(analysis.loads(s))
    block(body, set(), None)
    return after, before


def reference_assigned(body, params):
    before = {}

    def block(stmts, assigned):
        for s in stmts:
            before[s] = set(assigned)
            if isinstance(s, gast.If):
                assigned = assigned | (block(s.body, set(assigned)) & block(s.orelse, set(assigned)))
            elif isinstance(s, (gast.For, gast.While)):
                block(s.body, assigned | ({s.target.id} if isinstance(s, gast.For) else set()))
            else:
                assigned = assigned | set(analysis.targets(s))
        return assigned
    block(body, set(params))
    return before


BODIES = [
    """
    a = x * 2.0
    b = a + y
    a = b * a
    xs[0] = a
    c = xs[1]
    return c + b
    """,
    """
    a = x * 2.0
    if a > 0.0:
        b = a + 1.0
        c = b
    else:
        c = a - 1.0
    d = c * b
    return d
    """,
    """
    s = 0.0
    for i in range(n):
        t = s + x
        if t > 3.0:
            u = t
            break
        if t < -1.0:
            continue
        s = t * 0.5
    while s > 1.0:
        s = s - y
        w = s
    return s + u + w
    """,
]


@pytest.mark.parametrize("code", BODIES)
def test_tables_match_the_set_per_statement_dataflow(code):
    body = gast.parse(textwrap.dedent(code)).body
    after, before = reference_liveness(body)
    live = analysis.Liveness(body)
    assigned_ref = reference_assigned(body, ["x", "y", "n", "xs"])
    assigned = analysis.definitely_assigned(body, ["x", "y", "n", "xs"])
    names = {n.id for s in body for n in gast.walk(s) if isinstance(n, gast.Name)} | {"unused"}
    assert set(live.after) == set(after) and set(assigned) == set(assigned_ref)
    for s in after:
        assert set(live.after[s]) == after[s] and set(live.before[s]) == before[s]
        assert set(assigned[s]) == assigned_ref[s]
        for v in names:
            assert (v in live.after[s]) == (v in after[s]) and (v in live.before[s]) == (v in before[s])
            assert (v in assigned[s]) == (v in assigned_ref[s])
    only_ifs = analysis.definitely_assigned(body, ["x", "y", "n", "xs"], at=gast.If)
    assert set(only_ifs) == {s for s in analysis.walk_stmts(body) if isinstance(s, gast.If)}


def test_views_behave_as_sets():
    body = gast.parse("a = x + 1\nb = a * 2\nreturn b + a").body
    view = analysis.Liveness(body).after[body[1]]
    assert view == {"a", "b"} and len(view) == 2 and sorted(view) == ["a", "b"]
    assert view | {"q"} == {"a", "b", "q"} and {"a", "z"} & view == {"a"} and {"a", "z"} - view == {"z"}
    assert view.union({"k"}) == {"a", "b", "k"} and view.issubset({"a", "b", "c"})
