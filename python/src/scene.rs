//! `boxtree.Scene`: many placed, moving, instanced trees under one
//! top-level tree, with the batch queries of a single tree over the whole
//! world. Object ids are the crate's (`ObjectId::get`): they grow from 0
//! in the order objects are added and are never reused.

use boxtree::{Filter, ObjectId, PointQuery, Ray, Scene as World, Segment, Threads};
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArrayDescrMethods, PyArrayMethods, PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::arrays::{
    OneOrMany, Pairs, RowsView, group_arg, ids_arg, layers_arg, ndarray, one_or_many, pairs, point,
    rows,
};
use crate::batch::{Staging, blocks};
use crate::errors::{SceneError, array_error, load_error, scene_error};
use crate::mesh::mesh_like;
use crate::pose::{Poses, matrix};
use crate::results::{
    Hit, HitColumns, Nearest, NearestColumns, Sight, SightColumns, id, object_id,
};
use crate::tree::{MeshTree, Volume, with_tree};

/// Every layer: the default filter sees every object.
const ALL_LAYERS: u32 = u32::MAX;

/// A world of placed meshes: add trees with 4x4 poses, move them, query.
///
/// A MeshTree added several times is stored once (instancing). Every
/// change is seen by the next query; call update() once per frame after
/// the moves to keep queries fast (it rebuilds the top-level tree when
/// objects were added or moves have degraded it). Queries take a layer
/// mask (objects whose layers share a bit with it are seen) and object ids
/// to ignore.
#[pyclass(module = "boxtree")]
pub struct Scene {
    world: World,
    /// The crate's ids by number; `None` for ids removed before a save.
    ids: Vec<Option<ObjectId>>,
}

impl Scene {
    /// The object numbered `id`, or a `SceneError` when this scene never gave it.
    fn object(&self, id: i64) -> PyResult<ObjectId> {
        usize::try_from(id)
            .ok()
            .and_then(|i| self.ids.get(i).copied().flatten())
            .ok_or_else(|| SceneError::new_err(format!("no object {id} in this scene")))
    }

    /// The object an id argument names: an int (a bool is not an id, though
    /// Python counts it as one), else a `TypeError`; an int naming no
    /// object, a `SceneError`.
    fn object_arg(&self, id: &Bound<'_, PyAny>) -> PyResult<(i64, ObjectId)> {
        if id.is_instance_of::<pyo3::types::PyBool>() {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "an object id is an int, not a bool",
            ));
        }
        let number: i64 = id
            .extract()
            .map_err(|_| SceneError::new_err(format!("no object {id} in this scene")))?;
        Ok((number, self.object(number)?))
    }

    /// The filter of a query's `layers` and `ignore` arguments.
    fn filter(&self, layers: u32, ignore: Vec<i64>) -> PyResult<Filter> {
        let ignored = ignore
            .into_iter()
            .map(|id| self.object(id))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(Filter::layers(layers).ignoring(ignored))
    }
}

#[pymethods]
impl Scene {
    #[new]
    fn new() -> Self {
        Scene {
            world: World::new(),
            ids: Vec::new(),
        }
    }

    /// Places mesh at pose (4x4, None for the identity) and returns its id.
    /// mesh is a MeshTree (shared, not copied: add one tree many times to
    /// instance it) or a mesh (a Mesh or trimesh.Trimesh), for which a tree
    /// of the given volume is built. layers is the object's layer mask;
    /// objects of one group are never reported as an overlapping pair.
    #[pyo3(signature = (mesh, pose = None, layers = 1, group = None, volume = "aabb"))]
    fn add(
        &mut self,
        py: Python<'_>,
        mesh: &Bound<'_, PyAny>,
        pose: Option<&Bound<'_, PyAny>>,
        #[pyo3(from_py_with = layers_arg)] layers: u32,
        #[pyo3(from_py_with = group_arg)] group: Option<u32>,
        volume: &str,
    ) -> PyResult<u32> {
        let pose = crate::pose::pose(pose, "pose")?;
        // Checked whatever mesh is: a tree given with volume="x" was
        // accepted silently (a hunt's finding).
        let volume = Volume::named(volume)?;
        let tree = match mesh.cast::<MeshTree>() {
            Ok(tree) => tree.get().tree.clone(),
            Err(_) => volume.build(py, mesh_like(mesh)?),
        };
        let id = self.world.add(tree, pose).map_err(scene_error)?;
        self.world.set_layers(id, layers).map_err(scene_error)?;
        self.world.set_group(id, group).map_err(scene_error)?;
        let index = id.get() as usize;
        self.ids.resize(self.ids.len().max(index + 1), None);
        self.ids[index] = Some(id);
        Ok(id.get())
    }

    /// Takes the object out of the scene; its id is never reused.
    fn remove(&mut self, id: &Bound<'_, PyAny>) -> PyResult<()> {
        let (id, object) = self.object_arg(id)?;
        self.world.remove(object).map_err(scene_error)?;
        // Forgotten as a loaded scene forgets it: `ignore=[id]` and every
        // other use of the id then raise alike before and after a save.
        self.ids[id as usize] = None;
        Ok(())
    }

    /// Moves the object to pose (4x4); queries see it at once.
    fn set_pose(&mut self, id: &Bound<'_, PyAny>, pose: &Bound<'_, PyAny>) -> PyResult<()> {
        let (_, object) = self.object_arg(id)?;
        let pose = crate::pose::pose(Some(pose), "pose")?;
        self.world.set_pose(object, pose).map_err(scene_error)
    }

    /// Moves many objects at once: ids (N,) and poses (N, 4, 4). Every id
    /// and pose is checked before any object moves.
    fn set_poses(&mut self, ids: &Bound<'_, PyAny>, poses: &Bound<'_, PyAny>) -> PyResult<()> {
        let ids = ndarray(ids, "ids")?;
        if ids.dtype().kind() == b'b' {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "ids must hold int object ids, not bools",
            ));
        }
        let ids: Vec<i64> = ids.call_method1("tolist", ())?.extract()?;
        let objects = ids
            .into_iter()
            .map(|id| self.object(id))
            .collect::<PyResult<Vec<_>>>()?;
        let poses = match crate::pose::poses(poses, "poses")? {
            Poses::Many(poses) => poses,
            Poses::One(_) => return Err(array_error("poses must have shape (N, 4, 4)")),
        };
        if poses.len() != objects.len() {
            return Err(array_error(format!(
                "ids and poses must have the same length; got {} and {}",
                objects.len(),
                poses.len()
            )));
        }
        if let Some(gone) = objects.iter().find(|o| !self.world.contains(**o)) {
            return Err(SceneError::new_err(format!(
                "no object {} in this scene",
                gone.get()
            )));
        }
        for (object, pose) in objects.into_iter().zip(poses) {
            self.world.set_pose(object, pose).map_err(scene_error)?;
        }
        Ok(())
    }

    /// The object's pose, a (4, 4) float64 matrix.
    fn pose<'py>(
        &self,
        py: Python<'py>,
        id: &Bound<'_, PyAny>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let (id, object) = self.object_arg(id)?;
        let pose = self
            .world
            .pose(object)
            .ok_or_else(|| SceneError::new_err(format!("no object {id} in this scene")))?;
        Ok(matrix(py, &pose))
    }

    /// Sets the object's layer mask.
    fn set_layers(
        &mut self,
        id: &Bound<'_, PyAny>,
        #[pyo3(from_py_with = layers_arg)] layers: u32,
    ) -> PyResult<()> {
        let (_, object) = self.object_arg(id)?;
        self.world.set_layers(object, layers).map_err(scene_error)
    }

    /// Puts the object in a group (or none with None).
    #[pyo3(signature = (id, group))]
    fn set_group(
        &mut self,
        id: &Bound<'_, PyAny>,
        #[pyo3(from_py_with = group_arg)] group: Option<u32>,
    ) -> PyResult<()> {
        let (_, object) = self.object_arg(id)?;
        self.world.set_group(object, group).map_err(scene_error)
    }

    /// Rebuilds the top-level tree when needed; True when it did.
    fn update(&mut self, py: Python<'_>) -> bool {
        let world = &mut self.world;
        py.detach(|| world.update().rebuilt)
    }

    /// The ids of the objects, in the order they were added.
    #[getter]
    fn ids<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let ids: Vec<i64> = self.world.ids().map(object_id).collect();
        ids.into_pyarray(py)
    }

    /// Some (object, triangle) touched by each segment from origins[i] to
    /// ends[i] (ends included): the occlusion query, stopping at the first
    /// found. (N, 3) arrays give two int64 arrays (objects, triangles), -1
    /// where nothing is hit; (3,) arrays give a tuple or None. NaN or
    /// infinite input has no hit.
    #[pyo3(signature = (origins, ends, layers = ALL_LAYERS, ignore = Vec::new()))]
    fn any_hit<'py>(
        &self,
        py: Python<'py>,
        origins: &Bound<'py, PyAny>,
        ends: &Bound<'py, PyAny>,
        #[pyo3(from_py_with = layers_arg)] layers: u32,
        #[pyo3(from_py_with = ids_arg)] ignore: Vec<i64>,
    ) -> PyResult<Py<PyAny>> {
        let filter = self.filter(layers, ignore)?;
        let world = &self.world;
        match pairs(origins, "origins", ends, "ends")? {
            Pairs::One(a, b) => {
                let found = world.any_hit(Segment::new(a, b), &filter);
                let found = found.map(|f| (f.object.get(), f.triangle.0));
                Ok(found.into_pyobject(py)?.into_any().unbind())
            }
            Pairs::Many(origins, ends) => {
                let (origins, ends) = (origins.view(), ends.view());
                let (objects, triangles) = py.detach(|| {
                    let n = origins.len();
                    let (mut objects, mut triangles) =
                        (Vec::with_capacity(n), Vec::with_capacity(n));
                    let (mut staging, mut out) = (Staging::default(), Vec::new());
                    for range in blocks(n) {
                        let segments = staging.segments(&origins, &ends, range);
                        world.segments_any_hit(segments, &filter, Threads::All, &mut out);
                        for found in &out {
                            objects.push(found.map_or(-1, |f| object_id(f.object)));
                            triangles.push(found.map_or(-1, |f| id(f.triangle)));
                        }
                    }
                    (objects, triangles)
                });
                let answer = (objects.into_pyarray(py), triangles.into_pyarray(py));
                Ok(answer.into_pyobject(py)?.into_any().unbind())
            }
        }
    }

    /// The nearest hit of each ray over 0 <= t <= t_max, as
    /// MeshTree.closest_hit, with the object hit (ties at equal t: lower
    /// object, then triangle). Normals are in the world frame.
    #[pyo3(signature = (origins, directions, t_max = f32::INFINITY, layers = ALL_LAYERS, ignore = Vec::new()))]
    fn closest_hit<'py>(
        &self,
        py: Python<'py>,
        origins: &Bound<'py, PyAny>,
        directions: &Bound<'py, PyAny>,
        t_max: f32,
        #[pyo3(from_py_with = layers_arg)] layers: u32,
        #[pyo3(from_py_with = ids_arg)] ignore: Vec<i64>,
    ) -> PyResult<Py<PyAny>> {
        let filter = self.filter(layers, ignore)?;
        let world = &self.world;
        match pairs(origins, "origins", directions, "directions")? {
            Pairs::One(o, d) => {
                let found = world.closest_hit(Ray::new(o, d.coords).span(0.0, t_max), &filter);
                let hit = found.map(|h| Hit::new(&h.hit, Some(h.object)));
                Ok(hit.into_pyobject(py)?.into_any().unbind())
            }
            Pairs::Many(origins, directions) => {
                let (origins, directions) = (origins.view(), directions.view());
                let columns = py.detach(|| {
                    let mut columns = HitColumns::new(origins.len(), true);
                    let (mut staging, mut out) = (Staging::default(), Vec::new());
                    for range in blocks(origins.len()) {
                        let rays = staging.rays(&origins, &directions, range);
                        world.rays_closest_hit(rays, t_max, &filter, Threads::All, &mut out);
                        columns.extend(&out, |found| {
                            found.as_ref().map(|h| (Some(h.object), &h.hit))
                        });
                    }
                    columns
                });
                Ok(columns.into_py(py)?.into_pyobject(py)?.into_any().unbind())
            }
        }
    }

    /// Whether each target can be seen from eye past the objects the
    /// filter sees, as MeshTree.line_of_sight; ignore the target's own
    /// object to keep it from hiding itself.
    #[pyo3(signature = (eye, targets, margins = (0.0, 0.0), layers = ALL_LAYERS, ignore = Vec::new()))]
    fn line_of_sight(
        &self,
        py: Python<'_>,
        eye: &Bound<'_, PyAny>,
        targets: &Bound<'_, PyAny>,
        margins: (f32, f32),
        #[pyo3(from_py_with = layers_arg)] layers: u32,
        #[pyo3(from_py_with = ids_arg)] ignore: Vec<i64>,
    ) -> PyResult<Sight> {
        let filter = self.filter(layers, ignore)?;
        let eye = point(eye, "eye")?;
        let targets = rows(targets, "targets")?;
        let targets = targets.view();
        let options = crate::tree::sight_options(margins, Vec::new())?;
        let world = &self.world;
        let columns = py.detach(|| {
            let mut columns = SightColumns::new(targets.len(), true);
            let (mut staging, mut out) = (Staging::default(), Vec::new());
            for range in blocks(targets.len()) {
                let block = staging.points(&targets, range);
                world.line_of_sight_many(&eye, block, &options, &filter, Threads::All, &mut out);
                for &answer in &out {
                    columns.push(answer, |b| (Some(b.object), b.triangle));
                }
            }
            columns
        });
        Ok(columns.into_py(py))
    }

    /// The point of the objects the filter sees nearest each query point
    /// within max_distance, as MeshTree.closest_points, with its object
    /// (ties at one distance: the lower object id). Points are in the world frame.
    #[pyo3(signature = (points, max_distance = f32::INFINITY, layers = ALL_LAYERS, ignore = Vec::new()))]
    fn closest_points<'py>(
        &self,
        py: Python<'py>,
        points: &Bound<'py, PyAny>,
        max_distance: f32,
        #[pyo3(from_py_with = layers_arg)] layers: u32,
        #[pyo3(from_py_with = ids_arg)] ignore: Vec<i64>,
    ) -> PyResult<Py<PyAny>> {
        let filter = self.filter(layers, ignore)?;
        let world = &self.world;
        match one_or_many(points, "points")? {
            OneOrMany::One(p) => {
                let found = world.closest_point(PointQuery::within(p, max_distance), &filter);
                let nearest = found.map(|n| Nearest::new(&n.projection, Some(n.object)));
                Ok(nearest.into_pyobject(py)?.into_any().unbind())
            }
            OneOrMany::Many(points) => {
                let points: RowsView<'_> = points.view();
                let columns = py.detach(|| {
                    let mut columns = NearestColumns::new(points.len(), true);
                    let (mut staging, mut out) = (Staging::default(), Vec::new());
                    for range in blocks(points.len()) {
                        let block = staging.points(&points, range);
                        world.closest_points(block, max_distance, &filter, Threads::All, &mut out);
                        for found in &out {
                            columns.push(found.as_ref().map(|n| (Some(n.object), &n.projection)));
                        }
                    }
                    columns
                });
                Ok(columns.into_py(py)?.into_pyobject(py)?.into_any().unbind())
            }
        }
    }

    /// The ids of the objects the filter sees whose mesh touches tree
    /// placed at pose (a drone, a tool), sorted: an int64 array.
    #[pyo3(signature = (tree, pose = None, layers = ALL_LAYERS, ignore = Vec::new()))]
    fn touching<'py>(
        &self,
        py: Python<'py>,
        tree: &Bound<'py, MeshTree>,
        pose: Option<&Bound<'py, PyAny>>,
        #[pyo3(from_py_with = layers_arg)] layers: u32,
        #[pyo3(from_py_with = ids_arg)] ignore: Vec<i64>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let filter = self.filter(layers, ignore)?;
        let pose = crate::pose::pose(pose, "pose")?;
        let (world, mesh) = (&self.world, &tree.get().tree);
        let found = py.detach(|| with_tree!(mesh, t => world.touching(&t.placed(pose), &filter)));
        let ids: Vec<i64> = found.into_iter().map(object_id).collect();
        Ok(ids.into_pyarray(py))
    }

    /// Every pair of objects (both seen by the filter, not of one group)
    /// whose meshes touch, as a sorted (K, 2) int64 array with a < b.
    #[pyo3(signature = (layers = ALL_LAYERS, ignore = Vec::new()))]
    fn overlapping_pairs<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = layers_arg)] layers: u32,
        #[pyo3(from_py_with = ids_arg)] ignore: Vec<i64>,
    ) -> PyResult<Bound<'py, PyArray2<i64>>> {
        let filter = self.filter(layers, ignore)?;
        let world = &self.world;
        let pairs = py.detach(|| world.overlapping_pairs(&filter, |_, _| false, Threads::All));
        let flat: Vec<i64> = pairs
            .iter()
            .flat_map(|p| [object_id(p.a), object_id(p.b)])
            .collect();
        flat.into_pyarray(py).reshape([pairs.len(), 2])
    }

    /// The scene in boxtree's saved form (what pickling stores): every
    /// shared tree once, every object with its id, pose, layers and group.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let world = &self.world;
        let bytes = py.detach(|| world.to_saved_bytes());
        PyBytes::new(py, &bytes)
    }

    /// A scene from to_bytes' bytes, with the ids it had.
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: &[u8]) -> PyResult<Self> {
        let world = py
            .detach(|| World::from_saved_bytes(data))
            .map_err(load_error)?;
        let mut ids = Vec::new();
        for id in world.ids() {
            let index = id.get() as usize;
            ids.resize(ids.len().max(index + 1), None);
            ids[index] = Some(id);
        }
        Ok(Scene { world, ids })
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        // `try_borrow`: a scene method that is changing the scene may run
        // Python code (a mesh-like's `.vertices`) that pickles it.
        let bytes = slf.try_borrow()?.to_bytes(slf.py());
        crate::reduce_through_bytes(slf.get_type(), bytes)
    }

    /// Number of objects.
    fn __len__(&self) -> usize {
        self.world.len()
    }

    /// Whether `id` names a live object; anything else (another type, an
    /// int beyond 64 bits) is not in the scene.
    fn __contains__(&self, id: &Bound<'_, PyAny>) -> bool {
        self.object_arg(id)
            .is_ok_and(|(_, o)| self.world.contains(o))
    }

    fn __repr__(&self) -> String {
        format!("Scene({} objects)", self.world.len())
    }
}
