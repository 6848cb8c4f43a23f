"""Differential fuzzer: random NumPy programs, every s2s transform checked against an independent
reference or against another transform.

    python tools/fuzz.py --n 10000 --seed 0

A seeded generator draws programs from the supported language (for and while loops with
break/else, if/elif branches, early returns, in-place updates of rows, slices and fancy indices,
`+=`, lists with append and np.stack, lists and tuples concatenated and repeated by a count held
in a variable, helper functions with loops, closures, recursion, custom_jvp/custom_vjp functions,
a module global; functions decorated or wrapped with `functools.wraps`, module and function
aliases, tuple/list/dict values passed to helpers, tuple assignments under a branch, np.pad with a
constant computed from the input, and user names equal to the names generated code uses) and,
with `--nested`, transforms called inside the program (issue 27's families 1, 5, 9: vmap of
lambdas and defs closing over locals, nested vmaps over rows of different counts, vmap of a def
with defaults, grad/jvp/vjp of closures, vmap of functools.partial with bound locals,
s2s.random draws, a lambda whose default is a local function), with `--state`, values read from
mutable state that a property changes between calls, and with `--views`, casts to int and bool,
updates in place (`a op= v` of int, float32 and float64 arrays, which NumPy refuses for some) and
NumPy views (a program s2s refuses for an in-place update a view would see counts as refused,
not failed: the refusal is sound and the same in every transform), writes each to a module file (s2s reads
source) and checks the properties in PROPERTIES. A failing program is shrunk (blocks dropped,
expressions replaced by their parts, loop counts lowered) while the same property still fails, and
printed as a reproduction.

Programs are kept where they are smooth: a draw whose finite differences at two step sizes
disagree (a branch, a trip count or a kink flips nearby), or whose NumPy evaluation computes a nan
or an inf (a floating-point error, raised), gets new inputs, then is skipped.
"""
from __future__ import annotations

import argparse
import ast
import atexit
import importlib.util
import itertools
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
import traceback
from collections import Counter

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import s2s  # noqa: E402
from s2s.base.tree import tree_flatten, tree_map  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz_keywords  # noqa: E402

N = 3  # length of the vector arguments x and y

# ---------------------------------------------------------------- expressions
# An expression is a leaf (a string) or a tuple (format, child, ...); children fill {0}, {1}.

LEAVES = ["x", "y", "acc", "x[0]", "np.sum(y)", "1.5", "G", "y[::-1]", "x[[2, 0, 1]]"]
UNARY = ["np.sin({0})", "np.cos({0})", "np.tanh({0})", "({0}) ** 2", "np.exp(0.3 * np.tanh({0}))",
         "-({0})", "np.sqrt(1.0 + ({0}) ** 2)", "np.log(1.5 + np.sin({0}))", "np.arctan({0})",
         "1.0 / (1.0 + ({0}) ** 2)", "np.cumsum({0}) * 0.5", "np.flip({0})", "np.roll({0}, 1)",
         "np.mean({0})", "np.prod(1.0 + 0.1 * ({0}))", "np.linalg.norm({0}) + 0.1",
         "np.std({0}) * ({0})", "np.mod({0}, 2.0)", "(({0}) + 3.0) % 1.7", "np.abs({0}) + 0.1",
         "np.maximum({0}, 0.2)", "np.sum(np.outer({0}, x), axis=0)", "np.dot({0}, x)",
         "np.concatenate(({0} + 0.0 * x, x))[1:4]", "np.stack(({0} + 0.0 * y, y))[1]", "np.full(3, np.sum({0}))",
         "np.linspace(0.0, np.mean({0}), 3)", "np.clip({0}, -0.8, 0.8)", "np.square({0})",
         "np.where({0} > 0.4, {0}, 0.5 * {0})", "(np.abs({0}) + 0.2) ** 1.5",
         "np.r_[{0} + 0.0 * x, 0.5][1:]", "np.fmod({0}, 1.3)", "np.cbrt(2.0 + np.sin({0}))",
         "np.var({0}) + ({0}) ** 0", "np.sum(np.c_[{0} + 0.0 * x, y], axis=1)",
         "np.pad({0} + 0.0 * x, (1, 0), constant_values=np.sum({0}) * 0.5)[:3]"]
BINARY = ["({0}) + ({1})", "({0}) - ({1})", "({0}) * ({1})", "({0}) / (2.0 + np.cos({1}))",
          "np.maximum({0}, {1})", "np.arctan2({0}, 2.0 + ({1}) ** 2)",
          "np.sqrt(({0}) ** 2 + ({1}) ** 2 + 0.1)", "np.dot({0}, {1}) * x"]


# operations called with keywords drawn from their declared signatures (issue 27, family 7): the
# call's leading arguments, then optional parameters by keyword (some by position), each form
# kept only when NumPy itself accepts it on a vector
_KEYWORD_CALLS = [("xp.sum", "np.sum({0}"), ("xp.mean", "np.mean({0}"), ("xp.std", "np.std({0}"),
                  ("xp.var", "np.var({0}"), ("xp.cumsum", "np.cumsum({0}"), ("xp.linalg.norm", "np.linalg.norm({0}"),
                  ("xp.prod", "np.prod(1.0 + 0.1 * ({0})"), ("xp.cumprod", "np.cumprod(1.0 + 0.1 * ({0})"),
                  ("xp.roll", "np.roll({0}, 1"), ("xp.flip", "np.flip({0}"), ("xp.clip", "np.clip({0}, -0.8, 0.8"),
                  ("xp.diff", "np.diff({0}"), ("xp.trapezoid", "np.trapezoid({0}"), ("xp.max", "np.max({0}"),
                  ("xp.amin", "np.amin({0}"), ("xp.average", "np.average({0}"), ("xp.cov", "np.cov({0}"),
                  ("xp.round", "np.round({0}"), ("xp.sort", "np.sort({0}")]
_VALUES = {"axis": ["0", "-1", "None"], "keepdims": ["False", "True"], "ddof": ["0", "1"], "n": ["1", "2"],
           "dx": ["0.5", "1.0"], "ord": ["None", "2", "1"], "decimals": ["0", "3"], "bias": ["False", "True"],
           "rowvar": ["True", "False"], "kind": ["None", "'stable'"],
           "weights": ["np.array([0.2, 0.3, 0.5])"], "dtype": ["None"]}
# (np.diff's prepend=/append= are refused by name, with the advice to concatenate first)


def _keyword_forms() -> list[str]:
    from s2s.compiler.primitives import registry
    forms, probe = [], np.array([0.3, -0.5, 0.7])
    for key, head in _KEYWORD_CALLS:
        p = registry.lookup(key)
        if p is None:
            continue
        taken = head.count(",")  # leading arguments the head passes
        optional = [a for a in p.params[taken:] if a in _VALUES]
        for a in optional:
            for v in _VALUES[a]:
                forms.append(f"{head}, {a}={v})")
                k = p.params.index(a)
                if all(b in p.defaults for b in p.params[taken:k]):  # by position, earlier ones at their defaults
                    forms.append(head + "".join(f", {p.defaults[b]!r}" for b in p.params[taken:k]) + f", {v})")
        if len(optional) > 1:
            forms.append(head + "".join(f", {a}={_VALUES[a][-1]}" for a in optional) + ")")
    ok = []
    for f in forms:
        try:
            out = eval(f.format("probe"), {"np": np, "probe": probe})
            if np.size(out) and np.issubdtype(np.asarray(out).dtype, np.floating):
                ok.append(f)
        except Exception:  # not a form NumPy accepts here
            pass
    return ok


KEYWORD_FORMS = _keyword_forms()


def gen_expr(rng: random.Random, depth: int):
    if depth == 0 or rng.random() < 0.25:
        return rng.choice(LEAVES)
    if rng.random() < 0.15:
        return (rng.choice(KEYWORD_FORMS), gen_expr(rng, depth - 1))
    if rng.random() < 0.6:
        return (rng.choice(UNARY), gen_expr(rng, depth - 1))
    return (rng.choice(BINARY), gen_expr(rng, depth - 1), gen_expr(rng, depth - 1))


def render(e) -> str:
    if isinstance(e, str):
        return e
    return e[0].format(*(render(k) for k in e[1:]))


def subexprs(e):
    """Smaller expressions to try in place of `e` while shrinking."""
    if isinstance(e, str):
        return ["x"] if e != "x" else []
    return list(e[1:]) + ["x"]


# ---------------------------------------------------------------- blocks
# A block is (kind, params, exprs); it reads x, y, acc, G and writes acc (a vector of length N).

HELPERS = {
    "hloop": ["def hloop(v, w):", "    for k in range(2):", "        v = v * 0.7 + 0.3 * np.sin(w * v + G)",
              "    return v"],
    "rec": ["def rec(v, n):", "    if n == 0:", "        return v", "    return rec(0.8 * np.sin(v) + 0.2 * v, n - 1)"],
    "hwhile": ["def hwhile(v):", "    k = 0", "    while k < 2:", "        v = v + 0.5 * np.tanh(v)",
               "        k = k + 1", "    return v"],
    # a custom_jvp whose rule calls the function itself for the primal output (as JAX's examples do)
    "softc": ["@s2s.custom_jvp", "def softc(v):", "    return np.log(1.0 + np.exp(v))", "", "",
              "@softc.defjvp", "def softc_jvp(primals, tangents):", "    (v,), (dv,) = primals, tangents",
              "    return softc(v), dv / (1.0 + np.exp(-v))"],
    "cosj": ["@s2s.custom_jvp", "def cosj(v):", "    return np.cos(v) * 0.5", "", "", "@cosj.defjvp",
             "def cosj_jvp(primals, tangents):", "    (v,), (dv,) = primals, tangents",
             "    return np.cos(v) * 0.5, -0.5 * np.sin(v) * dv"],
    "sinv": ["@s2s.custom_vjp", "def sinv(v):", "    return np.sin(v) * v", "", "", "def sinv_fwd(v):",
             "    return np.sin(v) * v, (v,)", "", "", "def sinv_bwd(res, g):", "    (v,) = res",
             "    return (g * (np.cos(v) * v + np.sin(v)),)", "", "", "sinv.defvjp(sinv_fwd, sinv_bwd)"],
}

HELPERS["hrow"] = ["def hrow(r, s):", "    return np.tanh(r * s) + 0.1 * r"]

# transforms called inside the program (`--nested`): each block calls s2s itself; the property
# `inside_ref` checks them against a pure-NumPy reference (REF below: loops and differences)
NESTED_KINDS = ["vmap_closure", "vmap_nested", "vmap_default", "grad_closure", "jvp_inside", "vjp_inside",
                "partial_vmap", "random_inside", "fn_default"]

HELPERS.update({
    # a decorator written with functools.wraps: s2s must transform `inner` (which closes over fn)
    "hdeco": ["def deco(fn):", "    @functools.wraps(fn)", "    def inner(v, w):",
              "        return fn(v, w) * 0.5 + 0.5 * np.sin(v)", "    return inner", "", "",
              "@deco", "def hdeco(v, w):", "    return np.cos(v) * np.tanh(w)"],
    # a wrapper that claims to be another function (other body, other parameter names)
    "hmimic": ["def hdecoy(a, scale=10.0):", "    return a ** 3 * scale", "", "",
               "@functools.wraps(hdecoy)", "def hmimic(v, w=0.5):", "    return v * np.tanh(w) + 0.2 * np.sin(v)"],
    # a tuple and a dict used several times: their cotangents accumulate leaf by leaf
    "hcont": ["def hcont(t, d):", "    s = np.concatenate(t)",
              "    return s[:3] * d['p'] + np.sum(np.concatenate(t)) * d['q'] * 0.1 + t[0] * d['p']"],
})

# state the program reads (issue 44, family 1; `--state`): a hyperparameter or a function on a class, a
# config object two attributes deep, a dict, a list of layers, a callable layer's weights, `__slots__`
# and `__getattr__` objects, NumPy's own np.tanh, module globals rebound by `global`. Form s of the
# block kind "state": the definitions (HELPERS["state<s>"]), the block's lines, and what
# `_mutate()`/`_restore()` do to it; the property `state` changes it between two calls of every
# transform (jit with a static argument included: STATIC_CALLER).
STATE_HELPERS = {
    "state0": ["class Hyper:", "    scale = 1.3", "", "    def act(self, v):", "        return np.tanh(v)", "", "",
               "HP = Hyper()", "ACT0 = Hyper.act", "", "", "def alt_act(self, v):", "    return np.sin(v) * 0.8"],
    "state1": ["class Cfg:", "    pass", "", "", "CFG = Cfg()", "CFG.opt = Cfg()", "CFG.opt.scale = 1.3",
               "CFG.opt.act = np.tanh"],
    "state2": ["TABLE = {'scale': 1.3, 'act': np.tanh}"],
    "state3": ["ACTS = [np.tanh]"],
    "state4": ["class Layer:", "    def __init__(self, w):", "        self.w = w", "        self.scale = 1.3", "",
               "    def __call__(self, v):", "        return np.tanh(self.w * v) * self.scale", "", "",
               "class Net:", "    def __init__(self):", "        self.fc = Layer(np.array([1.0, 0.5, -0.5]))", "", "",
               "NET = Net()"],
    "state5": ["class Slots:", "    __slots__ = ('scale',)", "", "", "SL = Slots()", "SL.scale = 1.3", "", "",
               "class Lookup:", "    def __init__(self):", "        self.values = {'gain': 0.7}", "",
               "    def __getattr__(self, k):", "        try:", "            return self.__dict__['values'][k]",
               "        except KeyError:", "            raise AttributeError(k) from None", "", "", "LK = Lookup()"],
    "state6": ["NP_TANH = np.tanh"],
    "state7": ["GS = 1.3", "GACT = np.tanh"],
}
HELPERS.update(STATE_HELPERS)
STATE_LINES = [["acc = acc * 0.7 + HP.scale * 0.3 * HP.act({e})"],
               ["acc = acc + CFG.opt.scale * 0.3 * CFG.opt.act({e})"],
               ["acc = acc + TABLE['scale'] * 0.3 * TABLE['act']({e})"],
               ["for fs in ACTS:", "    acc = acc * 0.8 + 0.3 * fs({e})"],
               ["acc = acc * 0.6 + 0.3 * NET.fc({e})"],
               ["acc = acc + SL.scale * LK.gain * 0.3 * np.sin({e})"],
               ["acc = acc * 0.7 + 0.3 * np.tanh({e})"],
               ["acc = acc + GS * 0.3 * GACT({e})"]]
STATE_MUTATE = [["Hyper.scale = 0.55", "Hyper.act = alt_act"], ["CFG.opt.scale = 0.55", "CFG.opt.act = np.sin"],
                ["TABLE['scale'] = 0.55", "TABLE['act'] = np.sin"], ["ACTS.append(np.sin)", "ACTS[0] = np.arctan"],
                ["NET.fc.w = np.array([0.3, -1.0, 2.0])", "NET.fc.scale = 0.55"],
                ["SL.scale = 0.55", "LK.values['gain'] = -1.1"], ["np.tanh = np.sin"],
                ["global GS, GACT", "GS = 0.55", "GACT = np.sin"]]
STATE_RESTORE = [["Hyper.scale = 1.3", "Hyper.act = ACT0"],
                 ["CFG.opt.scale = 1.3", "CFG.opt.act = np.tanh"],
                 ["TABLE['scale'] = 1.3", "TABLE['act'] = np.tanh"], ["ACTS[:] = [np.tanh]"],
                 ["NET.fc.w = np.array([1.0, 0.5, -0.5])", "NET.fc.scale = 1.3"],
                 ["SL.scale = 1.3", "LK.values['gain'] = 0.7"], ["np.tanh = NP_TANH"],
                 ["global GS, GACT", "GS = 1.3", "GACT = np.tanh"]]
# a state program's f called with a static argument (`jit(f_static, static_argnums=2)`: issue 44's jit
# that kept a rebound global); the property `state` checks it with the other transforms
STATIC_CALLER = ["def f_static(x, y, mode):", "    if mode == 'half':", "        return f(x, y) * 0.5",
                 "    return f(x, y)"]
# casts and views (`--views`; issue 44, families 3 and 4), drawn as NumPy decides them: a cast to
# an integer or bool dtype (by astype, a dtype keyword, or a store into an integer array) has no
# derivative; a cast to complex and back (np.abs, np.real) has one, and so has a cast to float32
# (scaled by 1e-4: its rounding stays below the central differences' tolerance); a reshape, a basic
# slice, `asarray` of the same dtype and `astype(copy=False)` of it are views, which see the writes
# to their base and write into it (s2s refuses these: VIEW_REFUSAL); a row swap written as a tuple
# assignment on a 2-d array copies one row over the other (the right side holds views), a swap by
# fancy indices swaps, and ravel, transpose and reshape views taken after a write see it. The dtype
# of an array made from an integer one (`ik * 2`, `np.zeros_like(k)` of a helper's parameter) is
# that array's, so a store into it truncates too. Form
# `form` of the kinds "cast" and "view" (`b` where a test gives no form).
CAST_LINES = ["acc = acc + 0.3 * (({ve}) - ({ve}).astype(int))",
              "ib = np.zeros(3, dtype=int)\nib[:] = {ve} * 3.0\nacc = acc + 0.1 * ib * acc",
              "acc = acc * 0.5 + 0.2 * np.asarray({ve} > {c} * 0.2, dtype=float) * acc + 0.1 * np.sum({ve}, dtype=np.int64)",
              "acc = acc + 0.2 * np.abs(({ve}).astype(complex) * (1 + 1j)) + 0.1 * np.real(({ve}).astype(np.complex128) "
              "* (0.5 - 1j)) * acc",
              "acc = acc + 1e-4 * np.sin(({ve}).astype(np.float32) * {c}) "
              "+ 0.1 * np.tanh(acc.astype(np.float64, copy=False))",
              "ik = np.arange(3) + 1\nib = ik * 2\nib[1:] = ({ve})[1:] * 3.0\nacc = acc + 0.1 * ib * acc",
              "def like_k(k, v):\n    ib = np.zeros_like(k)\n    ib[:] = v\n    return ib\n"
              "acc = acc + 0.1 * like_k(np.arange(3), {ve} * 3.0) * acc"]
VIEW_LINES = ["a = acc.copy()\nv = a.reshape(3)\na *= {c2}\nacc = acc + 0.2 * v * np.tanh({e})",
              "a = acc * 1.0\nv = a[1:]\nv *= 0.5 + 0.1 * np.sum({e})\nw = np.asarray(a, dtype=np.float64)\n"
              "a[0] = a[0] * {c2}\nacc = a + 0.1 * w",
              "m = np.outer(acc, {ve})\nm[0], m[1] = m[1], m[0]\nu = m.astype(np.float64, copy=False)\n"
              "m *= 0.5\nacc = acc + 0.1 * m[0] + 0.2 * m[1] + 0.1 * u[2]",
              "m = np.outer(acc, {ve})\nm[0], m[1] = m[1], m[0]\nm[2] = m[2] * {c2}\n"
              "acc = acc + 0.1 * m[0] + 0.2 * m[1] + 0.1 * np.sin(m[2])",
              "m = np.outer(acc, {ve}) + 0.0\nm[[0, 2]] = m[[2, 0]]\nr = m.ravel()\nt = m.T\n"
              "acc = acc * 0.5 + 0.2 * np.sin(r[1:4]) * t[0] + 0.1 * t[:, 2]",
              "m = np.outer(acc, {ve}) + 0.0\nm[:, 0] = m[:, 1] * {c2}\nq = m.reshape(-1)[::4]\n"
              "acc = acc + 0.2 * np.tanh(q) + 0.1 * m.T[1]"]
# `a op= v` on a name bound to an array (`--views`; issue 44, families 3 and 4): NumPy's update in
# place (the ufunc with `out=a`, casting='same_kind') keeps the array's dtype and shape. Forms
# below INPLACE_RAISES compute: a float32 array += float64 values stays float32 (scaled by 1e-4, as
# CAST_LINES' float32 cast), int += int, an element of an int array += a float (truncated on store:
# no derivative), float64 updates, a right side broadcast into a larger array; the others raise in
# NumPy, and every transform must raise too (the property `numpy_error`): an int array += floats
# (UFuncTypeError), a float array += a right side of a larger shape (ValueError), an int array's view
# -= floats. gen_program draws the raising ones rarely (INPLACE_RAISING_P).
INPLACE_LINES = ["fz = np.zeros(3, dtype=np.float32)\nfz += {ve} * {c2}\nfz *= 0.5\nacc = acc + 1e-4 * np.sin(fz) * acc",
                 "iz = np.zeros(3, dtype=int)\niz += np.arange(3)\niz *= 2\nacc = acc + 0.1 * iz * acc",
                 "iz = np.zeros(3, dtype=int)\niz[{i}] += np.sum({e}) * 0.5\nacc = acc + 0.1 * iz + 0.2 * acc",
                 "fz = acc * 1.0\nfz += {ve}\nfz *= {c2}\nfz /= 1.5\nacc = acc + 0.2 * np.tanh(fz)",
                 "fz = np.zeros((2, 3))\nfz += {ve}\nfz[1] *= {c2}\nacc = acc + 0.1 * fz[0] + 0.2 * np.sin(fz[1])",
                 "iz = np.zeros(3, dtype=int)\niz += {ve}\nacc = acc + iz",
                 "fz = acc * 1.0\nfz += np.outer({ve}, acc)\nacc = acc + np.sum(fz)",
                 "iz = np.zeros(3, dtype=int)\niz[1:] -= ({ve})[1:]\nacc = acc + iz"]
INPLACE_RAISES = 5  # forms from here on raise in NumPy
INPLACE_RAISING_P = 0.15  # how often an in-place block is one NumPy refuses

# the names a cast, view or in-place block binds: each block's own (`m0`, `m1`, ...), as for `a` in every block
VIEW_NAMES = ("a", "v", "w", "m", "u", "r", "t", "q", "ib", "ik", "fz", "iz")

# s2s's refusal of an in-place update that another name (a view) would see: sound, and the same in
# every transform; and vmap's of a list times a 0-d example that may be a NumPy scalar (NumPy raises)
# or a 0-d array (NumPy multiplies: np.roll of a number), which batched look alike: at the user's
# line. A program all of whose failures are these refusals counts as refused, not failed
VIEW_REFUSAL = re.compile(r"Make `\w+` a copy where it is bound|which vmap cannot tell apart here")

ORIGINAL_TANH = np.tanh  # (restored after the property `state`, whatever a program did)

# block kinds of issue 27 (source identity, aliases, containers); programs also draw user names
# equal to generated ones (Program.rename) and a wrapped `f` (Program.wrap)
KINDS_27 = ["wrapped", "alias", "containers"]

# stacks of matrices per example (issue 27: vmap's derivative helpers of np.linalg on stacks): a (2, 3, 3)
# stack built from the vectors (diagonals 1, 2.5, 4 plus at most 0.3 per entry: well conditioned, its
# eigen- and singular values apart), through np.linalg functions that take stacks, folded to a vector;
# form 3 * b + i of the block kind "linalg_stack"
LINALG_STACK = ["np.sum(np.linalg.inv(ms), axis=(0, 1))",
                "np.sum(np.linalg.solve(ms, np.stack([acc, y])[..., None])[..., 0], axis=0)",
                "np.linalg.det(ms)[0] * acc + np.linalg.slogdet(ms)[1][1]",
                "np.sum(ms @ np.swapaxes(ms, -1, -2) @ ms, axis=(0, 2))",
                "np.sum(np.linalg.cholesky(ms @ np.swapaxes(ms, -1, -2)), axis=(0, 1))",
                "np.sum(np.linalg.eigvalsh(ms + np.swapaxes(ms, -1, -2)), axis=0)",
                "np.sum(np.linalg.svd(ms, compute_uv=False), axis=0) + np.linalg.norm(ms, 2, axis=(1, 2))[1]",
                "np.sum(np.linalg.pinv(ms) + np.linalg.matrix_power(ms, 2), axis=(0, 2))",
                "np.sum(np.einsum('sij,sjk->sik', ms, ms) * np.linalg.qr(ms)[1], axis=(0, 1))"]

KINDS = ["plain", "augadd", "for", "while_break", "while_data", "branch", "early_return", "set_row",
         "set_slice", "set_fancy", "set_repeat", "set_aug", "list", "helper", "closure", "recursion",
         "lambda", "custom", "list_repeat", "list_concat", "list_array", "tuple_branch", "linalg_stack"] + KINDS_27


def gen_block(rng: random.Random, depth: int):
    kind = rng.choice(KINDS)
    params = {"n": rng.randint(1, 3), "i": rng.randint(0, N - 1), "b": rng.randint(0, 2),
              "c": rng.choice([-2.0, -0.5, 0.5, 2.0]), "c2": rng.choice([-1.5, 1.0, 3.0])}
    return (kind, params, [gen_expr(rng, depth), gen_expr(rng, depth)])


def block_lines(block, ret) -> tuple[list[str], set[str]]:
    """Body lines (indented 4) and helper functions a block needs."""
    kind, p, (e, e2) = block
    e, e2 = render(e), render(e2)
    ve, ve2 = f"(({e}) + 0.0 * x)", f"(({e2}) + 0.0 * x)"  # vectors of length N whatever e is
    n, i, b, c, c2 = p["n"], p["i"], p["b"], p["c"], p["c2"]
    if kind == "plain":
        return [f"t = {e}", "acc = acc + 0.5 * np.tanh(t)"], set()
    if kind == "augadd":
        return [f"acc += 0.3 * ({e})"], set()
    if kind == "for":
        return [f"for i in range({n}):", f"    acc = acc * 0.5 + 0.5 * np.tanh({e})"], set()
    if kind == "while_break":
        return ["j = 0", f"while j < {n}:", f"    acc = acc * 0.8 + 0.2 * np.sin({e})", f"    if j == {b}:",
                "        break", "    j = j + 1", "else:", f"    acc = acc + 0.1 * ({e2})"], set()
    if kind == "while_data":
        return ["j = 0", f"while np.sum(acc * acc) < {abs(c) + 1.0} and j < 4:",
                f"    acc = acc + 0.3 * np.tanh({e}) + 0.3", "    j = j + 1"], set()
    if kind == "branch":
        return [f"if np.sum(acc) > {c}:", f"    acc = acc + 0.5 * ({e})", f"elif np.sum(x * y) > {c2}:",
                f"    acc = acc * np.cos({e2})", "else:", f"    acc = acc - 0.5 * ({e2})"], set()
    if kind == "early_return":
        return [f"if np.sum(acc) > {c + 1.0}:", f"    acc = acc * 2.0 + {e}", f"    return {ret}"], set()
    if kind == "set_row":
        return ["a = acc.copy()", f"a[{i}] = np.sum({e})", "acc = a"], set()
    if kind == "set_slice":
        return ["a = acc * 1.0", f"a[1:] = {ve}[:2]", "acc = a"], set()
    if kind == "set_fancy":
        return ["a = acc.copy()", f"a[[0, 2]] = {ve}[[1, 0]]", "acc = a"], set()
    if kind == "set_repeat":
        return ["a = acc.copy()", f"a[[{i}, {i}]] = {ve}[[0, 2]]", "acc = a"], set()
    if kind == "set_aug":
        return [f"acc[{i}] += np.sum({e}) * 0.5", f"acc[:2] += {ve2}[1:]"], set()
    if kind == "list":
        return ["lst = []", f"for i in range({n}):", f"    lst.append(np.tanh({e}) * (i + 1.0))",
                "acc = acc + 0.3 * np.sum(np.stack(lst), axis=0) + 0.1 * lst[-1]"], set()
    if kind == "list_repeat":  # a list or tuple repeated by a count held in a variable (`L * m`, `m * T`)
        make = [[f"m_rep = {n}", f"lst = [np.tanh({e}), acc * {c2}] * m_rep"],
                [f"lst = [np.sin({e})]", f"lst = (len(lst) + {n - 1}) * (lst[0], acc * 0.5)"],
                ["lst = []", f"for i in range({n}):", f"    lst.append(np.tanh({e}) * (i + 1.0))", "lst = lst * len(lst)"]]
        return make[b] + ["s_rep = 0.0 * acc", "for j in range(len(lst)):",
                          "    s_rep = s_rep + lst[j] * (0.3 / (j + 1.0))", "acc = acc + s_rep"], set()
    if kind == "list_concat":  # lists and tuples joined with `+`, in a loop, rotated, then iterated
        join = "lst = lst[1:] + lst[:1]" if b else "lst = (lst[0],) + tuple(lst)"
        return [f"lst = [np.sin({e})] + [acc * {c2}]", f"for i in range({n}):",
                "    lst = lst + [lst[-1] * 0.5 + 0.1 * np.tanh(lst[0])]", join, "for w in lst:",
                "    acc = acc * 0.9 + 0.1 * np.tanh(w)"], set()
    if kind == "list_array":  # a list or tuple of numbers with an array operand: NumPy broadcasts, elementwise
        lit = ", ".join(str(v) for v in ([c, c2, 0.5] + [1.0] * N)[:N])
        make = [[f"w_l = [{lit}]", f"acc = acc + 0.3 * (w_l * np.tanh({e}))"],
                [f"w_l = ({lit},)", f"acc = (w_l + acc) * 0.5 + 0.1 * ({e})"],
                [f"w_l = [{lit}]", f"acc = acc * 0.5 + 0.3 * np.sin(({e}) * w_l + w_l)"]]
        return make[b], set()
    if kind == "helper":
        h = "hloop" if b < 2 else "hwhile"
        return [f"acc = {h}(acc, {e})" if h == "hloop" else f"acc = hwhile(acc + 0.1 * ({e}))"], {h}
    if kind == "closure":
        return ["def inner(v):", f"    return v * np.tanh(y) + 0.5 * np.cos(v) + 0.1 * ({e})",
                "acc = inner(acc)"], set()
    if kind == "recursion":
        return [f"acc = rec(acc + 0.1 * ({e}), {n})"], {"rec"}
    if kind == "custom":
        h = ("softc", "cosj", "sinv")[b]
        return [f"acc = {h}(acc * 0.5 + 0.1 * ({e}))"], {h}
    if kind == "lambda":
        return [f"k = lambda v: np.sin(v) * {c} + v", f"acc = k(acc) * 0.5 + 0.1 * ({e})"], set()
    if kind == "wrapped":
        h = ("hdeco", "hmimic", "hmimic")[b]
        call = f"hmimic(acc, w={ve})" if b == 2 else f"{h}(acc, {ve})"
        return [f"acc = acc * 0.5 + 0.5 * {call}"], {h}
    if kind == "alias":  # module and function aliases bound once (`mm` and `fa` are renamed per block)
        make = [["mm = np", f"acc = acc + 0.3 * mm.tanh({e}) * mm.sum(acc)"],
                ["mm = np.linalg", f"acc = acc * 0.5 + 0.2 * mm.norm({ve}) * acc"],
                ["fa = np.sin", f"acc = acc + 0.3 * fa({e} * acc)"]]
        return make[b], set()
    if kind == "containers":  # tuple, list and dict values whose adjoints accumulate
        make = [[f"tp = (acc * 0.5, np.sin({ve}))", "dc = {'p': np.tanh(acc), 'q': acc * 0.5}",
                 "acc = acc + 0.2 * hcont(tp, dc) + 0.1 * tp[1] * dc['q']"],
                [f"tq = [acc, (np.sin({ve}), acc * {c2})]",
                 "acc = acc * 0.9 + 0.1 * np.concatenate(tq[1])[:3] * np.sum(np.concatenate((tq[0], tq[1][0])))"],
                [f"dd = {{'u': acc, 'v': {ve}}}", "for key in ('u', 'v'):",
                 "    acc = acc * 0.9 + 0.05 * np.tanh(dd[key]) * np.sum(dd['u'])"]]
        return make[b], {"hcont"} if b == 0 else set()
    if kind == "tuple_branch":  # tuple targets under a branch (per example under vmap): a swap, a name first
        # bound there (read after it or not), nested and subscript targets; each keeps its old value elsewhere
        make = [[f"tb = acc * {c2}", f"if np.sum(acc) > {c}:", f"    acc, tb = tb * 0.5 + 0.5 * np.tanh({e}), acc",
                 "acc = acc + 0.2 * tb"],
                [f"if np.sum(acc * y) > {c}:", f"    acc, tn = acc * 0.5, np.sin({ve})", "    acc = acc + 0.3 * tn",
                 "else:", f"    tn, (acc, tm) = acc * 0.2, (np.cos({ve2}), acc)", "    acc = acc + tm * tn"],
                ["a = acc * 1.0", f"if np.sum(acc) > {c}:", f"    a[{i}], (acc, tz) = np.sum({e}), (acc * 0.7, acc)",
                 "    acc = acc + 0.1 * tz", "acc = acc + 0.3 * a"]]
        return make[b], set()
    if kind == "linalg_stack":
        return [f"ms = np.stack([np.diag([1.0, 2.5, 4.0]) + 0.3 * np.tanh(np.outer(acc, {ve})), "
                "np.diag([4.0, 1.0, 2.5]) + 0.3 * np.tanh(np.outer(y, x))])",
                f"acc = acc * 0.5 + 0.2 * np.tanh({LINALG_STACK[3 * b + i]})"], set()
    if kind == "cast":  # an int or bool result carries no derivative (`--views`; issue 44, family 3)
        return CAST_LINES[p.get("form", b)].format(e=e, ve=ve, c=c).split("\n"), set()
    if kind == "view":  # a view sees later writes, and writes through it land (`--views`; issue 44, family 4)
        return VIEW_LINES[p.get("form", b)].format(e=e, ve=ve, c2=c2).split("\n"), set()
    if kind == "inplace":  # `a op= v` keeps the array's dtype and shape, or raises (`--views`; issue 44)
        return INPLACE_LINES[p.get("form", b)].format(e=e, ve=ve, c2=c2, i=i).split("\n"), set()
    if kind == "kwcall":  # an operation with a keyword at a non-default value (`--keywords`; fuzz_keywords)
        return fuzz_keywords.block_lines(p["k"], ve), set()
    if kind == "state":  # a value read from mutable state (STATE_HELPERS)
        return [line.format(e=e) for line in STATE_LINES[p["s"]]], {f"state{p['s']}"}
    if kind == "refuse":  # what s2s must refuse, never differentiate as a constant (property `refusal`)
        make = [["o_buf = np.zeros_like(acc)", f"np.tanh({ve}, out=o_buf)", "acc = acc + o_buf"],
                ["mq = np", f"if np.sum(acc) > {abs(c) + 100.0}:", "    mq = np.linalg", "acc = acc + mq.tanh(acc)"],
                ["o_buf = acc * 1.0", "o_buf.clip(-5.0, 5.0, out=o_buf)", "acc = acc * o_buf"]]
        return make[b], set()
    return nested_lines(kind, p, e, e2)


def nested_lines(kind, p, e, e2) -> tuple[list[str], set[str]]:
    """Blocks that call s2s transforms inside the program; the lambdas close over x, y, acc."""
    n, b, c = p["n"], p["b"], p["c"]
    rows = ["np.stack([x, y])", "np.stack([x, y, acc])", "np.stack([acc, x * 0.5, y, x])"]
    if kind == "vmap_closure":  # the closed-over values are not mapped; in_axes in each form
        call = ["s2s.vmap(lambda r: np.tanh(r * {c}) * ({e}) + r)({rows})",
                "s2s.vmap(lambda r, q: np.sin(r * q) + ({e}), in_axes=(0, None))({rows}, acc)",
                "s2s.vmap(lambda r, q: np.sin(r + q) * ({e}), [0, 0])({rows}, {rows} * 0.5)"][b]
        return [f"vm = {call.format(c=c, e=e, rows=rows[n - 1])}", "acc = acc + 0.3 * np.sum(vm, axis=0)"], set()
    if kind == "vmap_nested":  # the pairwise (Gram matrix) idiom over row sets of different counts
        return [f"pa = {rows[b]}", f"pb = {rows[n - 1]} * 0.7",
                f"gm = s2s.vmap(lambda a: s2s.vmap(lambda q: np.sum(np.tanh(a * q + ({e}))))(pb))(pa)",
                "acc = acc + 0.2 * np.sum(gm) + 0.1 * np.sum(gm, axis=1)[0]"], set()
    if kind == "vmap_default":  # a def with defaults: in_axes match the arguments passed
        axes = ["(0,)", "0", "(0, None)"][b]
        args = "{rows}" if b < 2 else "{rows}, 0.3"
        return ["def rowf(r, s=0.5):", f"    return np.sin(r * s + ({e}))",
                f"acc = acc + 0.2 * np.sum(s2s.vmap(rowf, in_axes={axes})({args.format(rows=rows[n - 1])}), axis=0)"], set()
    if kind == "grad_closure":
        return [f"gc = s2s.grad(lambda v: np.sum(np.sin(v * ({e}))) + np.sum(v * acc) * {c})(y * 0.5 + acc)",
                "acc = acc + 0.2 * gc"], set()
    if kind == "jvp_inside":  # forward mode inside (Tangent's reverse-over-forward under grad)
        return [f"pj, tj = s2s.jvp(lambda v: np.sin(v) * ({e}), (acc,), (y,))", "acc = acc + 0.2 * tj + 0.1 * pj"], set()
    if kind == "vjp_inside":  # a VJP inside: grad of it is a VJP of a VJP
        return [f"yv, pull = s2s.vjp(lambda v: np.tanh(v) * ({e}), acc)", "ct = pull(y * 0.5)[0]",
                "acc = acc * 0.5 + 0.3 * ct + 0.1 * yv"], set()
    if kind == "partial_vmap":  # a partial's bound values are not mapped
        return [f"pv = s2s.vmap(functools.partial(hrow, s=acc * {c} + 0.1 * ({e2})))({rows[n - 1]})",
                "acc = acc + 0.2 * np.sum(pv, axis=0)"], {"hrow"}
    if kind == "fn_default":  # defaults that are a local function and a local value (evaluated where the lambda is)
        use = ["acc = acc + 0.2 * np.sum(s2s.vmap(hl)({rows}), axis=0)", "acc = acc + 0.2 * hl(acc)",
               "acc = acc + 0.2 * s2s.grad(lambda v: np.sum(hl(v)))(acc)"][b]
        return [f"gl = lambda tt: np.tanh(tt * {c}) + 0.1 * ({e})", "hl = lambda uu, kf=gl, sc=acc * 0.5: kf(uu) * sc + uu",
                use.format(rows=rows[n - 1])], set()
    if kind == "random_inside":
        # (float64 draws: float32 ones round differently once jit reorders their arithmetic)
        return [f"acc = acc + 0.1 * s2s.random.normal(s2s.random.PRNGKey({n}), ({N},), np.float64) * ({e})"], set()
    raise ValueError(kind)


# names generated code uses (the runtime, builtins it calls, its temporaries and companions):
# a program may give them to its own variables, which must change nothing (issue 27, family 3)
GENERATED_NAMES = ["xp", "rt", "ext", "stop_gradient", "len", "range", "float", "int", "tuple", "list",
                   "slice", "isinstance", "_", "t0", "t1", "t2", "b_x", "b_y", "b_acc", "b_t0", "d_x", "d_acc",
                   "tape", "ctl", "saved", "saved0", "g", "i0", "n0", "r0", "r1", "ct0", "cts0", "seq0",
                   "broke0", "fwd_f", "bwd_f", "jvp_f", "grad_f", "vmap_f", "batch_size", "u", "out0", "res0",
                   "aux", "fun", "k0", "basis0", "jac0", "lift0", "trips0", "missing0", "tangent0"]
WRAPS = {  # `f` itself wrapped: by a decorator written with functools.wraps, or claiming another's name
    "deco": (["def keep(fn):", "    @functools.wraps(fn)", "    def inner(x, y):", "        return fn(x, y)",
              "    return inner", ""], "@keep"),
    "mimic": (["def f_decoy(x, y):", "    return x * 0.0", ""], "@functools.wraps(f_decoy)"),
}


class Program:
    """A module: the global G, helpers, and `f(x, y)` built from blocks; `out` is 'scalar' or 'vector'.
    `rename` maps some of f's own names to names generated code uses; `wrap` (a key of WRAPS)
    decorates f."""

    def __init__(self, blocks, out, g=1.3, rename=None, wrap=None):
        self.blocks, self.out, self.g = blocks, out, g
        self.rename, self.wrap = rename or {}, wrap

    def _like(self, blocks, out=None):
        return Program(blocks, out or self.out, self.g, self.rename, self.wrap)

    @property
    def ret(self) -> str:
        return "np.sum(acc * acc)" if self.out == "scalar" else "acc"

    def source(self) -> str:
        body, helpers = ["    acc = x * 1.0"], set()
        for k, blk in enumerate(self.blocks):
            lines, h = block_lines(blk, self.ret)
            # each block's copy gets its own name: `acc = a; acc += ...; a = ...` across blocks
            # trips a false alias error (frontend/aliases.py takes the later `a = acc.copy()` for a
            # read of `a`)
            names = VIEW_NAMES if blk[0] in ("cast", "view", "inplace") else ("a", "mm", "fa")
            body += ["    " + re.sub(rf"\b({'|'.join(names)})\b", lambda m: f"{m.group(1)}{k}", ln) for ln in lines]
            helpers |= h
        body.append(f"    return {self.ret}")
        uses = helpers & {"softc", "cosj", "sinv"} or any(blk[0] in NESTED_KINDS for blk in self.blocks)
        head = ["import functools", "import numpy as np", *(["import s2s"] if uses else []), "",
                f"G = {self.g!r}", ""]
        for h in sorted(helpers):
            head += ["", *HELPERS[h], ""]
        forms = sorted(int(h[5:]) for h in helpers if h.startswith("state"))
        if forms:  # what the property `state` changes between two calls, and sets back
            # (np.tanh first: the other forms set their function back to np.tanh, which _mutate made np.sin)
            back = sorted(forms, key=lambda k: k != 6)
            head += ["", "def _mutate():", *("    " + ln for k in forms for ln in STATE_MUTATE[k]), "", "",
                     "def _restore():", *("    " + ln for k in back for ln in STATE_RESTORE[k]), ""]
        wrap_lines, decorator = WRAPS[self.wrap] if self.wrap else ([], None)
        fdef = "\n".join(["def f(x, y):"] + body)
        if self.rename:
            fdef = rename_locals(fdef, self.rename)
        static = ["", "", *STATIC_CALLER] if forms else []
        return "\n".join(head + ["", *wrap_lines, "", *([decorator] if decorator else []), fdef, *static]) + "\n"

    def shrink_candidates(self):
        if self.rename:
            yield Program(self.blocks, self.out, self.g, None, self.wrap)
        if self.wrap:
            yield Program(self.blocks, self.out, self.g, self.rename, None)
        for k in range(len(self.blocks)):
            yield self._like(self.blocks[:k] + self.blocks[k + 1:])
        for k, (kind, p, exprs) in enumerate(self.blocks):
            for j, e in enumerate(exprs):
                for sub in subexprs(e):
                    new = list(exprs)
                    new[j] = sub
                    yield self._like(self.blocks[:k] + [(kind, p, new)] + self.blocks[k + 1:])
            if p["n"] > 1:
                yield self._like(self.blocks[:k] + [(kind, {**p, "n": p["n"] - 1}, exprs)] + self.blocks[k + 1:])


def rename_locals(fdef: str, rename: dict) -> str:
    """`fdef` (the source of f) with its parameters and locals renamed as `rename` says; names it
    reads from outside (np, G, helpers, builtins) are left alone, so the program means the same."""
    node = ast.parse(fdef).body[0]
    bound = {a.arg for a in ast.walk(node) if isinstance(a, ast.arg) and a.arg in ("x", "y")}
    bound |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound |= {n.name for n in ast.walk(node) if isinstance(n, ast.FunctionDef) and n is not node}
    free = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} - bound
    mapping = {k: v for k, v in rename.items() if k in bound and v not in free and v not in bound}
    if len(set(mapping.values())) != len(mapping):
        return fdef
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id in mapping:
            n.id = mapping[n.id]
        elif isinstance(n, ast.arg) and n.arg in mapping and n.arg in ("x", "y"):
            n.arg = mapping[n.arg]
        elif isinstance(n, ast.FunctionDef) and n is not node and n.name in mapping:
            n.name = mapping[n.name]
    return ast.unparse(node)


USER_NAMES = ["x", "y", "acc", "t", "j", "i", "lst", "w", "k", "m_rep", "s_rep", "w_l", "inner", "tp", "dc", "tq",
              "dd", "key"] + [f"{n}{k}" for n in ("a", "mm", "fa") for k in range(3)]


def gen_program(rng: random.Random, nested: bool = False, state: bool = False, views: bool = False,
                keywords: bool = False) -> Program:
    """A random program; with `nested`, one of its blocks calls a transform inside it; with `state`,
    one or two read a value from mutable state (STATE_HELPERS: the property `state` changes it);
    with `views`, one or two are casts or views (CAST_LINES, VIEW_LINES); with `keywords`, one or
    two call an operation with a keyword at a value other than NumPy's default (fuzz_keywords)."""
    blocks = [gen_block(rng, rng.randint(1, 2)) for _ in range(rng.randint(1, 3))]
    if nested:
        kind, params, exprs = gen_block(rng, rng.randint(1, 2))
        blocks.insert(rng.randint(0, len(blocks)), (rng.choice(NESTED_KINDS), params, exprs))
    for _ in range(rng.randint(1, 2) if state else 0):
        kind, params, exprs = gen_block(rng, rng.randint(1, 2))
        blocks.insert(rng.randint(0, len(blocks)), ("state", {**params, "s": rng.randrange(len(STATE_LINES))}, exprs))
    for _ in range(rng.randint(1, 2) if views else 0):
        kind, params, exprs = gen_block(rng, rng.randint(1, 2))
        kind = rng.choice(["cast", "view", "inplace"])
        if kind == "inplace":
            form = rng.randrange(INPLACE_RAISES, len(INPLACE_LINES)) if rng.random() < INPLACE_RAISING_P else \
                rng.randrange(INPLACE_RAISES)
        else:
            form = rng.randrange(len(CAST_LINES if kind == "cast" else VIEW_LINES))
        blocks.insert(rng.randint(0, len(blocks)), (kind, {**params, "form": form}, exprs))
    for _ in range(rng.randint(1, 2) if keywords else 0):
        kind, params, exprs = gen_block(rng, rng.randint(1, 2))
        blocks.insert(rng.randint(0, len(blocks)), ("kwcall", {**params, "k": fuzz_keywords.draw(rng)}, exprs))
    rename = wrap = None
    if rng.random() < 0.3:
        targets = rng.sample(GENERATED_NAMES, len(USER_NAMES))
        rename = {u: t for u, t in zip(USER_NAMES, targets) if rng.random() < 0.6}
    if rng.random() < 0.15:
        wrap = rng.choice(sorted(WRAPS))
    return Program(blocks, rng.choice(["scalar", "scalar", "vector"]), rename=rename, wrap=wrap)


# ---------------------------------------------------------------- loading and caches

_COUNT = itertools.count()
_DIR = None


def load(prog: Program):
    """Write the program to a fresh module file and import it (a new module object each time)."""
    global _DIR
    if _DIR is None:
        _DIR = tempfile.mkdtemp(prefix="s2s_fuzz_")
        atexit.register(shutil.rmtree, _DIR, True)  # the program files go with the process
    name = f"fuzzprog_{os.getpid()}_{next(_COUNT)}"
    path = os.path.join(_DIR, name + ".py")
    with open(path, "w") as fh:
        fh.write(prog.source())
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def clear_caches() -> None:
    """Empty every compile cache s2s keeps (module-level dicts named like caches), wherever the
    package layout puts them."""
    fn = getattr(s2s, "clear_caches", None)
    if callable(fn):
        fn()
        return
    for name, mod in list(sys.modules.items()):
        if mod is None or not (name == "s2s" or name.startswith("s2s.")):
            continue
        for attr in ("_CORES", "_TRANSFORMS", "_CACHE", "CACHE", "_cache"):
            d = getattr(mod, attr, None)
            if isinstance(d, dict):
                d.clear()


# ---------------------------------------------------------------- numerics

def flat(t) -> np.ndarray:
    leaves = tree_flatten(t)[0]
    return np.concatenate([np.ravel(np.asarray(v, dtype=np.float64)) for v in leaves]) if leaves else np.zeros(0)


def close(a, b, tol=1e-6) -> bool:
    a, b = flat(a), flat(b)
    if a.shape != b.shape:
        return False
    scale = 1.0 + max(np.max(np.abs(a), initial=0.0), np.max(np.abs(b), initial=0.0))
    return bool(np.all(np.abs(a - b) <= tol * scale))


def central(at, eps, points=2):
    """The derivative at 0 of `at`, a function of the step, by 2- or 4-point central differences."""
    d = at(eps) - at(-eps)
    if points == 2:
        return d / (2 * eps)
    return (8 * d - (at(2 * eps) - at(-2 * eps))) / (12 * eps)


def fd_jacobian(f, x, y, eps, points=2):
    """Central-difference Jacobian (2 or 4 points) of f w.r.t. the concatenation (x, y): (out size, 2N)."""
    def at(arg, k, e):
        a = [x.copy(), y.copy()]
        a[arg][k] += e
        return flat(f(*a))
    return np.stack([central(lambda e, arg=arg, k=k: at(arg, k, e), eps, points)
                     for arg in range(2) for k in range(N)], axis=-1)


class Differences:
    """Central differences of f at (x, y) as a reference: those at 1e-6, and, asked only where a
    result misses them, 4-point ones at 1e-3. Differences at 1e-6 of a value rounded to float32 on
    the way are off by float32's rounding over 1e-6 (--seed 5201002 --views --program 575, --seed
    5601007 --views --program 46); the 4-point ones are not, and are right to about 1e-12 where f
    is smooth: a wrong rule misses both."""

    def __init__(self, f, x, y, fd=None):
        self.f, self.x, self.y = f, x, y
        self.fd = fd_jacobian(f, x, y, 1e-6) if fd is None else fd
        self._coarse = None

    def coarse(self) -> np.ndarray:
        """The 4-point differences at 1e-3 (computed once: call it while f's state is the one
        differentiated)."""
        if self._coarse is None:
            self._coarse = fd_jacobian(self.f, self.x, self.y, 1e-3, points=4)
        return self._coarse

    def agree(self, got, tol, view=lambda j: j) -> bool:
        """`got` is close to `view` of either Jacobian."""
        return close(got, view(self.fd), tol) or close(got, view(self.coarse()), tol)


def joined(jac) -> np.ndarray:
    """A Jacobian with respect to (x, y) (a pair, as argnums=(0, 1) gives it) as one matrix (out
    size, 2N), the layout of fd_jacobian."""
    jx, jy = jac
    return np.concatenate([np.reshape(jx, (-1, N)), np.reshape(jy, (-1, N))], axis=1)


def moderate_at(f, x, y) -> bool:
    """f runs at (x, y) with floating-point errors raised (no nan or inf on the way), and its values
    are finite and at most 1e4: the first half of smooth_at."""
    try:
        with np.errstate(divide="raise", over="raise", invalid="raise", under="ignore"):
            v = flat(f(x.copy(), y.copy()))
    except Exception:
        return False
    return bool(np.all(np.isfinite(v))) and np.max(np.abs(v), initial=0) <= 1e4


def smooth_at(f, x, y, keep: dict | None = None) -> bool:
    """Finite differences at two step sizes agree and values are moderate: no kink or flip nearby.
    NumPy's evaluation of f and of every difference runs with floating-point errors raised: a
    program that computes a nan or an inf on the way (a pole, a log of a negative value discarded
    by `np.where`) is skipped, since its finite differences are no reference there (underflow,
    which makes no nan or inf, is allowed). `keep`, if given, gets the differences at 1e-6 as "fd"
    (the reference of the property grad_fd: computed once)."""
    try:
        with np.errstate(divide="raise", over="raise", invalid="raise", under="ignore"):
            v = flat(f(x.copy(), y.copy()))
            if not np.all(np.isfinite(v)) or np.max(np.abs(v), initial=0) > 1e4:
                return False
            j1 = fd_jacobian(f, x, y, 1e-3)
            j2 = fd_jacobian(f, x, y, 1e-6)
    except Exception:
        return False
    if keep is not None:
        keep["fd"] = j2
    return bool(np.all(np.isfinite(j1))) and close(j1, j2, 1e-3)


# ---------------------------------------------------------------- properties
# Each takes (mod, x, y, rng) and returns None (holds) or a message; raising counts as failing.

def p_grad_fd(mod, x, y, rng):
    f = mod.f
    want = mod.FD["fd"] if "fd" in getattr(mod, "FD", {}) else fd_jacobian(f, x, y, 1e-6)  # (prepare's)
    if mod.OUT == "scalar":
        gx, gy = s2s.grad(f, argnums=(0, 1))(x, y)
        got = np.concatenate([np.ravel(gx), np.ravel(gy)])[None]
        if np.shape(gx) != x.shape or np.shape(gy) != y.shape:
            return f"gradient shapes {np.shape(gx)}, {np.shape(gy)}"
    else:
        got = joined(s2s.jacrev(f, argnums=(0, 1))(x, y))
    if not Differences(f, x, y, want).agree(got, 1e-5):
        return f"reverse mode {got.tolist()} vs central differences {want.tolist()}"


def p_jvp_vjp(mod, x, y, rng):
    f = mod.f
    u = (rng.standard_normal(N), rng.standard_normal(N))
    out, t = s2s.jvp(f, (x, y), u)
    v = rng.standard_normal(np.shape(out)) if np.ndim(out) else float(rng.standard_normal())
    out2, vjp_fn = s2s.vjp(f, x, y)
    if not close(out, out2):
        return f"jvp's primal output {flat(out).tolist()} != vjp's {flat(out2).tolist()}"
    cx, cy = vjp_fn(v)
    lhs = float(np.sum(np.asarray(v) * np.asarray(t)))
    rhs = float(np.sum(cx * u[0]) + np.sum(cy * u[1]))
    if not close(lhs, rhs, 1e-8):
        return f"<v, J u> = {lhs!r} (jvp) but <vjp(v), u> = {rhs!r}"


def p_jac(mod, x, y, rng):
    a = s2s.jacfwd(mod.f, argnums=(0, 1))(x, y)
    b = s2s.jacrev(mod.f, argnums=(0, 1))(x, y)
    if not close(a, b, 1e-8):
        return f"jacfwd {flat(a).tolist()} != jacrev {flat(b).tolist()}"


# the Hessian's routes: s2s.hessian (forward over reverse) and two other compositions of first-order
# transforms. A second-order compile costs as much as all of a program's other properties, so each
# scalar program checks one route, drawn, against central differences of the gradient (which agree
# with every route to about 1e-11 where the gradient is smooth): over a campaign each route is
# checked on a third of the programs.
HESSIAN_ROUTES = {"hessian": lambda f: s2s.hessian(f), "jacrev(jacrev)": lambda f: s2s.jacrev(s2s.jacrev(f)),
                  "jacfwd(grad)": lambda f: s2s.jacfwd(s2s.grad(f))}


def fd_hessian(f, x, y, eps=1e-5, points=2):
    """Central differences (2 or 4 points) of s2s's gradient with respect to x, compiled once with
    the argnums the property grad_fd uses (so the compile is shared): (N, N)."""
    g = s2s.grad(f, argnums=(0, 1))

    def at(unit, e):
        return np.ravel(g(x + unit * e, y)[0])
    return np.stack([central(lambda e, u=u: at(u, e), eps, points) for u in np.eye(N)], axis=-1)


def p_hessian(mod, x, y, rng):
    """The Hessian of a scalar f by one route of HESSIAN_ROUTES, drawn per program: its shape, it is
    symmetric, and it equals central differences of the gradient. Where 2-point differences at 1e-5
    and 1e-6 disagree by 1e-4 the gradient is not smooth within 1e-5 of (x, y) (a rounding step, a
    kink) and the differences are no reference, so the property holds vacuously. Where the 2-point
    ones at 1e-5 and the 4-point ones at 1e-3 agree to 1e-6 (a smooth gradient), the Hessian must
    equal the 4-point differences at 1e-3 or at 1e-4 to 1e-7 (the smaller step where the fifth
    derivative is large), else one of the references to 1e-4. A wrong rule misses every reference."""
    if mod.OUT != "scalar":
        return None
    f = mod.f
    name = sorted(HESSIAN_ROUTES)[int(rng.integers(len(HESSIAN_ROUTES)))]
    h = np.asarray(HESSIAN_ROUTES[name](f)(x, y))
    if h.shape != (N, N):
        return f"{name} shape {h.shape}"
    if not close(h, h.T, 1e-7):
        return f"{name} not symmetric: {h.tolist()}"
    fd = fd_hessian(f, x, y)
    if not close(fd, fd_hessian(f, x, y, 1e-6), 1e-4):
        return None  # (the gradient jumps or bends within 1e-5: no reference here)
    fine = fd_hessian(f, x, y, 1e-3, points=4)
    if close(fd, fine, 1e-6):
        refs, tol = (fine, fd_hessian(f, x, y, 1e-4, points=4)), 1e-7
    else:
        refs, tol = (fd, fine), 1e-4
    if not any(close(h, want, tol) for want in refs):
        return f"{name} {h.tolist()} vs differences of grad {refs[0].tolist()}"


def p_vjp_twice(mod, x, y, rng):
    out, vjp_fn = s2s.vjp(mod.f, x, y)
    v = np.ones(np.shape(out)) if np.ndim(out) else 1.0
    first = vjp_fn(v)
    second = vjp_fn(v)
    if not close(first, second, 0.0):
        return f"first call {flat(first).tolist()}, second {flat(second).tolist()}"


def p_purity(mod, x, y, rng):
    x0, y0 = x.copy(), y.copy()
    want = mod.f(x0.copy(), y0.copy())
    out, vjp_fn = s2s.vjp(mod.f, x, y)
    out_before = tree_map(lambda a: np.array(a, copy=True), out)
    v = np.ones(np.shape(out)) if np.ndim(out) else 1.0
    vjp_fn(v)
    if mod.OUT == "scalar":
        s2s.grad(mod.f, argnums=(0, 1))(x, y)
        val, _ = s2s.value_and_grad(mod.f)(x, y)
        # last bits only: scalar-factor collection reassociates (s2s.compiler.passes.scalars documents it)
        if not close(val, want, 1e-15):
            return f"value_and_grad value {val!r}, f gives {want!r}"
    if not (np.array_equal(x, x0) and np.array_equal(y, y0)):
        return "an input array was changed by a transform"
    if not close(out, out_before, 0.0):
        return f"vjp's primal output changed by vjp_fn: {flat(out_before).tolist()} -> {flat(out).tolist()}"
    # (last bits: a rewrite may compute NumPy's value another way, np.linalg.cholesky(upper=True) as the
    # lower factor's transpose; a changed input or output differs by far more)
    if not close(out, want, 1e-15):
        return f"vjp's primal output {flat(out).tolist()} != f {flat(want).tolist()}"


def p_jit(mod, x, y, rng):
    a = s2s.jit(mod.f)(x, y)
    b = mod.f(x, y)
    if not close(a, b, 1e-12):
        return f"jit(f) {flat(a).tolist()} != f {flat(b).tolist()}"


# the first-order transforms the property `cache` compiles warm, then one of them cold
CACHE_DERIVS = {"jacrev": lambda f, x, y: s2s.jacrev(f, argnums=(0, 1))(x, y),
                "jacfwd": lambda f, x, y: s2s.jacfwd(f, argnums=(0, 1))(x, y),
                "jvp": lambda f, x, y: s2s.jvp(f, (x, y), (np.ones(N), np.ones(N)))[1]}


def p_cache(mod, x, y, rng):
    """Every transform of CACHE_DERIVS twice from a warm cache (the same numbers), then one of them,
    drawn per program, compiled again from empty caches (the same numbers up to the last bits): a
    cold compile costs as much as the first, and over a campaign each transform is drawn on about a
    third of the programs."""
    warm = {k: d(mod.f, x, y) for k, d in CACHE_DERIVS.items()}
    again = {k: d(mod.f, x, y) for k, d in CACHE_DERIVS.items()}
    if not close(warm, again, 0.0):
        return "two warm calls differ"
    name = sorted(CACHE_DERIVS)[int(rng.integers(len(CACHE_DERIVS)))]
    clear_caches()
    cold = CACHE_DERIVS[name](mod.f, x, y)
    if not close(warm[name], cold, 1e-12):
        return f"{name}: warm cache {flat(warm[name]).tolist()} != cold cache {flat(cold).tolist()}"


def _raises_too(f, x, y, made: dict) -> str | None:
    """None where f(x, y) returns; else "" where every transform in `made` raises f's exception type
    too, or what one did instead."""
    try:
        f(x.copy(), y.copy())
        return None
    except Exception as e:  # noqa: BLE001 - whatever NumPy or the program raises
        want = type(e)
    for name, t in made.items():
        msg = _raises_same(name, lambda t=t: t(x.copy(), y.copy()), want)
        if msg:
            return msg
    return ""


def _raises_same(name: str, run, want: type, where: str = "f") -> str | None:
    """None where `run()` raises `want` (what `where` raises), else what the transform `name` did."""
    try:
        run()
    except want:
        return None
    except Exception as e:  # noqa: BLE001 (the class is the finding)
        return f"{name} raised {type(e).__name__} where {where} raises {want.__name__}"
    return f"{name} returned where {where} raises {want.__name__}"


def p_global(mod, x, y, rng):
    """A transformed object, a new one and jit see a changed global G. The reference after the
    change is central differences (no compile; a stale derivative, the one before the change, is
    at least 1e-4 away from them, and they must agree to 1e-5); where G moves the Jacobian less than
    that, f is not smooth at the new G, or f calls transforms itself (its calls cost more than a
    compile), the reference is jacrev compiled from empty caches."""
    if "G" not in mod.SOURCE.split("G = ", 1)[1]:
        return None  # the program never reads G
    cheap = "s2s." not in mod.SOURCE.split("def f(", 1)[1]  # (f calls no transform: 37 calls cost less than a compile)
    tf = s2s.jacrev(mod.f, argnums=(0, 1))
    before = tf(x, y)
    mod.G = 0.55
    try:
        raised = _raises_too(mod.f, x, y, {"the old jacrev object": tf, "a new jacrev": s2s.jacrev(
            mod.f, argnums=(0, 1)), "jit": s2s.jit(mod.f)})
        if raised is not None:  # (f raises at the new G: --seed 5301006 --state --program 185)
            return raised or None
        warm_same = tf(x, y)
        warm_new = s2s.jacrev(mod.f, argnums=(0, 1))(x, y)
        val = s2s.jit(mod.f)(x, y)
        want_val = mod.f(x, y)
        keep: dict = {}
        if cheap and smooth_at(mod.f, x, y, keep) and not close(joined(before), keep["fd"], 1e-4):
            want, tol, what = Differences(mod.f, x, y, keep["fd"]), 1e-5, "central differences"
            want.coarse()  # (at the new G, restored below)
        else:
            clear_caches()
            want, tol, what = joined(s2s.jacrev(mod.f, argnums=(0, 1))(x, y)), 1e-12, "cold"
    finally:
        mod.G = 1.3
    if not close(val, want_val, 1e-12):
        return f"jit(f) after G changed: {flat(val).tolist()} != f {flat(want_val).tolist()}"
    if not close(warm_new, warm_same, 1e-12):
        return f"after G changed, a new jacrev gives {flat(warm_new).tolist()}, the old object " \
               f"{flat(warm_same).tolist()}"
    def agree(j):
        return want.agree(j, tol) if isinstance(want, Differences) else close(j, want, tol)
    shown = flat(want.fd if isinstance(want, Differences) else want).tolist()
    if not agree(joined(warm_new)):
        return f"after G changed, a new jacrev gives {flat(warm_new).tolist()}, {what} {shown}"
    if not agree(joined(warm_same)):
        return f"after G changed, the old jacrev object gives {flat(warm_same).tolist()}, {what} {shown}"


def p_refusal(mod, x, y, rng):
    """The program with `out=` or a module bound twice added: the plain function runs; grad and jvp
    raise an S2SError; jit and vmap raise one or give the plain function's numbers (a wrapper's
    jit may call the wrapped function as it is). A wrong number or another exception fails."""
    prog = mod.PROG
    p = {"n": 1, "i": 0, "b": int(rng.integers(0, 3)), "c": 0.5, "c2": 1.0}
    variant = prog._like(prog.blocks + [("refuse", p, ["x", "y"])])
    vm = load(variant)
    vm.f(x.copy(), y.copy())
    f = vm.f
    xs, ys = np.stack([x, -x]), np.stack([y, y])
    # (reverse mode of f itself: a lambda here would make s2s read and parse this whole file per program)
    reverse = s2s.grad if prog.out == "scalar" else s2s.jacrev
    attempts = {"grad": (lambda: reverse(f)(x, y), None),
                "jvp": (lambda: s2s.jvp(f, (x, y), (x, y)), None),
                "jit": (lambda: s2s.jit(f)(x, y), lambda: f(x.copy(), y.copy())),
                "vmap": (lambda: s2s.vmap(f)(xs, ys), lambda: np.stack([np.asarray(f(a, b)) for a, b in zip(xs, ys)]))}
    for name, (attempt, plain) in attempts.items():
        try:
            got = attempt()
        except s2s.S2SError:
            continue
        if plain is None or not close(got, plain(), 1e-12):
            return f"{name} of a program with {'out=' if p['b'] != 1 else 'a module bound twice'} returned {got!r}"


def _examples(mod, x, y, rng, vary_y, smooth=True):
    """Two examples near (x, y), y shared unless `vary_y`, where f is smooth (with `smooth`; else
    where its values are finite and moderate, all a comparison of values needs: a smoothness check
    costs 25 calls of f, each running the transforms a nested program calls); None where it is not
    (or where s2s has no vmap)."""
    if getattr(s2s, "vmap", None) is None:
        return None
    xs = x + 0.01 * rng.standard_normal((2, N))
    ys = y + 0.01 * rng.standard_normal((2, N)) if vary_y else np.broadcast_to(y, (2, N)).copy()
    if not all((smooth_at if smooth else moderate_at)(mod.f, a, b) for a, b in zip(xs, ys)):
        return None
    return xs, ys


def p_vmap(mod, x, y, rng):
    ex = _examples(mod, x, y, rng, vary_y=False, smooth=False)
    if ex is None:
        return None
    xs, ys = ex
    got = s2s.vmap(mod.f)(xs, ys)
    want = np.stack([np.asarray(mod.f(a, b)) for a, b in zip(xs, ys)])
    if not close(got, want, 1e-10):
        return f"vmap {flat(got).tolist()} != loop {flat(want).tolist()}"


def p_vmap_grad(mod, x, y, rng):
    """vmap(grad(f)) (vmap(jacrev(f)) for a vector output) against a loop of the same transform."""
    ex = _examples(mod, x, y, rng, vary_y=True)
    if ex is None:
        return None
    xs, ys = ex
    d = s2s.grad if mod.OUT == "scalar" else s2s.jacrev
    got = s2s.vmap(d(mod.f, argnums=(0, 1)))(xs, ys)
    want = [d(mod.f, argnums=(0, 1))(a, b) for a, b in zip(xs, ys)]
    want = tuple(np.stack([w[k] for w in want]) for k in range(2))
    if not close(got, want, 1e-9):
        return f"vmap of the derivative {flat(got).tolist()} != loop {flat(want).tolist()}"


class _Ref:
    """A pure-NumPy stand-in for the transforms a program calls inside itself: vmap as a Python
    loop over the examples, grad/jvp/vjp as central differences. It shares no code with s2s's
    transforms (s2s.random's samplers are plain NumPy already)."""

    EPS = 1e-6
    random = s2s.random

    @staticmethod
    def vmap(fun, in_axes=0):
        def run(*args):
            axes = list(in_axes) if isinstance(in_axes, (tuple, list)) else [in_axes] * len(args)
            size = next(np.shape(a)[0] for a, ax in zip(args, axes) if ax == 0)
            return np.stack([np.asarray(fun(*[a[i] if ax == 0 else a for a, ax in zip(args, axes)]))
                             for i in range(size)])
        return run

    @staticmethod
    def _directional(fun, x, v):
        return (np.asarray(fun(x + _Ref.EPS * v)) - np.asarray(fun(x - _Ref.EPS * v))) / (2 * _Ref.EPS)

    @staticmethod
    def grad(fun):
        def run(x):
            x = np.asarray(x, dtype=float)
            return np.reshape([_Ref._directional(fun, x, e) for e in np.eye(x.size)], x.shape)
        return run

    @staticmethod
    def jvp(fun, primals, tangents):
        (x,), (v,) = primals, tangents
        return fun(x), _Ref._directional(fun, np.asarray(x, dtype=float), v)

    @staticmethod
    def vjp(fun, x):
        out = fun(x)
        return out, lambda u: (_Ref.grad(lambda z: np.sum(np.asarray(fun(z)) * u))(x),)


def p_inside_ref(mod, x, y, rng):
    """The program's own calls of transforms (vmap of closures, nested vmaps, grad/jvp/vjp and
    partials inside it) against the loops and differences of _Ref."""
    if "s2s." not in mod.SOURCE.split("def f(", 1)[1]:
        return None
    got = mod.f(x.copy(), y.copy())
    real = mod.s2s
    mod.s2s = _Ref
    try:
        want = mod.f(x.copy(), y.copy())
    finally:
        mod.s2s = real
    if not close(got, want, 1e-6):
        return f"f with s2s's transforms inside {flat(got).tolist()} != with loops and differences {flat(want).tolist()}"


# the transforms of the property `state` that cost the most to compile (each is compiled again at
# every state): a program checks one of them, drawn per program, with all the others
STATE_COSTLY = ("hessian", "jacfwd", "jit_derivative")


def _state_transforms(mod, scalar: bool, costly: str | None = None) -> dict:
    """The transforms of `mod.f(x, y)` as functions of (x, y, u, v), every one but those of
    STATE_COSTLY other than `costly` (all of them when it is None), and jit of `mod.f_static` with
    its static argument: the objects are made here, once (jvp and vjp are calls; each makes its
    transform anew)."""
    f = mod.f
    d = s2s.grad if scalar else s2s.jacrev
    make = {"jacrev": lambda: d(f, argnums=(0, 1)), "jacfwd": lambda: s2s.jacfwd(f, argnums=(0, 1)),
            "jit": lambda: s2s.jit(f), "jit_derivative": lambda: s2s.jit(d(f, argnums=(0, 1))),
            "vmap": lambda: s2s.vmap(f, in_axes=(0, None)), "hessian": lambda: s2s.hessian(f)}
    out = {k: m() for k, m in make.items() if (scalar or k != "hessian")
           and (costly is None or k == costly or k not in STATE_COSTLY)}
    return {k: (lambda x, y, u, v, t=t: t(x, y)) if k != "vmap" else
            (lambda x, y, u, v, t=t: t(np.stack([x, x[::-1]]), y)) for k, t in out.items()} | {
        "jvp": lambda x, y, u, v: s2s.jvp(f, (x, y), u),
        "vjp": lambda x, y, u, v: (lambda o, pull: (o, pull(v)))(*s2s.vjp(f, x, y))} | ({
        "jit_static": lambda x, y, u, v, t=s2s.jit(mod.f_static, static_argnums=2): t(x, y, "half")}
        if hasattr(mod, "f_static") else {})


def _raises_at(f, rows, y) -> type | None:
    """The class of what `f` raises at one of `rows` (a loop over vmap's examples), or None."""
    for r in rows:
        try:
            f(r.copy(), y.copy())
        except Exception as e:  # noqa: BLE001 (any error f raises, vmap must raise too)
            return type(e)
    return None


def _state_check(made: dict, mod, x, y, rng) -> str | None:
    """The transforms in `made` against the plain function now: derivatives with central
    differences, jit with f, vmap with a loop; None, or what differs."""
    f = mod.f
    ref = Differences(f, x, y)
    value = f(x.copy(), y.copy())
    u = (np.linspace(-1.0, 1.0, N), np.linspace(0.5, -0.5, N))
    v = np.linspace(1.0, 2.0, np.size(value)).reshape(np.shape(value)) if np.ndim(value) else 1.5
    rows = np.stack([x, x[::-1]])
    for name, run in made.items():
        if name == "vmap" and (raised := _raises_at(f, rows, y)) is not None:  # a loop raises: so must vmap
            msg = _raises_same(name, lambda: run(x.copy(), y.copy(), u, v), raised, "a loop")
            if msg:
                return msg
            continue
        got = run(x.copy(), y.copy(), u, v)
        if name in ("jacrev", "jacfwd", "jit_derivative"):
            got = joined(got)
            ok = ref.agree(got, 1e-5)
        elif name == "jvp":
            ok = close(got[0], value, 1e-12) and ref.agree(got[1], 1e-5, lambda j: j @ np.concatenate(u))
        elif name == "vjp":
            ok = close(got[0], value, 1e-12) and ref.agree(got[1], 1e-5, lambda j: np.ravel(v) @ j)
        elif name == "hessian":
            ok = close(got, fd_hessian(f, x, y), 1e-4)
        elif name == "jit":
            ok = close(got, value, 1e-12)
        elif name == "jit_static":
            ok = close(got, 0.5 * np.asarray(value), 1e-12)
        else:  # vmap: a loop (where f is smooth at both rows)
            ok = not all(smooth_at(f, r, y) for r in rows) or close(got, np.stack([f(r, y) for r in rows]), 1e-10)
        if not ok:
            return f"{name} gives {flat(got).tolist()}"
    return None


def p_state(mod, x, y, rng):
    """Compiled code never keeps a value it read once (issue 44, family 1): the transforms made
    before the state the program reads changes (`_mutate()`: a class attribute, a method on the
    class, a config object's and a dict's entries, a list of layers, a layer's weights, `__slots__`
    and `__getattr__` objects, np.tanh), and new ones, agree with the plain function at each state,
    also once it is set back (`_restore()`). Each program checks the cheap transforms and one of
    STATE_COSTLY, drawn: every transform is compiled again at each state."""
    if getattr(mod, "_mutate", None) is None:
        return None
    scalar = mod.OUT == "scalar"
    costly = [k for k in STATE_COSTLY if scalar or k != "hessian"]
    costly = costly[int(rng.integers(len(costly)))]
    held = _state_transforms(mod, scalar, costly)
    msg = _state_check(held, mod, x, y, rng)
    if msg:
        return f"before the state changed: {msg}"
    try:
        mod._mutate()
        if not smooth_at(mod.f, x, y):
            return None
        for made, when in ((held, "made before"), (_state_transforms(mod, scalar, costly), "made after")):
            msg = _state_check(made, mod, x, y, rng)
            if msg:
                return f"after the state changed, transforms {when}: {msg}"
    finally:
        mod._restore()
        np.tanh = ORIGINAL_TANH
    msg = _state_check(held, mod, x, y, rng)
    return f"after the state was set back: {msg}" if msg else None


# (in the order they run: `global` and `cache` empty the compile caches, so they come last and the
# others reuse what the earlier ones compiled)
PROPERTIES = {"grad_fd": p_grad_fd, "jvp_vjp": p_jvp_vjp, "jacfwd_jacrev": p_jac, "hessian": p_hessian,
              "vjp_twice": p_vjp_twice, "purity": p_purity, "jit": p_jit, "vmap": p_vmap,
              "inside_ref": p_inside_ref, "state": p_state, "refusal": p_refusal, "global": p_global,
              "cache": p_cache}
# opt-in (--props): known gaps remain (ops that vmap batches by a loop over the examples have no
# derivative there), so the campaign's default set leaves them out until they are closed
OPTIONAL = {"vmap_grad": p_vmap_grad}


# ---------------------------------------------------------------- driver

def draw_inputs(rng: np.random.Generator):
    return rng.uniform(-1.0, 1.0, N), rng.uniform(-1.0, 1.0, N)


def prepare(prog: Program, seed: int):
    """(module, x, y) where the program runs and is smooth, or None."""
    try:
        mod = load(prog)
    except Exception:
        return None
    mod.OUT, mod.SOURCE, mod.PROG, mod.FD = prog.out, prog.source(), prog, {}
    rng = np.random.default_rng(seed)
    for _ in range(3):
        x, y = draw_inputs(rng)
        if smooth_at(mod.f, x, y, mod.FD):
            return mod, x, y
    return None


def _inside_crash(prog: Program, seed: int) -> str | None:
    """A program that calls transforms inside itself and raises where the same program with the
    loops and differences of _Ref runs: s2s's failure (a skip would hide it), as a message."""
    try:
        mod = load(prog)
    except Exception:
        return None
    if "s2s." not in prog.source().split("def f(", 1)[1]:
        return None
    x, y = draw_inputs(np.random.default_rng(seed))
    real = mod.s2s
    try:
        mod.s2s = _Ref
        with np.errstate(all="ignore"):
            mod.f(x.copy(), y.copy())
    except Exception:
        return None
    finally:
        mod.s2s = real
    try:
        with np.errstate(all="ignore"):
            mod.f(x.copy(), y.copy())
    except Exception as exc:
        return f"f raises with s2s's transforms inside, not with loops and differences: {type(exc).__name__}: " \
               f"{str(exc).splitlines()[-1] if str(exc) else ''}"
    return None


def run_property(name: str, mod, x, y, seed: int):
    """None if the property holds, else a one-line message."""
    rng = np.random.default_rng(seed + 1)
    prop = {**PROPERTIES, **OPTIONAL}.get(name)
    if prop is None:  # (numpy_error: checked by check_program where NumPy raises, holds elsewhere)
        return None
    try:
        with np.errstate(all="ignore"):
            msg = prop(mod, x.copy(), y.copy(), rng)
    except Exception as exc:  # an internal error is a failure of that property
        tb = traceback.extract_tb(exc.__traceback__)
        where = f"{os.path.basename(tb[-1].filename)}:{tb[-1].lineno}" if tb else "?"
        lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
        text = " | ".join([lines[0], lines[-1]] if len(lines) > 1 else lines)  # an S2SError's place and reason
        return f"{type(exc).__name__}: {text} (at {where})"
    return msg


# the properties whose reference is central differences of f
FD_PROPS = ("grad_fd", "hessian", "state", "global", "vmap_grad")


def roundoff_cone(mod, x, y) -> bool:
    """s2s's reverse Jacobian at (x, y) and at two points 1e-7 away differ by more than 1e-3 of its
    size (or are not finite there): f's derivative depends on roundoff at (x, y), as for np.std or
    np.linalg.norm of a vector whose entries are equal up to the last bits, or sqrt of a value
    within a few ulps of 0 (a cone at a roundoff direction, which central differences cannot see),
    so f counts as not smooth there. A wrong rule gives the same wrong Jacobian at the three points."""
    def jac(a, b):
        return joined(s2s.jacrev(mod.f, argnums=(0, 1))(a, b))
    steps = np.random.default_rng(0).standard_normal((2, 2 * N)) * 1e-7
    try:
        with np.errstate(all="ignore"):
            at = jac(x.copy(), y.copy())
            near = [jac(x + d[:N], y + d[N:]) for d in steps]
    except Exception:
        return False
    return any(not np.all(np.isfinite(j)) or not close(j, at, 1e-3) for j in near)


def raising(prog: Program) -> bool:
    """Whether NumPy refuses a block of `prog`: a keyword call (fuzz_keywords) or an update in place
    (INPLACE_LINES from INPLACE_RAISES on), so that the program raises."""
    return fuzz_keywords.raising(prog) or any(b[0] == "inplace" and b[1].get("form", 0) >= INPLACE_RAISES
                                              for b in prog.blocks)


def check_program(prog: Program, seed: int, props) -> dict[str, str] | None:
    """Failing properties with messages; None when the program was skipped (not smooth)."""
    ready = prepare(prog, seed)
    if ready is None:
        if raising(prog):  # NumPy refuses a keyword call or an update in place: so must every transform
            x, y = draw_inputs(np.random.default_rng(seed))
            msg = fuzz_keywords.numpy_error_check(load(prog).f, x, y, s2s)
            return {"numpy_error": msg} if msg else {}
        crash = _inside_crash(prog, seed) if "inside_ref" in props else None
        return {"inside_ref": crash} if crash else None
    mod, x, y = ready
    fails = {}
    for name in props:
        msg = run_property(name, mod, x, y, seed)
        if msg:
            fails[name] = msg
    if fails and set(fails) <= set(FD_PROPS) and roundoff_cone(mod, x, y):
        return None  # (not smooth: the derivative at (x, y) is roundoff's)
    return fails


def shrink(prog: Program, seed: int, prop: str, budget: int = 60, budget_s: float = 30.0) -> tuple[Program, str]:
    """A smaller program on which `prop` still fails (greedy, at most `budget` attempts and about
    `budget_s` CPU seconds: a failure no candidate keeps would otherwise check all `budget` of them,
    each a program's compiles, a few minutes per property)."""
    best, msg = prog, None
    tries = 0
    progress = True
    end = time.process_time() + budget_s
    while progress and tries < budget:
        progress = False
        for cand in best.shrink_candidates():
            tries += 1
            if tries > budget or time.process_time() > end:
                break
            fails = check_program(cand, seed, [prop])
            if fails and prop in fails:
                best, msg, progress = cand, fails[prop], True
                break
    return best, msg


def inputs_source(seed: int, prog: Program) -> str:
    ready = prepare(prog, seed)
    if ready is None:
        return "(inputs: none smooth)"
    _, x, y = ready
    return f"x = np.array({x.tolist()!r}); y = np.array({y.tolist()!r})"


def campaign(n: int, seed: int, props=None, do_shrink: bool = True, out=sys.stdout, verbose: bool = True,
             max_shrink: int = 5, nested: bool = False, only: int | None = None, state: bool = False,
             views: bool = False, keywords: bool = False, budget_s: float | None = None,
             summary: dict | None = None):
    """Run `n` programs; returns (checked, skipped, failures) with failures a list of dicts. The
    first `max_shrink` failures of each property are shrunk, the rest printed as drawn. With
    `only`, program number `only` of the seed is drawn and checked alone (to reproduce it). With
    `budget_s`, no program is drawn once that many seconds have passed. `summary`, if given, is
    filled with the counts: programs drawn, checked, skipped (not smooth), refused (s2s's sound
    refusal: an in-place update a view sees, a keyword call), numpy_error (NumPy refuses a keyword
    call and every transform raised too), failures by property, seconds, CPU seconds (the cost a
    campaign pays per program)."""
    props = list(props or PROPERTIES)
    rng = random.Random(seed)
    failures, checked, skipped, refused, numpy_error, drawn = [], 0, 0, 0, 0, 0
    by_prop: Counter = Counter()
    start, cpu_start = time.time(), time.process_time()
    for k in range(n if only is None else only + 1):
        if budget_s is not None and only is None and time.time() - start >= budget_s:
            break
        prog = gen_program(rng, nested, state, views, keywords)
        pseed = seed * 1_000_003 + k
        if only is not None and k != only:
            continue
        drawn += 1
        fails = check_program(prog, pseed, props)
        if fails is None:
            skipped += 1
            continue
        if fails and (all(VIEW_REFUSAL.search(m) for m in fails.values()) or fuzz_keywords.sound_refusal(prog, fails)):
            refused += 1
            continue
        checked += 1
        numpy_error += bool((keywords or views) and not fails and raising(prog))
        if verbose and (k + 1) % 50 == 0:
            print(f"[{k + 1}/{n}] {checked} checked, {sum(by_prop.values())} failures, "
                  f"{time.time() - start:.0f} s", file=sys.stderr, flush=True)
        for prop, msg in fails.items():
            by_prop[prop] += 1
            shrink_it = do_shrink and by_prop[prop] <= max_shrink
            small, smsg = shrink(prog, pseed, prop) if shrink_it else (prog, None)
            rec = {"program": k, "seed": seed, "property": prop, "message": smsg or msg, "source": small.source(),
                   "inputs": inputs_source(pseed, small)}
            failures.append(rec)
            if verbose:
                print(f"\n=== FAIL program {k} property {prop}: {rec['message']}", file=out)
                print(rec["source"] + "# " + rec["inputs"], file=out)
    elapsed = time.time() - start
    if summary is not None:
        summary.update(drawn=drawn, checked=checked, skipped=skipped, refused=refused, numpy_error=numpy_error,
                       failures=dict(by_prop), seconds=round(elapsed, 1),
                       cpu_seconds=round(time.process_time() - cpu_start, 1))
    if verbose:
        print(f"\n{checked} programs checked ({numpy_error} where NumPy raises and so did every transform), "
              f"{skipped} skipped (not smooth), {refused} refused (an in-place update a view sees, or a keyword "
              f"call s2s refuses at its line), {len(failures)} failures in {elapsed:.1f} s; failing programs by "
              f"property: {dict(by_prop)}", file=out)
    return checked, skipped, failures


def main(argv=None) -> int:
    s2s.config.update("traceback", "full")  # a failure's "(at FILE:LINE)": the frame inside s2s that raised
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--props", default="", help="comma-separated properties among " + ",".join([*PROPERTIES, *OPTIONAL])
                    + " (default: all but the optional " + ",".join(OPTIONAL) + ")")
    ap.add_argument("--no-shrink", action="store_true")
    ap.add_argument("--max-shrink", type=int, default=5, help="shrink at most this many failures per property")
    ap.add_argument("--nested", action="store_true", help="every program calls a transform inside itself "
                    "(" + ", ".join(NESTED_KINDS) + ")")
    ap.add_argument("--state", action="store_true", help="every program reads a value from mutable state "
                    "(a class, a config object, a dict, a list, a layer, __slots__/__getattr__ objects, np.tanh), "
                    "which the property `state` changes between two calls of each transform")
    ap.add_argument("--views", action="store_true", help="every program holds one or two casts (to int and "
                    "bool: no derivative), NumPy views (reshape, slices, asarray, astype(copy=False), a row "
                    "swap) or updates in place `a op= v` of int, float32 and float64 arrays (some of which NumPy "
                    "refuses), which the transforms must treat as NumPy does")
    ap.add_argument("--keywords", action="store_true", help="every program holds one or two calls of a known "
                    "operation with a keyword at a value other than NumPy's default, drawn from its signature "
                    "(tools/fuzz_keywords.py): refused at the call by every transform, raised by every transform "
                    "where NumPy raises, or right")
    ap.add_argument("--program", type=int, default=None, help="check only this program of the seed (a "
                    "failure's number, to reproduce it; the other options as in the run that found it)")
    ap.add_argument("--budget-s", type=float, default=None, help="draw no program after this many seconds "
                    "(the counts say how many were done)")
    ap.add_argument("--json", default=None, help="write the counts and failures as JSON to this file")
    ap.add_argument("--quiet", action="store_true", help="no progress and no failing sources on the output")
    ap.add_argument("--campaign", type=int, default=0, metavar="WORKERS", help="run this many worker processes "
                    "(tools/fuzz_campaign.py), each with its own seed and one generator of --mix, and merge "
                    "their counts into one summary")
    ap.add_argument("--mix", default="default,state,views,keywords,nested", help="the campaign's generators, "
                    "assigned to the workers in turn (default, state, views, keywords, nested)")
    a = ap.parse_args(argv)
    if a.campaign:
        import fuzz_campaign
        return fuzz_campaign.run(a.campaign, a.n, a.seed, [g for g in a.mix.split(",") if g],
                                 a.budget_s if a.budget_s is not None else 500.0, a.json, a.props)
    props = [p for p in a.props.split(",") if p] or None
    summary: dict = {}
    _, _, failures = campaign(a.n, a.seed, props, not a.no_shrink, max_shrink=a.max_shrink, nested=a.nested,
                              only=a.program, state=a.state, views=a.views, keywords=a.keywords,
                              budget_s=a.budget_s, summary=summary, verbose=not a.quiet)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"seed": a.seed, **summary, "failing": failures}, fh, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
