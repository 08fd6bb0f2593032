//! A mesh together with its tree: the object users build once and query.

use crate::bvh::{BoundingVolume, BuildOptions, Bvh, WideLayout};
use crate::intersect::TriangleLanes;
use crate::math::{Isometry, Point, Real};
use crate::memory::PageArray;
use crate::mesh::{MeshError, TriMesh};
use crate::parallel::join_if;
use crate::query::leaf_triangles::{leaf_triangles, refresh_leaf_triangles, run_box};
use crate::query::nearest_packets::NearestPackets;
use crate::shape::Triangle;
use crate::shape::TriangleId;
use std::sync::OnceLock;

/// A triangle mesh and a bounding-volume hierarchy over it.
///
/// Immutable between [`MeshTree::set_vertices`] calls; every query takes
/// `&self`, so one tree serves any number of threads.
#[derive(Clone, Debug)]
pub struct MeshTree<V> {
    mesh: TriMesh,
    bvh: Bvh<V>,
    /// The wide raycast layout, for volumes that have one (see `BoundingVolume::wide_layout`).
    wide: Option<WideLayout>,
    /// The triangles copied in the tree's leaf order, so leaf tests read
    /// contiguous memory instead of chasing ids → indices → vertices,
    /// stored by axis for the 4-lane ray test (48 bytes each) with their
    /// ids and a flag that is false for triangles that can never be hit
    /// (zero `f32` normal, or exactly collinear vertices): decided
    /// once here so the ray kernels' hit paths skip the exact predicates,
    /// and kept in the triangle's own lines so a hit reads no other memory.
    leaf_triangles: PageArray<TriangleLanes>,
    /// Largest absolute vertex coordinate: the scale of rounding errors in queries.
    coordinate_scale: Real,
    /// The largest extent of one triangle along an axis: every vertex of a
    /// triangle that comes within `r` of a point lies within `r` plus this
    /// of it, along each axis.
    triangle_extent: Real,
    /// Each wide node's leaf triangles eight to a packet, made by the first
    /// nearest-point query (trees never asked for one hold none).
    nearest_packets: OnceLock<NearestPackets>,
}

impl<V: BoundingVolume> MeshTree<V> {
    /// Builds the tree over `mesh` with the volume's own preset
    /// ([`BoundingVolume::default_build`]): binned SAH for `MeshTree<Aabb>`,
    /// Gottschalk's split for `MeshTree<Obb>` and `MeshTree<PackedObb>`.
    #[must_use]
    pub fn new(mesh: TriMesh) -> Self {
        Self::build(mesh, &V::default_build())
    }

    /// Builds the tree over `mesh` with explicit options.
    #[must_use]
    pub fn build(mesh: TriMesh, options: &BuildOptions) -> Self {
        let bvh = Bvh::build(&mesh, options);
        let (leaf_triangles, wide) = layouts(&mesh, &bvh, options);
        Self::from_parts(mesh, bvh, wide, leaf_triangles)
    }

    /// A tree from its parts, built or loaded and checked (`crate::saved`):
    /// the leaf triangles' ids must follow `bvh`'s leaf order and `wide`
    /// must be over it.
    pub(crate) fn from_parts(
        mesh: TriMesh,
        bvh: Bvh<V>,
        wide: Option<WideLayout>,
        leaf_triangles: PageArray<TriangleLanes>,
    ) -> Self {
        let coordinate_scale = coordinate_scale(&mesh);
        let triangle_extent = triangle_extent(&mesh);
        MeshTree {
            mesh,
            bvh,
            wide,
            leaf_triangles,
            coordinate_scale,
            triangle_extent,
            nearest_packets: OnceLock::new(),
        }
    }

    /// Bytes kept beside the mesh: the tree (nodes and leaf order, as
    /// [`Bvh::bytes`] counts them), the wide raycast layout when the
    /// volume type has one, the leaf-order copies of the triangles
    /// (48 bytes each, stored by axis, with their ids and hittable flags),
    /// and once a nearest point has been asked of a tree with the wide
    /// layout, its triangles again in packets of eight (about 60 bytes a
    /// triangle).
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.bvh.bytes()
            + self.wide.as_ref().map_or(0, WideLayout::bytes)
            + self.leaf_triangles_bytes()
            + self.nearest_packets.get().map_or(0, NearestPackets::bytes)
    }

    /// Bytes of [`MeshTree::bytes`] that the kernel reports on huge pages
    /// (Linux's `/proc/self/smaps`), or `None` where it cannot tell. The
    /// arrays rays read at random (wide nodes, leaf triangles) get 2 MiB
    /// mappings of their own when they exceed 4 MiB, advised for huge
    /// pages before their first touch, whatever the allocator did before;
    /// whether the kernel grants them depends on its transparent huge
    /// page mode and on free memory. Reading the statistic scans the
    /// process's mappings: a diagnostic, not for every frame.
    #[must_use]
    pub fn huge_page_bytes(&self) -> Option<usize> {
        let wide = match &self.wide {
            Some(w) => w.huge_page_bytes()?,
            None => 0,
        };
        Some(self.leaf_triangles.huge_page_bytes()? + wide)
    }

    /// The wide raycast layout, when the volume type has one.
    #[must_use]
    pub(crate) fn wide(&self) -> Option<&WideLayout> {
        self.wide.as_ref()
    }

    /// The nearest-point packets of the wide layout `wide` (this tree's),
    /// made on first use.
    pub(crate) fn nearest_packets(&self, wide: &WideLayout) -> &NearestPackets {
        self.nearest_packets
            .get_or_init(|| NearestPackets::new(wide, &self.leaf_triangles))
    }

    /// The wide layout for a raycast whose range starts at `t_min`: only
    /// for `t_min ≥ 0`. Its box tests pad exits as positive parameters (one
    /// multiply on every node's critical path); spans starting before their
    /// origin descend the binary tree, whose test pads exits of either sign
    /// (`bvh::ray::padded_exit`).
    #[must_use]
    #[inline(always)]
    pub(crate) fn wide_for(&self, t_min: Real) -> Option<&WideLayout> {
        self.wide
            .as_ref()
            .filter(|_| t_min >= 0.0 && self.coordinate_scale <= FAST_RAY_SCALE)
    }

    /// Bytes of the 8-wide AABB layout that rays, shape casts and point
    /// queries descend, kept beside the binary tree (0 for sphere and
    /// k-DOP trees, which have none), included in [`MeshTree::bytes`].
    #[must_use]
    pub fn wide_layout_bytes(&self) -> usize {
        self.wide.as_ref().map_or(0, WideLayout::bytes)
    }

    /// True when batch queries interleave several descents on one thread
    /// to overlap their memory latency: trees whose wide nodes and leaf
    /// triangles together outgrow 16 MiB (half the 32 MiB shared cache the
    /// bound was tuned on). Smaller trees answer one query at a time
    /// (parking descents would only cost there).
    #[must_use]
    pub fn batches_interleave(&self) -> bool {
        crate::query::raycast_stream::interleavable(self).is_some()
    }

    /// Bytes of the leaf-order triangles.
    pub(crate) fn leaf_triangles_bytes(&self) -> usize {
        std::mem::size_of_val(&*self.leaf_triangles)
    }

    /// The triangle at position `k` of the leaf order, with its id.
    #[inline(always)]
    pub(crate) fn leaf_triangle(&self, k: usize) -> (Triangle, TriangleId) {
        (self.leaf_triangles[k].triangle(), self.leaf_id(k))
    }

    /// The triangle at position `k` of the leaf order as the ray test reads it.
    #[inline(always)]
    pub(crate) fn leaf_ray_triangle(&self, k: usize) -> &TriangleLanes {
        &self.leaf_triangles[k]
    }

    /// Positions `first .. first + count` of the leaf order as the ray test reads them.
    #[inline(always)]
    pub(crate) fn leaf_ray_triangles(&self, first: u32, count: u32) -> &[TriangleLanes] {
        &self.leaf_triangles[first as usize..(first + count) as usize]
    }

    /// The id of the triangle at position `k` of the leaf order.
    #[inline(always)]
    pub(crate) fn leaf_id(&self, k: usize) -> TriangleId {
        self.leaf_triangles[k].id()
    }

    /// False when the triangle at leaf position `k` can never be hit by a ray.
    #[inline(always)]
    pub(crate) fn leaf_hittable(&self, k: usize) -> bool {
        self.leaf_triangles[k].hittable()
    }

    /// Largest absolute vertex coordinate (the scale of rounding errors).
    #[must_use]
    pub(crate) fn coordinate_scale(&self) -> Real {
        self.coordinate_scale
    }

    /// The largest extent of one triangle along an axis (see the field).
    pub(crate) fn triangle_extent(&self) -> Real {
        self.triangle_extent
    }

    /// The mesh.
    #[must_use]
    pub fn mesh(&self) -> &TriMesh {
        &self.mesh
    }

    /// The hierarchy.
    #[must_use]
    pub fn bvh(&self) -> &Bvh<V> {
        &self.bvh
    }

    /// Triangle `id` of the mesh.
    #[must_use]
    #[inline(always)]
    pub fn triangle(&self, id: TriangleId) -> Triangle {
        self.mesh.triangle(id)
    }

    /// Moves the vertices (same count, same triangles) and refits the tree
    /// bottom-up instead of rebuilding it (van den Bergen 1997): the binary
    /// tree and the wide raycast layout keep their topology and take the
    /// boxes of the moved triangles, and the leaf-order triangles are
    /// rewritten in place. Answers stay exact; after large deformations a
    /// rebuild ([`MeshTree::build`]) gives tighter boxes and faster queries.
    pub fn set_vertices(&mut self, vertices: Vec<Point>) -> Result<(), MeshError> {
        self.mesh.set_vertices(vertices)?;
        // The leaf triangles are rewritten while the tree is refitted, on
        // two threads for large meshes where the `parallel` feature is on.
        let (mesh, triangles) = (&self.mesh, &mut self.leaf_triangles);
        self.bvh.refit_alongside(mesh, apart(mesh, true), |order| {
            refresh_leaf_triangles(mesh, order, triangles);
        });
        if let Some(wide) = &mut self.wide {
            let triangles = &self.leaf_triangles;
            wide.refit(|first, count| {
                run_box(&triangles[first as usize..(first + count) as usize])
            });
        }
        self.coordinate_scale = coordinate_scale(&self.mesh);
        self.triangle_extent = triangle_extent(&self.mesh);
        self.nearest_packets = OnceLock::new();
        Ok(())
    }

    /// This tree placed in the world by `pose` (mesh frame → world frame).
    #[must_use]
    pub fn placed(&self, pose: impl Into<Isometry>) -> PlacedMesh<'_, V> {
        PlacedMesh {
            tree: self,
            pose: pose.into(),
        }
    }

    /// Gives back the mesh.
    #[must_use]
    pub fn into_mesh(self) -> TriMesh {
        self.mesh
    }
}

/// The largest coordinate (2⁶⁰, about 1.2e18) of meshes whose raycasts
/// take the wide kernels' rounded triangle test: beyond it the sheared
/// coordinates' products may overflow `f32`, and only the binary kernels'
/// careful test, which takes such triangles again at a smaller power of
/// two, answers them.
pub(crate) const FAST_RAY_SCALE: Real = 1_152_921_504_606_846_976.0;

/// A [`MeshTree`] with a pose: queries take world-space input, which is
/// brought into the mesh frame once per query (the mesh is never transformed).
#[derive(Clone, Copy, Debug)]
pub struct PlacedMesh<'a, V> {
    /// The tree.
    pub tree: &'a MeshTree<V>,
    /// Mesh frame → world frame.
    pub pose: Isometry,
}

/// The two layouts queries read, made from the built tree: the leaf-order
/// triangles and the wide raycast layout. They are independent, so a
/// parallel build of a large mesh makes them at the same time (on two
/// cores a 1M-triangle terrain's are ready in the time of the larger, the
/// wide layout); below `LAYOUTS_APART_FROM` triangles handing one to
/// another thread costs more than it saves (the bunny's took 7% longer).
fn layouts<V: BoundingVolume>(
    mesh: &TriMesh,
    bvh: &Bvh<V>,
    options: &BuildOptions,
) -> (PageArray<TriangleLanes>, Option<WideLayout>) {
    let triangles = || leaf_triangles(mesh, bvh.leaf_order());
    let wide = || V::wide_layout(bvh, mesh.soup());
    join_if(apart(mesh, options.parallel), triangles, wide)
}

/// Triangles from which a parallel build makes its two layouts on two
/// threads (and `set_vertices` and loads refit the tree beside rewriting
/// them).
const LAYOUTS_APART_FROM: usize = 1 << 15;

/// Whether two independent halves of a build or refit step go to two
/// threads: when `wanted` and the mesh is large enough to repay the
/// hand-off (without the `parallel` feature they run in turn regardless).
pub(crate) fn apart(mesh: &TriMesh, wanted: bool) -> bool {
    wanted && mesh.len() >= LAYOUTS_APART_FROM
}

fn triangle_extent(mesh: &TriMesh) -> Real {
    let v = mesh.vertices();
    mesh.indices()
        .iter()
        .map(|&[a, b, c]| {
            let (a, b, c) = (v[a as usize], v[b as usize], v[c as usize]);
            (b - a).amax().max((c - a).amax()).max((c - b).amax())
        })
        .fold(0.0, Real::max)
}

fn coordinate_scale(mesh: &TriMesh) -> Real {
    mesh.vertices()
        .iter()
        .map(|v| v.coords.amax())
        .fold(0.0, Real::max)
}
