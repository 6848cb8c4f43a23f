"""Loop vectorization: a `for i in range(...)` loop whose iterations are independent becomes its
body batched over the vector of index values (vmap's batching, handed in by the driver as
`known["vectorize"]`), then stacked or scattered.

A loop qualifies when its body, at its top level, only appends to lists that the loop's block
created empty and turns into an array after it (`t = np.array(L)`), or writes `A[i] = v` /
`A[c, i, ...] = v` (one write per array, the loop index in the key, the rest loop-invariant, `A`
not read in the body); when it reads no variable that an earlier iteration assigned, assigns
nothing that is read after the loop, and has no break/continue/return, call of a user function,
draw or other side effect; and when its arithmetic on Python ints means the same over the int64
index vector (`_ints_agree`: `2 ** i` would wrap, `(i + 1) / d` give inf where the loop raises).
When in doubt the loop stays. Under vmap (`known["batched"]`: the
per-example variables) a loop whose range is per example stays a (masked) loop.

Before::

    output = []
    for i in range(1, t1):
        t2 = i - 1
        t3 = i + 2
        t4 = x[t2:t3]
        t5 = xp.dot(t4, w)
        output.append(t5)
    t6 = xp.array(output)

After::

    output = []
    batch_size = rt.loop_trip_count(1, t1, 1)
    i = xp.arange(1, t1, 1)
    t2 = i - 1
    t3 = i + 2
    loop_vectorized0 = rt.loop_vectorizes(batch_size, x, slice(t2, t3, None), True, None, None, None, None, None, None, (),
                                          (),
                        (output, w, x))
    if loop_vectorized0:
        t4 = rt.loop_windows(x, slice(t2, t3, None), True, 'ex.py:6')
        t5 = rt.batched_dot((True, False), t4, w)
        loop_rows0 = t5
        t6 = rt.loop_list_array(loop_rows0, batch_size)
    else:
        for i in range(1, t1):
            t2 = i - 1
            t3 = i + 2
            t4 = x[t2:t3]
            t5 = xp.dot(t4, w)
            output.append(t5)
        t6 = xp.array(output)

`rt.loop_windows` takes the windows x[i-1:i+2] of every i at once (a strided view; the last
argument names the line for its error message); `rt.loop_vectorizes`
says whether the vectorized branch may run: at least one iteration, and windows of one length
(a window clipped at an end of `x` is shorter: then the loop runs as written, as it does for no
iterations when it takes windows, whose length is then unknown).
"""
from __future__ import annotations

import gast

from ...errors import S2SError
from .. import analysis
from ..ir import build
from ..ir.names import Namer
from ..primitives import registry
from .base import Pass, pure


def _stacks(call) -> bool:
    """Whether a call builds an array from a list of arrays (`np.array(rows)`: their stack)."""
    p = registry.lookup(analysis.dotted(call.func))
    return p is not None and p.stacks


def _append(s):
    """(list, value) of `L.append(v)`."""
    if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) and isinstance(s.value.func, gast.Attribute) \
            and s.value.func.attr == "append" and isinstance(s.value.func.value, gast.Name) \
            and len(s.value.args) == 1 and not s.value.keywords:
        return s.value.func.value.id, s.value.args[0]
    return None


def _write(s):
    """(array, key) of `A[key] = v`."""
    if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Subscript) \
            and isinstance(s.targets[0].value, gast.Name):
        return s.targets[0].value.id, s.targets[0].slice
    return None


def _range(loop):
    it = loop.iter
    if loop.orelse or not isinstance(loop.target, gast.Name) or not isinstance(it, gast.Call) \
            or analysis.dotted(it.func) != "range" or not 1 <= len(it.args) <= 3 or it.keywords \
            or not all(build.is_atom(a) for a in it.args):
        return None
    return list(it.args)


def _key_axis(key, index, assigned):
    """The axis the loop index selects in write key `key`, or None when the key is not the index
    at one place with loop-invariant plain parts elsewhere (ints only before it)."""
    parts = key.elts if isinstance(key, gast.Tuple) else [key]
    hits = [k for k, p in enumerate(parts) if isinstance(p, gast.Name) and p.id == index]
    if len(hits) != 1:
        return None
    p = hits[0]
    for k, part in enumerate(parts):
        if k == p:
            continue
        names = analysis.loads(part)
        if index in names or assigned & set(names):
            return None
        if k < p and not (isinstance(part, gast.Constant) and type(part.value) is int
                          or isinstance(part, gast.Name)):  # a name: checked to hold an int (rt.loop_vectorizes)
            return None
        if isinstance(part, gast.Constant) and (part.value is None or part.value is Ellipsis):
            return None
    return p


class _Loop:
    """What the analysis found about one loop: its range, the lists it fills, the arrays it writes
    (and which of those it writes only under an `if`)."""

    def __init__(self, args, lists, writes, nested):
        self.args, self.lists, self.writes, self.nested = args, lists, writes, nested


def _independent(loop, batched):
    """(range arguments, names the body assigns) of a `for i in range(...)` loop whose range is
    unbatched and whose body reads nothing an earlier iteration wrote; else None. (What `_analyse`
    checks first, without the liveness analysis.)"""
    args = _range(loop)
    if args is None or any(isinstance(a, gast.Name) and a.id in batched for a in args):
        return None
    assigned = _assigned(loop.body)
    if loop.target.id in assigned or analysis.exposed(loop.body) & assigned:
        return None
    return args, assigned


def _analyse(loop, block, j, uses, live_after, batched, root, numbers=frozenset()) -> _Loop | None:
    """The loop at `block[j]` if its iterations are independent and its results usable, else None
    (`numbers`: names known to hold no Python int, `_ints_agree`)."""
    pre = _independent(loop, batched)
    if pre is None or not _ints_agree(loop, numbers):
        return None
    args, assigned = pre
    index, body = loop.target.id, loop.body
    if any(_read_outside(v, root, loop) for v in assigned | {index} if v in live_after):
        return None
    lists, writes, counts, fills, nested = {}, {}, {}, [], set()
    for s, name, part, kind, at_top in _fills_of(body):
        if name in assigned or name in (writes if kind == "append" else lists):
            return None
        if kind == "append":
            if name in lists or not at_top:
                return None
            lists[name] = part
        else:
            axis = _key_axis(part, index, assigned)
            if axis is None or name in writes and gast.dump(writes[name][1]) != gast.dump(part):
                return None
            writes[name] = (axis, part)
            nested |= set() if at_top else {name}
        counts[name] = counts.get(name, 0) + 1
        fills.append(s)
    for s in analysis.walk_stmts(body):
        if isinstance(s, (gast.Break, gast.Continue, gast.Return, gast.Expr)) and not build.is_comment(s) \
                and not any(s is f for f in fills):
            return None
        if isinstance(s, gast.Assign):
            if isinstance(s.targets[0], gast.Subscript) and not any(s is f for f in fills):
                return None
            if not isinstance(s.targets[0], gast.Subscript) and not pure(s.value):
                return None
    if not lists and not writes:
        return None
    for name, c in counts.items():  # the loop touches them only where it fills them
        if sum(1 for s in body for n in analysis.loads(s) if n == name) != c:
            return None
    for name in lists:
        if not _fills(block, j, name, uses):
            return None
    return _Loop(args, lists, writes, nested)


_SMALL = 1 << 31  # an int constant times an index-like value: far from int64's range


def _ints_agree(loop, numbers) -> bool:
    """Whether the loop's arithmetic on Python ints means the same over the int64 index vector:
    sums, differences and small multiples of the index, a square of one, floor division and
    remainder by a nonzero constant. A product of ints that may grow without bound (`2 ** i`,
    `i * i * i`, `a * i` for an int `a` from outside) wraps in int64 where Python's is exact, and
    a division by a value that may be zero gives inf where Python raises: such a loop stays.
    `numbers`: names known to hold no Python int (float arguments, arrays)."""
    ints = {loop.target.id: True}  # maybe a Python int -> index-like (its size bounded by the trip count's)
    assigned = _assigned(loop.body)

    def kind(e):
        """None: no Python int; else whether it is index-like."""
        if isinstance(e, gast.Constant):
            return (abs(e.value) < _SMALL) if type(e.value) is int else None
        if isinstance(e, gast.Name):
            if e.id in ints:
                return ints[e.id]
            return None if e.id in numbers or e.id in assigned else False  # from outside: any int
        return False

    for st in analysis.walk_stmts(loop.body):
        if not (isinstance(st, gast.Assign) and isinstance(st.targets[0], gast.Name)):
            continue
        v, out = st.value, None
        if isinstance(v, (gast.Name, gast.Constant)):
            out = kind(v)
        elif isinstance(v, gast.UnaryOp) and isinstance(v.op, (gast.USub, gast.UAdd)):
            out = kind(v.operand)
        elif isinstance(v, gast.BinOp) and None not in (sides := (kind(v.left), kind(v.right))):
            (left, right), op = sides, v.op
            nonzero = isinstance(v.right, gast.Constant) and v.right.value != 0
            if isinstance(op, (gast.Add, gast.Sub)):
                out = left and right
            elif isinstance(op, gast.Mult) and (left and right and (isinstance(v.left, gast.Constant)
                                                                     or isinstance(v.right, gast.Constant))):
                out = True
            elif isinstance(op, gast.Mult) and left and right and loop.target.id in (
                    getattr(v.left, "id", None), getattr(v.right, "id", None)):
                out = False  # i * k, k index-like: at most the trip count squared
            elif isinstance(op, gast.Pow) and left and isinstance(v.right, gast.Constant) and v.right.value in (0, 1, 2):
                out = False
            elif isinstance(op, (gast.FloorDiv, gast.Mod)) and nonzero:
                out = left
            elif isinstance(op, gast.Div) and nonzero:
                out = None
            elif isinstance(op, (gast.RShift, gast.BitAnd)) and left is not None:
                out = False
            else:
                return False
        elif isinstance(v, gast.Call) and (_int_call(v) or analysis.dotted(v.func) == "round"):
            out = False if _int_call(v) != "keep" or not v.args else kind(v.args[0])
        if out is not None:
            ints[st.targets[0].id] = out
        else:
            ints.pop(st.targets[0].id, None)
    return True


def _int_call(v) -> str:
    """"int": call `v` is a Python int whatever its arguments (len, int); "keep": when its argument
    is one (abs); "": neither (the declarations' `number_result`)."""
    p = registry.lookup(analysis.dotted(v.func) or "")
    return p.number_result if p is not None and p.number_result in ("int", "keep") else ""


def _read_outside(name, stmts, loop) -> bool:
    """Whether `name` is read outside `loop` other than in the body of a loop that rebinds it as
    its index (the liveness analysis counts a loop's index as live at its head)."""
    for s in stmts:
        if s is loop:
            continue
        if isinstance(s, gast.For):
            if name in analysis.loads(s.iter) or s.target.id != name and _read_outside(name, s.body, loop):
                return True
        elif isinstance(s, (gast.If, gast.While)):
            if name in analysis.loads(s.test) or _read_outside(name, s.body, loop) or _read_outside(name, s.orelse, loop):
                return True
        elif name in analysis.loads(s):
            return True
    return False


def _fills_of(stmts, at_top=True) -> list:
    """(statement, list or array, value or key, "append" or "write", at the top level) of each
    `L.append(v)` and `A[key] = v` in a loop body, at its top level or inside its ifs (not inside
    inner loops): one scan finds both kinds of result a loop may fill."""
    out = []
    for s in stmts:
        app, wr = _append(s), _write(s)
        if app is not None:
            out.append((s, *app, "append", at_top))
        elif wr is not None:
            out.append((s, *wr, "write", at_top))
        elif isinstance(s, gast.If):
            out += _fills_of(s.body, False) + _fills_of(s.orelse, False)
    return out


def _fills(block, j, name, uses) -> bool:
    """Whether list `name` is made empty before the loop in `block` and read only by one
    `t = np.array(name)` after it there (so the loop's values can go straight into `t`)."""
    made = [k for k in range(j) if isinstance(block[k], gast.Assign) and isinstance(block[k].targets[0], gast.Name)
            and block[k].targets[0].id == name and isinstance(block[k].value, gast.List) and not block[k].value.elts]
    if not made or any(name in analysis.loads(s) or name in analysis.targets(s) for s in block[made[-1] + 1:j]):
        return False
    if uses.get(name, 0) != 2:  # the append and the stacking
        return False
    k = _stacker(block, j, name)
    if k is None:
        return False
    target = block[k].targets[0].id
    return not any(target in analysis.loads(s) or target in analysis.targets(s) for s in block[j + 1:k])


def _stacker(block, j, name):
    for k in range(j + 1, len(block)):
        s = block[k]
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Call) \
                and _stacks(s.value) and len(s.value.args) == 1 and not s.value.keywords \
                and isinstance(s.value.args[0], gast.Name) and s.value.args[0].id == name:
            return k
        if name in analysis.loads(s):
            return None
    return None


def _pays(stmts, batched) -> bool:
    """Whether the batched body is vectorized code (no per-index fallback loop; under vmap, only
    helpers that vmap batches again without a loop over examples)."""
    for s in analysis.walk_stmts(stmts):
        for node in gast.walk(s):
            if isinstance(node, gast.Call):
                kind = analysis.dotted(node.func) or ""
                if kind == "rt.map_examples":
                    return False
                rule = registry.BATCH.get(kind)
                p = registry.lookup(kind)
                if batched is not None and rule is not None and rule.kind == "loop" and not (p and p.nested_ok):
                    return False
    return True


def _hoist_bounds(stmts):
    """(statements computing every window's bounds, moved to the front, and the windows' (x, index,
    flags) atoms), or None when a window or its bounds sit under control flow."""
    wins, needed = [], set()
    for s in analysis.walk_stmts(stmts):
        if isinstance(s, gast.Assign) and isinstance(s.value,
                                                     gast.Call) and analysis.dotted(s.value.func) == "rt.loop_windows":
            if s not in stmts or len(wins) == 3:
                return None
            wins.append(s.value.args[:3])
            needed.update(analysis.loads(s.value.args[0]) + analysis.loads(s.value.args[1]))
    if not wins:
        return [], wins
    first = min(k for k, s in enumerate(stmts) if isinstance(s, gast.Assign) and isinstance(s.value, gast.Call)
                and analysis.dotted(s.value.func) == "rt.loop_windows")
    hoisted = []
    for k in range(len(stmts) - 1, -1, -1):
        s = stmts[k]
        hit = set(_assigned([s])) & needed
        if not hit:
            continue
        if k > first or not isinstance(s, gast.Assign) or not isinstance(s.targets[0], gast.Name) \
                or not pure(s.value):
            return None
        needed.update(analysis.loads(s.value))
        hoisted.append(k)
    moved = [stmts[k] for k in sorted(hoisted)]
    for k in sorted(hoisted, reverse=True):
        del stmts[k]
    return moved, wins


def _assigned(stmts) -> set[str]:
    return {t for s in analysis.walk_stmts(stmts) for t in analysis.targets(s)}


def _vectorize(loop, block, j, info, vectorize, namer, batched):
    """(statements replacing the loop, indices of the stacking statements they absorb), or None."""
    index = loop.target.id
    args = info.args
    full = [build.const(0)] * (len(args) == 1) + args + [build.const(1)] * (len(args) < 3)
    outs = {lst: namer.fresh("loop_rows") for lst in info.lists}
    vals = {arr: (namer.fresh("loop_values"), key) for arr, (_, key) in info.writes.items()}
    body = [build.assign(vals[arr][0], build.subscript(build.name(arr),
                                                       build.clone(vals[arr][1]))) for arr in sorted(info.nested)]
    # (a write under a condition keeps the old element where the condition is false)
    body += _rewrite(loop.body, outs, vals)
    try:
        n, stmts, bset, ns = vectorize(body, index, namer.taken)
    except S2SError:  # a construct vmap refuses: the loop stays
        return None
    hoist = _hoist_bounds(stmts) if not ns and _pays(stmts, batched) else None
    if hoist is None:
        return None
    moved, wins = hoist
    post, absorbed = [], []
    for lst, row in outs.items():
        if row not in bset:
            post.append(build.assign(row, build.call("rt.replicate_batch", [build.name(row), build.name(n)])))
        k = _stacker(block, j, lst)
        post.append(gast.copy_location(build.assign(block[k].targets[0].id, build.call("rt.loop_list_array",
                                                                                       [build.name(row), build.name(n)])),
                                       block[k]))
        absorbed.append(k)
    for arr, (val, key) in vals.items():
        pos = namer.fresh("loop_positions")
        post.append(build.assign(pos, build.call("rt.loop_index_positions", [build.name(index), build.name(arr),
                                                                             build.const(info.writes[arr][0])])))
        parts = key.elts if isinstance(key, gast.Tuple) else [key]
        new = [build.name(pos) if isinstance(p, gast.Name) and p.id == index else build.clone(p) for p in parts]
        new_key = build.tuple_(new) if isinstance(key, gast.Tuple) else new[0]
        v = build.name(val)
        if val in bset:
            lift = namer.fresh("loop_lifted")
            post.append(build.assign(lift, build.call("rt.loop_slot_rows", [v, build.name(arr), _key_value(new_key)])))
            v = build.name(lift)
        post.append(build.assign(build.subscript(build.name(arr), build.clone(new_key), store_=True), v))
    if not _pays(post, batched):
        return None
    ok = namer.fresh("loop_vectorized")
    head = [build.assign(n, build.call("rt.loop_trip_count", full)), build.assign(index, build.call("xp.arange",
                                                                                                    full))] + moved
    wins = [build.clone(a) for w in wins for a in w]
    wins += [build.const(None)] * (9 - len(wins))
    ints = [build.clone(p) for _, key in info.writes.values() for p in (key.elts if isinstance(key, gast.Tuple) else [])
            if isinstance(p, gast.Name) and p.id != index]
    called = {c.func.id for s in analysis.walk_stmts(loop.body) for c in gast.walk(s)
              if isinstance(c, gast.Call) and isinstance(c.func, gast.Name)}
    reads = sorted(set(analysis.loads(loop.body)) - _assigned(loop.body) - set(info.writes) - called
                   - {index, "xp", "rt"})
    if reads:  # an alias of a written array, or another backend's arrays: the loop as written
        wins += [build.tuple_(ints), build.tuple_([build.name(w) for w in sorted(info.writes)]),
                 build.tuple_([build.name(r) for r in reads])]
    elif ints:
        wins.append(build.tuple_(ints))
    head.append(build.assign(ok, build.call("rt.loop_vectorizes", [build.name(n)] + _trim(wins) if len(wins) == 9
                                            else [build.name(n)] + wins)))
    plain = [loop] + [block[k] for k in sorted(absorbed)]  # the loop as written, when it cannot run vectorized
    head = [gast.copy_location(h, loop) for h in head]
    return head + [gast.copy_location(build.if_(build.name(ok), stmts + post, plain), loop)], absorbed


def _key_value(key):
    """An item key as a value (slices as `slice(...)` calls), to pass it to a helper."""
    if isinstance(key, gast.Slice):
        return build.call("slice", [build.clone(p) if p is not None else build.const(None) for p in (key.lower, key.upper,
                                                                                                     key.step)])
    if isinstance(key, gast.Tuple):
        return build.tuple_([_key_value(e) for e in key.elts])
    return build.clone(key)


def _trim(args):
    while args and isinstance(args[-1], gast.Constant) and args[-1].value is None:
        args = args[:-1]
    return args


def _rewrite(stmts, outs, vals) -> list:
    """A loop body with `L.append(v)` as `row = v` and `A[key] = v` as `val = v` (ifs rebuilt)."""
    out = []
    for s in stmts:
        app, wr = _append(s), _write(s)
        if app is not None:
            out.append(gast.copy_location(build.assign(outs[app[0]], app[1]), s))
        elif wr is not None:
            out.append(gast.copy_location(build.assign(vals[wr[0]][0], s.value), s))
        elif isinstance(s, gast.If):
            out.append(gast.copy_location(build.if_(s.test, _rewrite(s.body, outs, vals), _rewrite(s.orelse, outs, vals)),
                                          s))
        else:
            out.append(s)
    return out


def _block(block, ctx) -> bool:
    changed = False
    for s in block:
        for f in ("body", "orelse"):
            fallback = f == "orelse" and isinstance(s, gast.If) and isinstance(s.test, gast.Name) \
                and s.test.id in ctx["guards"]
            if getattr(s, f, None) and not fallback:
                changed |= _block(getattr(s, f), ctx)
    j = 0
    while j < len(block):
        s = block[j]
        if isinstance(s, gast.For) and not (ctx["kept"] and gast.dump(s) in ctx["kept"]):  # (loopfold's choice)
            info = _analyse(s, block, j, ctx["uses"], ctx["live"].after.get(s, ()), ctx["batched"] or (), ctx["root"],
                            ctx["numbers"])
            new = info and _vectorize(s, block, j, info, ctx["vectorize"], ctx["namer"], ctx["batched"])
            if new:
                stmts, absorbed = new
                for k in sorted(absorbed, reverse=True):
                    del block[k]
                block[j:j + 1] = stmts
                j += len(stmts)
                changed = True
                continue
        j += 1
    return changed


def _numbers(body, known, batched) -> set[str]:
    """Names that hold no Python int: float and array arguments, batched values, and names every
    assignment of which is an `xp` call."""
    calls, other = set(), set()
    for s in analysis.walk_stmts(body):
        for t in analysis.targets(s):
            v = s.value if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) else None
            (calls if isinstance(v, gast.Call) and (analysis.dotted(v.func) or "").startswith("xp.") else other).add(t)
    return set(known.get("floats", ())) | set(known.get("arrays", ())) | set(batched) | (calls - other)


def loop_vectorize(body: list, params, facts) -> tuple[list, bool]:
    vectorize = facts["known"].get("vectorize")
    batched = facts["known"].get("batched") or ()
    if vectorize is None or not any(isinstance(s, gast.For) and _independent(s, batched) is not None
                                    for s in analysis.walk_stmts(body)):
        return body, False  # (then no loop would need the liveness analysis)
    uses: dict[str, int] = {}
    for n in analysis.loads(body):
        uses[n] = uses.get(n, 0) + 1
    guards = {s.targets[0].id for s in analysis.walk_stmts(body) if isinstance(s, gast.Assign)
              and isinstance(s.value, gast.Call) and analysis.dotted(s.value.func) == "rt.loop_vectorizes"}
    ctx = {"root": body, "guards": guards, "kept": facts["known"].get("loops_as_written"),  # (loopfold's)
           "uses": uses, "live": facts["liveness"], "vectorize": vectorize,
           "batched": facts["known"].get("batched"),
           "numbers": _numbers(body, facts["known"], batched),
           "namer": Namer({n.id for s in body for n in gast.walk(s) if isinstance(n, gast.Name)} | set(params))}
    return body, _block(body, ctx)


PASS = Pass("loop_vectorize", loop_vectorize, needs=("liveness",))
