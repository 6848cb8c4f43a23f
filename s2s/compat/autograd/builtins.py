"""autograd.builtins: `tuple`, `list` and `dict` are Python's own, since s2s differentiates through
Python's containers (autograd needs its own boxed ones)."""
import builtins

tuple = builtins.tuple  # noqa: A001 - autograd's names
list = builtins.list  # noqa: A001
dict = builtins.dict  # noqa: A001
isinstance = builtins.isinstance  # noqa: A001
type = builtins.type  # noqa: A001

__all__ = ["dict", "isinstance", "list", "tuple", "type"]
