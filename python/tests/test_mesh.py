"""Meshes from arrays, files and trimesh-like objects; what validation
refuses, and the row it names."""

import pickle

import numpy as np
import pytest
from conftest import DATA
from oracles import box_mesh

import boxtree


def test_arrays_round_trip_as_float32_and_int64():
    vertices, faces = box_mesh((0, 0, 0), (1, 2, 3))
    mesh = boxtree.Mesh(vertices, faces)
    assert len(mesh) == 12 and mesh.vertex_count == 8
    assert mesh.vertices.dtype == np.float32 and mesh.faces.dtype == np.int64
    np.testing.assert_array_equal(mesh.vertices, vertices)
    np.testing.assert_array_equal(mesh.faces, faces)
    np.testing.assert_array_equal(mesh.bounds, [[0, 0, 0], [1, 2, 3]])
    report = mesh.report()
    assert report["surface_area"] == pytest.approx(2 * (1 * 2 + 2 * 3 + 1 * 3))
    assert report["degenerate_triangles"] == 0 and report["unused_vertices"] == 0


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.uint32, np.int64, np.uint64])
def test_faces_of_any_integer_dtype(dtype):
    vertices, faces = box_mesh((0, 0, 0), (1, 1, 1))
    assert len(boxtree.Mesh(vertices, faces.astype(dtype))) == 12


def test_the_bunny_file_loads(bunny):
    assert (bunny.vertex_count, len(bunny)) == (1839, 3674)
    assert bunny.report()["degenerate_triangles"] == 0


class Soup:
    """Anything with .vertices and .faces, as trimesh.Trimesh has."""

    def __init__(self, vertices, faces):
        self.vertices, self.faces = vertices, faces


def test_trimesh_like_objects_are_accepted_where_meshes_are():
    vertices, faces = box_mesh((0, 0, 0), (1, 1, 1))
    soup = Soup(vertices, faces)
    np.testing.assert_array_equal(boxtree.Mesh.from_trimesh(soup).faces, faces)
    tree = boxtree.MeshTree(soup)
    assert tree.any_hit(np.array([0.5, 0.5, -1]), np.array([0.5, 0.5, 2])) is not None
    scene = boxtree.Scene()
    assert scene.add(soup) == 0


def test_a_real_trimesh_is_accepted():
    trimesh = pytest.importorskip("trimesh")
    box = trimesh.creation.box(extents=(2, 2, 2))
    tree = boxtree.MeshTree(box)
    hit = tree.closest_hit(np.array([0, 0, 5.0]), np.array([0, 0, -1.0]))
    assert hit.t == pytest.approx(4.0)


def test_other_objects_are_refused_with_a_type_error():
    with pytest.raises(TypeError, match=r"\.vertices and \.faces"):
        boxtree.MeshTree(42)


def test_a_non_finite_vertex_is_named():
    vertices, faces = box_mesh((0, 0, 0), (1, 1, 1))
    vertices[5, 1] = np.nan
    with pytest.raises(boxtree.MeshError, match="vertex 5"):
        boxtree.Mesh(vertices, faces)
    vertices[5, 1] = 1e39  # finite in float64, infinite in float32
    with pytest.raises(boxtree.MeshError, match=r"vertex 5 \(.*1e39.*\) overflows float32"):
        boxtree.Mesh(vertices, faces)


@pytest.mark.parametrize("bad", [8, -1, 2**32])
def test_an_index_out_of_range_names_its_triangle(bad):
    vertices, faces = box_mesh((0, 0, 0), (1, 1, 1))
    faces[7, 2] = bad
    with pytest.raises(boxtree.MeshError, match=f"triangle 7 refers to vertex {bad}"):
        boxtree.Mesh(vertices, faces)


@pytest.mark.parametrize("bad", [2**32, 2**63 + 2, 2**64 - 1])
def test_a_large_unsigned_index_is_named_as_given(bad):
    # uint64 values above int64's range used to be named as negative.
    vertices, faces = box_mesh((0, 0, 0), (1, 1, 1))
    faces = faces.astype(np.uint64)
    faces[7, 2] = bad
    with pytest.raises(boxtree.MeshError, match=f"triangle 7 refers to vertex {bad},"):
        boxtree.Mesh(vertices, faces)


def test_an_empty_mesh_is_refused():
    with pytest.raises(boxtree.MeshError, match="no triangles"):
        boxtree.Mesh(np.zeros((3, 3)), np.zeros((0, 3), dtype=int))


@pytest.mark.parametrize(
    "vertices, faces, error",
    [
        (np.zeros((8, 2)), np.zeros((1, 3), dtype=int), boxtree.ArrayError),
        (np.zeros((8, 3)), np.zeros((1, 4), dtype=int), boxtree.ArrayError),
        (np.zeros((8, 3)), np.zeros((1, 3)), TypeError),
        (np.zeros((8, 3), dtype=complex), np.zeros((1, 3), dtype=int), TypeError),
    ],
)
def test_bad_mesh_arrays_are_refused(vertices, faces, error):
    with pytest.raises(error, match="vertices|faces"):
        boxtree.Mesh(vertices, faces)


def test_missing_and_malformed_files():
    with pytest.raises(FileNotFoundError):
        boxtree.Mesh.load(DATA / "no such mesh.obj")
    with pytest.raises(IsADirectoryError):
        boxtree.Mesh.load(DATA)
    with pytest.raises(TypeError, match="str, bytes or os.PathLike"):
        boxtree.Mesh.load(3)
    # A path as bytes, as Python's own file functions take it.
    as_bytes = boxtree.Mesh.load(bytes(DATA / "bunny.obj"))
    assert len(as_bytes) == len(boxtree.Mesh.load(str(DATA / "bunny.obj")))
    with pytest.raises(boxtree.MeshError, match=r"README\.md"):
        boxtree.Mesh.load(DATA / "README.md")


def test_meshes_and_trees_pickle(bunny, bunny_tree, rng):
    again = pickle.loads(pickle.dumps(bunny))
    np.testing.assert_array_equal(again.vertices, bunny.vertices)
    tree = pickle.loads(pickle.dumps(bunny_tree))
    assert tree.volume == bunny_tree.volume and len(tree) == len(bunny_tree)
    points = rng.normal(size=(200, 3)).astype(np.float32) * 4
    np.testing.assert_array_equal(
        tree.closest_points(points).distance, bunny_tree.closest_points(points).distance
    )


def test_damaged_bytes_raise_load_error(bunny_tree):
    data = bytearray(bunny_tree.to_bytes())
    data[len(data) // 2] ^= 0xFF
    with pytest.raises(boxtree.LoadError):
        boxtree.MeshTree.from_bytes(bytes(data))
    with pytest.raises(boxtree.LoadError):
        boxtree.Mesh.from_bytes(b"not a mesh")


def test_the_first_triangle_with_any_bad_index_is_named():
    vertices = np.zeros((3, 3), dtype=np.float32)
    with pytest.raises(boxtree.MeshError, match="triangle 1 refers to vertex 8589934592,"):
        boxtree.Mesh(vertices, np.uint64([[0, 1, 2], [0, 1, 2**33], [0, 1, 2**40]]))
    # Past the vertices before past 32 bits: the earlier triangle.
    with pytest.raises(boxtree.MeshError, match="triangle 0 refers to vertex 5,"):
        boxtree.Mesh(vertices, np.int64([[0, 1, 5], [0, 1, -1]]))


def test_fields_of_packed_records_are_read_as_given():
    # x, y, z beside three colour bytes: strides (15, 4), not whole items
    # of the 15-byte rows; the numpy crate's views had read other bytes.
    from numpy.lib import recfunctions

    record = np.dtype(
        [("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("r", "u1"), ("g", "u1"), ("b", "u1")]
    )
    rows = np.zeros(4, dtype=record)
    rows["x"], rows["y"], rows["z"] = [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]
    xyz = recfunctions.structured_to_unstructured(rows[["x", "y", "z"]])
    assert xyz.strides[0] % xyz.itemsize != 0, "the case needs a view, not a copy"
    mesh = boxtree.Mesh(xyz, [[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]])
    np.testing.assert_array_equal(mesh.vertices, np.eye(4, 3, k=-1, dtype=np.float32))
    tree = boxtree.MeshTree(mesh)
    tagged = np.zeros(2, dtype=[("tag", "u1"), ("p", "<f4", 3)])
    tagged["p"] = [[5, 0, 0], [0, 0, -2]]
    assert tagged["p"].strides[0] % 4 != 0
    found = tree.closest_points(tagged["p"])
    np.testing.assert_allclose(found.distance, [4, 2])


def test_unaligned_arrays_are_copied_before_rust_reads_them():
    # Whole-item strides but an odd address (a field after one tag byte, a
    # buffer read from offset 1): Rust may not read such items in place.
    rec = np.zeros(3, np.dtype([("c", "u1"), ("p", "<f4", 3), ("d", "u1", 3)]))
    rec["p"] = [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
    assert not rec["p"].flags.aligned and rec["p"].strides == (16, 4)
    mesh = boxtree.Mesh(rec["p"], [[0, 1, 2]])
    np.testing.assert_array_equal(mesh.vertices, rec["p"])
    raw = b"\0" + np.float32([[0.2, 0.2, -1.0], [0.2, 0.2, 1.0]]).tobytes()
    points = np.frombuffer(raw, np.float32, offset=1).reshape(2, 3)
    assert not points.flags.aligned
    hits = boxtree.MeshTree(mesh).any_hit(points[:1], points[1:])
    assert hits.tolist() == [0]
    pose = np.frombuffer(b"\0" + np.eye(4).tobytes(), np.float64, offset=1).reshape(4, 4)
    assert not pose.flags.aligned
    tree = boxtree.MeshTree(mesh)
    assert boxtree.overlaps(tree, pose, tree, pose)

