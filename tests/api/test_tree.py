"""Unit tests for s2s.base.tree: flatten/unflatten round trips, dict order, None, map, vdot."""

from collections import OrderedDict, namedtuple

import numpy as np
import pytest

from s2s.base.tree import tree_flatten, tree_leaves, tree_map, tree_structure, tree_unflatten, tree_vdot

Point = namedtuple("Point", ["x", "y"])


@pytest.mark.parametrize(
    "tree",
    [
        1.0,
        (),
        [],
        {},
        None,
        (1.0, 2.0),
        [1.0, (2.0, [3.0])],
        {"b": 1.0, "a": (2.0, None, 3.0)},
        Point(1.0, [2.0, 3.0]),
        ((), [None], {"k": {}}),
        (np.ones(3), {"w": np.zeros((2, 2)), "b": 0.5}),
    ],
)
def test_round_trip(tree):
    leaves, treedef = tree_flatten(tree)
    rebuilt = tree_unflatten(treedef, leaves)
    assert tree_structure(rebuilt) == treedef
    assert type(rebuilt) is type(tree)
    for a, b in zip(tree_leaves(rebuilt), leaves, strict=True):
        assert a is b


def test_leaf_order_is_depth_first():
    assert tree_leaves((1, [2, (3, 4)], 5)) == [1, 2, 3, 4, 5]


def test_dicts_flatten_in_sorted_key_order():
    leaves, treedef = tree_flatten({"c": 3, "a": 1, "b": 2})
    assert leaves == [1, 2, 3]
    assert tree_structure({"a": 0, "b": 0, "c": 0}) == treedef
    assert list(tree_unflatten(treedef, [10, 20, 30])) == ["a", "b", "c"]


def test_ordered_dict_and_dict_share_structure():
    assert tree_structure(OrderedDict(b=1, a=2)) == tree_structure({"a": 0, "b": 0})


def test_none_is_an_empty_node():
    leaves, treedef = tree_flatten((None, 1.0, [None]))
    assert leaves == [1.0]
    assert treedef.num_leaves == 1
    assert tree_unflatten(treedef, [2.0]) == (None, 2.0, [None])
    assert tree_structure(None) != tree_structure(1.0)


def test_structure_distinguishes_containers():
    assert tree_structure((1, 2)) != tree_structure([1, 2])
    assert tree_structure((1, 2)) != tree_structure(Point(1, 2))
    assert tree_structure({"a": 1}) != tree_structure({"b": 1})
    assert tree_structure((1, (2,))) != tree_structure((1, 2))


def test_treedef_is_hashable_and_printable():
    treedef = tree_structure({"a": (1, [2]), "b": None})
    assert hash(treedef) == hash(tree_structure({"b": None, "a": (7, [8])}))
    assert repr(treedef) == "PyTreeDef({'a': (*, [*]), 'b': None})"
    assert repr(tree_structure((1,))) == "PyTreeDef((*,))"
    assert repr(tree_structure(Point(1, 2))) == "PyTreeDef(Point(*, *))"


def test_unflatten_checks_leaf_count():
    treedef = tree_structure((1, 2))
    with pytest.raises(ValueError, match="needs 2 leaves"):
        tree_unflatten(treedef, [1])


def test_arrays_are_leaves():
    x = np.arange(6.0).reshape(2, 3)
    leaves = tree_leaves([x])
    assert len(leaves) == 1
    assert leaves[0] is x


def test_tree_map_single_and_multiple_trees():
    a = {"w": 1.0, "b": (2.0, 3.0)}
    b = {"b": (20.0, 30.0), "w": 10.0}
    assert tree_map(lambda x: 2 * x, a) == {"b": (4.0, 6.0), "w": 2.0}
    assert tree_map(lambda x, y: x + y, a, b) == {"b": (22.0, 33.0), "w": 11.0}
    assert tree_map(lambda x: x, None) is None


def test_tree_map_rejects_mismatched_structure():
    with pytest.raises(ValueError, match="structure"):
        tree_map(lambda x, y: x + y, (1.0, 2.0), [1.0, 2.0])


def test_tree_vdot():
    a = (np.array([1.0, 2.0]), {"s": 3.0})
    b = (np.array([4.0, 5.0]), {"s": -1.0})
    assert tree_vdot(a, b) == pytest.approx(1 * 4 + 2 * 5 - 3)
    assert isinstance(tree_vdot(a, b), float)
    with pytest.raises(ValueError, match="structures differ"):
        tree_vdot(a, (np.zeros(2), 1.0))
    with pytest.raises(ValueError, match="shapes"):
        tree_vdot([np.zeros(2)], [np.zeros(3)])
