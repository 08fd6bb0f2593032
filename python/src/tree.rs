//! `boxtree.MeshTree`: a mesh and its AABB or OBB tree, and the batch
//! queries on it. Batches run with the GIL released, on all cores, through
//! the crate's own batch functions; a single query (arrays of shape `(3,)`)
//! is the crate's single-query function.

use std::sync::Arc;

use boxtree::saved::LoadError as SavedError;
use boxtree::{
    Aabb, BoundingVolume, MeshTree as Tree, PackedObb, Point, PointQuery, Ray, SceneMesh, Segment,
    SightOptions, Threads, TriMesh, TriangleId,
};
use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::arrays::{OneOrMany, Pairs, RowsView, ids_arg, one_or_many, pairs, point, rows};
use crate::batch::{Staging, blocks};
use crate::errors::{BoxtreeError, array_error, load_error};
use crate::mesh::{Mesh, mesh_like};
use crate::results::{Hit, HitColumns, Nearest, NearestColumns, Sight, SightColumns, id};

/// Runs `$body` with `$tree` bound to the tree, whichever its volume.
macro_rules! with_tree {
    ($mesh:expr, $tree:ident => $body:expr) => {
        match $mesh {
            boxtree::SceneMesh::Aabb($tree) => $body,
            boxtree::SceneMesh::Obb($tree) => $body,
        }
    };
}
pub(crate) use with_tree;

/// A triangle mesh and a bounding-volume hierarchy over it, built once and
/// queried any number of times, from any number of threads.
///
/// MeshTree(mesh, volume="aabb"): mesh is a boxtree.Mesh or anything with
/// .vertices and .faces (a trimesh.Trimesh). volume "aabb" builds binned-SAH
/// axis-aligned boxes, fastest for rays and points; "obb" builds
/// Gottschalk's oriented boxes, tightest for overlap between rotated meshes.
#[pyclass(module = "boxtree", frozen)]
pub struct MeshTree {
    /// Shared, so that scenes place it without copying.
    pub(crate) tree: SceneMesh,
}

/// A `volume` argument: which tree a mesh gets.
#[derive(Clone, Copy)]
pub(crate) enum Volume {
    Aabb,
    Obb,
}

impl Volume {
    /// `"aabb"` or `"obb"`, else a `BoxtreeError` naming the argument.
    pub(crate) fn named(volume: &str) -> PyResult<Self> {
        match volume {
            "aabb" => Ok(Volume::Aabb),
            "obb" => Ok(Volume::Obb),
            other => Err(BoxtreeError::new_err(format!(
                "volume must be \"aabb\" or \"obb\"; got {other:?}"
            ))),
        }
    }

    /// The tree of this kind over `mesh`, built without the GIL.
    pub(crate) fn build(self, py: Python<'_>, mesh: TriMesh) -> SceneMesh {
        match self {
            Volume::Aabb => SceneMesh::Aabb(Arc::new(py.detach(|| Tree::<Aabb>::new(mesh)))),
            Volume::Obb => SceneMesh::Obb(Arc::new(py.detach(|| Tree::<PackedObb>::new(mesh)))),
        }
    }
}

/// The margins and ignore list of a line-of-sight call. NaN margins are
/// refused (the crate would answer every target invalid: a wrong
/// argument, not a per-target fault).
pub(crate) fn sight_options(
    margins: (f32, f32),
    ignore: Vec<TriangleId>,
) -> PyResult<SightOptions> {
    let (eye, target) = margins;
    if eye.is_nan() || target.is_nan() {
        return Err(BoxtreeError::new_err(format!(
            "margins must be numbers, not NaN; got {margins:?}"
        )));
    }
    Ok(SightOptions::default()
        .with_endpoint_margins(eye, target)
        .ignoring(ignore))
}

/// The triangle ids of an `ignore` argument, each checked against the
/// mesh's triangles (an id no triangle has is a mistake, as an unknown
/// object id is for a scene).
fn triangle_ids(ignore: Vec<i64>, triangles: usize) -> PyResult<Vec<TriangleId>> {
    ignore
        .into_iter()
        .map(|id| {
            u32::try_from(id)
                .ok()
                .filter(|&i| (i as usize) < triangles)
                .map(TriangleId)
                .ok_or_else(|| {
                    array_error(format!(
                        "ignore: no triangle {id} in this mesh of {triangles} triangles"
                    ))
                })
        })
        .collect()
}

#[pymethods]
impl MeshTree {
    #[new]
    #[pyo3(signature = (mesh, volume = "aabb"))]
    fn new(py: Python<'_>, mesh: &Bound<'_, PyAny>, volume: &str) -> PyResult<Self> {
        let volume = Volume::named(volume)?;
        let mesh = mesh_like(mesh)?;
        Ok(MeshTree {
            tree: volume.build(py, mesh),
        })
    }

    /// "aabb" or "obb".
    #[getter]
    fn volume(&self) -> &'static str {
        match self.tree {
            SceneMesh::Aabb(_) => "aabb",
            SceneMesh::Obb(_) => "obb",
        }
    }

    /// The mesh the tree was built over (a copy).
    #[getter]
    fn mesh(&self) -> Mesh {
        Mesh {
            mesh: self.tree.mesh().clone(),
        }
    }

    /// Bytes the tree keeps beside the mesh.
    #[getter]
    fn nbytes(&self) -> usize {
        with_tree!(&self.tree, t => t.bytes())
    }

    /// Some triangle that each segment from origins[i] to ends[i] touches
    /// (ends included), or -1: the occlusion query, stopping at the first
    /// triangle found, not the nearest.
    ///
    /// origins and ends are (N, 3) (an int64 array of N answers) or (3,)
    /// (an int or None). A segment with a NaN or infinite coordinate, or of
    /// zero length (no direction), has no hit (-1), as in the Rust crate.
    fn any_hit<'py>(
        &self,
        py: Python<'py>,
        origins: &Bound<'py, PyAny>,
        ends: &Bound<'py, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        match pairs(origins, "origins", ends, "ends")? {
            Pairs::One(a, b) => {
                let found = with_tree!(&self.tree, t => t.any_hit(Segment::new(a, b)));
                Ok(found.map(|t| t.0).into_pyobject(py)?.into_any().unbind())
            }
            Pairs::Many(origins, ends) => {
                let (origins, ends) = (origins.view(), ends.view());
                let ids = py.detach(|| with_tree!(&self.tree, t => any_hits(t, &origins, &ends)));
                Ok(ids.into_pyarray(py).into_any().unbind())
            }
        }
    }

    /// The nearest hit of each ray origins[i] + t * directions[i] with
    /// 0 <= t <= t_max (t in units of the direction, which need not be unit
    /// length); ties at equal t go to the lower triangle id.
    ///
    /// (N, 3) arrays give a Hits of N rows; (3,) arrays give a Hit or None.
    /// A ray with a NaN or infinite coordinate, a zero direction, or a NaN
    /// or negative t_max has no hit.
    #[pyo3(signature = (origins, directions, t_max = f32::INFINITY))]
    fn closest_hit<'py>(
        &self,
        py: Python<'py>,
        origins: &Bound<'py, PyAny>,
        directions: &Bound<'py, PyAny>,
        t_max: f32,
    ) -> PyResult<Py<PyAny>> {
        match pairs(origins, "origins", directions, "directions")? {
            Pairs::One(o, d) => {
                let ray = Ray::new(o, d.coords);
                let found = with_tree!(&self.tree, t => t.closest_hit(ray.span(0.0, t_max)));
                let hit = found.map(|h| Hit::new(&h, None));
                Ok(hit.into_pyobject(py)?.into_any().unbind())
            }
            Pairs::Many(origins, directions) => {
                let (origins, directions) = (origins.view(), directions.view());
                let columns = py.detach(
                    || with_tree!(&self.tree, t => closest_hits(t, &origins, &directions, t_max)),
                );
                Ok(columns.into_py(py)?.into_pyobject(py)?.into_any().unbind())
            }
        }
    }

    /// Whether each target can be seen from eye: the segment between them,
    /// shortened by margins = (near_eye, near_target) at its ends, touches
    /// no triangle except those in ignore. With zero margins a target lying
    /// exactly on a surface is blocked by it: give it a margin to look at a
    /// surface point.
    ///
    /// eye is (3,), targets (N, 3); a NaN or infinite eye or target gives
    /// valid = False (no answer) in its rows.
    #[pyo3(signature = (eye, targets, margins = (0.0, 0.0), ignore = Vec::new()))]
    fn line_of_sight(
        &self,
        py: Python<'_>,
        eye: &Bound<'_, PyAny>,
        targets: &Bound<'_, PyAny>,
        margins: (f32, f32),
        #[pyo3(from_py_with = ids_arg)] ignore: Vec<i64>,
    ) -> PyResult<Sight> {
        let eye = point(eye, "eye")?;
        let targets = rows(targets, "targets")?;
        let targets = targets.view();
        let ignore = triangle_ids(ignore, self.tree.mesh().len())?;
        let options = sight_options(margins, ignore)?;
        let columns =
            py.detach(|| with_tree!(&self.tree, t => sights(t, &eye, &targets, &options)));
        Ok(columns.into_py(py))
    }

    /// The point of the surface nearest each query point within
    /// max_distance (inclusive), with its distance, triangle and
    /// barycentric weights; ties at one distance go to the lower triangle id.
    ///
    /// (N, 3) points give a NearestPoints of N rows; a (3,) point gives a
    /// Nearest or None. A NaN or infinite point, or a NaN or negative
    /// max_distance, finds nothing.
    #[pyo3(signature = (points, max_distance = f32::INFINITY))]
    fn closest_points<'py>(
        &self,
        py: Python<'py>,
        points: &Bound<'py, PyAny>,
        max_distance: f32,
    ) -> PyResult<Py<PyAny>> {
        match one_or_many(points, "points")? {
            OneOrMany::One(p) => {
                let query = PointQuery::within(p, max_distance);
                let found = with_tree!(&self.tree, t => t.closest_point(query));
                let nearest = found.map(|n| Nearest::new(&n, None));
                Ok(nearest.into_pyobject(py)?.into_any().unbind())
            }
            OneOrMany::Many(points) => {
                let points = points.view();
                let columns = py.detach(
                    || with_tree!(&self.tree, t => nearest_points(t, &points, max_distance)),
                );
                Ok(columns.into_py(py)?.into_pyobject(py)?.into_any().unbind())
            }
        }
    }

    /// The mesh and tree in boxtree's saved form (what pickling stores):
    /// loading copies the tree instead of building it.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let bytes = py.detach(|| with_tree!(&self.tree, t => t.to_saved_bytes()));
        PyBytes::new(py, &bytes)
    }

    /// A tree from to_bytes' bytes, every link and index checked first.
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: &[u8]) -> PyResult<Self> {
        let tree = py.detach(|| match Tree::<Aabb>::from_saved_bytes(data) {
            Ok(tree) => Ok(SceneMesh::Aabb(Arc::new(tree))),
            // The file says which volume it holds.
            Err(SavedError::Kind { .. }) => {
                Tree::<PackedObb>::from_saved_bytes(data).map(|t| SceneMesh::Obb(Arc::new(t)))
            }
            Err(other) => Err(other),
        });
        let tree = tree.map_err(|error| match error {
            // Neither volume: say what the bytes hold, not what the last try wanted.
            SavedError::Kind { found, .. } => {
                crate::errors::LoadError::new_err(format!("the bytes hold {found}, not a MeshTree"))
            }
            other => load_error(other),
        })?;
        Ok(MeshTree { tree })
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        crate::reduce_through_bytes(slf.get_type(), slf.get().to_bytes(slf.py()))
    }

    /// Number of triangles.
    fn __len__(&self) -> usize {
        self.tree.mesh().len()
    }

    fn __repr__(&self) -> String {
        format!(
            "MeshTree({} triangles, volume={:?})",
            self.tree.mesh().len(),
            self.volume()
        )
    }
}

/// [`Tree::segments_any_hit`] block by block: a triangle id per segment, or -1.
fn any_hits<V: BoundingVolume>(
    tree: &Tree<V>,
    origins: &RowsView<'_>,
    ends: &RowsView<'_>,
) -> Vec<i64> {
    let mut ids = Vec::with_capacity(origins.len());
    let (mut staging, mut out) = (Staging::default(), Vec::new());
    for range in blocks(origins.len()) {
        let segments = staging.segments(origins, ends, range);
        tree.segments_any_hit(segments, Threads::All, &mut out);
        ids.extend(out.iter().map(|found| found.map_or(-1, id)));
    }
    ids
}

/// [`Tree::rays_closest_hit`] block by block.
fn closest_hits<V: BoundingVolume>(
    tree: &Tree<V>,
    origins: &RowsView<'_>,
    directions: &RowsView<'_>,
    t_max: f32,
) -> HitColumns {
    let mut columns = HitColumns::new(origins.len(), false);
    let (mut staging, mut out) = (Staging::default(), Vec::new());
    for range in blocks(origins.len()) {
        let rays = staging.rays(origins, directions, range);
        tree.rays_closest_hit(rays, t_max, Threads::All, &mut out);
        columns.extend(&out, |hit| hit.as_ref().map(|h| (None, h)));
    }
    columns
}

/// [`Tree::line_of_sight_many`] block by block.
fn sights<V: BoundingVolume>(
    tree: &Tree<V>,
    eye: &Point,
    targets: &RowsView<'_>,
    options: &SightOptions,
) -> SightColumns {
    let mut columns = SightColumns::new(targets.len(), false);
    let (mut staging, mut out) = (Staging::default(), Vec::new());
    for range in blocks(targets.len()) {
        let block = staging.points(targets, range);
        tree.line_of_sight_many(eye, block, options, Threads::All, &mut out);
        for &answer in &out {
            columns.push(answer, |t| (None, t));
        }
    }
    columns
}

/// [`Tree::closest_points`] block by block.
fn nearest_points<V: BoundingVolume>(
    tree: &Tree<V>,
    points: &RowsView<'_>,
    max_distance: f32,
) -> NearestColumns {
    let mut columns = NearestColumns::new(points.len(), false);
    let (mut staging, mut out) = (Staging::default(), Vec::new());
    for range in blocks(points.len()) {
        let block = staging.points(points, range);
        tree.closest_points(block, max_distance, Threads::All, &mut out);
        for found in &out {
            columns.push(found.as_ref().map(|p| (None, p)));
        }
    }
    columns
}
