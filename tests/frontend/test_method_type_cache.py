"""`ext.s2s_method` (a user object's method called from generated code) tests an object's class
against the containers and arrays whose methods it refuses once per class: the answer stays the
same for every object of a class that passed, and for every one that did not."""
import numpy as np
import pytest

from s2s import S2SError
from s2s.compiler.primitives.rules_objects import s2s_method


class Draws:
    def __init__(self):
        self.k = 0

    def next(self, step=1):
        self.k += step
        return self.k


class MyList(list):
    def next(self):
        return 0


def test_user_objects_run_every_time():
    a, b = Draws(), Draws()
    assert [s2s_method(a, "next", (), {}) for _ in range(3)] == [1, 2, 3]
    assert s2s_method(b, "next", (5,), {}) == 5 and s2s_method(a, "next", (), {"step": 2}) == 5


@pytest.mark.parametrize("obj", [[1, 2], MyList([1]), np.float64(1.0), np.zeros(2), (1,), {"a": 1}, 3])
def test_refused_kinds_stay_refused(obj):
    s2s_method(Draws(), "next", (), {})  # (a class that passed first)
    for _ in range(2):
        with pytest.raises(S2SError, match="does not support the method"):
            s2s_method(obj, "next", (), {}, "f.py:3")


def test_an_object_whose_attributes_are_stored_into_is_refused_each_time():
    d = Draws()
    s2s_method(d, "next", (), {})
    with pytest.raises(S2SError, match="stores into"):
        s2s_method(d, "next", (), {}, "f.py:3", lambda o: o is d)
