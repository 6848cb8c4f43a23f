"""Shapes through containers, for shape folding (issue 46 section 2): a dict's items, a reverse
sweep's record taken back off its control list, and a tuple's items.

With `Wax` of shape 50 x 27 and `a0` of 50 x 1:

    params = {'Wax': Wax}          # a dict display of constant keys: params['Wax'] is 50 x 27
    a = {}                         # a dict made empty whose every item store has one shape:
    a[-1] = xp.copy(a0)            # a[k] is 50 x 1 for any k
    for t in r0:
        ctl.append(saved0)         # a record rebound in a loop and pushed before each rebinding,
        saved0 = (w, h)            # popped back in the backward sweep into its copy, which the
    ...                            # sweep unpacks: the unpacked names have w's and h's shapes
    for t in r1:
        (w1, h1) = rt.copy_saved(saved0_b)
        saved0_b = ctl_b.pop()

The facts hold only where nothing else can reach the dict: every read of it (or of a name bound
to it, or unpacked from a record holding it) indexes it, binds another name to it, is an
argument of a runtime helper that does not update its arguments, or is an item of a record that
only reverse mode's record copies, list pushes and other records read. A user's tuple holding
the dict, or any call of user code given it, keeps its items unknown.
"""
from __future__ import annotations

import gast

from .. import analysis
from ..primitives import registry

_RECORD_COPIES = frozenset(n for n, p in registry.PRIMS.items() if getattr(p, "record_copy", False))
_READ_ONLY = {"rt.tree_add_at": (1,)}  # (helpers without a declaration: the arguments they only read)


def _none(node) -> bool:
    return isinstance(node, gast.Constant) and node.value is None


def _parents(body) -> dict:
    """id(node) -> its parent node, for every node under the statements of `body`."""
    out: dict = {}
    stack = list(body)
    while stack:
        node = stack.pop()
        for child in gast.iter_child_nodes(node):
            out[id(child)] = node
            stack.append(child)
    return out


def record_copy(v) -> str | None:
    """The record `r` of `rt.copy_saved(r)` / `rt.private(r, ...)`, or None."""
    if isinstance(v, gast.Call) and v.args and isinstance(v.args[0], gast.Name) \
            and analysis.dotted(v.func) in _RECORD_COPIES:
        return v.args[0].id
    return None


class Records:
    """Reverse mode's records: `displays`, name -> the one tuple display bound to it (other
    bindings `None`); `copies`, an unpacked name -> the display's item it copies, through records
    nested in records and records popped back off a list (`n = L.pop()` into a copy of a name
    pushed on that list: the transform's restore of the saved value)."""

    def __init__(self, body, counts):
        binds: dict = {}
        pops: dict = {}
        pushed: dict = {}
        unpacks = []
        for s in analysis.walk_stmts(body):
            if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) and isinstance(s.value.func, gast.Attribute) \
                    and s.value.func.attr == "append" and isinstance(s.value.func.value, gast.Name) \
                    and len(s.value.args) == 1 and isinstance(s.value.args[0], gast.Name):
                pushed.setdefault(s.value.func.value.id, set()).add(s.value.args[0].id)
            if not isinstance(s, gast.Assign) or len(s.targets) != 1:
                continue
            t, v = s.targets[0], s.value
            if isinstance(t, gast.Name):
                if isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) and v.func.attr == "pop" \
                        and not v.args and isinstance(v.func.value, gast.Name):
                    pops.setdefault(t.id, []).append(v.func.value.id)
                binds.setdefault(t.id, []).append(v)
            elif isinstance(t, gast.Tuple) and (r := record_copy(v)) is not None:
                unpacks.append((t, r))
        self.displays = {}
        for n, vs in binds.items():  # (pops restoring the name itself: one function's two sweeps)
            shown = [v for v in vs if not _none(v) and not (
                isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) and v.func.attr == "pop"
                and isinstance(v.func.value, gast.Name) and n in pushed.get(v.func.value.id, ()))]
            if len(shown) == 1 and isinstance(shown[0], gast.Tuple) and len(vs) == counts.get(n):
                self.displays[n] = shown[0]
        self.list_copies: dict = {}
        self.copies: dict = {}
        for _ in range(8):  # (records in records: a few levels)
            grown = False
            for t, r in unpacks:
                d = self.display(r, binds, pops, pushed, counts)
                if d is None or len(d.elts) != len(t.elts):
                    continue
                for e, x in zip(t.elts, d.elts):
                    if isinstance(e, gast.Name) and isinstance(x, gast.Name) and self.copies.get(e.id) != x.id:
                        self.copies[e.id] = x.id
                        grown = True
            if not grown:
                break

    def display(self, r, binds, pops, pushed, counts):
        """The display record `r` holds at every use (bound by its copy's unpack and by pops
        restoring it), or None."""
        if r in self.displays:
            return self.displays[r]
        x = self.copies.get(r)
        if x is None or x not in self.displays:
            return None
        restores = [lst for lst in pops.get(r, ()) if x in pushed.get(self.copies.get(lst, lst), ())]
        if len(restores) != len(binds.get(r, ())) or counts.get(r) != len(restores) + 1:
            return None
        return self.displays[x]


class Containers:
    """What shape folding may read of containers: `dicts`, name -> {key: value} of a dict display
    of constant keys; `items`, name -> the key its item shapes live under (`name[]`, for dicts
    made empty); `stores`, that key -> the values stored as items; `records`: `Records`."""

    def __init__(self, body, params, counts):
        self.records = Records(body, counts)
        self.dicts: dict = {}
        self.items: dict = {}
        self.stores: dict = {}
        roots: dict = {}
        aliases: dict = {}
        for s in analysis.walk_stmts(body):
            if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) \
                    and counts.get(s.targets[0].id) == 1 and s.targets[0].id not in params:
                t, v = s.targets[0].id, s.value
                if isinstance(v, gast.Dict) and all(isinstance(k, gast.Constant) and type(k.value) is str
                                                    for k in v.keys):
                    roots[t] = v
                elif isinstance(v, gast.Name):
                    aliases[t] = v.id
        if not roots:
            return
        holder = {n: n for n in roots}
        for _ in range(8):  # (aliases and record copies of aliases)
            grown = False
            for n, x in list(aliases.items()) + list(self.records.copies.items()):
                if x in holder and n not in holder:
                    holder[n] = holder[x]
                    grown = True
            if not grown:
                break
        bad = self._check(body, holder, roots)
        for n, root in holder.items():
            if root in bad:
                continue
            if roots[root].keys:
                self.dicts[n] = {k.value: v for k, v in zip(roots[root].keys, roots[root].values)}
            else:
                self.items[n] = root + "[]"
                self.stores.setdefault(root + "[]", [])
        for s in analysis.walk_stmts(body):  # (the item stores of the dicts made empty)
            if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Subscript) \
                    and isinstance(s.targets[0].value, gast.Name) and s.targets[0].value.id in self.items:
                self.stores[self.items[s.targets[0].value.id]].append(s.value)

    def _check(self, body, holder, roots) -> set:
        """The roots some read of which may let code other than indexing reach the dict."""
        parents = _parents(body)
        bad: set = set()
        records_ok: dict = {}
        copied: dict = {}
        for m, x in self.records.copies.items():
            copied.setdefault(x, []).append(m)

        def record_ok(n) -> bool:  # every read of record `n` and of its copies: a copy, a push, a record, del
            if n not in records_ok:
                records_ok[n] = False
                records_ok[n] = n in self.records.displays and all(
                    _record_use(node, parents, record_ok) for m in [n, *copied.get(n, ())]
                    for node in uses.get(m, ()))
            return records_ok[n]

        uses: dict = {}
        for node in analysis.iter_nodes(body):
            if type(node) is gast.Name and not isinstance(node.ctx, gast.Store):
                uses.setdefault(node.id, []).append(node)
        for n, root in holder.items():
            for node in uses.get(n, ()):
                p = parents.get(id(node))
                if isinstance(node.ctx, gast.Del):
                    continue
                if isinstance(p, gast.Subscript) and p.value is node:
                    if isinstance(p.ctx, gast.Store) and roots[root].keys:
                        bad.add(root)  # (a display's items change)
                    elif isinstance(p.ctx, gast.Store) and not _plain_store(p, parents):
                        bad.add(root)
                    continue
                if isinstance(p, gast.Assign) and p.value is node and isinstance(p.targets[0], gast.Name) \
                        and p.targets[0].id in holder:
                    continue
                if isinstance(p, gast.Call) and node in p.args and _reads_only(p, node):
                    continue
                if isinstance(p, gast.Tuple) and isinstance(parents.get(id(p)), gast.Assign) \
                        and parents[id(p)].value is p and isinstance(parents[id(p)].targets[0], gast.Name) \
                        and record_ok(parents[id(p)].targets[0].id):
                    continue
                bad.add(root)
        for root, d in roots.items():  # (a dict holding itself, or stored into another's item)
            if any(isinstance(v, gast.Name) and v.id in holder for v in d.values):
                bad.add(root)
        return bad


def _plain_store(sub, parents) -> bool:
    """Whether `d[k]` (a store) is the one target of an assignment."""
    p = parents.get(id(sub))
    return isinstance(p, gast.Assign) and len(p.targets) == 1 and p.targets[0] is sub


def _reads_only(call, node) -> bool:
    """Whether runtime helper `call` only reads its argument `node` (no user code, no update)."""
    f = analysis.dotted(call.func)
    if f in _READ_ONLY:
        return call.args.index(node) in _READ_ONLY[f]
    p = registry.lookup(f) if f is not None and f.startswith("rt.") else None
    if p is None or f in _RECORD_COPIES or call.keywords:
        return False
    return not p.mutates or call.args.index(node) != getattr(p, "mutated", 0)


def _record_use(node, parents, record_ok) -> bool:
    """Whether a read of a record is one reverse mode makes: copied by a record copy that unpacks
    it, pushed on a list, an item of another such record, or deleted."""
    if isinstance(node.ctx, gast.Del):
        return True
    p = parents.get(id(node))
    if isinstance(p, gast.Call) and p.args and p.args[0] is node and analysis.dotted(p.func) in _RECORD_COPIES:
        a = parents.get(id(p))
        return isinstance(a, gast.Assign) and isinstance(a.targets[0], gast.Tuple)
    if isinstance(p, gast.Call) and isinstance(p.func, gast.Attribute) and p.func.attr == "append" \
            and p.args == [node] and isinstance(parents.get(id(p)), gast.Expr):
        return True
    if isinstance(p, gast.Tuple) and isinstance(parents.get(id(p)), gast.Assign) and parents[id(p)].value is p \
            and isinstance(parents[id(p)].targets[0], gast.Name):
        return record_ok(parents[id(p)].targets[0].id)
    return False


def of_body(body, params, counts, known) -> Containers:
    """The containers' facts of `body` (once per run of shape folding: `known` keeps them for the
    body and counts they were found for)."""
    memo = known.get("container_shapes")
    if memo is not None and memo[0] is body and memo[1] == counts:
        return memo[2]
    got = Containers(body, params, counts)
    for key, values in list(got.stores.items()):
        if not values or any(_none(v) for v in values):  # (an item that may be None: no shape)
            del got.stores[key]
    got.items = {n: k for n, k in got.items.items() if k in got.stores}
    got.sequences = {s.targets[0].id: s.value for s in analysis.walk_stmts(body) if isinstance(s, gast.Assign)
                     and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)
                     and counts.get(s.targets[0].id) == 1 and _sequence(s.value) is not None}
    known["container_shapes"] = (body, dict(counts), got)
    return got


def _sequence(v):
    """The items of a tuple display, or of `rt.like(display, src)` (the same items, in `src`'s
    container type: a tuple or list; a stack where `src` is an array), else None."""
    if isinstance(v, gast.Tuple):
        return v.elts
    if isinstance(v, gast.Call) and analysis.dotted(v.func) == "rt.like" and len(v.args) == 2 \
            and isinstance(v.args[0], gast.Tuple) and not v.keywords:
        return v.args[0].elts
    return None


def item_shape(v, shapes, of):
    """The shape of subscript `v` that containers give (None: unknown), or False where they say
    nothing (the array rules apply)."""
    boxes = getattr(shapes, "boxes", None)
    if boxes is None or not isinstance(v.value, gast.Name):
        return False
    n, k = v.value.id, v.slice
    if n in boxes.dicts:  # (an item that is a name bound once: its shape where the display was made too)
        x = boxes.dicts[n].get(k.value) if isinstance(k, gast.Constant) else None
        return of(x) if isinstance(x, gast.Name) and getattr(shapes, "counts", {}).get(x.id) == 1 else None
    if n in boxes.items:
        return shapes.get(boxes.items[n])
    if n in boxes.sequences and isinstance(k, gast.Constant) and type(k.value) is int:
        src = boxes.sequences[n]
        elts = _sequence(src)
        if isinstance(src, gast.Call) and shapes.get(getattr(src.args[1], "id", None)) is not None:
            return None  # (`rt.like` of an array: a stack)
        x = elts[k.value] if -len(elts) <= k.value < len(elts) else None  # (a name bound once, as above)
        return of(x) if isinstance(x, gast.Constant) or isinstance(x, gast.Name) \
            and getattr(shapes, "counts", {}).get(x.id) == 1 else None
    return False


def _taken(self, t, v, shapes, counts):
    """(name, shape) for `ct, acc = rt.take_at(acc, k, like)` with `like`'s shape known: the
    cotangent taken out has `like`'s shape (rt.take_at sums it down to `like`'s), else None."""
    if len(t.elts) == 2 and isinstance(t.elts[0], gast.Name) and counts.get(t.elts[0].id) == 1 \
            and isinstance(v, gast.Call) and analysis.dotted(v.func) == "rt.take_at" and len(v.args) == 3 \
            and isinstance(v.args[2], gast.Name) and (s := shapes.get(v.args[2].id)) is not None:
        return t.elts[0].id, s
    return None


Containers.taken = _taken
Containers.sequences = {}

