"""Raycasts: any_hit and closest_hit against a float64 brute force over
every triangle, batches against the crate's single-query functions, and
AABB trees against OBB trees."""

import numpy as np
import pytest
from conftest import around
from oracles import closest_ray_hits, segment_blocked

import boxtree


def segments(mesh, rng, n):
    return around(mesh, rng, n), around(mesh, rng, n)


def test_any_hit_matches_brute_force(bunny, bunny_tree, rng):
    origins, ends = segments(bunny, rng, 400)
    ids = bunny_tree.any_hit(origins, ends)
    blocked, robust = segment_blocked(
        origins.astype(np.float64), ends.astype(np.float64),
        bunny.vertices.astype(np.float64), bunny.faces, 1e-5,
    )
    assert robust.mean() > 0.95
    assert 0.2 < blocked.mean() < 0.9, "the sample should mix hits and misses"
    np.testing.assert_array_equal((ids >= 0)[robust], blocked[robust])


def test_any_hit_names_a_triangle_the_segment_touches(bunny, bunny_tree, rng):
    origins, ends = segments(bunny, rng, 300)
    ids = bunny_tree.any_hit(origins, ends)
    hit = ids >= 0
    # The blocker's own plane lies between the two ends.
    v, f = bunny.vertices.astype(np.float64), bunny.faces[ids[hit]]
    a, b, c = v[f[:, 0]], v[f[:, 1]], v[f[:, 2]]
    n = np.cross(b - a, c - a)
    side_o = np.einsum("ij,ij->i", origins[hit] - a, n)
    side_e = np.einsum("ij,ij->i", ends[hit] - a, n)
    assert np.all(side_o * side_e <= 1e-6 * np.abs(n).sum(1) * 10)


def test_closest_hit_matches_brute_force(bunny, bunny_tree, rng):
    origins = around(bunny, rng, 400)
    directions = around(bunny, rng, 400) - origins
    hits = bunny_tree.closest_hit(origins, directions, t_max=1.5)
    t, triangle, robust = closest_ray_hits(
        origins.astype(np.float64), directions.astype(np.float64),
        bunny.vertices.astype(np.float64), bunny.faces, 1.5, 1e-5,
    )
    assert robust.mean() > 0.9
    np.testing.assert_array_equal(hits.triangle[robust], triangle[robust])
    np.testing.assert_array_equal(hits.hit, hits.triangle >= 0)
    found = robust & (triangle >= 0)
    np.testing.assert_allclose(hits.t[found], t[found], rtol=1e-5, atol=1e-6)
    assert np.all(np.isinf(hits.t[~hits.hit]))
    assert np.all(np.isnan(hits.normal[~hits.hit]))


def test_closest_hit_records_are_consistent(bunny, bunny_tree, rng):
    origins = around(bunny, rng, 300)
    directions = around(bunny, rng, 300) - origins
    hits = bunny_tree.closest_hit(origins, directions)
    h = hits.hit
    v, f = bunny.vertices.astype(np.float64), bunny.faces[hits.triangle[h]]
    point_bary = np.einsum("ik,ikj->ij", hits.barycentric[h], v[f])
    point_ray = origins[h] + hits.t[h, None] * directions[h]
    np.testing.assert_allclose(point_bary, point_ray, atol=1e-4)
    np.testing.assert_allclose(np.linalg.norm(hits.normal[h], axis=1), 1, rtol=1e-5)
    facing = np.einsum("ij,ij->i", hits.normal[h], directions[h]) < 0
    np.testing.assert_array_equal(hits.front_face[h], facing)


def test_batches_equal_single_queries(bunny_tree, bunny, rng):
    origins, ends = segments(bunny, rng, 200)
    ids = bunny_tree.any_hit(origins, ends)
    hits = bunny_tree.closest_hit(origins, ends - origins, 0.9)
    for i in range(len(origins)):
        one = bunny_tree.any_hit(origins[i], ends[i])
        assert (one is None) == (ids[i] < 0)
        hit = bunny_tree.closest_hit(origins[i], ends[i] - origins[i], 0.9)
        if hit is None:
            assert hits.triangle[i] == -1
        else:
            assert (hit.t, hit.triangle) == (hits.t[i], hits.triangle[i])
            assert hit.barycentric == tuple(hits.barycentric[i])
            assert hit.normal == tuple(hits.normal[i])
            assert hit.front_face == hits.front_face[i]


def test_aabb_and_obb_trees_give_the_same_closest_hits(bunny, rng):
    aabb, obb = boxtree.MeshTree(bunny), boxtree.MeshTree(bunny, volume="obb")
    origins = around(bunny, rng, 2000)
    directions = around(bunny, rng, 2000) - origins
    a, b = aabb.closest_hit(origins, directions), obb.closest_hit(origins, directions)
    np.testing.assert_array_equal(a.triangle, b.triangle)
    np.testing.assert_array_equal(a.t, b.t)
    np.testing.assert_array_equal(aabb.any_hit(origins, origins + directions) >= 0,
                                  obb.any_hit(origins, origins + directions) >= 0)


def test_batches_larger_than_a_block_keep_their_order(bunny_tree, bunny, rng):
    n = 70_000  # more than one staging block of 65,536 rows
    origins = around(bunny, rng, n)
    directions = around(bunny, rng, n) - origins
    hits = bunny_tree.closest_hit(origins, directions)
    tail = slice(n - 500, n)
    again = bunny_tree.closest_hit(origins[tail].copy(), directions[tail].copy())
    np.testing.assert_array_equal(hits.triangle[tail], again.triangle)
    np.testing.assert_array_equal(hits.t[tail], again.t)


def test_t_max_bounds_the_hits(bunny_tree, bunny, rng):
    origins = around(bunny, rng, 500)
    directions = around(bunny, rng, 500) - origins
    full = bunny_tree.closest_hit(origins, directions)
    short = bunny_tree.closest_hit(origins, directions, t_max=0.5)
    within = full.t <= 0.5
    np.testing.assert_array_equal(short.triangle[within], full.triangle[within])
    assert np.all(short.triangle[~within] == -1)
    for bad in (-1.0, float("nan")):
        assert np.all(bunny_tree.closest_hit(origins, directions, t_max=bad).triangle == -1)


def test_non_finite_rows_have_no_hit(bunny_tree, bunny, rng):
    origins, ends = segments(bunny, rng, 50)
    centre = bunny.bounds.mean(axis=0)
    origins[:, :] = centre + np.array([0, 0, 20], dtype=np.float32)
    ends[:, :] = centre - np.array([0, 0, 20], dtype=np.float32)
    assert np.all(bunny_tree.any_hit(origins, ends) >= 0)
    origins[::2, 1] = np.nan
    ends[1::4, 0] = np.inf
    ids = bunny_tree.any_hit(origins, ends)
    bad = ~np.isfinite(origins).all(1) | ~np.isfinite(ends).all(1)
    assert np.all(ids[bad] == -1) and np.all(ids[~bad] >= 0)
    hits = bunny_tree.closest_hit(origins, ends - origins)
    assert np.all(hits.triangle[bad] == -1)
    # float64 beyond float32's range is infinite after rounding: no hit either.
    assert bunny_tree.any_hit(np.array([1e39, 0, 0]), np.array([0.0, 0, 0])) is None


def test_empty_batches_give_empty_answers(bunny_tree):
    empty = np.zeros((0, 3), dtype=np.float32)
    assert bunny_tree.any_hit(empty, empty).shape == (0,)
    hits = bunny_tree.closest_hit(empty, empty)
    assert len(hits) == 0 and hits.normal.shape == (0, 3)


@pytest.mark.parametrize(
    "convert",
    [
        pytest.param(lambda a: a.astype(np.float64), id="float64"),
        pytest.param(lambda a: np.asfortranarray(a), id="fortran"),
        pytest.param(lambda a: np.repeat(a, 2, axis=0)[::2], id="strided"),
        pytest.param(lambda a: a.astype(">f4"), id="big-endian"),
        pytest.param(lambda a: np.round(a * 10).astype(np.int32), id="int32"),
        pytest.param(lambda a: a.tolist(), id="list"),
        pytest.param(lambda a: a.astype(np.float16), id="float16"),
    ],
)
def test_every_numeric_layout_gives_the_float32_answers(bunny_tree, bunny, rng, convert):
    origins, ends = segments(bunny, rng, 300)
    as_given = convert(origins), convert(ends)
    # The reference: the same values, rounded to float32 the way boxtree reads them.
    reference = [np.ascontiguousarray(np.asarray(a, dtype=np.float64), dtype=np.float32) for a in as_given]
    np.testing.assert_array_equal(bunny_tree.any_hit(*as_given), bunny_tree.any_hit(*reference))
    dirs = [np.asarray(a, dtype=np.float64) for a in as_given]
    direction = np.asarray(dirs[1] - dirs[0])
    np.testing.assert_array_equal(
        bunny_tree.closest_hit(dirs[0], direction).t,
        bunny_tree.closest_hit(dirs[0].astype(np.float32), direction.astype(np.float32)).t,
    )


def test_read_only_arrays_and_memory_maps_are_read_in_place(bunny_tree, bunny, rng, tmp_path):
    origins, ends = segments(bunny, rng, 300)
    expected = bunny_tree.any_hit(origins, ends)
    frozen = origins.copy()
    frozen.flags.writeable = False
    np.testing.assert_array_equal(bunny_tree.any_hit(frozen, ends), expected)
    path = tmp_path / "ends.f32"
    ends.tofile(path)
    mapped = np.memmap(path, dtype=np.float32, mode="r", shape=ends.shape)
    np.testing.assert_array_equal(bunny_tree.any_hit(origins, mapped), expected)


@pytest.mark.parametrize(
    "origins, ends, error",
    [
        (np.zeros((4, 2)), np.zeros((4, 2)), boxtree.ArrayError),
        (np.zeros((4, 3)), np.zeros((5, 3)), boxtree.ArrayError),
        (np.zeros((4, 3, 1)), np.zeros((4, 3, 1)), boxtree.ArrayError),
        (np.zeros(3), np.zeros((4, 3)), boxtree.ArrayError),
        (np.zeros(4), np.zeros(4), boxtree.ArrayError),
        (np.zeros((4, 3), dtype=complex), np.zeros((4, 3)), TypeError),
        (np.zeros((4, 3), dtype=bool), np.zeros((4, 3)), TypeError),
        (np.array([["a", "b", "c"]]), np.zeros((1, 3)), TypeError),
        (np.zeros((4, 3), dtype=object), np.zeros((4, 3)), TypeError),
        ([[0, 0, 0], [1, 1]], np.zeros((2, 3)), boxtree.ArrayError),
        (None, np.zeros((1, 3)), TypeError),
    ],
)
def test_bad_arrays_raise_clear_errors(bunny_tree, origins, ends, error):
    with pytest.raises(error, match="origins|ends"):
        bunny_tree.any_hit(origins, ends)
    with pytest.raises(error, match="origins|directions"):
        bunny_tree.closest_hit(origins, ends)


def test_array_errors_are_value_errors():
    assert issubclass(boxtree.ArrayError, boxtree.BoxtreeError)
    assert issubclass(boxtree.BoxtreeError, ValueError)


def test_a_range_of_one_point_on_a_triangle_hits_at_zero():
    mesh = boxtree.Mesh(np.float32([[0, 0, 0], [4, 0, 0], [0, 4, 0]]), [[0, 1, 2]])
    tree = boxtree.MeshTree(mesh)
    hit = tree.closest_hit([1, 1, 0.0], [0, 0, -1.0], t_max=0.0)
    assert hit is not None and hit.t == 0.0


def test_batches_too_large_for_their_answers_raise_memory_error():
    # Ten billion rows of a broadcast point take no memory themselves; their
    # answers would take 640 GB.
    tree = boxtree.MeshTree(
        boxtree.Mesh(np.float32([[0, 0, 0], [4, 0, 0], [0, 4, 0]]), [[0, 1, 2]])
    )
    points = np.broadcast_to(np.float32([5, 5, 5]), (10**10, 3))
    with pytest.raises(MemoryError):
        tree.any_hit(points, points)
