"""Nearest points against a float64 brute force over every triangle."""

import numpy as np
import pytest
from conftest import around
from oracles import point_triangle_distances

import boxtree


def test_closest_points_match_brute_force(bunny, bunny_tree, rng):
    points = around(bunny, rng, 300)
    nearest = bunny_tree.closest_points(points)
    vertices = bunny.vertices.astype(np.float64)
    distances = point_triangle_distances(points.astype(np.float64), vertices, bunny.faces)
    best = distances.min(axis=1)
    np.testing.assert_allclose(nearest.distance, best, rtol=1e-5, atol=1e-5)
    # The triangle is a nearest one (outside points are mostly nearest to a
    # vertex or edge that several triangles share, all at one distance) ...
    own = distances[np.arange(len(points)), nearest.triangle]
    np.testing.assert_allclose(own, best, rtol=1e-5, atol=1e-5)
    # ... and the nearest one where no other lies within rounding of it.
    ranked = np.sort(distances, axis=1)
    clear = ranked[:, 1] - ranked[:, 0] > 1e-4
    assert clear.any()
    np.testing.assert_array_equal(nearest.triangle[clear], distances.argmin(axis=1)[clear])


def test_nearest_records_are_consistent(bunny, bunny_tree, rng):
    points = around(bunny, rng, 300)
    nearest = bunny_tree.closest_points(points)
    assert nearest.found.all()
    corners = bunny.vertices.astype(np.float64)[bunny.faces[nearest.triangle]]
    on_triangle = np.einsum("ik,ikj->ij", nearest.barycentric, corners)
    np.testing.assert_allclose(on_triangle, nearest.point, atol=1e-4)
    np.testing.assert_allclose(nearest.barycentric.sum(axis=1), 1, atol=1e-5)
    np.testing.assert_allclose(
        np.linalg.norm(nearest.point - points, axis=1), nearest.distance, rtol=1e-5, atol=1e-6
    )


def test_max_distance_limits_the_search(bunny, bunny_tree, rng):
    points = around(bunny, rng, 500)
    full = bunny_tree.closest_points(points)
    limit = float(np.median(full.distance))
    near = bunny_tree.closest_points(points, max_distance=limit)
    within = full.distance <= limit
    np.testing.assert_array_equal(near.found, within)
    np.testing.assert_array_equal(near.distance[within], full.distance[within])
    assert np.all(np.isinf(near.distance[~within]) & (near.triangle[~within] == -1))
    assert not bunny_tree.closest_points(points, max_distance=-1.0).found.any()


def test_batches_equal_single_queries(bunny, bunny_tree, rng):
    points = around(bunny, rng, 200)
    nearest = bunny_tree.closest_points(points, max_distance=2.0)
    for i, p in enumerate(points):
        one = bunny_tree.closest_points(p, max_distance=2.0)
        if one is None:
            assert not nearest.found[i]
            continue
        assert (one.distance, one.triangle) == (nearest.distance[i], nearest.triangle[i])
        assert one.point == tuple(nearest.point[i])
        assert one.barycentric == tuple(nearest.barycentric[i])


def test_non_finite_points_find_nothing(bunny_tree):
    points = np.array([[0, 0, 0], [np.nan, 0, 0], [0, np.inf, 0]], dtype=np.float32)
    np.testing.assert_array_equal(bunny_tree.closest_points(points).found, [True, False, False])


def test_bad_points_are_refused(bunny_tree):
    with pytest.raises(boxtree.ArrayError, match=r"points must have shape \(N, 3\)"):
        bunny_tree.closest_points(np.zeros((5, 4)))
    with pytest.raises(TypeError, match="points"):
        bunny_tree.closest_points(np.zeros((5, 3), dtype=complex))
