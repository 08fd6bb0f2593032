"""Shared meshes and trees: the Stanford bunny of the crate's test data,
and seeded random generators."""

from pathlib import Path

import numpy as np
import pytest

import boxtree

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"


@pytest.fixture(scope="session")
def bunny():
    return boxtree.Mesh.load(DATA / "bunny.obj")


@pytest.fixture(scope="session", params=["aabb", "obb"])
def bunny_tree(request, bunny):
    return boxtree.MeshTree(bunny, volume=request.param)


@pytest.fixture
def rng():
    return np.random.default_rng(20261125)


def around(mesh, rng, n, spread=0.6):
    """n points scattered around the mesh's box (spread: fraction of its size)."""
    lo, hi = mesh.bounds.astype(np.float64)
    centre, size = (lo + hi) / 2, hi - lo
    return (centre + rng.uniform(-0.5 - spread, 0.5 + spread, size=(n, 3)) * size).astype(np.float32)
