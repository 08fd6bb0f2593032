//! `boxtree.Mesh`: a validated triangle soup, from arrays, a file, or any
//! object with `.vertices` and `.faces` (a `trimesh.Trimesh`, without
//! depending on trimesh).

use boxtree::{Point, TriMesh};
use numpy::{IntoPyArray, PyArray2, PyArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::arrays::{RowsView, faces, rows};
use crate::errors::{load_error, mesh_error};

/// A triangle mesh: float32 vertices and triangles as vertex-index
/// triples, validated once (finite vertices, indices in range, at least one
/// triangle). Zero-area triangles are kept, so triangle ids stay those of
/// the input: rays and overlap never find them, nearest points take them
/// as the segment or point they span.
///
/// Mesh(vertices, faces): vertices is (V, 3) float, faces (F, 3) integer.
#[pyclass(module = "boxtree", frozen)]
pub struct Mesh {
    pub(crate) mesh: TriMesh,
}

/// A mesh from `(V, 3)` vertices and `(F, 3)` faces, validated.
pub(crate) fn mesh_from_arrays(
    vertices: &Bound<'_, PyAny>,
    faces_obj: &Bound<'_, PyAny>,
) -> PyResult<TriMesh> {
    let rows = rows(vertices, "vertices")?;
    let view = rows.view();
    // A finite float64 beyond float32's range reads as infinite: say so,
    // rather than let the mesh call it non-finite.
    if let RowsView::F64(rows) = &view
        && let Some(i) = (0..rows.nrows()).find(|&i| {
            (0..3).any(|k| rows[[i, k]].is_finite() && !(rows[[i, k]] as f32).is_finite())
        })
    {
        return Err(crate::errors::MeshError::new_err(format!(
            "vertex {i} ({:e}, {:e}, {:e}) overflows float32",
            rows[[i, 0]],
            rows[[i, 1]],
            rows[[i, 2]]
        )));
    }
    let points: Vec<Point> = (0..view.len()).map(|i| view.point(i)).collect();
    let indices = faces(faces_obj, points.len())?;
    TriMesh::new(points, indices).map_err(mesh_error)
}

/// What a mesh argument may be: a `Mesh`, or anything with `.vertices` and
/// `.faces` arrays (a `trimesh.Trimesh`).
pub(crate) fn mesh_like(obj: &Bound<'_, PyAny>) -> PyResult<TriMesh> {
    if let Ok(mesh) = obj.cast::<Mesh>() {
        return Ok(mesh.get().mesh.clone());
    }
    match (obj.getattr_opt("vertices")?, obj.getattr_opt("faces")?) {
        (Some(vertices), Some(faces)) => mesh_from_arrays(&vertices, &faces),
        _ => Err(PyTypeError::new_err(format!(
            "expected a boxtree.Mesh or an object with .vertices and .faces \
             (such as a trimesh.Trimesh); got {}",
            obj.get_type().name()?
        ))),
    }
}

#[pymethods]
impl Mesh {
    #[new]
    fn new(vertices: &Bound<'_, PyAny>, faces: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(Mesh {
            mesh: mesh_from_arrays(vertices, faces)?,
        })
    }

    /// Reads an OBJ, STL (ASCII or binary) or PLY file; the format comes
    /// from the extension, else from the content. The path is a str, bytes
    /// or os.PathLike, as for Python's own file functions.
    #[staticmethod]
    fn load(py: Python<'_>, path: &Bound<'_, PyAny>) -> PyResult<Self> {
        // `os.fsdecode` takes all three, and raises the TypeError Python's
        // file functions raise for anything else.
        let path: std::path::PathBuf = py
            .import("os")?
            .call_method1("fsdecode", (path,))?
            .extract()?;
        let mesh = py.detach(|| TriMesh::load(&path)).map_err(mesh_error)?;
        Ok(Mesh { mesh })
    }

    /// A mesh from anything with `.vertices` and `.faces` (a trimesh.Trimesh).
    #[staticmethod]
    fn from_trimesh(obj: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(Mesh {
            mesh: mesh_like(obj)?,
        })
    }

    /// The vertex positions, (V, 3) float32 (a copy).
    #[getter]
    fn vertices<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let flat: Vec<f32> = self
            .mesh
            .vertices()
            .iter()
            .flat_map(|v| [v.x, v.y, v.z])
            .collect();
        flat.into_pyarray(py)
            .reshape([self.mesh.vertices().len(), 3])
    }

    /// The triangles as vertex-index triples, (F, 3) int64 (a copy).
    #[getter]
    fn faces<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<i64>>> {
        let flat: Vec<i64> = self
            .mesh
            .indices()
            .as_flattened()
            .iter()
            .map(|&i| i64::from(i))
            .collect();
        flat.into_pyarray(py).reshape([self.mesh.len(), 3])
    }

    /// Number of vertices.
    #[getter]
    fn vertex_count(&self) -> usize {
        self.mesh.vertices().len()
    }

    /// The box around the used vertices, (2, 3): the minimum row, then the maximum.
    #[getter]
    fn bounds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let b = self.mesh.aabb();
        vec![b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z]
            .into_pyarray(py)
            .reshape([2, 3])
    }

    /// What validation found: vertex and triangle counts, degenerate
    /// (zero-area) triangles, unused vertices and the surface area.
    fn report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let r = self.mesh.report();
        let dict = PyDict::new(py);
        dict.set_item("vertex_count", r.vertex_count)?;
        dict.set_item("triangle_count", r.triangle_count)?;
        dict.set_item("degenerate_triangles", r.degenerate_triangles)?;
        dict.set_item("unused_vertices", r.unused_vertices)?;
        dict.set_item("surface_area", r.surface_area)?;
        Ok(dict)
    }

    /// The mesh in boxtree's saved form (what pickling stores).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.mesh.to_saved_bytes())
    }

    /// A mesh from `to_bytes`' bytes, checked as the constructor checks.
    #[staticmethod]
    fn from_bytes(data: &[u8]) -> PyResult<Self> {
        let mesh = TriMesh::from_saved_bytes(data).map_err(load_error)?;
        Ok(Mesh { mesh })
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        crate::reduce_through_bytes(slf.get_type(), slf.get().to_bytes(slf.py()))
    }

    /// Number of triangles.
    fn __len__(&self) -> usize {
        self.mesh.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "Mesh({} vertices, {} triangles)",
            self.mesh.vertices().len(),
            self.mesh.len()
        )
    }
}
