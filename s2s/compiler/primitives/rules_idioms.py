"""Primitives behind Python idioms (s2s/compiler/frontend/call_idioms.py, dict_calls.py, sampling.py).

`ext.s2s_sample` calls a random sampler (a NumPy random function, a RandomState or Generator
method, or the constructor of one) once, where the plain function calls it. Its arguments have no
derivative rule on purpose: a sampler whose parameters depend on a differentiated argument
(`rs.normal(loc, scale)`) is reported, and the user writes `loc + scale * rs.standard_normal(...)`.
`ext.s2s_keys` (a dict's keys, in order) carries no derivative.
"""
from __future__ import annotations

import numpy as np

from ...base import record
from ...errors import S2SError, S2STypeError
from .registry import EXT, RULE_NAMES, defvjp, nondiff, prim


def s2s_sample(sampler, args, kw):
    """`sampler(*args, **kw)`; `sampler` is a callable or an (object, method name) pair. Under a
    draw log (s2s.checkpoint) the draw is recorded, or, while the recomputation replays, the
    recorded draw is handed back instead of a new one."""
    replay = next((k for k in range(len(_DRAW_LOGS) - 1, -1, -1) if _DRAW_LOGS[k].replaying), None)
    if isinstance(sampler, tuple):
        sampler = getattr(*sampler)
    if replay is not None:
        value = _DRAW_LOGS[replay].next_draw()
        if getattr(sampler, "__self__", None) is _GLOBAL:
            sampler(*args, **(kw or {}))  # (NumPy's global stream, replayed from its state: kept in step)
    else:
        value = sampler(*args, **(kw or {}))
    for log in _DRAW_LOGS[(replay + 1 if replay is not None else 0):]:
        log.draws.append(np.copy(value) if isinstance(value, np.ndarray) else value)
    return value


class DrawLog:
    """The draws a checkpointed function made in its forward sweep, in order, which its
    recomputation in the backward sweep replays (so it sees the same dropout masks, the same
    noise, and leaves the random streams where the plain function leaves them)."""

    __slots__ = ("draws", "replaying", "position", "state", "resume")

    def __init__(self):
        self.draws: list = []
        self.replaying = False
        self.position = 0
        # NumPy's global stream where the forward sweep started (a helper that s2s calls as plain
        # Python draws from it directly: the replay runs it from the same state, then puts it back)
        self.state = _GLOBAL.get_state()
        self.resume = None

    def next_draw(self):
        if self.position >= len(self.draws):
            raise S2SError("s2s.checkpoint: the recomputation of a checkpointed function drew more random numbers "
                           f"than its forward sweep did ({len(self.draws)}); its draws must not depend on the "
                           "cotangent.\nDraw the random numbers outside the checkpointed function and pass them in.")
        value = self.draws[self.position]
        self.position += 1
        return np.copy(value) if isinstance(value, np.ndarray) else value


_DRAW_LOGS: list = []  # the logs open now, innermost last
_GLOBAL = np.random.mtrand._rand  # the RandomState behind np.random.rand, np.random.normal, ...


def s2s_draw_log(x=None):
    """Open a log that records every draw from here (a checkpointed function's forward sweep)."""
    log = DrawLog()
    _DRAW_LOGS.append(log)
    return log


def s2s_draw_replay(log):
    """Open `log` for replay: every draw from here hands back its next recorded draw."""
    log.replaying, log.position = True, 0
    log.resume = _GLOBAL.get_state()
    _GLOBAL.set_state(log.state)
    _DRAW_LOGS.append(log)
    return log


def s2s_draw_end(log):
    """Close `log` (and any log opened after it and left open by an error)."""
    for k in range(len(_DRAW_LOGS) - 1, -1, -1):
        if _DRAW_LOGS[k] is log:
            del _DRAW_LOGS[k:]
            break
    if log.replaying:
        _GLOBAL.set_state(log.resume)
    log.replaying, log.resume = False, None
    return None


def s2s_keys(d):
    """The keys of dict `d`, in insertion order, as a list."""
    if not isinstance(d, dict):  # a name that held a dict elsewhere in the function holds something else
        raise S2SError(f"s2s took this value for a dict (the function builds or uses it as one elsewhere), but "
                       f"it is a {type(d).__name__} here.\nUse separate names for the dict and the other value.")
    return list(d)


def s2s_sorted_keys(d):
    """`sorted(d)` of a dict or of keys (strings, integers): sorting values has no derivative here."""
    keys = list(d)
    if not isinstance(d, dict) and not all(isinstance(k, (str, int, np.integer)) for k in keys):
        raise S2SError("s2s supports `sorted(...)` of a dict's keys (strings or integers) in a transformed "
                       "function, not of numbers or arrays, whose order would carry no derivative.\n"
                       "Sort with `np.sort(x)` (differentiable) instead.")
    return sorted(keys)


def s2s_same(given, expected, message):
    """Check that a function-valued argument is the one the code was specialized on."""
    if given is not expected:
        raise S2STypeError(message)
    return None


def s2s_dict_from(keys, values):
    """`dict(zip(keys, values))`: what a dict comprehension builds."""
    return dict(zip(keys, values))


def s2s_dict_values(d, keys):
    """`[d[k] for k in keys]`, the transpose of s2s_dict_from."""
    return [d[k] for k in keys]


RULE_NAMES.add("ext")
prim("ext.s2s_dict_from", "keys, values", zero_args=("keys",), linear_in=("values",))
defvjp("ext.s2s_dict_from", values="ext.s2s_dict_values(g, keys)")
prim("ext.s2s_dict_values", "d, keys", zero_args=("keys",), linear_in=("d",))
defvjp("ext.s2s_dict_values", d="ext.s2s_dict_from(keys, g)")
prim("ext.s2s_sample", "sampler, *args, **kw", zero_args=("sampler",), effect=True)  # two calls: two draws
nondiff("ext.s2s_keys", "ext.s2s_sorted_keys", sig="d")
# (s2s.checkpoint's draw logs: effects, never removed, moved or merged)
nondiff("ext.s2s_draw_log", "ext.s2s_draw_replay", "ext.s2s_draw_end", sig="x=None", effect=True)
nondiff("ext.s2s_same", sig="given, expected, message", effect=True)  # a check that raises
for _f in (s2s_same, s2s_sample, s2s_keys, s2s_sorted_keys, s2s_dict_from, s2s_dict_values, s2s_draw_log,
           s2s_draw_replay, s2s_draw_end):
    record.attach(_f, prim="ext." + _f.__name__)
EXT.s2s_sample = s2s_sample
EXT.s2s_draw_log = s2s_draw_log
EXT.s2s_draw_replay = s2s_draw_replay
EXT.s2s_draw_end = s2s_draw_end
EXT.s2s_same = s2s_same
EXT.s2s_dict_from = s2s_dict_from
EXT.s2s_dict_values = s2s_dict_values
EXT.s2s_keys = s2s_keys
EXT.s2s_sorted_keys = s2s_sorted_keys

