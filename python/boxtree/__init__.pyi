"""Type stubs of boxtree: spatial queries over triangle meshes with AABB and
OBB trees, numpy batches on all cores."""

import os
from typing import Literal, Optional, Protocol, Sequence, Tuple, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray

class _MeshLike(Protocol):
    """Anything with vertex and face arrays, such as a trimesh.Trimesh."""

    @property
    def vertices(self) -> ArrayLike: ...
    @property
    def faces(self) -> ArrayLike: ...

Volume = Literal["aabb", "obb"]
MeshLike = Union["Mesh", _MeshLike]
Pose = Optional[ArrayLike]
"""A 4x4 rigid motion (rotation and translation, mesh frame to world);
None for the identity."""

class BoxtreeError(ValueError):
    """Base of boxtree's exceptions; a ValueError, as each names bad input."""

class ArrayError(BoxtreeError):
    """An array argument has the wrong shape or holds values the call refuses."""

class MeshError(BoxtreeError):
    """A mesh was refused: the message names the first bad vertex, triangle or file line."""

class PoseError(BoxtreeError):
    """A 4x4 pose is not a finite rigid motion (rotation and translation only)."""

class SceneError(BoxtreeError):
    """A scene refused a change or a query: an unknown object id, a bad pose."""

class LoadError(BoxtreeError):
    """Saved bytes (pickles, to_bytes) are damaged or of another kind."""

class Mesh:
    """A validated triangle mesh: float32 vertices, vertex-index triples.

    Vertices must be finite and indices in range, with at least one
    triangle; errors name the first bad vertex or triangle. Zero-area
    triangles are kept (ids stay those of the input): rays and overlap never
    find them, nearest points take them as the segment or point they span.
    """

    def __init__(self, vertices: ArrayLike, faces: ArrayLike) -> None:
        """vertices (V, 3) floats, faces (F, 3) integers."""
    @staticmethod
    def load(path: Union[str, bytes, os.PathLike[str], os.PathLike[bytes]]) -> "Mesh":
        """Reads an OBJ, STL or PLY file (format from the extension, else the content)."""
    @staticmethod
    def from_trimesh(obj: _MeshLike) -> "Mesh":
        """A mesh from anything with .vertices and .faces (a trimesh.Trimesh)."""
    @property
    def vertices(self) -> NDArray[np.float32]:
        """(V, 3) vertex positions (a copy)."""
    @property
    def faces(self) -> NDArray[np.int64]:
        """(F, 3) vertex indices of each triangle (a copy)."""
    @property
    def vertex_count(self) -> int: ...
    @property
    def bounds(self) -> NDArray[np.float32]:
        """(2, 3): the minimum corner, then the maximum."""
    def report(self) -> dict[str, Union[int, float]]:
        """vertex_count, triangle_count, degenerate_triangles, unused_vertices, surface_area."""
    def to_bytes(self) -> bytes: ...
    @staticmethod
    def from_bytes(data: bytes) -> "Mesh": ...
    def __len__(self) -> int:
        """Number of triangles."""

class Hit:
    """The closest hit of one ray."""

    t: float
    triangle: int
    barycentric: Tuple[float, float, float]
    normal: Tuple[float, float, float]
    front_face: bool
    object: Optional[int]

class Hits:
    """Closest hits of a batch of rays; row i answers ray i. Rows without a
    hit: hit False, t inf, triangle (and object) -1, NaN barycentric/normal."""

    hit: NDArray[np.bool_]
    t: NDArray[np.float32]
    triangle: NDArray[np.int64]
    barycentric: NDArray[np.float32]
    normal: NDArray[np.float32]
    front_face: NDArray[np.bool_]
    object: Optional[NDArray[np.int64]]
    """The object hit, for scene queries; None for a mesh."""
    def __len__(self) -> int: ...

class Nearest:
    """The point of a surface nearest one query point."""

    point: Tuple[float, float, float]
    distance: float
    triangle: int
    barycentric: Tuple[float, float, float]
    object: Optional[int]

class NearestPoints:
    """Nearest points of a batch of query points; row i answers point i.
    Rows with nothing within reach: found False, distance inf, triangle
    (and object) -1, NaN point/barycentric."""

    found: NDArray[np.bool_]
    point: NDArray[np.float32]
    distance: NDArray[np.float32]
    triangle: NDArray[np.int64]
    barycentric: NDArray[np.float32]
    object: Optional[NDArray[np.int64]]
    def __len__(self) -> int: ...

class Sight:
    """Line of sight from one eye to a batch of targets; row i answers target i."""

    visible: NDArray[np.bool_]
    blocker: NDArray[np.int64]
    """A blocking triangle (the first found, not always the nearest), or -1."""
    valid: NDArray[np.bool_]
    """False where the eye or target is NaN or infinite (no answer)."""
    object: Optional[NDArray[np.int64]]
    def __len__(self) -> int: ...

class MeshTree:
    """A mesh and its bounding-volume hierarchy, built once, queried from any thread.

    volume "aabb" (binned SAH): fastest for rays and points; "obb"
    (Gottschalk's oriented boxes): tightest for overlap of rotated meshes.
    Batches take (N, 3) arrays and release the GIL; (3,) arrays ask one
    question through the crate's single-query function.
    """

    def __init__(self, mesh: MeshLike, volume: Volume = "aabb") -> None: ...
    @property
    def volume(self) -> Volume: ...
    @property
    def mesh(self) -> Mesh: ...
    @property
    def nbytes(self) -> int:
        """Bytes the tree keeps beside the mesh."""
    def any_hit(
        self, origins: ArrayLike, ends: ArrayLike
    ) -> Union[NDArray[np.int64], Optional[int]]:
        """Some triangle each segment touches (ends included; a zero-length
        segment touches nothing), or -1 (None for one segment)."""
    def closest_hit(
        self, origins: ArrayLike, directions: ArrayLike, t_max: float = ...
    ) -> Union[Hits, Optional[Hit]]:
        """The nearest hit of each ray origin + t * direction, 0 <= t <= t_max."""
    def line_of_sight(
        self,
        eye: ArrayLike,
        targets: ArrayLike,
        margins: Tuple[float, float] = (0.0, 0.0),
        ignore: Sequence[int] = (),
    ) -> Sight:
        """Whether each target is visible from eye; margins (near eye, near target)
        shorten the segment, ignore lists triangles that never block."""
    def closest_points(
        self, points: ArrayLike, max_distance: float = ...
    ) -> Union[NearestPoints, Optional[Nearest]]:
        """The nearest surface point to each point within max_distance."""
    def to_bytes(self) -> bytes: ...
    @staticmethod
    def from_bytes(data: bytes) -> "MeshTree": ...
    def __len__(self) -> int: ...

def overlaps(
    tree_a: MeshTree, pose_a: Pose, tree_b: MeshTree, poses_b: Pose
) -> Union[NDArray[np.bool_], bool]:
    """Whether tree_a at pose_a touches tree_b at each pose of poses_b
    ((N, 4, 4): a bool array; (4, 4) or None, the identity: a bool).
    Touching counts; containment without touching does not. Poses are
    rounded to float32 first: the answer is exact for the rounded poses."""

def touching_pairs(
    tree_a: MeshTree, pose_a: Pose, tree_b: MeshTree, pose_b: Pose, limit: Optional[int] = None
) -> NDArray[np.int64]:
    """(K, 2) rows (triangle of A, triangle of B) of every touching pair, sorted."""

class Scene:
    """Many placed (and instanced) trees under one top-level tree.

    Ids grow from 0 in the order objects are added and are never reused.
    Queries take layers (a mask: objects sharing a bit are seen) and ignore
    (object ids never reported).
    """

    def __init__(self) -> None: ...
    def add(
        self,
        mesh: Union[MeshTree, MeshLike],
        pose: Pose = None,
        layers: int = 1,
        group: Optional[int] = None,
        volume: Volume = "aabb",
    ) -> int: ...
    def remove(self, id: int) -> None: ...
    def set_pose(self, id: int, pose: ArrayLike) -> None: ...
    def set_poses(self, ids: ArrayLike, poses: ArrayLike) -> None:
        """Moves many objects: ids (N,), poses (N, 4, 4), all checked first."""
    def pose(self, id: int) -> NDArray[np.float64]: ...
    def set_layers(self, id: int, layers: int) -> None: ...
    def set_group(self, id: int, group: Optional[int]) -> None: ...
    def update(self) -> bool:
        """Rebuilds the top-level tree when needed (True when it did)."""
    @property
    def ids(self) -> NDArray[np.int64]: ...
    def any_hit(
        self, origins: ArrayLike, ends: ArrayLike, layers: int = ..., ignore: Sequence[int] = ()
    ) -> Union[Tuple[NDArray[np.int64], NDArray[np.int64]], Optional[Tuple[int, int]]]:
        """(objects, triangles) touched by each segment, -1 where none."""
    def closest_hit(
        self,
        origins: ArrayLike,
        directions: ArrayLike,
        t_max: float = ...,
        layers: int = ...,
        ignore: Sequence[int] = (),
    ) -> Union[Hits, Optional[Hit]]: ...
    def line_of_sight(
        self,
        eye: ArrayLike,
        targets: ArrayLike,
        margins: Tuple[float, float] = (0.0, 0.0),
        layers: int = ...,
        ignore: Sequence[int] = (),
    ) -> Sight: ...
    def closest_points(
        self, points: ArrayLike, max_distance: float = ..., layers: int = ..., ignore: Sequence[int] = ()
    ) -> Union[NearestPoints, Optional[Nearest]]: ...
    def touching(
        self, tree: MeshTree, pose: Pose = None, layers: int = ..., ignore: Sequence[int] = ()
    ) -> NDArray[np.int64]:
        """Ids of the objects whose mesh touches tree placed at pose, sorted."""
    def overlapping_pairs(self, layers: int = ..., ignore: Sequence[int] = ()) -> NDArray[np.int64]:
        """(K, 2) sorted rows (a, b), a < b, of touching objects (groups excluded)."""
    def to_bytes(self) -> bytes: ...
    @staticmethod
    def from_bytes(data: bytes) -> "Scene": ...
    def __len__(self) -> int: ...
    def __contains__(self, id: int) -> bool: ...
