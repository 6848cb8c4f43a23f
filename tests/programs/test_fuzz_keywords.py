"""The fuzzer's keyword calls and its campaign driver (tools/fuzz.py `--keywords`, `--campaign`;
issue 44, family 2): a call with a keyword at a non-default value drawn from the operation's
signature holds every property or is refused at the call by every transform; where NumPy raises,
every transform raises; a transform that answers with a number there, or refuses elsewhere, is
caught. The campaign's workers obey their budget and their counts merge into one summary."""
import json
import random
import types

import fuzz_tool
import numpy as np
import pytest

fuzz = fuzz_tool.load()
kw = fuzz.fuzz_keywords
PLAIN = {"n": 1, "i": 0, "b": 0, "c": 0.5, "c2": 1.0}
PROPS = ["grad_fd", "jvp_vjp", "jacfwd_jacrev", "jit", "vmap"]
# issue 44's keyword families: order="F", mode="clip" with out-of-range and negative indices,
# crossed bounds, the upper factor, a dropped singular value, axis=None, keepdims, an initial value
CASES = [("xp.ravel", "order", "'F'"), ("xp.reshape", "order", "'F'"), ("xp.take", "mode", "'clip'"),
         ("xp.take", "mode", "'wrap'"), ("xp.clip", "a_max", "crossed arrays"),
         ("xp.linalg.cholesky", "upper", None), ("xp.linalg.pinv", "rcond", "0.3"),
         ("xp.concatenate", "axis", "None"), ("xp.mean", "keepdims", None), ("xp.max", "initial", "0.9"),
         ("xp.linalg.qr", "mode", "'r'"), ("xp.gradient", "varargs", "(0.5, 2.0)"), ("xp.tril", "m", "1-D"),
         ("xp.pad", "mode", "'maximum'"), ("xp.add", "casting", "'unsafe'"), ("xp.matmul", "dtype", "complex")]


def _program(k: int, out: str = "scalar"):
    return fuzz.Program([("plain", PLAIN, [("np.sin({0})", "x"), "y"]),
                         ("kwcall", {**PLAIN, "k": k}, [("({0}) * ({1})", "x", "y"), "y"])], out)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0][3:]}-{c[1]}")
def test_a_keyword_call_holds_the_properties_or_is_refused_at_the_call(case):
    k = kw.index(*case)
    prog = _program(k, "vector" if case[1] == "order" else "scalar")
    assert kw.table()[k].call in prog.source()
    fails = fuzz.check_program(prog, 5, PROPS)
    assert fails is not None, "the program was skipped"
    assert fails == {} or kw.sound_refusal(prog, fails), fails


def test_where_numpy_raises_every_transform_raises():
    k = kw.index("xp.sum", "axis", "5")  # (an axis past the end: NumPy's AxisError)
    prog = _program(k)
    assert kw.raising(prog) and kw.table()[k].error is np.exceptions.AxisError
    assert fuzz.check_program(prog, 5, PROPS) == {}


def test_a_transform_answering_where_numpy_raises_is_caught():
    """A stand-in for s2s whose jit gives a number (as a transform that dropped the call would)."""
    import s2s

    def f(x, y):
        return np.sum(x, axis=5)
    fake = types.SimpleNamespace(**{n: getattr(s2s, n) for n in ("jacrev", "jvp", "vjp", "jacfwd", "vmap", "S2SError")},
                                 jit=lambda fn: lambda *a: 0.0)
    msg = kw.numpy_error_check(f, np.ones(3), np.ones(3), fake)
    assert msg == "jit returned a value where NumPy raises AxisError"
    assert kw.numpy_error_check(f, np.ones(3), np.ones(3), s2s) is None


def test_only_a_consistent_refusal_at_the_call_counts_as_refused():
    prog = _program(kw.index("xp.ravel", "order", "'F'"))
    lines = prog.source().splitlines()
    at_call = next(i for i, ln in enumerate(lines, 1) if ln.lstrip().startswith("kr = "))
    refusal = f"S2STypeError: fuzzprog_1_2.py:{at_call}:10 | Leave `order=` at NumPy's default (at keyword_calls.py:9)"
    elsewhere = refusal.replace(f".py:{at_call}:", f".py:{at_call - 1}:")
    everywhere = {p: refusal for p in PROPS}
    assert kw.sound_refusal(prog, everywhere)
    assert not kw.sound_refusal(prog, {**everywhere, "grad_fd": elsewhere})
    assert not kw.sound_refusal(prog, {**everywhere, "vmap": "AssertionError: x (at batching.py:3)"})
    assert not kw.sound_refusal(prog, {"jit": refusal})  # the value refused by jit, computed by grad
    assert kw.sound_refusal(prog, {"grad_fd": refusal, "jvp_vjp": refusal})  # a derivative s2s does not have


def test_the_keyword_values_come_from_the_sweeps_tables():
    """Axes past the end and negative ones, order='F', mode='clip', keepdims, crossed bounds; and
    some calls NumPy refuses."""
    cases = kw.table()
    values = {(c.param, c.value) for c in cases}
    assert {("axis", "5"), ("axis", "-1"), ("order", "'F'"), ("mode", "'clip'"), ("keepdims", "True")} <= values
    assert len(cases) >= 600 and sum(c.error is not None for c in cases) >= 50
    drawn = {cases[kw.draw(random.Random(s))].param for s in range(200)}
    assert len(drawn) >= 20


def test_without_keywords_the_generator_draws_what_it_drew():
    a = [fuzz.gen_program(random.Random(5)).source() for _ in range(3)]
    b = [fuzz.gen_program(random.Random(5), keywords=False).source() for _ in range(3)]
    assert a == b and all("kr = " not in s for s in a)
    assert "kr = " in fuzz.gen_program(random.Random(5), keywords=True).source()


def test_a_budget_stops_the_drawing_and_the_counts_say_so():
    summary = {}
    checked, skipped, failures = fuzz.campaign(5, 3, ["jit"], do_shrink=False, verbose=False, keywords=True,
                                               budget_s=0.0, summary=summary)
    assert summary["drawn"] == 0 and checked == skipped == 0 and not failures
    fuzz.campaign(2, 3, ["jit"], do_shrink=False, verbose=False, keywords=True, summary=summary)
    assert summary["drawn"] == 2 == summary["checked"] + summary["skipped"] + summary["refused"]
    assert set(summary) == {"drawn", "checked", "skipped", "refused", "numpy_error", "failures", "seconds", "cpu_seconds"}


def test_the_campaign_summary_merges_the_workers(tmp_path):
    import fuzz_campaign
    results = [{"generator": "keywords", "worker": 0, "seed": 7000, "drawn": 10, "checked": 7, "skipped": 1,
                "refused": 2, "numpy_error": 3, "failures": {"jit": 1}, "seconds": 20.0, "cpu_seconds": 16.0,
                "failing": [{"program": 4, "seed": 7000, "property": "jit", "message": "jit(f) 1.0 != f 2.0"}]},
               {"generator": "keywords", "worker": 2, "seed": 7002, "drawn": 6, "checked": 6, "skipped": 0,
                "refused": 0, "numpy_error": 0, "failures": {}, "seconds": 12.0, "cpu_seconds": 16.0, "failing": []},
               {"generator": "state", "worker": 1, "seed": 7001, "missing": True}]
    s = fuzz_campaign.merge(results, 7, 100, 500.0, 31.0)
    assert s["total"] == {"drawn": 16, "checked": 13, "skipped": 1, "refused": 2, "numpy_error": 3, "failures": 1}
    assert s["generators"]["keywords"]["programs_per_s"] == 0.5 and s["missing_workers"] == [1]
    assert s["generators"]["keywords"]["programs_per_cpu_s"] == 0.5
    assert s["failing"][0]["reproduce"] == "python tools/fuzz.py --seed 7000 --keywords --program 4"
    assert fuzz_campaign.line(s).startswith("campaign seed 7: 16 programs drawn, 13 checked")
    json.dumps(s)


def test_a_campaign_of_two_workers_writes_one_summary(tmp_path, capsys):
    """The command itself: two worker processes (no time to draw a program) and the merged JSON."""
    path = tmp_path / "summary.json"
    rc = fuzz.main(["--campaign", "2", "--n", "3", "--seed", "9", "--mix", "keywords,default", "--budget-s", "0",
                    "--json", str(path)])
    s = json.loads(path.read_text())
    assert rc == 0 and s["workers"] == 2 and not s["missing_workers"], s
    assert set(s["generators"]) == {"keywords", "default"} and s["total"]["failures"] == 0
    assert capsys.readouterr().out.startswith("campaign seed 9: ")
