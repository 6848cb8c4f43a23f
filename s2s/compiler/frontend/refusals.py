"""What s2s says when it refuses a construct: what the construct is and what to write instead.

The normalizer is shared by every transform (the same core form feeds grad, vmap and jit), so a
refusal made there must hold for each of them: it names the construct for what it does (a side
effect, a call s2s cannot read), never a missing derivative, which would be wrong under `jit` and
`vmap`, which differentiate nothing.
"""
from __future__ import annotations

import types
from collections import abc

from .parse import not_python

# The methods that change a list, dict, set or bytearray they are called on: those Python's
# abstract mutable containers add to their read-only ones, and the in-place ones beyond them.
MUTATING = frozenset(
    name for rw, ro in ((abc.MutableSequence, abc.Sequence), (abc.MutableMapping, abc.Mapping),
                        (abc.MutableSet, abc.Set))
    for name in set(dir(rw)) - set(dir(ro)) if not name.startswith("_")
) | frozenset(m.__name__ for m in (list.sort, set.update, set.difference_update, set.intersection_update,
                                   set.symmetric_difference_update))

_EFFECT = ("s2s transforms a function whose only effect is its result: every transform, jit "
           "included, compiles it into new code that would not do this as Python does.")

# statement -> (what it is, what to do); the construct's keyword is filled in as {kw}, the names
# a `global` or `nonlocal` declares as {names}.
STATEMENTS = {
    "global": ("`global {names}` lets the function rebind a module variable. " + _EFFECT,
               "Return the new value (with has_aux=True under grad or value_and_grad) and rebind the "
               "variable outside the function you transform."),
    "nonlocal": ("`nonlocal {names}` lets the function rebind a variable of the function that encloses it. " + _EFFECT,
                 "Return the new value and rebind the variable outside the function you transform."),
    "try": ("s2s does not support `try` inside a transformed function: the compiled code cannot "
            "follow an exception.",
            "Move it outside the function you transform, or test the condition with if before the "
            "operation that would raise."),
    "with": ("s2s does not support `{kw}` inside a transformed function: a context manager runs code "
             "on entry and exit that the compiled code would not run.",
             "Enter it around the call of the transformed function instead (e.g. `with np.errstate(...): "
             "g(x)`)."),
    "raise": ("s2s does not support `raise` inside a transformed function: the compiled code cannot "
              "raise your exception on your behalf.",
              "Check the inputs before you call the transformed function."),
    "del": ("s2s does not support `del` inside a transformed function.",
            "Leave the name unused instead; s2s's compiled code releases what it no longer needs."),
    "class": ("s2s does not support `class` inside a transformed function.",
              "Define the class at module level; the function may build and use its instances."),
    "import": ("s2s does not support `import` inside a transformed function.",
               "Import at module level; the function reads the module as a global."),
}


# expression -> what to write instead
EXPRESSIONS = {
    "set": "Use a list or a tuple (a set's order is not an array's).",
    "set comprehension": "Use a list comprehension (a set's order is not an array's).",
    "f-string": "Build the text outside the function you transform; inside it, strings are constants.",
    ":=": "Assign the value on a line of its own before the expression that uses it.",
    "*args": "Pass the arguments one by one, or index the sequence.",
    "await": "Transform a plain (not async) function.",
}


def expression(kind: str) -> tuple[str, str]:
    """(message, hint) for an expression s2s does not support (`kind`, e.g. "f-string")."""
    return (f"s2s does not support `{kind}` inside a transformed function.",
            EXPRESSIONS.get(kind, "Move it outside the function you transform."))


def statement(kw: str, names=()) -> tuple[str, str]:
    """(message, hint) for a statement s2s does not support (`kw`: its keyword, e.g. "global";
    `names`: what a `global` or `nonlocal` declares)."""
    msg, hint = STATEMENTS.get("with" if kw == "async with" else kw, (
        f"s2s does not support `{kw}` inside a transformed function.",
        "Move it outside the function you transform."))
    names = ", ".join(n for n in names if isinstance(n, str))
    return msg.format(kw=kw, names=names), hint


def unknown_call(dotted: str, obj) -> tuple[str, str]:
    """(message, hint) for a call of `obj` (written `dotted`) that s2s can neither read nor find in
    its table of operations."""
    found = not_python(obj)
    if found is not None:
        what, attr, rest = found
        return (f"s2s cannot read `{dotted}`: {what}.",
                f"Call `{dotted}.{attr}`{rest}.")
    owner = getattr(obj, "__self__", None)
    name = getattr(obj, "__name__", "")
    if isinstance(obj, types.BuiltinMethodType) and isinstance(owner, (list, dict, set, bytearray)) \
            and name in MUTATING and "." in dotted:
        base = dotted.rsplit(".", 1)[0]
        return (f"`{dotted}(...)` changes `{base}`, a {type(owner).__name__} that lives outside the function. "
                + _EFFECT,
                f"Build a local {type(owner).__name__} and return it (with has_aux=True under grad or "
                f"value_and_grad), or change `{base}` outside the function you transform.")
    label = f"`{dotted}`" + (f" ({name!r})" if name and name != dotted.rsplit(".", 1)[-1] else "")
    return (f"s2s does not support {label}: it is not among the operations s2s knows (docs/operations.md), "
            "nor a Python function whose source s2s can read. Every transform, jit included, compiles "
            "only those.",
            "Use a supported NumPy function, write it in Python, or give it derivative rules with "
            "s2s.defvjp / s2s.defjvp.")


def store_into(text: str, local_root: bool) -> tuple[str, str]:
    """(message, hint) for `text[i] = v` where `text` is no local variable (`local_root`: it is an
    expression over a local, e.g. `x.T`)."""
    if not local_root and "." not in text:
        return (f"`{text}[...] = v` writes into `{text}`, which lives outside the function (a global or a "
                "variable of an enclosing function). " + _EFFECT,
                f"Copy it into a local variable first (`mine = {text}.copy()`), write into the copy, and "
                "return what you need.")
    return (f"s2s follows `x[i] = v` only into a local variable, not into `{text}`.",
            "Bind it to a local variable first, write into that, and return what you need.")


def store_attribute(text: str) -> tuple[str, str]:
    """(message, hint) for `obj.x = v`."""
    return (f"s2s does not support assigning to attributes (`{text} = v`) in a transformed function: s2s "
            "follows only local variables, and an object's attribute outlives the call.",
            "Keep the value in a local variable (return it if the caller needs it), or set the attribute "
            "outside the function you transform.")
