//! The exceptions Python sees: one small hierarchy under `boxtree.BoxtreeError`
//! (a `ValueError`, since every one of them is bad input), and the mapping
//! from the crate's typed errors into it.

use pyo3::exceptions::{PyFileNotFoundError, PyIsADirectoryError, PyOSError, PyValueError};
use pyo3::{PyErr, create_exception};

create_exception!(
    boxtree,
    BoxtreeError,
    PyValueError,
    "Base of boxtree's exceptions; a ValueError, as each names bad input."
);
create_exception!(
    boxtree,
    ArrayError,
    BoxtreeError,
    "An array argument has the wrong shape or holds values the call refuses."
);
create_exception!(
    boxtree,
    MeshError,
    BoxtreeError,
    "A mesh was refused: the message names the first bad vertex, triangle or file line."
);
create_exception!(
    boxtree,
    PoseError,
    BoxtreeError,
    "A 4x4 pose is not a finite rigid motion (rotation and translation only)."
);
create_exception!(
    boxtree,
    SceneError,
    BoxtreeError,
    "A scene refused a change or a query: an unknown object id, a bad pose."
);
create_exception!(
    boxtree,
    LoadError,
    BoxtreeError,
    "Saved bytes (pickles, to_bytes) are damaged or of another kind."
);

/// A mesh refused by the crate; a file that cannot be read is an `OSError`
/// (`FileNotFoundError` when missing), as Python's own file functions raise.
pub(crate) fn mesh_error(error: boxtree::MeshError) -> PyErr {
    match &error {
        boxtree::MeshError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(error.to_string())
        }
        boxtree::MeshError::Io { source, .. }
            if source.kind() == std::io::ErrorKind::IsADirectory =>
        {
            PyIsADirectoryError::new_err(error.to_string())
        }
        boxtree::MeshError::Io { .. } => PyOSError::new_err(error.to_string()),
        _ => MeshError::new_err(error.to_string()),
    }
}

/// A scene change refused by the crate.
pub(crate) fn scene_error(error: boxtree::SceneError) -> PyErr {
    SceneError::new_err(error.to_string())
}

/// Saved bytes refused by the crate.
pub(crate) fn load_error(error: boxtree::saved::LoadError) -> PyErr {
    LoadError::new_err(error.to_string())
}

/// A refused array argument, named in the message.
pub(crate) fn array_error(message: impl Into<String>) -> PyErr {
    ArrayError::new_err(message.into())
}
