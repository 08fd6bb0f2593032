//! Mesh-vs-mesh overlap: do two posed meshes touch, and which triangle pairs do.
//!
//! The descent is the OBBTree query of Gottschalk, Lin and Manocha
//! ("OBBTree: A Hierarchical Structure for Rapid Interference Detection",
//! SIGGRAPH 1996, §5), generic over the volume of either tree:
//!
//! - B's frame is expressed in A's mesh frame once per query: the rotation
//!   matrix `R_ab` and translation `T_ab` of `pose_a⁻¹ · pose_b`. B's
//!   vertices and boxes are mapped into A's frame as `R_ab · x + T_ab`.
//! - Every node volume is seen as an oriented box
//!   ([`BoundingVolume::oriented_box`]): an AABB is a box with identity axes.
//!   A node pair is tested with the 15-axis separating-axis test
//!   ([`crate::intersect::boxes_overlap`], here in its rows form, three axes
//!   per vector instruction) on `R = Aᵀ R_ab B` and
//!   `t = Aᵀ (R_ab c_B + T_ab − c_A)` (Ericson, *Real-Time Collision
//!   Detection* §4.4.1). Identity axes skip their matrix product, so an
//!   AABB–AABB pair costs one matrix–vector product.
//! - **Descent rule**: of two inner nodes, descend the one with the larger
//!   volume (ties by the larger box half-diagonal, PQP's rule); if one node
//!   is a leaf, descend the other. Both children are tested at once; the
//!   descent continues with the first overlapping child and pushes the other
//!   on an explicit stack (no recursion). `split_a_first` has the
//!   measurements behind the rule.
//! - Leaf pairs: B's leaf triangles are mapped into A's frame once per leaf
//!   pair and tested exactly with [`triangles_overlap`] (Guigue–Devillers with
//!   exact predicates). Zero-area triangles (tested in their own mesh frame)
//!   never produce contacts (distances and casts do count them, as the
//!   segments they span: see [`TriMesh`]).
//!
//! **Exactness.** A reported pair is one whose triangles, with B's mapped into
//! A's frame as above, share a point (touching counts), and every such pair is
//! reported: the box tests are made conservative by padding A's boxes by
//! `64 ε (s_A + s_B + |T_ab|∞)`, where `s` is a mesh's largest absolute
//! coordinate, which bounds the rounding of the change of frame and of the
//! separating-axis sums (the padding is relative to the coordinates, never
//! an absolute epsilon). The mapping itself rounds, so two triangles that
//! touch only within rounding (grazing) may be decided differently than by a
//! test in another frame; away from grazing the answer is frame independent.
//! Equal poses give the exact identity transform, and poses whose rotations
//! are exact in `f32` (identity, half turns and the 120° turns about cube
//! diagonals, with small integer translations) map integer coordinates
//! exactly.
//!
//! **Containment is not overlap.** Surfaces that do not touch do not overlap
//! even when one closed mesh lies inside the other; [`PlacedMesh::contact`]
//! adds that solid answer with the generalised winding number of Jacobson,
//! Kavan and Sorkine-Hornung ("Robust Inside-Outside Segmentation using
//! Generalized Winding Numbers", SIGGRAPH 2013) summed over every triangle.
//!
//! Non-finite poses (NaN or infinite entries) give no contact at all.

use std::collections::BinaryHeap;

use smallvec::SmallVec;

use crate::bounding_volume::Obb;
use crate::bvh::{
    ARRAY_STACK_DEPTH, ArrayStack, BoundingVolume, NodeId, NodeKind, TraversalStack, Visit,
    stack_items,
};
use crate::intersect::{Rows, boxes_overlap_rows, rows_of, triangles_overlap};
use crate::math::{Isometry, Matrix, Point, Real, Vector};
use crate::mesh::TriMesh;
use crate::query::{MeshTree, PlacedMesh};
use crate::shape::Triangle;
use crate::shape::TriangleId;
use crate::simd::{self, Avx2, avx2_fn};

/// Two triangles that touch: `a` of the first mesh, `b` of the second.
/// Ordered by `a`, then `b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TrianglePair {
    /// Triangle of the first (`self`) mesh.
    pub a: TriangleId,
    /// Triangle of the second (`other`) mesh.
    pub b: TriangleId,
}

impl TrianglePair {
    /// The same pair seen from the other mesh (`a` and `b` exchanged).
    #[must_use]
    pub fn swapped(self) -> TrianglePair {
        TrianglePair {
            a: self.b,
            b: self.a,
        }
    }
}

/// Work counters of pair queries, accumulated when a pair query is given a sink (`Some(&mut stats)`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OverlapStats {
    /// Box–box separating-axis tests of node pairs.
    pub volume_tests: u64,
    /// Exact triangle–triangle tests.
    pub triangle_tests: u64,
}

/// One of the two meshes of a pair query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Which {
    /// The mesh the method is called on (`self`).
    A,
    /// The mesh passed as `other`.
    B,
}

/// The solid answer of [`PlacedMesh::contact`] for closed meshes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Contact {
    /// The surfaces touch; the first pair the descent found.
    Touching(TrianglePair),
    /// The surfaces do not touch, and mesh `inner` lies inside the other's
    /// closed surface (its sampled vertex has winding number `|w| ≥ ½`).
    Contained {
        /// The mesh that lies inside.
        inner: Which,
    },
    /// Neither touching nor contained (or a pose was not finite).
    Separate,
}

/// Multiple of `ε` by which boxes are padded, relative to the coordinates
/// (see the module documentation).
const PAD_ULPS: Real = 64.0;

/// One pair query: both trees and B's frame in A's frame, prepared once.
pub(crate) struct PairDescent<'q, A, B> {
    pub(crate) a: &'q MeshTree<A>,
    pub(crate) b: &'q MeshTree<B>,
    /// `R_ab`: B's axes in A's frame.
    rotation: Matrix,
    /// `T_ab`: B's origin in A's frame.
    translation: Vector,
    /// Added to A's half-extents in every box test.
    pub(crate) pad: Real,
}

/// A's node box prepared for testing B's boxes given in B's mesh frame
/// (see [`PairDescent::frame_of_a`]).
#[derive(Clone, Copy)]
struct FrameOfA {
    /// `Aᵀ R_ab`: B's mesh axes in A's box frame.
    rotation: Matrix,
    /// Its rows in lanes.
    rows: Rows,
    /// `Aᵀ (T_ab − c_A)`: B's mesh origin in A's box frame.
    offset: Vector,
    /// A's half-extents, padded.
    half_extents: Vector,
}

/// B's node box in A's mesh frame, with its axes' rows in lanes.
#[derive(Clone, Copy)]
struct BoxInA {
    obb: Obb,
    rows: Rows,
}

/// What the descent does with a node pair.
#[derive(Clone, Copy)]
pub(crate) enum Step {
    /// Both are leaves: test their triangles (leaf-order ranges).
    Leaves { a: (u32, u32), b: (u32, u32) },
    /// Split A's node into these children.
    SplitA { left: NodeId, right: NodeId },
    /// Split B's node into these children.
    SplitB { left: NodeId, right: NodeId },
}

impl<'q, A: BoundingVolume, B: BoundingVolume> PairDescent<'q, A, B> {
    /// The prepared query, or `None` when the relative pose is not finite.
    pub(crate) fn new(a: &PlacedMesh<'q, A>, b: &PlacedMesh<'q, B>) -> Option<Self> {
        if !(is_finite_pose(&a.pose) && is_finite_pose(&b.pose)) {
            return None;
        }
        // Equal poses give the exact identity (`pose⁻¹ · pose` would round).
        let (rotation, translation) = if a.pose == b.pose {
            (Matrix::identity(), Vector::zeros())
        } else {
            let a_from_b = a.pose.inv_mul(&b.pose);
            (
                *a_from_b.rotation.to_rotation_matrix().matrix(),
                a_from_b.translation.vector,
            )
        };
        if !(rotation.iter().all(|x| x.is_finite()) && translation.iter().all(|x| x.is_finite())) {
            return None;
        }
        // Term by term: the sum of the scales overflows for coordinates
        // from about 1.7e38, where the pad itself is still far from it
        // (meshes at 2e38 had no overlap with themselves).
        let ulps = PAD_ULPS * Real::EPSILON;
        let pad = ulps * a.tree.coordinate_scale()
            + ulps * b.tree.coordinate_scale()
            + ulps * translation.amax();
        if !pad.is_finite() {
            return None;
        }
        Some(PairDescent {
            a: a.tree,
            b: b.tree,
            rotation,
            translation,
            pad,
        })
    }

    /// A point of B's frame in A's frame: `R_ab · p + T_ab`.
    #[inline(always)]
    pub(crate) fn b_to_a(&self, p: &Point) -> Point {
        Point::from(self.rotation * p.coords + self.translation)
    }

    /// A direction of B's frame in A's frame: `R_ab · v`.
    #[inline(always)]
    pub(crate) fn b_axis_to_a(&self, v: &Vector) -> Vector {
        self.rotation * v
    }

    /// B's node box in A's mesh frame (identity axes skip their product).
    #[inline(always)]
    pub(crate) fn box_b_in_a(&self, b: &Obb) -> Obb {
        let axes = if b.axes == Matrix::identity() {
            self.rotation
        } else {
            self.rotation * b.axes
        };
        Obb::new(self.b_to_a(&b.center), axes, b.half_extents)
    }

    /// B's node box in A's mesh frame with its axes' rows in lanes, as
    /// the descent carries it while A's node is split.
    #[inline(always)]
    fn box_b_rows_in_a(&self, b: &Obb) -> BoxInA {
        let obb = self.box_b_in_a(b);
        BoxInA {
            rows: rows_of(&obb.axes),
            obb,
        }
    }

    /// The 15-axis test of A's box (padded) against B's box already in A's frame.
    #[inline(always)]
    fn boxes_touch(&self, a: &Obb, b_in_a: &BoxInA) -> bool {
        let offset = b_in_a.obb.center - a.center;
        let (rows, translation) = if a.axes == Matrix::identity() {
            (b_in_a.rows, offset)
        } else {
            (
                simd::transposed_product_rows(&a.axes, &b_in_a.rows),
                a.axes.tr_mul(&offset),
            )
        };
        boxes_overlap_rows(
            &a.half_extents.add_scalar(self.pad),
            &b_in_a.obb.half_extents,
            &rows,
            &translation,
        )
    }

    /// A's node box as a frame for testing B's boxes straight from B's
    /// mesh frame: `N = Aᵀ R_ab` and `u = Aᵀ (T_ab − c_A)`, so that B's box
    /// (axes `B`, centre `c`) sits at `R = N B`, `t = N c + u`. One product
    /// per A node instead of two per B box while the descent splits B.
    #[inline(always)]
    fn frame_of_a(&self, a: &Obb) -> FrameOfA {
        let offset = self.translation - a.center.coords;
        let (rotation, offset) = if a.axes == Matrix::identity() {
            (self.rotation, offset)
        } else {
            (a.axes.tr_mul(&self.rotation), a.axes.tr_mul(&offset))
        };
        FrameOfA {
            rows: rows_of(&rotation),
            rotation,
            offset,
            half_extents: a.half_extents.add_scalar(self.pad),
        }
    }

    /// The 15-axis test of B's box, in B's mesh frame, against A's node
    /// box given as [`PairDescent::frame_of_a`].
    #[inline(always)]
    fn touches_in_frame(&self, a: &FrameOfA, b: &Obb) -> bool {
        let rows = if b.axes == Matrix::identity() {
            a.rows
        } else {
            simd::product_rows(&a.rotation, &rows_of(&b.axes))
        };
        let translation = a.rotation * b.center.coords + a.offset;
        boxes_overlap_rows(&a.half_extents, &b.half_extents, &rows, &translation)
    }

    /// Runs the descent, calling `on_pair` for each touching pair until it
    /// returns [`Visit::Stop`]. Returns `true` when stopped.
    pub(crate) fn run(
        &self,
        stats: &mut OverlapStats,
        mut on_pair: impl FnMut(TrianglePair) -> Visit,
    ) -> bool {
        if let Some(avx2) = Avx2::detect() {
            return run_avx2(avx2, self, stats, &mut on_pair);
        }
        self.run_in(stats, &mut on_pair)
    }

    /// [`PairDescent::run`] on the instruction set the caller compiles for.
    #[inline(always)]
    fn run_in(
        &self,
        stats: &mut OverlapStats,
        on_pair: &mut impl FnMut(TrianglePair) -> Visit,
    ) -> bool {
        let depth = (self.a.bvh().depth() + self.b.bvh().depth()) as usize;
        if depth <= ARRAY_STACK_DEPTH {
            self.kernel(&mut ArrayStack::new(&mut stack_items()), stats, on_pair)
        } else {
            self.kernel(&mut Vec::new(), stats, on_pair)
        }
    }

    /// The descent rule: two leaves are tested; of an inner node and a leaf
    /// the inner node is split; of two inner nodes, see [`split_a_first`].
    #[inline(always)]
    pub(crate) fn step(&self, id_a: NodeId, id_b: NodeId) -> Step {
        let (node_a, node_b) = (self.a.bvh().node(id_a), self.b.bvh().node(id_b));
        match (node_a.kind(id_a), node_b.kind(id_b)) {
            (
                NodeKind::Leaf { first, count },
                NodeKind::Leaf {
                    first: fb,
                    count: cb,
                },
            ) => Step::Leaves {
                a: (first, count),
                b: (fb, cb),
            },
            (NodeKind::Inner { left, right }, NodeKind::Leaf { .. }) => {
                Step::SplitA { left, right }
            }
            (NodeKind::Leaf { .. }, NodeKind::Inner { left, right }) => {
                Step::SplitB { left, right }
            }
            (
                NodeKind::Inner { left, right },
                NodeKind::Inner {
                    left: lb,
                    right: rb,
                },
            ) => {
                if split_a_first(&node_a.volume, &node_b.volume) {
                    Step::SplitA { left, right }
                } else {
                    Step::SplitB {
                        left: lb,
                        right: rb,
                    }
                }
            }
        }
    }

    /// The descent. Stack entries are node pairs whose boxes touch; along
    /// the current path each level `depth_a + depth_b` holds at most one
    /// pending entry, so `depth_a + depth_b` entries suffice. While B's
    /// node stays, its box in A's mesh frame is carried along (A's children
    /// are tested against it); while A's node stays, A's box as a frame for
    /// B's boxes (B's children are tested from their own mesh frame).
    #[inline(always)]
    fn kernel(
        &self,
        stack: &mut impl TraversalStack<(NodeId, NodeId)>,
        stats: &mut OverlapStats,
        on_pair: &mut impl FnMut(TrianglePair) -> Visit,
    ) -> bool {
        let (tree_a, tree_b) = (self.a.bvh(), self.b.bvh());
        stats.volume_tests += 1;
        let root_b = self.box_b_rows_in_a(&tree_b.root_volume().oriented_box());
        if !self.boxes_touch(&tree_a.root_volume().oriented_box(), &root_b) {
            return false;
        }
        let (mut id_a, mut id_b) = (NodeId::ROOT, NodeId::ROOT);
        let mut box_b = Some(root_b);
        let mut frame_a: Option<FrameOfA> = None;
        loop {
            match self.step(id_a, id_b) {
                Step::Leaves { a, b } => {
                    if self.leaf_pair(a.0..a.0 + a.1, b.0..b.0 + b.1, stats, on_pair) {
                        return true;
                    }
                }
                Step::SplitA { left, right } => {
                    stats.volume_tests += 2;
                    let b = box_b.unwrap_or_else(|| {
                        self.box_b_rows_in_a(&tree_b.node(id_b).volume.oriented_box())
                    });
                    let hit_left = self.boxes_touch(&tree_a.node(left).volume.oriented_box(), &b);
                    let hit_right = self.boxes_touch(&tree_a.node(right).volume.oriented_box(), &b);
                    if hit_left || hit_right {
                        if hit_left && hit_right {
                            stack.push((right, id_b));
                        }
                        id_a = if hit_left { left } else { right };
                        box_b = Some(b);
                        frame_a = None;
                        continue;
                    }
                }
                Step::SplitB { left, right } => {
                    stats.volume_tests += 2;
                    let frame = frame_a.unwrap_or_else(|| {
                        self.frame_of_a(&tree_a.node(id_a).volume.oriented_box())
                    });
                    let hit_left =
                        self.touches_in_frame(&frame, &tree_b.node(left).volume.oriented_box());
                    let hit_right =
                        self.touches_in_frame(&frame, &tree_b.node(right).volume.oriented_box());
                    if hit_left || hit_right {
                        if hit_left && hit_right {
                            stack.push((id_a, right));
                        }
                        id_b = if hit_left { left } else { right };
                        box_b = None;
                        frame_a = Some(frame);
                        continue;
                    }
                }
            }
            match stack.pop() {
                Some((next_a, next_b)) => {
                    (id_a, id_b) = (next_a, next_b);
                    box_b = None;
                    frame_a = None;
                }
                None => return false,
            }
        }
    }

    /// Exact tests of one leaf pair; B's triangles are mapped into A's frame
    /// once here. Returns `true` when `on_pair` stopped the query.
    #[inline(always)]
    fn leaf_pair(
        &self,
        range_a: std::ops::Range<u32>,
        range_b: std::ops::Range<u32>,
        stats: &mut OverlapStats,
        on_pair: &mut impl FnMut(TrianglePair) -> Visit,
    ) -> bool {
        let mut moved: SmallVec<[(Triangle, TriangleId); 8]> = SmallVec::new();
        for k in range_b {
            let (tri, id) = self.b.leaf_triangle(k as usize);
            if !tri.is_degenerate() {
                moved.push((
                    Triangle::new(
                        self.b_to_a(&tri.a),
                        self.b_to_a(&tri.b),
                        self.b_to_a(&tri.c),
                    ),
                    id,
                ));
            }
        }
        if moved.is_empty() {
            return false;
        }
        for k in range_a {
            let (tri_a, id_a) = self.a.leaf_triangle(k as usize);
            if tri_a.is_degenerate() {
                continue;
            }
            for (tri_b, id_b) in &moved {
                stats.triangle_tests += 1;
                if triangles_overlap(&tri_a, tri_b)
                    && on_pair(TrianglePair { a: id_a, b: *id_b }) == Visit::Stop
                {
                    return true;
                }
            }
        }
        false
    }
}

avx2_fn! {
    /// [`PairDescent::run`] as AVX2 code: the box tests' products in
    /// three-operand form.
    fn run_avx2['q, A: BoundingVolume, B: BoundingVolume, F: FnMut(TrianglePair) -> Visit](
        avx2: Avx2,
        descent: &PairDescent<'q, A, B>,
        stats: &mut OverlapStats,
        on_pair: &mut F,
    ) -> bool {
        let _ = avx2;
        descent.run_in(stats, on_pair)
    }
}

/// Of two inner nodes, split the one with the larger enclosed volume; equal
/// volumes (flat nodes have none) go by the larger box half-diagonal, PQP's
/// rule (Larsen et al. 1999); remaining ties and NaN split A.
///
/// Splitting the bulkier node first separates thin walls and plates from
/// small pieces early instead of pairing them with one large box (half the
/// volume tests of the half-diagonal rule alone on FCL's env vs rob).
#[inline(always)]
fn split_a_first<A: BoundingVolume, B: BoundingVolume>(a: &A, b: &B) -> bool {
    let (volume_a, volume_b) = (a.volume(), b.volume());
    if volume_a != volume_b {
        return !(volume_a < volume_b);
    }
    let diagonal = |o: Obb| o.half_extents.norm_squared();
    !(diagonal(a.oriented_box()) < diagonal(b.oriented_box()))
}

impl<'q, A: BoundingVolume> PlacedMesh<'q, A> {
    /// True when the two surfaces share a point (touching counts), with
    /// early exit at the first touching triangle pair.
    ///
    /// Either tree may use any volume (OBB–OBB, AABB–AABB, mixed). A
    /// non-finite pose gives `false`. Containment without touching is not
    /// overlap: see [`PlacedMesh::contact`].
    ///
    /// The other mesh's triangles are moved into this mesh's frame, in
    /// `f32`: for meshes that touch within that rounding (a vertex on a
    /// face under a rotation `f32` cannot represent exactly) the answer may
    /// differ with the order of the two. Scenes always ask from the lower
    /// object id, so their full and incremental pair passes agree.
    #[must_use]
    pub fn overlaps<B: BoundingVolume>(&self, other: &PlacedMesh<'q, B>) -> bool {
        self.first_contact(other, None).is_some()
    }

    /// The first touching triangle pair the descent finds (early exit),
    /// adding the work done to `stats` when given.
    ///
    /// Deterministic for given trees and poses, but not in general the
    /// smallest pair: use `touching_pairs(other, Some(1), None)` for that.
    pub fn first_contact<B: BoundingVolume>(
        &self,
        other: &PlacedMesh<'q, B>,
        stats: Option<&mut OverlapStats>,
    ) -> Option<TrianglePair> {
        let mut unused = OverlapStats::default();
        let stats = stats.unwrap_or(&mut unused);
        let query = PairDescent::new(self, other)?;
        let mut found = None;
        query.run(stats, |pair| {
            found = Some(pair);
            Visit::Stop
        });
        found
    }

    /// Every touching triangle pair, sorted by `(a, b)`, without duplicates,
    /// adding the work done to `stats` when given.
    ///
    /// With `limit = Some(k)` the answer is the first `k` pairs of that
    /// sorted list (the `k` smallest), so it does not depend on the trees.
    /// Finding them still visits every touching pair (the smallest pairs can
    /// lie anywhere in the trees), but memory stays `O(k)`; use
    /// [`PlacedMesh::first_contact`] to stop at the first pair found. A
    /// non-finite pose gives no pairs.
    pub fn touching_pairs<B: BoundingVolume>(
        &self,
        other: &PlacedMesh<'q, B>,
        limit: Option<usize>,
        stats: Option<&mut OverlapStats>,
    ) -> Vec<TrianglePair> {
        let mut unused = OverlapStats::default();
        let stats = stats.unwrap_or(&mut unused);
        if limit == Some(0) {
            return Vec::new();
        }
        let Some(query) = PairDescent::new(self, other) else {
            return Vec::new();
        };
        let mut pairs = match limit {
            None => {
                let mut pairs = Vec::new();
                query.run(stats, |pair| {
                    pairs.push(pair);
                    Visit::Continue
                });
                pairs.sort_unstable();
                pairs
            }
            Some(k) => {
                // A max-heap of the k smallest pairs seen so far.
                let mut smallest: BinaryHeap<TrianglePair> =
                    BinaryHeap::with_capacity(k.min(1024) + 1);
                query.run(stats, |pair| {
                    if smallest.len() < k {
                        smallest.push(pair);
                    } else if let Some(mut largest) = smallest.peek_mut()
                        && pair < *largest
                    {
                        *largest = pair;
                    }
                    Visit::Continue
                });
                smallest.into_sorted_vec()
            }
        };
        // Each leaf pair is reached once, so this only guards the contract.
        pairs.dedup();
        pairs
    }

    /// The solid answer for closed meshes: touching surfaces, or else
    /// whether one mesh lies inside the other, or separate.
    ///
    /// Containment samples one vertex of the inner candidate (the first
    /// vertex of its first non-degenerate triangle) against the other mesh's
    /// generalised winding number, summed over all its triangles in `f64`
    /// (`O(n)`; robust to holes and grazing directions, unlike ray parity).
    /// Since the surfaces do not touch, the answer holds for every point of a
    /// connected inner mesh. Meaningful for closed meshes only: an open
    /// surface has no inside. A non-finite pose gives [`Contact::Separate`].
    #[must_use]
    pub fn contact<B: BoundingVolume>(&self, other: &PlacedMesh<'q, B>) -> Contact {
        let Some(query) = PairDescent::new(self, other) else {
            return Contact::Separate;
        };
        let mut found = None;
        query.run(&mut OverlapStats::default(), |pair| {
            found = Some(pair);
            Visit::Stop
        });
        if let Some(pair) = found {
            return Contact::Touching(pair);
        }
        let (r, t) = (
            query.rotation.cast::<f64>(),
            query.translation.cast::<f64>(),
        );
        // A's vertex in B's frame: R_abᵀ (p − T_ab).
        let a_in_b = sample_vertex(self.tree.mesh()).map(|p| r.tr_mul(&(p - t)));
        if a_in_b.is_some_and(|p| encloses(other.tree, &p)) {
            return Contact::Contained { inner: Which::A };
        }
        let b_in_a = sample_vertex(other.tree.mesh()).map(|p| r * p + t);
        if b_in_a.is_some_and(|p| encloses(self.tree, &p)) {
            return Contact::Contained { inner: Which::B };
        }
        Contact::Separate
    }
}

fn is_finite_pose(pose: &Isometry) -> bool {
    pose.translation
        .vector
        .iter()
        .chain(pose.rotation.coords.iter())
        .all(|x| x.is_finite())
}

/// Whether the mesh's winding number at `p` (its frame) is at least ½ in
/// size. Only asked inside the root volume's box: a closed surface (what
/// `contact` is for) encloses nothing outside its box, where its number is
/// 0 (meshes 100 apart had spent 13 ms on a 328k-triangle sum). An open
/// one may differ there (two stacked plates reach nearly 1 just outside).
fn encloses<V: BoundingVolume>(tree: &MeshTree<V>, p: &nalgebra::Vector3<f64>) -> bool {
    if tree.bvh().triangle_count() == 0 {
        return false;
    }
    let bounds = tree.bvh().root_volume().to_aabb();
    let inside =
        (0..3).all(|k| f64::from(bounds.min[k]) <= p[k] && p[k] <= f64::from(bounds.max[k]));
    inside && winding_number(tree.mesh(), p).abs() >= 0.5
}

/// The first vertex of the first non-degenerate triangle, in `f64`.
fn sample_vertex(mesh: &TriMesh) -> Option<nalgebra::Vector3<f64>> {
    mesh.triangles()
        .find(|t| !t.is_degenerate())
        .map(|t| t.a.coords.cast::<f64>())
}

/// Generalised winding number of `mesh` at `p` (Jacobson et al. 2013): the
/// signed solid angles of its triangles (van Oosterom and Strackee, 1983)
/// over `4π`. 1 inside a closed outward mesh, 0 outside, −1 inside an
/// inward one; fractional for open meshes.
fn winding_number(mesh: &TriMesh, p: &nalgebra::Vector3<f64>) -> f64 {
    #[cfg(test)]
    crate::test_support::count(crate::test_support::Work::WindingNumber);
    let total: f64 = mesh
        .triangles()
        .map(|t| {
            let [a, b, c] = t.vertices().map(|v| v.coords.cast::<f64>() - p);
            let (la, lb, lc) = (a.norm(), b.norm(), c.norm());
            let det = a.dot(&b.cross(&c));
            let den = la * lb * lc + a.dot(&b) * lc + b.dot(&c) * la + c.dot(&a) * lb;
            2.0 * det.atan2(den)
        })
        .sum();
    total / (4.0 * std::f64::consts::PI)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bounding_volume::Aabb;
    use crate::math::Isometry;
    use crate::test_support::{Work, counted};

    /// Pins the containment test's box check (d614f6f): `contact` summed
    /// the winding number of a whole mesh at the other's sampled vertex
    /// even for meshes far apart (13 ms on 328k triangles 100 apart).
    /// Counted: no winding number outside the root box, one inside.
    #[test]
    fn contact_sums_winding_numbers_only_inside_the_root_box() {
        let sphere = MeshTree::<Aabb>::new(TriMesh::icosphere(Point::origin(), 1.0, 3));
        let small = MeshTree::<Aabb>::new(TriMesh::icosphere(Point::origin(), 0.25, 2));
        let at = |x: Real| Isometry::translation(x, 0.0, 0.0);
        let (apart, sums) = counted(Work::WindingNumber, || {
            sphere.placed(at(0.0)).contact(&small.placed(at(100.0)))
        });
        assert_eq!(apart, Contact::Separate);
        assert_eq!(sums, 0);
        let (inside, sums) = counted(Work::WindingNumber, || {
            sphere.placed(at(0.0)).contact(&small.placed(at(0.1)))
        });
        assert_eq!(inside, Contact::Contained { inner: Which::B });
        assert!(sums >= 1, "{sums}");
    }
}
