"""What a compilation read from objects, classes, containers and modules, so that the code built
from it is reused only while every one of those places still holds what it held.

The frontend evaluates attribute chains and constant subscripts of non-local values when it
transforms a function (`self.scale`, `cfg.loss.scale`, `ACT["f"]`, `np.tanh`, the functions in a
global list it unrolls) and folds what it finds into the generated code: a number as a constant,
an array or a function by identity. Each such evaluation is `note`d here, into every `Reads`
being `collecting` on this thread (the driver collects one per normalized function and per
transform it builds). A `Reads` then gives the identity tests that say it still holds (a few tens
of ns each: cachekey.Watch inlines them into the per-call check) and, when one fails, a
comparison by value (`holds`): a float rebound to an equal float, or a property that returns a
new view of the same memory, keeps the compiled code; anything else compiles again.
"""
from __future__ import annotations

import contextlib
import threading
import types
import weakref

import numpy as np

_CONSTANTS = (int, float, complex, bool, str, bytes, type(None))
_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class defined in Python (its attributes can be reassigned)
_LOCAL = threading.local()
_FAILED = object()  # what a read that raised now gives (never equal to what it gave)


def _mutable(obj) -> bool:
    """Whether reading an attribute of `obj` can give another object later: a module, a class, an
    instance of a Python class (with `__dict__` or `__slots__`); not a ufunc, an array or a
    built-in function, whose attributes are fixed by their C type."""
    return hasattr(obj, "__dict__") or bool(type(obj).__flags__ & _HEAPTYPE)


def _layout(obj, value) -> bool:
    """Whether `value`, read from an attribute of `obj`, is a NumPy array's layout: its shape or
    strides (a tuple), rank, size or item size (an int), or dtype, which the array's attributes
    change in place (`M.shape = (3, 3, 3)`) while it stays the object the key's watch compares."""
    return type(obj) is np.ndarray and (type(value) in (int, tuple) or isinstance(value, np.dtype))


def _own_module(obj) -> bool:
    """Whether `obj` is one of s2s's modules (their functions are s2s's, not the user's to rebind)."""
    return type(obj) is types.ModuleType and (obj.__name__ == "s2s" or obj.__name__.startswith("s2s."))


def value_key(v, depth: int = 0):
    """How a value read is compared when its identity test fails: numbers and strings by type and
    text (`0.0` is not `-0.0`, `1` is not `True`), a bound method by its function and object, a
    NumPy array by the memory it reads (an equal view of the same buffer is interchangeable for
    code that holds the old one), a small tuple, list or dict by its items (a property that builds
    `(self.W, self.b)` anew on every read), anything else by identity."""
    t = type(v)
    if t in _CONSTANTS:
        return (t, repr(v))
    if isinstance(v, np.generic):
        return (t, v.dtype.str, v.tobytes())
    if t is types.MethodType:
        return ("method", id(v.__func__), id(v.__self__))
    if t is np.ndarray:
        return ("array", v.dtype.str, v.shape, v.strides, v.__array_interface__["data"][0], v.flags.writeable)
    if t in (tuple, list) and depth < 3 and len(v) <= 32:
        return (t,) + tuple(value_key(e, depth + 1) for e in v)
    if t is dict and depth < 3 and len(v) <= 32:
        return (t,) + tuple((value_key(k, depth + 1), value_key(e, depth + 1)) for k, e in v.items())
    return ("id", id(v))


def _read(kind: str, obj, key):
    """Perform one read again: an attribute, an item, a length, a type."""
    if kind == "attr":
        return getattr(obj, key)
    if kind == "item":
        return obj[key]
    if kind == "len":
        return len(obj)
    return type(obj)


class Reads:
    """The reads one compilation made: (kind, object, key) -> the value it gave, kept alive (the
    identity tests compare with it)."""

    def __init__(self):
        self.entries: dict = {}  # (kind, id(obj), key) -> (kind, obj, key, value, value_key(value))
        self.stored: dict = {}  # id(obj) -> (obj, attributes the compilation stores into)
        self._check = None

    def __len__(self) -> int:
        return len(self.entries)

    def add(self, kind: str, obj, key, value) -> None:
        k = (kind, id(obj), key)
        if k not in self.entries:
            self.entries[k] = (kind, obj, key, value, value_key(value))
            self._check = None

    def update(self, other: Reads | None) -> bool:
        """Add `other`'s reads (and its stores); whether any read was new."""
        if other is None:
            return False
        for obj, attrs in other.stored.values():
            self.store(obj, attrs)
        if not other:
            return False
        new = [k for k in other.entries if k not in self.entries]
        for k in new:
            self.entries[k] = other.entries[k]
        if new:
            self._check = None
        return bool(new)

    def store(self, obj, attrs) -> None:
        """Record that the compilation stores into these attributes of `obj`."""
        entry = self.stored.get(id(obj))
        if entry is None or entry[0] is not obj:
            entry = self.stored[id(obj)] = (obj, set())
        entry[1].update(attrs)

    def folds_stored(self) -> bool:
        """Whether the compilation folded in an attribute that a compilation running now stores into
        (its code, reused there, would read the value from before the store)."""
        if not any(reads.stored for reads in getattr(_LOCAL, "stack", None) or ()):
            return False  # (nothing compiling now stores: the common case, no walk over the reads)
        return any(kind == "attr" and key in stored_here(obj) for kind, obj, key, _, _ in self.entries.values())

    def terms(self, prefix: str = "", skip=frozenset()):
        """(names, objects, expressions): one identity test per read, over `names` bound to
        `objects` (each name starts with `prefix`); a test may raise (an attribute deleted, a
        user's `__getattr__` failing): not holding. `skip`: (id(dict), name) pairs another test
        covers already (a module's attribute the key watches)."""
        params, values, terms = [], [], []
        for k, (kind, obj, key, value, _) in enumerate(self.entries.values()):
            o, v = f"{prefix}o{k}", f"{prefix}r{k}"
            if kind == "len":
                params.append(o)
                values.append(obj)
                terms.append(f"len({o}) == {value!r}")
                continue
            if kind == "type":
                params += [o, v]
                values += [obj, value]
                terms.append(f"type({o}) is {v}")
                continue
            if kind == "item":
                params += [o, f"{prefix}k{k}", v]
                values += [obj, key, value]
                read = f"{o}[{prefix}k{k}]"
            elif type(obj) is types.ModuleType and key in vars(obj):
                if (id(vars(obj)), key) in skip:
                    continue
                params.append(o)
                values.append(vars(obj))
                read = f"{o}[{key!r}]"  # (a dict subscript: cheaper than the module's getattr)
            else:
                params.append(o)
                values.append(obj)
                read = f"{o}.{key}" if key.isidentifier() else f"getattr({o}, {key!r})"
            if type(value) is types.MethodType:  # a new bound method per read: its function and object
                t, f, s = f"{prefix}t{k}", f"{prefix}f{k}", f"{prefix}s{k}"
                params += [f, s]
                values += [value.__func__, value.__self__]
                terms.append(f"({t} := {read}).__func__ is {f} and {t}.__self__ is {s}")
                continue
            if kind != "item":
                params.append(v)
                values.append(value)
            same = "==" if kind == "attr" and _layout(obj, value) else "is"  # (a new shape tuple per read)
            terms.append(f"{read} {same} {v}")
        return params, values, terms

    def now(self) -> tuple:
        """The value keys the reads give now (`_FAILED`'s where one raises)."""
        out = []
        for kind, obj, key, _, _ in self.entries.values():
            try:
                out.append(value_key(_read(kind, obj, key)))
            except Exception:  # noqa: BLE001 - a user's __getattr__ or property may raise anything
                out.append(_FAILED)
        return tuple(out)

    def recorded(self) -> tuple:
        return tuple(e[4] for e in self.entries.values())

    def holds(self) -> bool:
        """Whether every read still gives what it gave: its identity tests, and where one fails, the
        value comparison (then the reads take the new objects, so the identity tests pass again)."""
        if not self.entries:
            return True
        check = self._check
        if check is None:
            check = self._check = compile_check(*self.terms("r_"))
        if check():
            return True
        if self.now() != self.recorded():
            return False
        for k, (kind, obj, key, _, vk) in list(self.entries.items()):
            self.entries[k] = (kind, obj, key, _read(kind, obj, key), vk)
        self._check = None
        return True


_STORED: dict = {}  # id(obj) -> (a weak reference to obj, the attributes a transformed function stores into)


def register_store(obj, attr: str) -> None:
    """Record that a transformed function stores into `obj.attr` (frontend/attr_stores.py): in the
    compilations running on this thread (`stored_here`: what the function and those it is compiled
    for may not fold in), and for good in the registry that leaves it out of cache keys
    (`stored_attributes`: it changes on every call)."""
    for reads in getattr(_LOCAL, "stack", None) or ():
        reads.store(obj, (attr,))
    entry = _STORED.get(id(obj))
    if entry is None or entry[0]() is not obj:
        try:
            ref = weakref.ref(obj, lambda _r, k=id(obj): _STORED.pop(k, None))
        except TypeError:
            ref = lambda o=obj: o  # noqa: E731 (an object without weak references: kept)
        entry = _STORED[id(obj)] = (ref, set())
    entry[1].add(attr)


def stored_attributes(obj) -> frozenset:
    """The attributes of `obj` that any transformed function so far stores into: left out of cache
    keys only (whether code is reused), never a reason to refuse or to compile otherwise."""
    entry = _STORED.get(id(obj))
    return frozenset(entry[1]) if entry is not None and entry[0]() is obj else frozenset()


def stored_here(obj) -> frozenset:
    """The attributes of `obj` that the compilations running on this thread store into: the
    function being compiled and those it is compiled for. Compiling a function depends on these
    alone, not on what other functions were compiled before (issue 44)."""
    out: set = set()
    for reads in getattr(_LOCAL, "stack", None) or ():
        entry = reads.stored.get(id(obj))
        if entry is not None and entry[0] is obj:
            out |= entry[1]
    return frozenset(out)


def stores_checker():
    """A function of an object: whether the compilations running now store into its attributes
    (a method that generated code calls on an object passed in refuses such an object)."""
    held = {}
    for reads in getattr(_LOCAL, "stack", None) or ():
        for k, (obj, attrs) in reads.stored.items():
            if attrs:
                held[k] = obj
    return lambda o: held.get(id(o)) is o


_MAKERS: dict = {}


def compile_check(params: list, values: list, terms: list):
    """A function of no arguments that evaluates `terms` (joined by `and`) over `params` bound to
    `values`, False where one raises; compiled once per source."""
    body = " and ".join(terms) or "True"
    key = (", ".join(params), body)
    make = _MAKERS.get(key)
    if make is None:
        src = (f"def make({key[0]}):\n    def check():\n        try:\n            return {body}\n"
               "        except Exception:\n            return False\n    return check\n")
        env: dict = {}
        exec(compile(src, "<s2s reads check>", "exec"), env)  # noqa: S102 - our own generated source
        make = _MAKERS[key] = env["make"]
    return make(*values)


def note(kind: str, obj, key, value) -> None:
    """Record that the compilation running on this thread read `value` from `obj` (`kind`: "attr"
    with an attribute name, "item" with a key, "len" of a list it unrolled, "type" of a callable
    instance). Reads of values that cannot change (a tuple's items, a ufunc's methods) are not
    recorded, nor those of s2s's own modules (`rt.seed` in generated code that a transform reads
    again: each would be one more test in every call's check)."""
    stack = getattr(_LOCAL, "stack", None)
    if not stack:
        return
    if kind == "attr" and (not (_mutable(obj) or _layout(obj, value)) or _own_module(obj)) \
            or kind in ("item", "len") and isinstance(obj, (tuple, str, bytes)):
        return
    for reads in stack:
        reads.add(kind, obj, key, value)


def forward(reads: Reads | None) -> None:
    """A compilation reuses code built from `reads` (a cache hit): they are its reads too."""
    if not reads:
        return
    for outer in getattr(_LOCAL, "stack", None) or ():
        outer.update(reads)


@contextlib.contextmanager
def collecting():
    """Collect the reads of the compilation run inside the block (and of everything it reuses)."""
    reads = Reads()
    stack = getattr(_LOCAL, "stack", None)
    if stack is None:
        stack = _LOCAL.stack = []
    stack.append(reads)
    try:
        yield reads
    finally:
        stack.pop()
