//! Three-dimensional convex hulls by Quickhull.
//!
//! The hull is grown from an initial tetrahedron of extreme points. Every
//! point outside the current hull sits in the *conflict list* of one face it
//! lies above; repeatedly the farthest point of some face (the *eye*) is added:
//! the faces it sees are removed and the hole, bounded by the *horizon*, is
//! closed by a cone of new faces to the eye, which inherit the removed faces'
//! conflict points (Barber, Dobkin & Huhdanpaa, "The Quickhull algorithm for
//! convex hulls", ACM TOMS 1996; D. Gregorius, "Implementing Quickhull",
//! GDC 2014). The expected running time is `O(n log n)`; nothing recurses.
//!
//! # Tolerance
//! Coordinates are taken relative to the centre of the input's bounding box
//! and every plane test is evaluated in `f64`. The tolerance is
//! `tolerance = 3 · f32::EPSILON · (hx + hy + hz)`, where `h` are the
//! half-extents of the bounding box: the qhull / Gregorius rule, measured
//! from the box centre so that it follows the cloud's size and not its
//! distance from the origin. It decides whether the input is a point (all
//! points equal), collinear or coplanar (every point within the tolerance of
//! a line or plane), and which points may be dropped: a point is dropped
//! only when it lies within the tolerance of the current hull (below every
//! new face, or within the tolerance of one of the new triangles). The hull
//! only grows and stays convex, so **every input point lies at most
//! `tolerance` (plus `f64` rounding) above the plane of every face**.
//!
//! # Robustness
//! A face is visible from the eye when the eye lies strictly above its plane,
//! so each step keeps the hull convex up to `f64` rounding; no faces are
//! merged, so coplanar faces stay separate triangles. The set of removed
//! faces is grown face by face and only while it stays a topological disk
//! (its boundary must be one simple cycle for the cone); a visible face whose
//! removal would pinch the disk, possible only through rounding, is kept. The
//! mesh is therefore a closed, consistently oriented 2-manifold after every
//! step, and each step consumes one input point, so the loop ends.

use crate::math::{Point, is_finite_point};
use crate::shape::Triangle;

type V64 = nalgebra::Vector3<f64>;

/// A triangulated convex polytope: hull vertices and outward, counter-clockwise triangles.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexHull {
    /// The hull's vertices (a subset of the input points), each used by some triangle.
    pub vertices: Vec<Point>,
    /// Triangles as indices into `vertices`; `(b − a) × (c − a)` points outward.
    pub triangles: Vec<[u32; 3]>,
}

impl ConvexHull {
    /// The triangle at `index` as a shape.
    ///
    /// # Panics
    /// If `index` is not below `triangles.len()`.
    #[must_use]
    pub fn triangle(&self, index: usize) -> Triangle {
        let [a, b, c] = self.triangles[index].map(|i| self.vertices[i as usize]);
        Triangle::new(a, b, c)
    }
}

/// Why [`convex_hull`] could not build a hull.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HullError {
    /// The input had no points.
    Empty,
    /// The point at `index` has a NaN or infinite coordinate.
    NonFinite {
        /// Index of the first offending point.
        index: usize,
    },
    /// The input had more than `u32::MAX` points, the limit of the index type.
    TooManyPoints,
}

impl std::fmt::Display for HullError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HullError::Empty => write!(f, "no points to hull"),
            HullError::NonFinite { index } => write!(f, "point {index} is not finite"),
            HullError::TooManyPoints => write!(f, "more than u32::MAX points"),
        }
    }
}

impl std::error::Error for HullError {}

/// The convex hull of a point set, by its dimension.
#[derive(Clone, Debug, PartialEq)]
pub enum Hull {
    /// A polytope with volume; every edge is shared by two triangles of opposite winding.
    Solid(ConvexHull),
    /// All points lie within the tolerance of one plane: a convex polygon
    /// whose vertices are in order around it, fan-triangulated from the first
    /// vertex and single-sided (every triangle's `(b − a) × (c − a)` points
    /// the same way; reverse the indices for the other side).
    Flat(ConvexHull),
    /// All points lie within the tolerance of one line: its two extreme points.
    Segment([Point; 2]),
    /// All points are equal.
    Point(Point),
}

impl Hull {
    /// The hull's triangles; empty for a segment or a point.
    #[must_use]
    pub fn triangles(&self) -> Vec<Triangle> {
        match self {
            Hull::Solid(h) | Hull::Flat(h) => {
                (0..h.triangles.len()).map(|i| h.triangle(i)).collect()
            }
            Hull::Segment(_) | Hull::Point(_) => Vec::new(),
        }
    }

    /// The hull's vertices (for a segment its two ends, for a point the point).
    #[must_use]
    pub fn vertices(&self) -> &[Point] {
        match self {
            Hull::Solid(h) | Hull::Flat(h) => &h.vertices,
            Hull::Segment(ends) => ends,
            Hull::Point(p) => std::slice::from_ref(p),
        }
    }
}

/// The convex hull of `points` (see the module documentation for the tolerance).
///
/// Degenerate input gives the lower-dimensional variants of [`Hull`];
/// duplicates and interior points are dropped.
///
/// # Errors
/// [`HullError::Empty`] for no points, [`HullError::NonFinite`] for a NaN or
/// infinite coordinate, [`HullError::TooManyPoints`] beyond `u32::MAX` points.
pub fn convex_hull(points: &[Point]) -> Result<Hull, HullError> {
    if points.is_empty() {
        return Err(HullError::Empty);
    }
    if let Some(index) = points.iter().position(|p| !is_finite_point(p)) {
        return Err(HullError::NonFinite { index });
    }
    if u32::try_from(points.len()).is_err() {
        return Err(HullError::TooManyPoints);
    }
    let cloud = Cloud::new(points);
    Ok(match cloud.simplex() {
        Simplex::Point => Hull::Point(points[0]),
        Simplex::Segment([a, b]) => cloud.segment(points, a, b),
        Simplex::Flat(v) => cloud.polygon(points, v),
        Simplex::Solid(v) => Hull::Solid(Builder::new(cloud, v).run().into_hull(points)),
    })
}

/// The input in `f64`, relative to its bounding-box centre, with the hull tolerance.
struct Cloud {
    points: Vec<V64>,
    tolerance: f64,
}

/// Vertices of the initial tetrahedron, or of the degenerate answer.
enum Simplex {
    /// All points coincide.
    Point,
    /// Two distinct points; all points within the tolerance of their line.
    Segment([usize; 2]),
    /// Three points spanning a plane; all points within the tolerance of it.
    Flat([usize; 3]),
    /// Four points spanning a tetrahedron.
    Solid([usize; 4]),
}

impl Cloud {
    fn new(points: &[Point]) -> Self {
        let wide: Vec<V64> = points.iter().map(|p| p.coords.cast::<f64>()).collect();
        let (lo, hi) = wide
            .iter()
            .fold((wide[0], wide[0]), |(lo, hi), p| (lo.inf(p), hi.sup(p)));
        let center = (lo + hi) * 0.5;
        let half = (hi - lo) * 0.5;
        let tolerance = 3.0 * f64::from(f32::EPSILON) * (half.x + half.y + half.z);
        let points = wide.into_iter().map(|p| p - center).collect();
        Self { points, tolerance }
    }

    fn len(&self) -> usize {
        self.points.len()
    }

    /// The index maximising `score`, with its score.
    fn argmax(&self, score: impl Fn(&V64) -> f64) -> (usize, f64) {
        self.points
            .iter()
            .enumerate()
            .map(|(i, p)| (i, score(p)))
            .fold((0, f64::NEG_INFINITY), |best, cur| {
                if cur.1 > best.1 { cur } else { best }
            })
    }

    fn simplex(&self) -> Simplex {
        // The two most distant of the six axis-extreme points.
        let mut extremes = Vec::with_capacity(6);
        for axis in 0..3 {
            extremes.push(self.argmax(|p| -p[axis]).0);
            extremes.push(self.argmax(|p| p[axis]).0);
        }
        let mut pair = [extremes[0], extremes[0]];
        let mut best = 0.0;
        for &i in &extremes {
            for &j in &extremes {
                let d = (self.points[i] - self.points[j]).norm_squared();
                if d > best {
                    best = d;
                    pair = [i, j];
                }
            }
        }
        if best == 0.0 {
            return Simplex::Point;
        }
        let [a, b] = pair;
        let origin = self.points[a];
        let axis = (self.points[b] - origin).normalize();
        let (c, line_distance) = self.argmax(|p| (p - origin).cross(&axis).norm());
        if line_distance <= self.tolerance {
            return Simplex::Segment(pair);
        }
        let normal = axis.cross(&(self.points[c] - origin)).normalize();
        let (d, _) = self.argmax(|p| (p - origin).dot(&normal).abs());
        if (self.points[d] - origin).dot(&normal).abs() <= self.tolerance {
            return Simplex::Flat([a, b, c]);
        }
        Simplex::Solid([a, b, c, d])
    }

    /// The two extreme points along the line through points `a` and `b`.
    fn segment(&self, points: &[Point], a: usize, b: usize) -> Hull {
        let axis = self.points[b] - self.points[a];
        let (hi, _) = self.argmax(|p| p.dot(&axis));
        let (lo, _) = self.argmax(|p| -p.dot(&axis));
        Hull::Segment([points[lo], points[hi]])
    }

    /// The convex polygon of coplanar points: Andrew's monotone chain in the
    /// plane of points `a`, `b`, `c`, fan-triangulated.
    fn polygon(&self, points: &[Point], [a, b, c]: [usize; 3]) -> Hull {
        let origin = self.points[a];
        let u = (self.points[b] - origin).normalize();
        let normal = u.cross(&(self.points[c] - origin)).normalize();
        let w = normal.cross(&u);
        let planar: Vec<[f64; 2]> = self
            .points
            .iter()
            .map(|p| [(p - origin).dot(&u), (p - origin).dot(&w)])
            .collect();
        let mut order: Vec<u32> = (0..self.len() as u32).collect();
        order.sort_unstable_by(|&i, &j| {
            let (p, q) = (planar[i as usize], planar[j as usize]);
            p[0].total_cmp(&q[0]).then(p[1].total_cmp(&q[1]))
        });
        // Pop the middle point unless it lies more than the tolerance left of o → p.
        let tolerance = self.tolerance;
        let turns_left = |o: u32, m: u32, p: u32| {
            let (o, m, p) = (planar[o as usize], planar[m as usize], planar[p as usize]);
            let (mx, my, px, py) = (m[0] - o[0], m[1] - o[1], p[0] - o[0], p[1] - o[1]);
            mx * py - my * px > tolerance * px.hypot(py)
        };
        let mut ring: Vec<u32> = Vec::with_capacity(order.len() + 1);
        // Lower chain left to right, then upper chain right to left; each
        // chain's last point is the next one's first and is pushed again.
        for chain in [
            &mut order.iter() as &mut dyn Iterator<Item = &u32>,
            &mut order.iter().rev(),
        ] {
            let start = ring.len();
            for &p in chain {
                while ring.len() >= start + 2
                    && !turns_left(ring[ring.len() - 2], ring[ring.len() - 1], p)
                {
                    ring.pop();
                }
                ring.push(p);
            }
            ring.pop();
        }
        if ring.len() < 3 {
            return self.segment(points, a, b);
        }
        let vertices: Vec<Point> = ring.iter().map(|&i| points[i as usize]).collect();
        let triangles = (1..ring.len() as u32 - 1).map(|i| [0, i, i + 1]).collect();
        Hull::Flat(ConvexHull {
            vertices,
            triangles,
        })
    }
}

/// A hull triangle with its plane, neighbours and conflict list.
struct Face {
    /// Point indices, counter-clockwise seen from outside.
    vertices: [u32; 3],
    /// `neighbors[i]` shares the edge `vertices[i] → vertices[(i + 1) % 3]`.
    neighbors: [u32; 3],
    /// Unit outward normal (zero for a degenerate face, which then sees nothing).
    normal: V64,
    /// `normal · x` for points `x` on the plane.
    offset: f64,
    /// Points more than the tolerance above this face and assigned to it.
    outside: Vec<u32>,
    alive: bool,
    /// Equals the builder's stamp while the face belongs to the visible region.
    mark: u32,
}

impl Face {
    fn new(points: &[V64], vertices: [u32; 3]) -> Self {
        let [a, b, c] = vertices.map(|i| points[i as usize]);
        let normal = (b - a)
            .cross(&(c - a))
            .try_normalize(0.0)
            .unwrap_or_else(V64::zeros);
        let offset = normal.dot(&((a + b + c) / 3.0));
        Self {
            vertices,
            neighbors: [0; 3],
            normal,
            offset,
            outside: Vec::new(),
            alive: true,
            mark: 0,
        }
    }

    fn distance(&self, p: &V64) -> f64 {
        self.normal.dot(p) - self.offset
    }

    /// The index of the edge `from → to`, if this face has it.
    fn edge(&self, from: u32, to: u32) -> Option<usize> {
        (0..3).find(|&i| self.vertices[i] == from && self.vertices[(i + 1) % 3] == to)
    }
}

/// A boundary edge of the visible region, oriented as in its removed face.
#[derive(Clone, Copy)]
struct HorizonEdge {
    from: u32,
    to: u32,
    /// The face beyond the edge, which stays on the hull.
    outside: u32,
}

/// Quickhull state: the face mesh plus scratch buffers reused by every step.
struct Builder {
    cloud: Cloud,
    faces: Vec<Face>,
    /// Slots of removed faces, reused by new ones.
    free: Vec<u32>,
    /// Faces that may have conflict points.
    pending: Vec<u32>,
    /// Equals `stamp` for vertices of the current visible region.
    vertex_mark: Vec<u32>,
    /// For each vertex, the horizon edge starting at it (valid for horizon vertices only).
    horizon_slot: Vec<u32>,
    stamp: u32,
    region: Vec<u32>,
    stack: Vec<u32>,
    horizon: Vec<HorizonEdge>,
    ordered: Vec<HorizonEdge>,
    orphans: Vec<u32>,
    cone: Vec<u32>,
}

impl Builder {
    /// The initial tetrahedron with every other point assigned to a face it lies above.
    fn new(cloud: Cloud, [a, b, c, d]: [usize; 4]) -> Self {
        let p = &cloud.points;
        let above = (p[d] - p[a]).dot(&(p[b] - p[a]).cross(&(p[c] - p[a]))) > 0.0;
        let (b, c) = if above { (c, b) } else { (b, c) };
        let [a, b, c, d] = [a, b, c, d].map(|i| i as u32);
        let mut faces: Vec<Face> = [[a, b, c], [b, a, d], [c, b, d], [a, c, d]]
            .into_iter()
            .map(|v| Face::new(p, v))
            .collect();
        for f in 0..4 {
            for i in 0..3 {
                let (from, to) = (faces[f].vertices[i], faces[f].vertices[(i + 1) % 3]);
                if let Some(g) = (0..4).find(|&g| faces[g].edge(to, from).is_some()) {
                    faces[f].neighbors[i] = g as u32;
                }
            }
        }
        let n = cloud.len();
        let mut builder = Self {
            faces,
            free: Vec::new(),
            pending: Vec::new(),
            vertex_mark: vec![0; n],
            horizon_slot: vec![0; n],
            stamp: 0,
            region: Vec::new(),
            stack: Vec::new(),
            horizon: Vec::new(),
            ordered: Vec::new(),
            orphans: Vec::new(),
            cone: vec![0, 1, 2, 3],
            cloud,
        };
        builder.orphans = (0..n as u32)
            .filter(|&i| ![a, b, c, d].contains(&i))
            .collect();
        builder.assign_orphans();
        builder
    }

    /// Adds the farthest conflict point of some face until no face has any.
    fn run(mut self) -> Self {
        while let Some(f) = self.pending.pop() {
            let face = &self.faces[f as usize];
            if !face.alive || face.outside.is_empty() {
                continue;
            }
            let eye = self.take_farthest(f);
            self.add_point(f, eye);
        }
        self
    }

    /// Removes and returns the conflict point of face `f` farthest above it.
    fn take_farthest(&mut self, f: u32) -> u32 {
        let face = &mut self.faces[f as usize];
        let points = &self.cloud.points;
        let mut best = 0;
        let mut best_distance = f64::NEG_INFINITY;
        for (k, &i) in face.outside.iter().enumerate() {
            let d = face.distance(&points[i as usize]);
            if d > best_distance {
                best_distance = d;
                best = k;
            }
        }
        face.outside.swap_remove(best)
    }

    /// Replaces the faces that `eye` sees from face `f` onwards by a cone to `eye`.
    fn add_point(&mut self, f: u32, eye: u32) {
        self.stamp += 1;
        self.region.clear();
        self.stack.clear();
        self.claim(f);
        let eye_point = self.cloud.points[eye as usize];
        while let Some(g) = self.stack.pop() {
            let face = &self.faces[g as usize];
            if face.mark != self.stamp && face.distance(&eye_point) > 0.0 && self.keeps_disk(g) {
                self.claim(g);
            }
        }
        if !self.collect_horizon() {
            // Unreachable for a disk-shaped region; dropping the eye keeps the mesh valid.
            return;
        }
        self.orphans.clear();
        for &r in &self.region {
            let face = &mut self.faces[r as usize];
            face.alive = false;
            self.orphans.append(&mut face.outside);
            self.free.push(r);
        }
        self.build_cone(eye);
        self.assign_orphans();
    }

    /// Adds face `g` to the visible region and queues its neighbours.
    fn claim(&mut self, g: u32) {
        let face = &mut self.faces[g as usize];
        face.mark = self.stamp;
        for v in face.vertices {
            self.vertex_mark[v as usize] = self.stamp;
        }
        self.region.push(g);
        self.stack.extend(face.neighbors);
    }

    /// True when adding face `g` keeps the visible region a topological disk:
    /// `g` shares two edges with it, or one edge and its third vertex is new.
    fn keeps_disk(&self, g: u32) -> bool {
        let face = &self.faces[g as usize];
        let shared = face
            .neighbors
            .map(|n| self.faces[n as usize].mark == self.stamp);
        match shared.iter().filter(|&&s| s).count() {
            1 => {
                let i = shared.iter().position(|&s| s).unwrap_or(0);
                self.vertex_mark[face.vertices[(i + 2) % 3] as usize] != self.stamp
            }
            2 => true,
            _ => false,
        }
    }

    /// Orders the region's boundary edges into one cycle in `self.horizon`;
    /// false if they do not form one.
    fn collect_horizon(&mut self) -> bool {
        self.horizon.clear();
        for &r in &self.region {
            let face = &self.faces[r as usize];
            for i in 0..3 {
                let outside = face.neighbors[i];
                if self.faces[outside as usize].mark != self.stamp {
                    let (from, to) = (face.vertices[i], face.vertices[(i + 1) % 3]);
                    self.horizon.push(HorizonEdge { from, to, outside });
                }
            }
        }
        for (k, e) in self.horizon.iter().enumerate() {
            self.horizon_slot[e.from as usize] = k as u32;
        }
        let len = self.horizon.len();
        self.ordered.clear();
        let mut k = 0;
        for step in 0..len {
            let e = self.horizon[k];
            self.ordered.push(e);
            k = self.horizon_slot[e.to as usize] as usize;
            let closes = k == 0;
            if k >= len || self.horizon[k].from != e.to || closes != (step + 1 == len) {
                return false;
            }
        }
        std::mem::swap(&mut self.horizon, &mut self.ordered);
        len >= 3
    }

    /// Creates one face per horizon edge, fanned around `eye`, and links it.
    fn build_cone(&mut self, eye: u32) {
        self.cone.clear();
        for k in 0..self.horizon.len() {
            let e = self.horizon[k];
            let face = Face::new(&self.cloud.points, [e.from, e.to, eye]);
            let id = match self.free.pop() {
                Some(id) => {
                    self.faces[id as usize] = face;
                    id
                }
                None => {
                    self.faces.push(face);
                    (self.faces.len() - 1) as u32
                }
            };
            self.cone.push(id);
        }
        let m = self.cone.len();
        for k in 0..m {
            let e = self.horizon[k];
            let id = self.cone[k];
            self.faces[id as usize].neighbors = [
                e.outside,
                self.cone[(k + 1) % m],
                self.cone[(k + m - 1) % m],
            ];
            let outside = &mut self.faces[e.outside as usize];
            if let Some(j) = outside.edge(e.to, e.from) {
                outside.neighbors[j] = id;
            }
        }
    }

    /// Gives each orphaned point to the new face it lies farthest above and
    /// queues faces that received points. A point above no new face is inside
    /// the hull; one above by at most the tolerance is dropped only if it is
    /// also within the tolerance of a new triangle, so that every dropped point
    /// stays within the tolerance of every later (larger) hull.
    fn assign_orphans(&mut self) {
        let tolerance = self.cloud.tolerance;
        for &i in &self.orphans {
            let p = &self.cloud.points[i as usize];
            let mut best = None;
            let mut best_distance = 0.0;
            for &f in &self.cone {
                let d = self.faces[f as usize].distance(p);
                if d > best_distance {
                    best_distance = d;
                    best = Some(f);
                }
            }
            let Some(f) = best else { continue };
            if best_distance <= tolerance
                && self
                    .cone
                    .iter()
                    .any(|&g| self.triangle_distance_squared(g, p) <= tolerance * tolerance)
            {
                continue;
            }
            self.faces[f as usize].outside.push(i);
        }
        self.orphans.clear();
        for &f in &self.cone {
            if !self.faces[f as usize].outside.is_empty() {
                self.pending.push(f);
            }
        }
    }

    /// Squared distance from `p` to the triangle of face `f` (Ericson, *Real-Time
    /// Collision Detection*, §5.1.5, by Voronoi regions).
    fn triangle_distance_squared(&self, f: u32, p: &V64) -> f64 {
        let [a, b, c] = self.faces[f as usize]
            .vertices
            .map(|i| self.cloud.points[i as usize]);
        let (ab, ac, ap) = (b - a, c - a, p - a);
        let (d1, d2) = (ab.dot(&ap), ac.dot(&ap));
        if d1 <= 0.0 && d2 <= 0.0 {
            return ap.norm_squared();
        }
        let bp = p - b;
        let (d3, d4) = (ab.dot(&bp), ac.dot(&bp));
        if d3 >= 0.0 && d4 <= d3 {
            return bp.norm_squared();
        }
        let vc = d1 * d4 - d3 * d2;
        if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
            return (ap - ab * (d1 / (d1 - d3))).norm_squared();
        }
        let cp = p - c;
        let (d5, d6) = (ab.dot(&cp), ac.dot(&cp));
        if d6 >= 0.0 && d5 <= d6 {
            return cp.norm_squared();
        }
        let vb = d5 * d2 - d1 * d6;
        if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
            return (ap - ac * (d2 / (d2 - d6))).norm_squared();
        }
        let va = d3 * d6 - d5 * d4;
        if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
            return (bp - (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)))).norm_squared();
        }
        let denom = va + vb + vc;
        if denom <= 0.0 {
            // Degenerate triangle: its edges were covered above up to rounding.
            return ap
                .norm_squared()
                .min(bp.norm_squared())
                .min(cp.norm_squared());
        }
        (ap - ab * (vb / denom) - ac * (vc / denom)).norm_squared()
    }

    /// The live faces, re-indexed over the vertices they use.
    fn into_hull(self, points: &[Point]) -> ConvexHull {
        let mut remap = vec![u32::MAX; points.len()];
        let mut vertices = Vec::new();
        let mut triangles = Vec::new();
        for face in self.faces.iter().filter(|f| f.alive) {
            triangles.push(face.vertices.map(|v| {
                let slot = &mut remap[v as usize];
                if *slot == u32::MAX {
                    *slot = vertices.len() as u32;
                    vertices.push(points[v as usize]);
                }
                *slot
            }));
        }
        ConvexHull {
            vertices,
            triangles,
        }
    }
}
