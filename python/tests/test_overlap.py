"""Mesh-vs-mesh overlap over many poses against a float64 separating-axis
brute force over every triangle pair, and against one pose at a time."""

import numpy as np
import pytest
from conftest import DATA
from oracles import box_mesh, random_poses, rotation, touching_pairs

import boxtree

BOX = box_mesh((-1, -1, -1), (1, 1, 1))
SLAB = box_mesh((-2, -0.25, -0.5), (2, 0.25, 0.5))


@pytest.fixture(scope="module", params=["aabb", "obb"])
def trees(request):
    return (boxtree.MeshTree(boxtree.Mesh(*BOX), volume=request.param),
            boxtree.MeshTree(boxtree.Mesh(*SLAB), volume=request.param))


def test_touching_pairs_match_brute_force(trees, rng):
    box, slab = trees
    pose_a = rotation([1, 2, 3], 0.4)
    checked = 0
    for pose_b in random_poses(rng, 60, 3.0):
        expected, robust = touching_pairs(*BOX, pose_a, *SLAB, pose_b, 1e-4)
        if not robust:
            continue
        checked += 1
        pairs = boxtree.touching_pairs(box, pose_a, slab, pose_b)
        np.testing.assert_array_equal(pairs, expected.reshape(-1, 2))
    assert checked > 40


def test_overlaps_over_many_poses_match_brute_force_and_single_poses(trees, rng):
    box, slab = trees
    poses = random_poses(rng, 300, 3.0)
    answers = boxtree.overlaps(box, None, slab, poses)
    assert answers.dtype == bool and answers.shape == (300,)
    assert 0.1 < answers.mean() < 0.9
    for pose, answer in zip(poses[:100], answers):
        assert boxtree.overlaps(box, None, slab, pose) == answer
        expected, robust = touching_pairs(*BOX, np.eye(4), *SLAB, pose, 1e-4)
        if robust:
            assert answer == (len(expected) > 0)


def test_exact_touching_counts_as_overlap(trees):
    box, _ = trees
    touching = np.eye(4)
    touching[0, 3] = 2.0  # face to face, sharing the plane x = 1
    apart = touching.copy()
    apart[0, 3] = 2.0 + 1e-5
    np.testing.assert_array_equal(
        boxtree.overlaps(box, None, box, np.stack([touching, apart])), [True, False]
    )


def test_containment_is_not_overlap(trees):
    box, slab = trees
    small = boxtree.MeshTree(boxtree.Mesh(*box_mesh((-0.1, -0.1, -0.1), (0.1, 0.1, 0.1))))
    assert not boxtree.overlaps(box, None, small, np.eye(4))


def test_fcl_environment_and_robot(rng):
    env = boxtree.MeshTree(boxtree.Mesh.load(DATA / "env.obj"), volume="obb")
    rob = boxtree.MeshTree(boxtree.Mesh.load(DATA / "rob.obj"), volume="obb")
    poses = random_poses(rng, 200, 300.0)
    answers = boxtree.overlaps(env, None, rob, poses)
    pairs = [len(boxtree.touching_pairs(env, None, rob, p, limit=1)) > 0 for p in poses]
    np.testing.assert_array_equal(answers, pairs)
    aabb = boxtree.overlaps(boxtree.MeshTree(env.mesh), None, boxtree.MeshTree(rob.mesh), poses)
    np.testing.assert_array_equal(answers, aabb)


def test_limit_keeps_the_smallest_pairs(trees):
    box, _ = trees
    pose = np.eye(4)
    pose[:3, 3] = [0.5, 0.25, 0.0]
    every = boxtree.touching_pairs(box, None, box, pose)
    assert len(every) > 3
    np.testing.assert_array_equal(boxtree.touching_pairs(box, None, box, pose, limit=3), every[:3])


@pytest.mark.parametrize(
    "pose, message",
    [
        (np.diag([2.0, 2.0, 2.0, 1.0]), "not a rigid motion"),
        (np.diag([1.0, 1.0, -1.0, 1.0]), "not a rigid motion"),
        (np.full((4, 4), np.nan), "non-finite"),
        (np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 1.0]]), "bottom row"),
    ],
)
def test_bad_poses_are_named(trees, pose, message):
    box, slab = trees
    poses = np.stack([np.eye(4)] * 3 + [pose])
    with pytest.raises(boxtree.PoseError, match=rf"poses_b\[3\].*{message}|{message}"):
        boxtree.overlaps(box, None, slab, poses)
    with pytest.raises(boxtree.PoseError, match=r"pose_a"):
        boxtree.overlaps(box, pose, slab, poses[:3])


def test_pose_arrays_of_the_wrong_shape_are_refused(trees):
    box, slab = trees
    with pytest.raises(boxtree.ArrayError, match="poses_b"):
        boxtree.overlaps(box, None, slab, np.zeros((3, 3, 3)))
    with pytest.raises(TypeError):
        boxtree.overlaps(box, None, "not a tree", np.eye(4))


def test_none_poses_are_the_identity_and_tree_bytes_name_their_content(trees):
    a, b = trees
    assert boxtree.overlaps(a, None, b, None) == boxtree.overlaps(a, np.eye(4), b, np.eye(4))
    with pytest.raises(boxtree.LoadError, match="not a MeshTree"):
        boxtree.MeshTree.from_bytes(a.mesh.to_bytes())
