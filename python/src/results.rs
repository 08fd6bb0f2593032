//! numpy out: the answers of batch queries as named columns, one array per
//! field with one row per query, and of single queries as small records.
//!
//! Rows without an answer hold `-1` in integer columns, `inf` in `t` and
//! `distance` (so `t < limit` tests read naturally) and NaN in the other
//! float columns, and `False` in the `hit`/`found` mask.

use boxtree::{ObjectId, PointProjection, RayHit, TriangleId, Visibility};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::prelude::*;
use rayon::prelude::*;

/// A triangle or object id as an array entry.
pub(crate) fn id(triangle: TriangleId) -> i64 {
    i64::from(triangle.0)
}

/// An object id as an array entry.
pub(crate) fn object_id(object: ObjectId) -> i64 {
    i64::from(object.get())
}

/// `values` (three per row) as an `(N, 3)` array, without a copy.
fn rows3<'py>(py: Python<'py>, values: Vec<f32>) -> PyResult<Bound<'py, PyArray2<f32>>> {
    let n = values.len() / 3;
    values.into_pyarray(py).reshape([n, 3])
}

/// Closest hits of a batch of rays: row `i` answers ray `i`.
#[pyclass(module = "boxtree", frozen, get_all)]
pub struct Hits {
    /// True where the ray hit something.
    hit: Py<PyArray1<bool>>,
    /// Ray parameter of the hit in units of the direction (`inf`: no hit).
    t: Py<PyArray1<f32>>,
    /// The triangle hit (`-1`: no hit).
    triangle: Py<PyArray1<i64>>,
    /// Weights of the triangle's three vertices at the hit, `(N, 3)`.
    barycentric: Py<PyArray2<f32>>,
    /// Unit geometric normal at the hit, world frame for scenes, `(N, 3)`.
    normal: Py<PyArray2<f32>>,
    /// True where the ray arrived against the normal.
    front_face: Py<PyArray1<bool>>,
    /// The object hit, for scene queries (`-1`: no hit); `None` for a mesh.
    object: Option<Py<PyArray1<i64>>>,
}

#[pymethods]
impl Hits {
    fn __len__(&self, py: Python<'_>) -> usize {
        PyUntypedArrayMethods::len(self.t.bind(py))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let hits = self.hit.bind(py).call_method0("sum")?;
        Ok(format!("Hits({} rays, {hits} hit)", self.__len__(py)))
    }
}

/// Columns of [`Hits`] being filled, block by block.
#[derive(Default)]
pub(crate) struct HitColumns {
    t: Vec<f32>,
    triangle: Vec<i64>,
    barycentric: Vec<f32>,
    normal: Vec<f32>,
    front_face: Vec<bool>,
    object: Option<Vec<i64>>,
}

impl HitColumns {
    /// Empty columns for `n` rows; `scene` adds the object column.
    pub(crate) fn new(n: usize, scene: bool) -> Self {
        HitColumns {
            t: Vec::with_capacity(n),
            triangle: Vec::with_capacity(n),
            barycentric: Vec::with_capacity(3 * n),
            normal: Vec::with_capacity(3 * n),
            front_face: Vec::with_capacity(n),
            object: scene.then(|| Vec::with_capacity(n)),
        }
    }

    /// Appends a block of answers on all cores: the columns grow by the
    /// block's rows (no-hit values) and each core fills its share of them.
    /// Appending row by row on the calling thread held the other cores
    /// idle for a seventh of a closest-hit batch.
    pub(crate) fn extend<A: Sync>(
        &mut self,
        answers: &[A],
        view: impl Fn(&A) -> Option<(Option<ObjectId>, &RayHit)> + Sync,
    ) {
        let start = self.t.len();
        let end = start + answers.len();
        self.t.resize(end, f32::INFINITY);
        self.triangle.resize(end, -1);
        self.barycentric.resize(3 * end, f32::NAN);
        self.normal.resize(3 * end, f32::NAN);
        self.front_face.resize(end, false);
        if let Some(column) = &mut self.object {
            column.resize(end, -1);
        }
        let rows = (
            answers.par_iter(),
            self.t[start..].par_iter_mut(),
            self.triangle[start..].par_iter_mut(),
            self.barycentric[3 * start..].par_chunks_mut(3),
            self.normal[3 * start..].par_chunks_mut(3),
            self.front_face[start..].par_iter_mut(),
        );
        rows.into_par_iter().with_min_len(4096).for_each(
            |(answer, t, triangle, barycentric, normal, front_face)| {
                if let Some((_, hit)) = view(answer) {
                    *t = hit.t;
                    *triangle = id(hit.triangle);
                    barycentric.copy_from_slice(&hit.barycentric);
                    normal.copy_from_slice(hit.normal.as_slice());
                    *front_face = hit.front_face;
                }
            },
        );
        if let Some(column) = &mut self.object {
            for (slot, answer) in column[start..].iter_mut().zip(answers) {
                if let Some((Some(object), _)) = view(answer) {
                    *slot = object_id(object);
                }
            }
        }
    }

    pub(crate) fn into_py(self, py: Python<'_>) -> PyResult<Hits> {
        let hit: Vec<bool> = self.triangle.iter().map(|&t| t >= 0).collect();
        Ok(Hits {
            hit: hit.into_pyarray(py).unbind(),
            t: self.t.into_pyarray(py).unbind(),
            triangle: self.triangle.into_pyarray(py).unbind(),
            barycentric: rows3(py, self.barycentric)?.unbind(),
            normal: rows3(py, self.normal)?.unbind(),
            front_face: self.front_face.into_pyarray(py).unbind(),
            object: self.object.map(|o| o.into_pyarray(py).unbind()),
        })
    }
}

/// The closest hit of one ray.
#[pyclass(module = "boxtree", frozen, get_all)]
pub struct Hit {
    /// Ray parameter of the hit, in units of the direction.
    t: f32,
    /// The triangle hit.
    triangle: u32,
    /// Weights of the triangle's three vertices at the hit.
    barycentric: (f32, f32, f32),
    /// Unit geometric normal at the hit (world frame for scenes).
    normal: (f32, f32, f32),
    /// True when the ray arrived against the normal.
    front_face: bool,
    /// The object hit, for scene queries.
    object: Option<u32>,
}

impl Hit {
    pub(crate) fn new(hit: &RayHit, object: Option<ObjectId>) -> Self {
        let [a, b, c] = hit.barycentric;
        Hit {
            t: hit.t,
            triangle: hit.triangle.0,
            barycentric: (a, b, c),
            normal: (hit.normal.x, hit.normal.y, hit.normal.z),
            front_face: hit.front_face,
            object: object.map(ObjectId::get),
        }
    }
}

#[pymethods]
impl Hit {
    fn __repr__(&self) -> String {
        let object = self
            .object
            .map_or(String::new(), |o| format!("object={o}, "));
        format!(
            "Hit({object}t={}, triangle={}, barycentric={:?}, normal={:?}, front_face={})",
            self.t,
            self.triangle,
            self.barycentric,
            self.normal,
            if self.front_face { "True" } else { "False" }
        )
    }
}

/// Nearest points of a batch of query points: row `i` answers point `i`.
#[pyclass(module = "boxtree", frozen, get_all)]
pub struct NearestPoints {
    /// True where a point of the surface lies within the maximum distance.
    found: Py<PyArray1<bool>>,
    /// The nearest point of the surface, `(N, 3)` (NaN: none found).
    point: Py<PyArray2<f32>>,
    /// Its distance from the query point (`inf`: none found).
    distance: Py<PyArray1<f32>>,
    /// The triangle it lies on, lowest id on ties (`-1`: none found).
    triangle: Py<PyArray1<i64>>,
    /// Weights of the triangle's three vertices at the point, `(N, 3)`.
    barycentric: Py<PyArray2<f32>>,
    /// The object it lies on, for scene queries; `None` for a mesh.
    object: Option<Py<PyArray1<i64>>>,
}

#[pymethods]
impl NearestPoints {
    fn __len__(&self, py: Python<'_>) -> usize {
        PyUntypedArrayMethods::len(self.distance.bind(py))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let found = self.found.bind(py).call_method0("sum")?;
        Ok(format!(
            "NearestPoints({} points, {found} found)",
            self.__len__(py)
        ))
    }
}

/// Columns of [`NearestPoints`] being filled.
#[derive(Default)]
pub(crate) struct NearestColumns {
    point: Vec<f32>,
    distance: Vec<f32>,
    triangle: Vec<i64>,
    barycentric: Vec<f32>,
    object: Option<Vec<i64>>,
}

impl NearestColumns {
    /// Empty columns for `n` rows; `scene` adds the object column.
    pub(crate) fn new(n: usize, scene: bool) -> Self {
        NearestColumns {
            point: Vec::with_capacity(3 * n),
            distance: Vec::with_capacity(n),
            triangle: Vec::with_capacity(n),
            barycentric: Vec::with_capacity(3 * n),
            object: scene.then(|| Vec::with_capacity(n)),
        }
    }

    /// Appends one answer (with its object, for scenes).
    #[inline]
    pub(crate) fn push(&mut self, answer: Option<(Option<ObjectId>, &PointProjection)>) {
        match answer {
            Some((object, p)) => {
                self.point.extend(p.point.iter());
                self.distance.push(p.distance);
                self.triangle.push(id(p.triangle));
                self.barycentric.extend([p.w, p.u, p.v]);
                if let (Some(column), Some(object)) = (&mut self.object, object) {
                    column.push(object_id(object));
                }
            }
            None => {
                self.point.extend([f32::NAN; 3]);
                self.distance.push(f32::INFINITY);
                self.triangle.push(-1);
                self.barycentric.extend([f32::NAN; 3]);
                if let Some(column) = &mut self.object {
                    column.push(-1);
                }
            }
        }
    }

    pub(crate) fn into_py(self, py: Python<'_>) -> PyResult<NearestPoints> {
        let found: Vec<bool> = self.triangle.iter().map(|&t| t >= 0).collect();
        Ok(NearestPoints {
            found: found.into_pyarray(py).unbind(),
            point: rows3(py, self.point)?.unbind(),
            distance: self.distance.into_pyarray(py).unbind(),
            triangle: self.triangle.into_pyarray(py).unbind(),
            barycentric: rows3(py, self.barycentric)?.unbind(),
            object: self.object.map(|o| o.into_pyarray(py).unbind()),
        })
    }
}

/// The point of a surface nearest one query point.
#[pyclass(module = "boxtree", frozen, get_all)]
pub struct Nearest {
    /// The nearest point of the surface.
    point: (f32, f32, f32),
    /// Its distance from the query point.
    distance: f32,
    /// The triangle it lies on (lowest id on ties).
    triangle: u32,
    /// Weights of the triangle's three vertices at the point.
    barycentric: (f32, f32, f32),
    /// The object it lies on, for scene queries.
    object: Option<u32>,
}

impl Nearest {
    pub(crate) fn new(p: &PointProjection, object: Option<ObjectId>) -> Self {
        Nearest {
            point: (p.point.x, p.point.y, p.point.z),
            distance: p.distance,
            triangle: p.triangle.0,
            barycentric: (p.w, p.u, p.v),
            object: object.map(ObjectId::get),
        }
    }
}

#[pymethods]
impl Nearest {
    fn __repr__(&self) -> String {
        let object = self
            .object
            .map_or(String::new(), |o| format!("object={o}, "));
        format!(
            "Nearest({object}point={:?}, distance={}, triangle={}, barycentric={:?})",
            self.point, self.distance, self.triangle, self.barycentric
        )
    }
}

/// Line of sight from one eye to a batch of targets: row `i` answers target `i`.
#[pyclass(module = "boxtree", frozen, get_all)]
pub struct Sight {
    /// True where nothing blocks the segment from the eye to the target.
    visible: Py<PyArray1<bool>>,
    /// A triangle that blocks it, the first found, not always the nearest
    /// (`-1`: visible or invalid).
    blocker: Py<PyArray1<i64>>,
    /// False where the eye or target has a NaN or infinite coordinate: no
    /// answer (neither visible nor blocked).
    valid: Py<PyArray1<bool>>,
    /// The blocker's object, for scene queries (`-1`: none); `None` for a mesh.
    object: Option<Py<PyArray1<i64>>>,
}

#[pymethods]
impl Sight {
    fn __len__(&self, py: Python<'_>) -> usize {
        PyUntypedArrayMethods::len(self.visible.bind(py))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let visible = self.visible.bind(py).call_method0("sum")?;
        Ok(format!(
            "Sight({} targets, {visible} visible)",
            self.__len__(py)
        ))
    }
}

/// Columns of [`Sight`] being filled.
#[derive(Default)]
pub(crate) struct SightColumns {
    visible: Vec<bool>,
    blocker: Vec<i64>,
    valid: Vec<bool>,
    object: Option<Vec<i64>>,
}

impl SightColumns {
    /// Empty columns for `n` rows; `scene` adds the object column.
    pub(crate) fn new(n: usize, scene: bool) -> Self {
        SightColumns {
            visible: Vec::with_capacity(n),
            blocker: Vec::with_capacity(n),
            valid: Vec::with_capacity(n),
            object: scene.then(|| Vec::with_capacity(n)),
        }
    }

    /// Appends one answer; `object` names the blocker's object, for scenes.
    pub(crate) fn push<B>(
        &mut self,
        answer: Visibility<B>,
        blocker: impl Fn(B) -> (Option<ObjectId>, TriangleId),
    ) {
        let (visible, valid, found) = match answer {
            Visibility::Visible => (true, true, None),
            Visibility::Blocked(b) => (false, true, Some(blocker(b))),
            Visibility::Invalid => (false, false, None),
        };
        self.visible.push(visible);
        self.valid.push(valid);
        self.blocker.push(found.map_or(-1, |(_, t)| id(t)));
        if let Some(column) = &mut self.object {
            column.push(found.and_then(|(o, _)| o).map_or(-1, object_id));
        }
    }

    pub(crate) fn into_py(self, py: Python<'_>) -> Sight {
        Sight {
            visible: self.visible.into_pyarray(py).unbind(),
            blocker: self.blocker.into_pyarray(py).unbind(),
            valid: self.valid.into_pyarray(py).unbind(),
            object: self.object.map(|o| o.into_pyarray(py).unbind()),
        }
    }
}
