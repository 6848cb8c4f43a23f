"""The analyses of core form (s2s.compiler.analysis), on small hand-written core-form bodies with
expected results worked out by hand."""

import textwrap

import gast

from s2s.compiler import analysis


def body_of(code: str) -> list:
    return gast.parse(textwrap.dedent(code)).body


def find(body, text_start: str):
    """The statement (searched through blocks) whose target or test starts the line `text_start`."""
    for s in analysis.walk_stmts(body):
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and s.targets[0].id == text_start:
            return s
        if isinstance(s, gast.Return) and text_start == "return":
            return s
    raise KeyError(text_start)


# ---- activity

def test_activity_follows_differentiable_operands_only():
    body = body_of("""
        a = x * y
        n = len(x)
        s = xp.floor(a)
        b = a + 1.0
        c = y * 2.0
    """)
    assert analysis.activity(body, ["x"]) == {"x", "a", "b"}  # floor has no derivative; len is an integer
    assert analysis.activity(body, ["y"]) == {"y", "a", "b", "c"}


def test_activity_flows_through_loops_to_a_fixpoint_and_into_containers():
    body = body_of("""
        acc = 0.0
        for i in range(3):
            t = acc * x
            acc = t
        L = []
        L.append(acc)
        z = zeros
        z[0] = acc
        p, q = pair
    """)
    active = analysis.activity(body, ["x"])
    assert {"t", "acc", "L", "z"} <= active
    assert not {"i", "p", "q"} & active


def test_activity_reaches_a_value_assigned_before_it_in_a_later_iteration():
    body = body_of("""
        u = 0.0
        v = 0.0
        while c:
            u = v * 1.0
            v = x + 0.0
    """)
    assert {"u", "v"} <= analysis.activity(body, ["x"])


# ---- liveness

def test_liveness_after_each_statement_of_straight_line_code():
    body = body_of("""
        a = x + 1.0
        b = a * a
        c = x * 2.0
        return b
    """)
    live = analysis.Liveness(body)
    assert live.after[find(body, "a")] == {"a", "x"}   # x is read again by c
    assert live.after[find(body, "b")] == {"b", "x"}
    assert live.after[find(body, "c")] == {"b"}        # c is dead
    assert live.before[find(body, "a")] == {"x"}


def test_liveness_in_a_loop_carries_the_body_s_reads_back_to_its_head():
    body = body_of("""
        s = 0.0
        for i in range(n):
            t = s + w
            s = t
        return s
    """)
    live = analysis.Liveness(body)
    assert live.after[find(body, "t")] == {"t", "w"}
    assert live.after[body[1].body[1]] == {"s", "w"}   # the next iteration reads s and w
    assert live.after[body[0]] == {"s", "w", "n", "range"}
    assert live.before[body[1]] == {"s", "w", "n", "range"}


def test_liveness_of_a_while_test_variable_at_the_end_of_the_body():
    body = body_of("""
        while go:
            k = k + 1
            go = k < 3
        return k
    """)
    live = analysis.Liveness(body)
    assert live.after[find(body, "go")] == {"go", "k"}


def test_liveness_keys_are_the_statements_themselves():
    body = body_of("""
        a = x
        return a
    """)
    live = analysis.Liveness(body)
    assert set(live.after) == set(body) and all(isinstance(k, gast.stmt) for k in live.after)


# ---- definite assignment

def test_definitely_assigned_joins_branches_by_intersection():
    body = body_of("""
        if c:
            a = 1.0
            b = 2.0
        else:
            a = 3.0
        r = a
        return r
    """)
    before = analysis.definitely_assigned(body, ["c"])
    assert before[find(body, "r")] == {"c", "a"}    # b only on one path
    assert before[find(body, "b")] == {"c", "a"}


def test_a_loop_body_assigns_nothing_definitely_after_the_loop():
    body = body_of("""
        for i in range(n):
            y = i * 2.0
        z = 1.0
        return z
    """)
    before = analysis.definitely_assigned(body, ["n"])
    assert before[find(body, "y")] == {"n", "i"}
    assert before[find(body, "z")] == {"n"}         # the loop may run zero times


def test_first_assignment_nested():
    body = body_of("""
        a = 1.0
        if c:
            b = 2.0
        for i in range(3):
            a = a + 1.0
        return a
    """)
    assert analysis.first_assignment_nested(body) == {"a": False, "b": True, "i": True}
