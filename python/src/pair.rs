//! Mesh-vs-mesh queries: does one posed tree touch another under many
//! poses, and which triangle pairs touch. The crate answers one pose pair
//! at a time; the poses of a batch are spread over all cores here.

use boxtree::{BoundingVolume, Isometry, MeshTree as Tree};
use numpy::{IntoPyArray, PyArrayMethods};
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::arrays::limit_arg;
use crate::pose::{Poses, pose, poses};
use crate::results::id;
use crate::tree::{MeshTree, with_tree};

/// Whether tree_a placed at pose_a touches tree_b placed at each of
/// poses_b: surfaces sharing a point, touching included (a mesh inside a
/// closed mesh without touching does not overlap).
///
/// Poses are 4x4 rigid motions (mesh frame to world; None is the
/// identity). poses_b of shape (N, 4, 4) gives a bool array of N answers,
/// (4, 4) gives one bool.
#[pyfunction]
#[pyo3(signature = (tree_a, pose_a, tree_b, poses_b))]
pub(crate) fn overlaps(
    py: Python<'_>,
    tree_a: &Bound<'_, MeshTree>,
    pose_a: Option<&Bound<'_, PyAny>>,
    tree_b: &Bound<'_, MeshTree>,
    poses_b: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let pose_a = pose(pose_a, "pose_a")?;
    let (a, b) = (&tree_a.get().tree, &tree_b.get().tree);
    match poses(poses_b, "poses_b")? {
        Poses::One(pose_b) => {
            let answer = with_tree!(a, ta => with_tree!(b, tb => ta.placed(pose_a).overlaps(&tb.placed(pose_b))));
            Ok(answer.into_pyobject(py)?.to_owned().into_any().unbind())
        }
        Poses::Many(poses_b) => {
            let answers = py.detach(|| {
                with_tree!(a, ta => with_tree!(b, tb => overlaps_many(ta, &pose_a, tb, &poses_b)))
            });
            Ok(answers.into_pyarray(py).into_any().unbind())
        }
    }
}

/// One answer per pose of B, on all cores.
fn overlaps_many<A: BoundingVolume, B: BoundingVolume>(
    a: &Tree<A>,
    pose_a: &Isometry,
    b: &Tree<B>,
    poses_b: &[Isometry],
) -> Vec<bool> {
    let placed_a = a.placed(*pose_a);
    poses_b
        .par_iter()
        .map(|pose_b| placed_a.overlaps(&b.placed(*pose_b)))
        .collect()
}

/// Every touching triangle pair of tree_a at pose_a and tree_b at pose_b,
/// as a (K, 2) int64 array of (triangle of A, triangle of B) rows sorted
/// by A, then B. limit keeps the first limit rows of that sorted list.
#[pyfunction]
#[pyo3(signature = (tree_a, pose_a, tree_b, pose_b, limit = None))]
pub(crate) fn touching_pairs<'py>(
    py: Python<'py>,
    tree_a: &Bound<'py, MeshTree>,
    pose_a: Option<&Bound<'py, PyAny>>,
    tree_b: &Bound<'py, MeshTree>,
    pose_b: Option<&Bound<'py, PyAny>>,
    #[pyo3(from_py_with = limit_arg)] limit: Option<usize>,
) -> PyResult<Bound<'py, numpy::PyArray2<i64>>> {
    let (pose_a, pose_b) = (pose(pose_a, "pose_a")?, pose(pose_b, "pose_b")?);
    let (a, b) = (&tree_a.get().tree, &tree_b.get().tree);
    let pairs = py.detach(|| {
        with_tree!(a, ta => with_tree!(b, tb => ta.placed(pose_a).touching_pairs(&tb.placed(pose_b), limit, None)))
    });
    let flat: Vec<i64> = pairs.iter().flat_map(|p| [id(p.a), id(p.b)]).collect();
    flat.into_pyarray(py).reshape([pairs.len(), 2])
}
