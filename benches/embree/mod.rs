//! Embree 3 beside boxtree in the benches (feature `embree`, Debian's
//! `libembree-dev`): one mesh, or a two-level instanced scene, in robust
//! mode, built single-threaded from the same meshes and poses. Only what
//! the benches call is bound.
#![allow(unsafe_code, dead_code)]

use std::ffi::c_void;
use std::hint::black_box;

use boxtree::math::Isometry;
use boxtree::{Segment, TriMesh};

type Device = *mut c_void;
type Scene = *mut c_void;
type Geometry = *mut c_void;

const GEOMETRY_TYPE_TRIANGLE: u32 = 0;
const GEOMETRY_TYPE_INSTANCE: u32 = 121;
const BUFFER_TYPE_INDEX: u32 = 0;
const BUFFER_TYPE_VERTEX: u32 = 1;
const FORMAT_UINT3: u32 = 0x5003;
const FORMAT_FLOAT3: u32 = 0x9003;
const FORMAT_FLOAT3X4_COLUMN_MAJOR: u32 = 0x9234;
const SCENE_FLAG_ROBUST: u32 = 1 << 2;
const INVALID_ID: u32 = u32::MAX;

/// `struct RTCIntersectContext` with one instance level and no minimum width.
#[repr(C)]
struct IntersectContext {
    flags: u32,
    filter: *const c_void,
    inst_id: [u32; 1],
}

/// `struct RTCRay`.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct Ray {
    org: [f32; 3],
    tnear: f32,
    dir: [f32; 3],
    time: f32,
    tfar: f32,
    mask: u32,
    id: u32,
    flags: u32,
}

/// `struct RTCHit` with one instance level.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct Hit {
    ng: [f32; 3],
    u: f32,
    v: f32,
    prim_id: u32,
    geom_id: u32,
    inst_id: [u32; 1],
}

/// `struct RTCRayHit`.
#[repr(C)]
#[derive(Clone, Copy)]
struct RayHit {
    ray: Ray,
    hit: Hit,
}

#[link(name = "embree3")]
unsafe extern "C" {
    fn rtcNewDevice(config: *const std::ffi::c_char) -> Device;
    fn rtcReleaseDevice(device: Device);
    fn rtcNewScene(device: Device) -> Scene;
    fn rtcReleaseScene(scene: Scene);
    fn rtcSetSceneFlags(scene: Scene, flags: u32);
    fn rtcCommitScene(scene: Scene);
    fn rtcNewGeometry(device: Device, kind: u32) -> Geometry;
    fn rtcSetNewGeometryBuffer(
        geometry: Geometry,
        kind: u32,
        slot: u32,
        format: u32,
        stride: usize,
        count: usize,
    ) -> *mut c_void;
    fn rtcSetGeometryInstancedScene(geometry: Geometry, scene: Scene);
    fn rtcSetGeometryTransform(geometry: Geometry, time_step: u32, format: u32, xfm: *const f32);
    fn rtcCommitGeometry(geometry: Geometry);
    fn rtcAttachGeometry(scene: Scene, geometry: Geometry) -> u32;
    fn rtcReleaseGeometry(geometry: Geometry);
    fn rtcIntersect1(scene: Scene, context: *mut IntersectContext, rayhit: *mut RayHit);
    fn rtcOccluded1(scene: Scene, context: *mut IntersectContext, ray: *mut Ray);
}

/// An Embree scene in robust mode: one mesh, or one scene per distinct
/// mesh and an instance per placement.
pub struct EmbreeScene {
    device: Device,
    top: Scene,
    meshes: Vec<Scene>,
}

// SAFETY: Embree scenes are immutable once committed, and its query
// functions may be called from any thread.
unsafe impl Sync for EmbreeScene {}

impl EmbreeScene {
    /// One mesh as the whole scene (no instance level).
    pub fn single(mesh: &TriMesh) -> EmbreeScene {
        // SAFETY: see `new_device` and `mesh_scene`.
        unsafe {
            let device = new_device();
            let top = mesh_scene(device, mesh);
            EmbreeScene {
                device,
                top,
                meshes: Vec::new(),
            }
        }
    }

    /// Builds the scene: `meshes` once each, `placements` as (mesh, pose).
    pub fn instanced(meshes: &[&TriMesh], placements: &[(usize, Isometry)]) -> EmbreeScene {
        // SAFETY: every call below follows Embree's documented protocol:
        // geometries are committed before being attached, scenes before
        // being instanced or queried.
        unsafe {
            let device = new_device();
            let meshes: Vec<Scene> = meshes.iter().map(|m| mesh_scene(device, m)).collect();
            let top = rtcNewScene(device);
            rtcSetSceneFlags(top, SCENE_FLAG_ROBUST);
            for (mesh, pose) in placements {
                let instance = rtcNewGeometry(device, GEOMETRY_TYPE_INSTANCE);
                rtcSetGeometryInstancedScene(instance, meshes[*mesh]);
                let m = pose.to_homogeneous();
                let xfm: [f32; 12] = std::array::from_fn(|k| m[(k % 3, k / 3)]);
                rtcSetGeometryTransform(instance, 0, FORMAT_FLOAT3X4_COLUMN_MAJOR, xfm.as_ptr());
                rtcCommitGeometry(instance);
                rtcAttachGeometry(top, instance);
                rtcReleaseGeometry(instance);
            }
            rtcCommitScene(top);
            EmbreeScene {
                device,
                top,
                meshes,
            }
        }
    }

    fn ray(segment: &Segment) -> Ray {
        let d = segment.direction();
        Ray {
            org: [segment.a.x, segment.a.y, segment.a.z],
            tnear: 0.0,
            dir: [d.x, d.y, d.z],
            time: 0.0,
            tfar: 1.0,
            mask: u32::MAX,
            id: 0,
            flags: 0,
        }
    }

    fn context() -> IntersectContext {
        IntersectContext {
            flags: 0,
            filter: std::ptr::null(),
            inst_id: [INVALID_ID],
        }
    }

    /// True when something blocks the segment (`rtcOccluded1`).
    pub fn occluded(&self, segment: &Segment) -> bool {
        let mut ray = Self::ray(segment);
        let mut context = Self::context();
        // SAFETY: the scene is committed; ray and context are valid for the call.
        unsafe { rtcOccluded1(self.top, &mut context, &mut ray) };
        ray.tfar == f32::NEG_INFINITY
    }

    /// The closest hit's `t` and instance, when the segment hits (`rtcIntersect1`).
    pub fn closest(&self, segment: &Segment) -> Option<(f32, u32)> {
        let mut rayhit = RayHit {
            ray: Self::ray(segment),
            hit: Hit {
                ng: [0.0; 3],
                u: 0.0,
                v: 0.0,
                prim_id: INVALID_ID,
                geom_id: INVALID_ID,
                inst_id: [INVALID_ID],
            },
        };
        let mut context = Self::context();
        // SAFETY: the scene is committed; ray, hit and context are valid for the call.
        unsafe { rtcIntersect1(self.top, &mut context, &mut rayhit) };
        (rayhit.hit.geom_id != INVALID_ID).then_some((rayhit.ray.tfar, rayhit.hit.inst_id[0]))
    }
}

/// A device that builds on the calling thread alone, as boxtree's serial
/// builds do.
///
/// # Safety
/// Calls into Embree; the device must be released once.
unsafe fn new_device() -> Device {
    // SAFETY: the configuration string is NUL-terminated.
    let device = unsafe { rtcNewDevice(c"threads=1".as_ptr()) };
    assert!(!device.is_null(), "Embree device");
    device
}

/// A committed robust scene holding `mesh` as one triangle geometry.
///
/// # Safety
/// `device` must be live; the scene must be released before it.
unsafe fn mesh_scene(device: Device, mesh: &TriMesh) -> Scene {
    // SAFETY: buffers are filled within the sizes just requested, and the
    // geometry is committed before it is attached.
    unsafe {
        let scene = rtcNewScene(device);
        rtcSetSceneFlags(scene, SCENE_FLAG_ROBUST);
        let geometry = rtcNewGeometry(device, GEOMETRY_TYPE_TRIANGLE);
        let vertices = rtcSetNewGeometryBuffer(
            geometry,
            BUFFER_TYPE_VERTEX,
            0,
            FORMAT_FLOAT3,
            12,
            mesh.vertices().len(),
        ) as *mut [f32; 3];
        for (k, p) in mesh.vertices().iter().enumerate() {
            *vertices.add(k) = [p.x, p.y, p.z];
        }
        let indices = rtcSetNewGeometryBuffer(
            geometry,
            BUFFER_TYPE_INDEX,
            0,
            FORMAT_UINT3,
            12,
            mesh.indices().len(),
        ) as *mut [u32; 3];
        for (k, t) in mesh.indices().iter().enumerate() {
            *indices.add(k) = *t;
        }
        rtcCommitGeometry(geometry);
        rtcAttachGeometry(scene, geometry);
        rtcReleaseGeometry(geometry);
        rtcCommitScene(scene);
        scene
    }
}

impl Drop for EmbreeScene {
    fn drop(&mut self) {
        // SAFETY: every scene and the device were made by `new` and are
        // released once, scenes before their device.
        unsafe {
            rtcReleaseScene(self.top);
            for &scene in &self.meshes {
                rtcReleaseScene(scene);
            }
            rtcReleaseDevice(self.device);
        }
    }
}

/// boxtree's any-hit and closest hit (`any`, `closest`: whether a segment
/// hits) beside Embree's on the same segments, the two alternated in
/// rounds of 20,000 ([`crate::common::paired_ratio`]): a line with both
/// medians per query and the ratio, free of the drift between
/// criterion's rows.
pub fn paired_line(
    embree: &EmbreeScene,
    segments: &[Segment],
    any: impl Fn(&Segment) -> bool,
    closest: impl Fn(&Segment) -> bool,
) -> String {
    const CHUNK: usize = 20_000;
    let rounds = segments.len() / CHUNK;
    let chunk = |round: usize| &segments[round * CHUNK..(round + 1) * CHUNK];
    let occluded = |s: &Segment| embree.occluded(s);
    let nearest = |s: &Segment| embree.closest(s).is_some();
    let pairs = [
        crate::common::paired_ratio(
            rounds,
            |r| hits(chunk(r), &any),
            |r| hits(chunk(r), &occluded),
        ),
        crate::common::paired_ratio(
            rounds,
            |r| hits(chunk(r), &closest),
            |r| hits(chunk(r), &nearest),
        ),
    ];
    crate::common::paired_line_of("Embree", rounds, CHUNK, pairs, |p| {
        let [median, low, high] = p.ratio;
        format!("{median:.3}x Embree's time (quartiles {low:.3}-{high:.3})")
    })
}

/// How many of `segments` `hit` says hit, each through `black_box`.
fn hits(segments: &[Segment], hit: &impl Fn(&Segment) -> bool) -> usize {
    segments
        .iter()
        .filter(|s| black_box(hit(black_box(s))))
        .count()
}
