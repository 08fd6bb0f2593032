"""Line of sight: one eye, many targets, against any_hit on the segments
the margins leave."""

import numpy as np
import pytest
from conftest import around

import boxtree


def test_sight_is_any_hit_on_the_whole_segment(bunny, bunny_tree, rng):
    eye = bunny.bounds.mean(axis=0) + np.array([0, 0, 12], dtype=np.float32)
    targets = around(bunny, rng, 1000)
    sight = bunny_tree.line_of_sight(eye, targets)
    blocked = bunny_tree.any_hit(np.broadcast_to(eye, targets.shape), targets) >= 0
    np.testing.assert_array_equal(sight.visible, ~blocked)
    assert sight.valid.all() and 0.1 < sight.visible.mean() < 0.95
    np.testing.assert_array_equal(sight.blocker >= 0, blocked)
    assert sight.object is None


def test_margins_let_targets_on_the_surface_be_seen(bunny, bunny_tree, rng):
    # Targets exactly on the surface: their own triangle blocks them at zero margin.
    eye = np.array([0, 20, 0], dtype=np.float32)
    nearest = bunny_tree.closest_points(around(bunny, rng, 300))
    targets = nearest.point
    strict = bunny_tree.line_of_sight(eye, targets)
    relaxed = bunny_tree.line_of_sight(eye, targets, margins=(0.0, 1e-3))
    assert relaxed.visible.sum() > strict.visible.sum()
    assert np.all(relaxed.visible[strict.visible])


def test_ignored_triangles_never_block(bunny, bunny_tree, rng):
    eye = bunny.bounds.mean(axis=0) + np.array([0, 0, 12], dtype=np.float32)
    targets = around(bunny, rng, 300)
    sight = bunny_tree.line_of_sight(eye, targets)
    ignore = sorted(set(sight.blocker[sight.blocker >= 0].tolist()))
    again = bunny_tree.line_of_sight(eye, targets, ignore=ignore)
    assert not np.isin(again.blocker, ignore).any()


def test_non_finite_targets_are_invalid(bunny_tree):
    targets = np.array([[0, 30, 0], [np.nan, 0, 0]], dtype=np.float32)
    sight = bunny_tree.line_of_sight(np.zeros(3), targets)
    np.testing.assert_array_equal(sight.valid, [True, False])
    assert not sight.visible[1] and sight.blocker[1] == -1


def test_eye_must_be_one_point(bunny_tree):
    with pytest.raises(boxtree.ArrayError, match=r"eye must have shape \(3,\)"):
        bunny_tree.line_of_sight(np.zeros((2, 3)), np.zeros((2, 3)))


@pytest.mark.parametrize("margins", [(np.nan, 0.0), (0.0, np.nan)])
def test_nan_margins_are_refused(bunny_tree, margins):
    # NaN used to be clamped to a zero margin and answered as one.
    targets = np.array([[0, 30, 0]], dtype=np.float32)
    with pytest.raises(ValueError, match="margins"):
        bunny_tree.line_of_sight(np.zeros(3), targets, margins=margins)
    scene = boxtree.Scene()
    scene.add(bunny_tree)
    with pytest.raises(ValueError, match="margins"):
        scene.line_of_sight(np.zeros(3), targets, margins=margins)


def test_bad_arguments_raise_boxtree_errors(bunny_tree):
    # Every refusal is a BoxtreeError (a ValueError), named.
    eye, target = [0.0, 0.0, 10.0], [[0.0, 0.0, -10.0]]
    with pytest.raises(boxtree.BoxtreeError, match="margins"):
        bunny_tree.line_of_sight(eye, target, margins=(float("nan"), 0.0))
    for bad in (len(bunny_tree), 10**10, -1):
        with pytest.raises(boxtree.ArrayError, match=f"ignore: no triangle {bad}"):
            bunny_tree.line_of_sight(eye, target, ignore=[bad])
    with pytest.raises(boxtree.BoxtreeError, match="volume"):
        boxtree.MeshTree(bunny_tree.mesh, volume="x")
