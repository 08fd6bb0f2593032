//! The top level of a scene: an 8-wide AABB tree over the objects' world boxes.
//!
//! Built by the mesh trees' own binned-SAH builder: each box is handed to it
//! as the degenerate triangle `(min, max, centre)`, whose bounds are the box
//! and whose centroid is its centre, so the builder sees exactly the boxes
//! and centres a builder over boxes would. The binary tree is then
//! collapsed into the 8-wide form the raycasts descend and dropped: the
//! wide form is the only one kept (half the memory per object of keeping
//! both, and no stale form between a move and the next update). Each leaf
//! holds one object and names it, so the leaf's box is the object's world
//! box and objects keep no box of their own. After a
//! move only the path from the object's leaf to the root is refitted
//! (O(depth · 8), van den Bergen 1997); the scene rebuilds the whole level
//! when objects were added or when the tree's surface-area cost has grown
//! past [`REBUILD_COST_GROWTH`] times its cost at the last build (refits
//! keep the topology, which degrades as objects wander; Wald et al. 2007
//! use the same trigger).

use crate::bounding_volume::Aabb;
use crate::bvh::{BuildOptions, Bvh, WideChild, WideLayout};
use crate::math::{Point, Real};
use crate::shape::TriangleSoup;

/// Cost growth (relative to the last build) that makes [`crate::Scene::update`] rebuild.
pub(crate) const REBUILD_COST_GROWTH: Real = 1.3;

/// Lanes per node of the top level.
const LANES: u32 = 8;

/// A child slot of the top level: wide node `slot / 8`, lane `slot % 8`.
pub(crate) type ChildSlot = u32;

/// The top-level tree and where each object sits in it.
#[derive(Clone, Debug)]
pub(crate) struct TopTree {
    /// The 8-wide tree raycasts and region queries descend (one vector
    /// slab test per eight children instead of a mispredicted branch per
    /// child of a binary tree).
    pub(crate) wide: WideLayout,
    /// The child slot that points at each wide node (`u32::MAX` for the root).
    parents: Vec<ChildSlot>,
    /// Objects placed by the build (removed ones included).
    pub(crate) placed: usize,
    /// Surface-area cost right after the build.
    built_cost: Real,
}

/// Where each built object landed: `(object index, leaf slot)`.
pub(crate) type Placement = (u32, ChildSlot);

impl TopTree {
    /// A tree over `boxes` (`(object index, world box)`, non-empty), and where each object went.
    pub(crate) fn build(boxes: &[(u32, Aabb)]) -> (TopTree, Vec<Placement>) {
        debug_assert!(!boxes.is_empty());
        let mut points = Vec::with_capacity(3 * boxes.len());
        for (_, b) in boxes {
            points.extend([
                b.min,
                b.max,
                Point::from((b.min.coords + b.max.coords) * 0.5),
            ]);
        }
        let indices: Vec<[u32; 3]> = (0..boxes.len() as u32)
            .map(|i| [3 * i, 3 * i + 1, 3 * i + 2])
            .collect();
        let soup = TriangleSoup::new_unchecked(&points, &indices);
        // One object per leaf: an object visit costs a transform and a
        // descent of its own tree, and a leaf then names its object.
        let options = BuildOptions::sah().with_max_leaf_size(1);
        let bvh = Bvh::<Aabb>::build(soup, &options);
        let objects: Vec<u32> = bvh
            .leaf_triangles(0, bvh.triangle_count() as u32)
            .map(|t| boxes[t.index()].0)
            .collect();
        let mut wide = WideLayout::from_binary(&bvh);
        wide.rename_leaves(|position| objects[position as usize]);
        let mut parents = vec![u32::MAX; wide.nodes().len()];
        let mut placements = Vec::with_capacity(boxes.len());
        for (index, node) in wide.nodes().iter().enumerate() {
            for lane in 0..LANES as usize {
                let slot = index as u32 * LANES + lane as u32;
                match node.child(lane) {
                    WideChild::Node(child) => parents[child as usize] = slot,
                    WideChild::Leaf { first: object, .. } => placements.push((object, slot)),
                    WideChild::Empty => {}
                }
            }
        }
        let mut tree = TopTree {
            wide,
            parents,
            placed: boxes.len(),
            built_cost: 0.0,
        };
        tree.built_cost = tree.cost();
        (tree, placements)
    }

    /// The world box of the object in leaf `slot`.
    pub(crate) fn object_box(&self, slot: ChildSlot) -> Aabb {
        let (node, lane) = ((slot / LANES) as usize, (slot % LANES) as usize);
        self.wide.nodes()[node].child_box(lane)
    }

    /// Gives the object in leaf `slot` a new world box (empty once it is
    /// removed, which no query enters), then refits every box above it.
    pub(crate) fn set_object_box(&mut self, slot: ChildSlot, world_box: &Aabb) {
        let (node, lane) = ((slot / LANES) as usize, (slot % LANES) as usize);
        let nodes = self.wide.nodes_mut();
        nodes[node].set_child_bounds(lane, *world_box);
        let mut child = node;
        while let Some(&slot) = self.parents.get(child).filter(|&&s| s != u32::MAX) {
            let joined = nodes[child].bounds();
            let (node, lane) = ((slot / LANES) as usize, (slot % LANES) as usize);
            nodes[node].set_child_bounds(lane, joined);
            child = node;
        }
    }

    /// Bytes held: the wide nodes and their parents.
    pub(crate) fn bytes(&self) -> usize {
        self.wide.bytes() + std::mem::size_of_val(self.parents.as_slice())
    }

    /// Surface-area cost: the summed area of every child box, relative to
    /// the root's (the expected number of box tests of a random ray that
    /// hits the root, up to constants).
    fn cost(&self) -> Real {
        let nodes = self.wide.nodes();
        let root = nodes[0].bounds().surface_area();
        if !(root > 0.0) {
            return 0.0;
        }
        let below: Real = nodes
            .iter()
            .flat_map(|n| (0..LANES as usize).map(|lane| n.child_box(lane)))
            .filter(|b| !b.is_empty())
            .map(|b| b.surface_area())
            .sum();
        below / root
    }

    /// True when refits have made the tree enough worse than a rebuild would.
    pub(crate) fn degraded(&self) -> bool {
        self.cost() > REBUILD_COST_GROWTH * self.built_cost
    }
}
