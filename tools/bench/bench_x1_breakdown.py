"""Where X1's time goes (issue 29): the code s2s generated for jit(grad(rnn_loss)) on 2026-12-04
(before issue 30's tape changes), copied here, and variants of it, each timed in CPU time against
the hand-written BPTT in alternating turns:

    OPENBLAS_NUM_THREADS=1 python tools/bench/bench_x1_breakdown.py 100    # T = 100 (and 1000)

"helpers folded": the broadcasting and product helpers written as what they compute for these
shapes (what shape folding gives straight-line code); "+ only h, xs[t] saved": the tape keeps only
what the backward sweep reads; "+ in-place accumulation": `b_w += ...`. Every variant is checked
against the hand-written gradient first.
"""
import os
import statistics
import sys
import time

import numpy as np

sys.path[:0] = [os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                os.path.dirname(os.path.abspath(__file__))]
import bench_programs as P  # noqa: E402

import s2s  # noqa: E402
from s2s import runtime as rt  # noqa: E402

xp = np
GEN = '''
def f(params, xs, h0):
    tape = []
    ctl = []
    t2 = t3 = t4 = t5 = t6 = None
    wx, wh, b = params
    h = h0
    r0 = range(xs.shape[0])
    for t in r0:
        ctl.append(t2)
        t2 = xs[t]
        tape.append(t3)
        t3 = t2 @ wx
        tape.append(t4)
        t4 = h @ wh
        tape.append(t5)
        t5 = t3 + t4
        tape.append(t6)
        t6 = t5 + b
        tape.append(h)
        h = xp.tanh(t6)
    b_h = rt.mean_vjp(1.0, h ** 2, None, False) * 2 * h
    b_b = rt.zeros_like_tree(b)
    b_wh = rt.zeros_like_tree(wh)
    b_wx = rt.zeros_like_tree(wx)
    r1 = rt.reversed_range(r0)
    for t in r1:
        b_t6 = b_h * (1 - h * h)
        h = tape.pop()
        b_t5 = rt.unbroadcast(b_t6, t5)
        b_b = rt.tree_add(b_b, rt.unbroadcast(b_t6, b))
        t6 = tape.pop()
        b_t3 = rt.unbroadcast(b_t5, t3)
        b_t4 = rt.unbroadcast(b_t5, t4)
        t5 = tape.pop()
        b_h = rt.dot_vjp_a(b_t4, h, wh)
        b_wh = rt.tree_add(b_wh, rt.dot_vjp_b(b_t4, h, wh))
        t4 = tape.pop()
        b_wx = rt.tree_add(b_wx, rt.dot_vjp_b(b_t3, t2, wx))
        t3 = tape.pop()
        t2 = ctl.pop()
    return rt.like((b_wx, b_wh, b_b), params)
'''
# helpers folded for these shapes (what shape folding would give in the loop)
FOLDS = {"rt.unbroadcast(b_t6, t5)": "b_t6", "rt.unbroadcast(b_t5, t3)": "b_t5", "rt.unbroadcast(b_t5, t4)": "b_t5",
         "rt.unbroadcast(b_t6, b)": "xp.sum(b_t6, axis=0)", "rt.tree_add(b_b, ": "(b_b + ",
         "rt.tree_add(b_wh, ": "(b_wh + ", "rt.tree_add(b_wx, ": "(b_wx + ",
         "rt.dot_vjp_a(b_t4, h, wh)": "b_t4 @ wh.T", "rt.dot_vjp_b(b_t4, h, wh)": "h.T @ b_t4",
         "rt.dot_vjp_b(b_t3, t2, wx)": "t2.T @ b_t3"}
FOLDED = GEN
for old, new in FOLDS.items():
    FOLDED = FOLDED.replace(old, new)
# and only what the backward sweep reads saved (h, t2): the tape's saving policy (issue 30's)
LEAN = FOLDED
for n in ("t3", "t4", "t5", "t6"):
    LEAN = LEAN.replace(f"        tape.append({n})\n", "").replace(f"        {n} = tape.pop()\n", "")
INPLACE = LEAN
for n in ("b_b", "b_wh", "b_wx"):
    INPLACE = INPLACE.replace(f"{n} = ({n} + ", f"{n} += (")


def compile_(src):
    ns = {"xp": np, "rt": rt}
    exec(src, ns)
    return ns["f"]


def main(T=int(sys.argv[1]) if len(sys.argv) > 1 else 100, rounds=7):
    args = P.rnn_data(T)
    want = P.rnn_hand(*args)
    impls = {"s2s-jit": s2s.jit(s2s.grad(P.rnn_loss)), "generated (copy)": compile_(GEN),
             "helpers folded": compile_(FOLDED), "+ only h, xs[t] saved": compile_(LEAN),
             "+ in-place accumulation": compile_(INPLACE)}
    for name, fn in impls.items():
        for g, w in zip(fn(*args), want):
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-14)
    order = [("hand", P.rnn_hand)] + list(impls.items())
    times = {n: [] for n, _ in order}
    number = max(1, int(0.05 / max(1e-6, _t(P.rnn_hand, args, 1))))
    for _ in range(rounds):
        for n, fn in order:
            times[n].append(_t(fn, args, number))
    print(f"T={T}: per call, paired median ratio to hand over {rounds} turns ({number} calls per sample)")
    for n, _ in order:
        r = statistics.median(a / b for a, b in zip(times[n], times["hand"]))
        print(f"  {n:28s} {statistics.median(times[n]) * 1e6 / T:7.2f} us/step  {r:.2f}")
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")


def _t(fn, args, number):
    c = time.process_time()
    for _ in range(number):
        fn(*args)
    return (time.process_time() - c) / number


if __name__ == "__main__":
    main()
