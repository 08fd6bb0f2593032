"""Spatial queries over triangle meshes with bounding-volume hierarchies.

Build a :class:`MeshTree` (AABB or OBB) over a :class:`Mesh`, or over anything
with ``.vertices`` and ``.faces`` such as a ``trimesh.Trimesh``, then ask
batches of questions as numpy arrays: :meth:`MeshTree.any_hit`,
:meth:`MeshTree.closest_hit`, :meth:`MeshTree.line_of_sight`,
:meth:`MeshTree.closest_points`; between two posed trees, :func:`overlaps`
(over many poses) and :func:`touching_pairs`; over many placed trees, a
:class:`Scene`. Batches release the GIL and run on all cores.

Array conventions: points are ``(N, 3)`` rows; float32 C-contiguous arrays
are read in place, other numbers converted on the way. Rows without an
answer hold ``-1`` in integer columns, ``inf`` in ``t``/``distance`` and
NaN in other float columns. Poses are 4x4 rigid motions (mesh frame to
world). Bad input raises a :class:`BoxtreeError` (a ``ValueError``) naming
the argument and row, or a ``TypeError`` for a wrong dtype.
"""

from ._boxtree import (
    ArrayError,
    BoxtreeError,
    Hit,
    Hits,
    LoadError,
    Mesh,
    MeshError,
    MeshTree,
    Nearest,
    NearestPoints,
    PoseError,
    Scene,
    SceneError,
    Sight,
    overlaps,
    touching_pairs,
)

__all__ = [
    "ArrayError",
    "BoxtreeError",
    "Hit",
    "Hits",
    "LoadError",
    "Mesh",
    "MeshError",
    "MeshTree",
    "Nearest",
    "NearestPoints",
    "PoseError",
    "Scene",
    "SceneError",
    "Sight",
    "overlaps",
    "touching_pairs",
]
