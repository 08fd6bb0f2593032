//! The Python extension module `boxtree._boxtree`, re-exported by the
//! `boxtree` package (`python/boxtree/__init__.py`).
//!
//! numpy arrays in, numpy arrays out, batches first: each batch query
//! checks its arrays while it holds the GIL (`arrays.rs`, `pose.rs`), then
//! releases it and runs the crate's batch function block by block
//! (`batch.rs`) on all cores, and builds the answer columns (`results.rs`).
//! The crate's typed errors become the exceptions of `errors.rs`; the
//! Python classes live in `mesh.rs`, `tree.rs`, `pair.rs` and `scene.rs`.
// The doc comments of Python-facing items are their Python docstrings,
// written for Python readers: `origins[i]` there is indexing, not a link.
#![allow(rustdoc::broken_intra_doc_links)]

mod arrays;
mod batch;
mod errors;
mod mesh;
mod pair;
mod pose;
mod results;
mod scene;
mod tree;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyType};

/// Spatial queries over triangle meshes with bounding-volume hierarchies.
#[pymodule]
mod _boxtree {
    #[pymodule_export]
    use crate::errors::{ArrayError, BoxtreeError, LoadError, MeshError, PoseError, SceneError};
    #[pymodule_export]
    use crate::mesh::Mesh;
    #[pymodule_export]
    use crate::pair::{overlaps, touching_pairs};
    #[pymodule_export]
    use crate::results::{Hit, Hits, Nearest, NearestPoints, Sight};
    #[pymodule_export]
    use crate::scene::Scene;
    #[pymodule_export]
    use crate::tree::MeshTree;
}

/// `__reduce__` through the saved form, for pickling: `(cls.from_bytes,
/// (saved,))` for the object's class `class`.
pub(crate) fn reduce_through_bytes<'py>(
    class: Bound<'py, PyType>,
    saved: Bound<'py, PyBytes>,
) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
    Ok((class.getattr("from_bytes")?, (saved,)))
}
