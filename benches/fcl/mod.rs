//! FCL 0.7 beside boxtree in the benches (feature `fcl`, Debian's
//! `libfcl-dev`), in double precision: a field of mesh objects, one
//! `BVHModel<OBBRSS>` per distinct mesh shared by its objects, under a
//! `DynamicAABBTreeCollisionManager`; and a pair of meshes for
//! `fcl::distance` and `fcl::collide`. The C++ side is `shim.cpp`, compiled
//! by `fcl/build.rs`; only what the benches call is bound.
#![allow(unsafe_code, dead_code)]

use std::ffi::c_void;

use boxtree::TriMesh;
use boxtree::math::Isometry;

unsafe extern "C" {
    fn fcl_field_new(
        n_meshes: usize,
        vertices: *const *const f32,
        vertex_counts: *const usize,
        triangles: *const *const u32,
        triangle_counts: *const usize,
        n_objects: usize,
        object_mesh: *const u32,
        poses: *const f64,
    ) -> *mut c_void;
    fn fcl_field_set_pose(field: *mut c_void, k: usize, pose: *const f64) -> i32;
    fn fcl_field_update(field: *mut c_void) -> i32;
    fn fcl_field_update_all(field: *mut c_void) -> i32;
    fn fcl_field_all_pairs(field: *mut c_void, out: *mut u32, capacity: usize) -> i64;
    fn fcl_field_free(field: *mut c_void);
    fn fcl_pair_new(
        a_vertices: *const f32,
        a_vertex_count: usize,
        a_triangles: *const u32,
        a_triangle_count: usize,
        b_vertices: *const f32,
        b_vertex_count: usize,
        b_triangles: *const u32,
        b_triangle_count: usize,
    ) -> *mut c_void;
    fn fcl_pair_distance(
        pair: *mut c_void,
        pose: *const f64,
        out_distance: *mut f64,
        out_points: *mut f64,
    ) -> i32;
    fn fcl_pair_collide(pair: *mut c_void, pose: *const f64, out_hit: *mut i32) -> i32;
    fn fcl_pair_collide_counts(
        pair: *mut c_void,
        pose: *const f64,
        out_hit: *mut i32,
        out_counts: *mut u64,
    ) -> i32;
    fn fcl_pair_free(pair: *mut c_void);
}

/// A pose as the shim reads it: quaternion w, x, y, z, then translation.
fn pose7(pose: &Isometry) -> [f64; 7] {
    let q = pose.rotation.quaternion();
    let t = pose.translation.vector;
    [q.w, q.i, q.j, q.k, t.x, t.y, t.z].map(f64::from)
}

/// FCL's field: objects by index in the order given to [`Field::new`].
pub struct Field {
    field: *mut c_void,
    objects: usize,
}

impl Field {
    /// Builds the field: `meshes` once each, `objects` as (mesh, pose),
    /// then the manager over all of them (`registerObjects` + `setup`).
    pub fn new(meshes: &[&TriMesh], objects: &[(usize, Isometry)]) -> Field {
        let vertices: Vec<Vec<f32>> = meshes
            .iter()
            .map(|m| m.vertices().iter().flat_map(|p| [p.x, p.y, p.z]).collect())
            .collect();
        let triangles: Vec<&[[u32; 3]]> = meshes.iter().map(|m| m.indices()).collect();
        let vertex_pointers: Vec<*const f32> = vertices.iter().map(|v| v.as_ptr()).collect();
        let vertex_counts: Vec<usize> = meshes.iter().map(|m| m.vertices().len()).collect();
        let triangle_pointers: Vec<*const u32> =
            triangles.iter().map(|t| t.as_ptr().cast()).collect();
        let triangle_counts: Vec<usize> = triangles.iter().map(|t| t.len()).collect();
        let object_mesh: Vec<u32> = objects
            .iter()
            .map(|(m, _)| {
                assert!(*m < meshes.len(), "object of an unknown mesh");
                *m as u32
            })
            .collect();
        let poses: Vec<f64> = objects.iter().flat_map(|(_, p)| pose7(p)).collect();
        // SAFETY: every array holds the counts passed beside it (vertices
        // three floats each, triangles three indices each, poses seven
        // doubles per object) and outlives the call; the shim copies them.
        let field = unsafe {
            fcl_field_new(
                meshes.len(),
                vertex_pointers.as_ptr(),
                vertex_counts.as_ptr(),
                triangle_pointers.as_ptr(),
                triangle_counts.as_ptr(),
                objects.len(),
                object_mesh.as_ptr(),
                poses.as_ptr(),
            )
        };
        assert!(!field.is_null(), "FCL field");
        Field {
            field,
            objects: objects.len(),
        }
    }

    /// Moves object `k` (`setTransform` + `computeAABB`); the manager sees
    /// it at the next [`Field::update`].
    pub fn set_pose(&mut self, k: usize, pose: &Isometry) {
        assert!(k < self.objects, "object {k} of {}", self.objects);
        let pose = pose7(pose);
        // SAFETY: the field is live and `pose` holds seven doubles.
        let ok = unsafe { fcl_field_set_pose(self.field, k, pose.as_ptr()) };
        assert!(ok != 0, "FCL set_pose");
    }

    /// The manager's update with the objects moved since the last one
    /// (`DynamicAABBTreeCollisionManager::update(objects)`).
    pub fn update(&mut self) {
        // SAFETY: the field is live.
        let ok = unsafe { fcl_field_update(self.field) };
        assert!(ok != 0, "FCL update");
    }

    /// The manager's update of every leaf (`update()`: refit and rebalance).
    pub fn update_all(&mut self) {
        // SAFETY: the field is live.
        let ok = unsafe { fcl_field_update_all(self.field) };
        assert!(ok != 0, "FCL update");
    }

    /// How many pairs overlap (the manager's `collide` with `fcl::collide`
    /// on each candidate), without copying them out.
    pub fn pair_count(&mut self) -> usize {
        // SAFETY: the field is live; a zero capacity writes nothing.
        let n = unsafe { fcl_field_all_pairs(self.field, std::ptr::null_mut(), 0) };
        usize::try_from(n).expect("FCL all pairs")
    }

    /// Every overlapping pair of object indices, lower first, sorted.
    pub fn all_pairs(&mut self) -> Vec<(u32, u32)> {
        let mut out: Vec<[u32; 2]> = Vec::new();
        loop {
            // SAFETY: the field is live and `out` has room for `capacity` pairs.
            let n =
                unsafe { fcl_field_all_pairs(self.field, out.as_mut_ptr().cast(), out.capacity()) };
            let n = usize::try_from(n).expect("FCL all pairs");
            if n <= out.capacity() {
                // SAFETY: the shim wrote `n` pairs, within the capacity.
                unsafe { out.set_len(n) };
                break;
            }
            out.reserve(n);
        }
        let mut pairs: Vec<(u32, u32)> = out.iter().map(|&[a, b]| (a.min(b), a.max(b))).collect();
        pairs.sort_unstable();
        pairs
    }
}

impl Drop for Field {
    fn drop(&mut self) {
        // SAFETY: made by `new`, freed once.
        unsafe { fcl_field_free(self.field) };
    }
}

/// Two meshes for FCL's mesh–mesh distance and collision: A at the
/// identity, B placed per query, each its own `BVHModel<OBBRSS>` in a
/// `CollisionObject`.
pub struct MeshPair {
    pair: *mut c_void,
}

impl MeshPair {
    /// Builds both models (the vertices widened to double).
    pub fn new(a: &TriMesh, b: &TriMesh) -> MeshPair {
        let flat = |m: &TriMesh| -> Vec<f32> {
            m.vertices().iter().flat_map(|p| [p.x, p.y, p.z]).collect()
        };
        let (a_vertices, b_vertices) = (flat(a), flat(b));
        // SAFETY: each vertex array holds three floats per vertex and each
        // index array three u32 per triangle, for the counts passed beside
        // them; they outlive the call and the shim copies them.
        let pair = unsafe {
            fcl_pair_new(
                a_vertices.as_ptr(),
                a.vertices().len(),
                a.indices().as_ptr().cast(),
                a.indices().len(),
                b_vertices.as_ptr(),
                b.vertices().len(),
                b.indices().as_ptr().cast(),
                b.indices().len(),
            )
        };
        assert!(!pair.is_null(), "FCL mesh pair");
        MeshPair { pair }
    }

    /// `fcl::distance` with B at `pose_b`, exact (no relative or absolute
    /// error) with nearest points: the distance and the world nearest
    /// points of A then B (x, y, z each). Crossing surfaces answer 0 (the
    /// triangle test's answer; signed distance is off), and their points
    /// need not be a common point.
    pub fn distance(&self, pose_b: &Isometry) -> (f64, [f64; 6]) {
        let pose = pose7(pose_b);
        let (mut distance, mut points) = (f64::NAN, [f64::NAN; 6]);
        // SAFETY: the pair is live, `pose` holds seven doubles and
        // `points` six; FCL's queries on the pair do not run concurrently
        // (`&self` is not `Sync`: the struct holds a raw pointer).
        let ok = unsafe {
            fcl_pair_distance(self.pair, pose.as_ptr(), &mut distance, points.as_mut_ptr())
        };
        assert!(ok != 0, "FCL distance");
        (distance, points)
    }

    /// `fcl::collide` with B at `pose_b`, boolean (one contact at most, no
    /// contact information): true when the surfaces touch, by FCL's own
    /// triangle test in double precision, stopping at the first such pair.
    pub fn collides(&self, pose_b: &Isometry) -> bool {
        let pose = pose7(pose_b);
        let mut hit = 0;
        // SAFETY: the pair is live, `pose` holds seven doubles and `hit` is
        // one writable int; FCL's queries on the pair do not run
        // concurrently (`&self` is not `Sync`: the struct holds a raw pointer).
        let ok = unsafe { fcl_pair_collide(self.pair, pose.as_ptr(), &mut hit) };
        assert!(ok != 0, "FCL collide");
        hit != 0
    }

    /// [`MeshPair::collides`]'s answer and work, from the same traversal
    /// run with FCL's statistics on (not for timing).
    pub fn collide_counts(&self, pose_b: &Isometry) -> CollideCounts {
        let pose = pose7(pose_b);
        let (mut hit, mut counts) = (0, [0u64; 2]);
        // SAFETY: the pair is live, `pose` holds seven doubles, `hit` is one
        // writable int and `counts` two u64; `&self` is not `Sync`, so no
        // other query on the pair runs meanwhile.
        let ok = unsafe {
            fcl_pair_collide_counts(self.pair, pose.as_ptr(), &mut hit, counts.as_mut_ptr())
        };
        assert!(ok != 0, "FCL collide counts");
        CollideCounts {
            hit: hit != 0,
            volume_tests: counts[0],
            triangle_tests: counts[1],
        }
    }
}

/// One boolean collide of [`MeshPair::collide_counts`]: the answer and the
/// work FCL's traversal counted.
#[derive(Clone, Copy, Debug)]
pub struct CollideCounts {
    /// Whether the surfaces touch.
    pub hit: bool,
    /// Node pairs whose OBBs were tested.
    pub volume_tests: u64,
    /// Triangle pairs tested.
    pub triangle_tests: u64,
}

impl Drop for MeshPair {
    fn drop(&mut self) {
        // SAFETY: made by `new`, freed once.
        unsafe { fcl_pair_free(self.pair) };
    }
}
