"""Scenes: queries over placed objects against the same queries on each
object's tree with the input moved into its frame, moves, removal, ids."""

import pickle

import numpy as np
import pytest
from conftest import around
from oracles import box_mesh, random_poses, transform

import boxtree


@pytest.fixture
def world(bunny, rng):
    tree = boxtree.MeshTree(bunny)
    poses = random_poses(rng, 4, 8.0)
    scene = boxtree.Scene()
    ids = [scene.add(tree, pose) for pose in poses]
    scene.update()
    return scene, tree, poses, ids


def world_points(rng, n):
    return rng.uniform(-14, 14, size=(n, 3)).astype(np.float32)


def test_closest_hits_are_the_nearest_object_hits(world, rng):
    scene, tree, poses, ids = world
    origins = world_points(rng, 400)
    directions = world_points(rng, 400) - origins
    hits = scene.closest_hit(origins, directions)
    per_object = []
    for pose in poses:
        inverse = np.linalg.inv(pose)
        local_o = transform(inverse, origins).astype(np.float32)
        local_d = (directions @ inverse[:3, :3].T).astype(np.float32)
        per_object.append(tree.closest_hit(local_o, local_d))
    ts = np.stack([h.t for h in per_object])
    best = ts.argmin(axis=0)
    nearest_t = ts.min(axis=0)
    second = np.sort(ts, axis=0)[1] if len(ts) > 1 else np.inf
    with np.errstate(invalid="ignore"):
        clear = ~np.isfinite(nearest_t) | (second - nearest_t > 1e-3)
    hit = np.isfinite(nearest_t)
    np.testing.assert_array_equal(hits.hit, hit)
    np.testing.assert_allclose(hits.t[hit], nearest_t[hit], rtol=1e-4, atol=1e-5)
    check = hit & clear
    np.testing.assert_array_equal(hits.object[check], np.asarray(ids)[best[check]])
    # Normals come back in the world frame.
    rotated = np.stack([per_object[b].normal[i] @ poses[b][:3, :3].T for i, b in enumerate(best)])
    np.testing.assert_allclose(hits.normal[check], rotated[check], atol=1e-4)


def test_batches_equal_single_queries(world, rng):
    scene, _, _, _ = world
    origins, ends = world_points(rng, 100), world_points(rng, 100)
    objects, triangles = scene.any_hit(origins, ends)
    hits = scene.closest_hit(origins, ends - origins, 1.0)
    nearest = scene.closest_points(origins, 3.0)
    for i in range(len(origins)):
        one = scene.any_hit(origins[i], ends[i])
        assert (one is None) == (objects[i] < 0)
        hit = scene.closest_hit(origins[i], ends[i] - origins[i], 1.0)
        assert (hit is None and hits.object[i] == -1) or (
            (hit.object, hit.triangle, hit.t) == (hits.object[i], hits.triangle[i], hits.t[i])
        )
        point = scene.closest_points(origins[i], 3.0)
        assert (point is None and not nearest.found[i]) or (
            (point.object, point.triangle, point.distance)
            == (nearest.object[i], nearest.triangle[i], nearest.distance[i])
        )


def test_closest_points_are_the_nearest_object_points(world, rng):
    scene, tree, poses, ids = world
    points = world_points(rng, 300)
    nearest = scene.closest_points(points)
    distances = np.stack([
        tree.closest_points(transform(np.linalg.inv(p), points).astype(np.float32)).distance
        for p in poses
    ])
    np.testing.assert_allclose(nearest.distance, distances.min(axis=0), rtol=1e-4, atol=1e-5)
    ranked = np.sort(distances, axis=0)
    clear = ranked[1] - ranked[0] > 1e-3
    np.testing.assert_array_equal(nearest.object[clear], np.asarray(ids)[distances.argmin(0)[clear]])


def test_line_of_sight_sees_past_ignored_objects(world, rng):
    scene, _, _, ids = world
    eye = np.zeros(3, dtype=np.float32)
    targets = world_points(rng, 500)
    sight = scene.line_of_sight(eye, targets)
    objects, _ = scene.any_hit(np.zeros_like(targets), targets)
    np.testing.assert_array_equal(sight.visible, objects < 0)
    blocked_by = set(sight.object[sight.object >= 0].tolist())
    assert blocked_by
    again = scene.line_of_sight(eye, targets, ignore=list(blocked_by))
    assert not np.isin(again.object, list(blocked_by)).any()
    hidden = scene.line_of_sight(eye, targets, layers=0)
    assert hidden.visible.all()


def test_moves_are_seen_at_once(bunny, rng):
    tree = boxtree.MeshTree(bunny)
    scene = boxtree.Scene()
    a = scene.add(tree)
    b = scene.add(tree, np.eye(4))
    far = np.eye(4)
    far[:3, 3] = [100, 0, 0]
    assert scene.overlapping_pairs().tolist() == [[a, b]]
    scene.set_pose(b, far)
    assert scene.overlapping_pairs().shape == (0, 2)
    np.testing.assert_allclose(scene.pose(b), far)
    scene.set_poses(np.array([a, b]), np.stack([far, far]))
    assert scene.overlapping_pairs().tolist() == [[a, b]]
    assert scene.touching(tree, far).tolist() == [a, b]
    scene.set_group(a, 7)
    scene.set_group(b, 7)
    assert scene.overlapping_pairs().shape == (0, 2)
    assert scene.update() is True


def test_removed_and_unknown_ids_are_scene_errors(bunny):
    tree = boxtree.MeshTree(bunny)
    scene = boxtree.Scene()
    a, b = scene.add(tree), scene.add(tree)
    scene.remove(a)
    assert len(scene) == 1 and a not in scene and b in scene
    assert scene.ids.tolist() == [b]
    for bad in (a, 5, -1):
        with pytest.raises(boxtree.SceneError, match=f"no object {bad}"):
            scene.set_pose(bad, np.eye(4))
    with pytest.raises(boxtree.SceneError, match="no object 9"):
        scene.any_hit(np.zeros((1, 3)), np.ones((1, 3)), ignore=[9])
    # A batch move checks every id and pose before moving anything.
    moved = np.eye(4)
    moved[0, 3] = 5
    with pytest.raises(boxtree.SceneError):
        scene.set_poses([b, a], np.stack([moved, moved]))
    np.testing.assert_array_equal(scene.pose(b), np.eye(4))
    with pytest.raises(boxtree.PoseError, match=r"poses\[1\]"):
        scene.set_poses([b, b], np.stack([moved, np.diag([2.0, 1, 1, 1])]))
    np.testing.assert_array_equal(scene.pose(b), np.eye(4))


def test_meshes_are_built_into_trees_when_added():
    scene = boxtree.Scene()
    box = box_mesh((0, 0, 0), (1, 1, 1))
    first = scene.add(boxtree.Mesh(*box), volume="obb")
    second = scene.add(boxtree.Mesh(*box), pose=np.eye(4))
    assert scene.overlapping_pairs().tolist() == [[first, second]]
    with pytest.raises(ValueError, match="volume"):
        scene.add(boxtree.Mesh(*box), volume="sphere")


def test_scenes_pickle_with_their_ids(world, rng):
    scene, _, _, ids = world
    scene.remove(ids[0])
    again = pickle.loads(pickle.dumps(scene))
    assert again.ids.tolist() == ids[1:]
    points = world_points(rng, 100)
    np.testing.assert_array_equal(
        again.closest_points(points).distance, scene.closest_points(points).distance
    )
    with pytest.raises(boxtree.SceneError):
        again.pose(ids[0])


def test_pickling_a_scene_that_is_changing_is_an_error_not_a_panic():
    # A mesh-like object whose .vertices pickles the scene adding it: the
    # scene is mutably borrowed then, and __reduce__ used to panic.
    scene = boxtree.Scene()
    vertices, faces = box_mesh((0, 0, 0), (1, 1, 1))

    class Reentrant:
        def __init__(self):
            self.faces = faces

        @property
        def vertices(self):
            pickle.dumps(scene)
            return vertices

    with pytest.raises(RuntimeError, match="borrowed"):
        scene.add(Reentrant())
    assert len(scene) == 0


def test_an_unknown_volume_is_refused_even_with_a_tree():
    tree = boxtree.MeshTree(boxtree.Mesh(*box_mesh((0, 0, 0), (1, 1, 1))))
    with pytest.raises(ValueError, match="volume"):
        boxtree.Scene().add(tree, volume="x")


def test_removed_ids_are_unknown_before_and_after_a_save(bunny):
    tree = boxtree.MeshTree(bunny)
    scene = boxtree.Scene()
    a, b = scene.add(tree), scene.add(tree)
    scene.remove(b)
    eye, target = [0.0, 0.0, -50.0], [0.0, 0.0, 50.0]
    for s in (scene, pickle.loads(pickle.dumps(scene))):
        assert b not in s and a in s and 2**70 not in s and "a" not in s
        assert True not in s and False not in s
        with pytest.raises(boxtree.SceneError, match=f"no object {b}"):
            s.any_hit(eye, target, ignore=[b])
        with pytest.raises(boxtree.SceneError):
            s.remove(b)


def test_object_ids_are_ints_not_bools(bunny):
    tree = boxtree.MeshTree(bunny)
    scene = boxtree.Scene()
    scene.add(tree)
    scene.add(tree)
    with pytest.raises(TypeError, match="not a bool"):
        scene.remove(True)
    with pytest.raises(TypeError, match="not bools"):
        scene.set_poses(np.array([True]), np.eye(4)[None])
    with pytest.raises(boxtree.SceneError, match="no object"):
        scene.pose(2**70)
    assert 1 in scene and len(scene.ids) == 2
    scene.remove(np.int64(1))
    assert 1 not in scene


def test_bad_integer_arguments_name_the_argument(bunny):
    # PyO3 names the argument in TypeErrors only; an int out of range
    # read "out of range integral type conversion attempted".
    tree = boxtree.MeshTree(bunny)
    scene = boxtree.Scene()
    for layers in (-1, 2**32):
        with pytest.raises(OverflowError, match="layers must be an int from 0 to 4294967295"):
            scene.add(tree, layers=layers)
    with pytest.raises(OverflowError, match="group must be an int"):
        scene.add(tree, group=-1)
    with pytest.raises(TypeError, match="layers"):
        scene.add(tree, layers=1.5)
    first = scene.add(tree)
    with pytest.raises(OverflowError, match="layers"):
        scene.set_layers(first, -3)
    scene.update()
    origin = np.zeros(3, dtype=np.float32)
    target = np.ones(3, dtype=np.float32)
    with pytest.raises(TypeError, match="ignore must be a sequence of int ids, not a string"):
        scene.any_hit(origin, target, ignore="ab")
    with pytest.raises(TypeError, match="ignore item 0 must be an int id"):
        scene.any_hit(origin, target, ignore=[1.5])
    with pytest.raises(OverflowError, match="ignore item 0 is 1180591620717411303424, beyond any id"):
        scene.any_hit(origin, target, ignore=[2**70])
    with pytest.raises(boxtree.SceneError, match="no object 7"):
        scene.any_hit(origin, target, ignore=[7])
    with pytest.raises(TypeError, match="ignore item 1"):
        tree.line_of_sight(origin, target[None, :], ignore=[0, "x"])
    with pytest.raises(OverflowError, match="limit must be an int"):
        boxtree.touching_pairs(tree, None, tree, None, limit=-1)
