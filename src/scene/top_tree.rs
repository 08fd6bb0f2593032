//! The top level of a scene: an AABB tree over the objects' world boxes.
//!
//! Built by the mesh trees' own binned-SAH builder: each box is handed to it
//! as the degenerate triangle `(min, max, centre)`, whose bounds are the box
//! and whose centroid is its centre, so the builder sees exactly the boxes
//! and centres a builder over boxes would. After a move only the path from
//! the object's leaf to the root is refitted (O(depth), van den Bergen 1997);
//! the scene rebuilds the whole level when objects were added or when the
//! tree's surface-area cost has grown past [`REBUILD_COST_GROWTH`] times
//! its cost at the last build (refits keep the topology, which degrades
//! as objects wander; Wald et al. 2007 use the same trigger).

use crate::bounding_volume::Aabb;
use crate::bvh::{BuildOptions, Bvh, NodeId, NodeKind, WideLayout};
use crate::math::{Point, Real};
use crate::shape::TriangleSoup;

/// Cost growth (relative to the last build) that makes [`crate::Scene::update`] rebuild.
pub(crate) const REBUILD_COST_GROWTH: Real = 1.3;

/// Marks a leaf position whose object was removed.
pub(crate) const REMOVED: u32 = u32::MAX;

/// Objects per leaf at most: an object visit costs a transform and a
/// descent of its own tree, so leaves stay small.
const MAX_LEAF_OBJECTS: u32 = 2;

/// The top-level tree and where each object sits in it.
#[derive(Clone, Debug)]
pub(crate) struct TopTree {
    pub(crate) bvh: Bvh<Aabb>,
    /// Parent of every node (`u32::MAX` for the root).
    parents: Vec<u32>,
    /// The object index at each leaf position ([`REMOVED`] once it left).
    pub(crate) members: Vec<u32>,
    /// Surface-area cost right after the build.
    built_cost: Real,
    /// The 8-wide form raycasts descend (one vector slab test per eight
    /// children instead of a mispredicted branch per child), when it
    /// holds the binary tree's current boxes; refits leave it stale until
    /// [`TopTree::refresh_wide`], and queries take the binary tree meanwhile.
    wide: Option<(WideLayout, Vec<[u32; 8]>)>,
    wide_current: bool,
}

/// Where each built object landed: `(object index, leaf node, leaf position)`.
pub(crate) type Placement = (u32, u32, u32);

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
        let options = BuildOptions::sah().with_max_leaf_size(MAX_LEAF_OBJECTS);
        let bvh = Bvh::<Aabb>::build(soup, &options);
        let members: Vec<u32> = bvh
            .leaf_triangles(0, bvh.triangle_count() as u32)
            .map(|t| boxes[t.index()].0)
            .collect();
        let mut parents = vec![u32::MAX; bvh.nodes().len()];
        let mut placements = Vec::with_capacity(boxes.len());
        for (index, node) in bvh.nodes().iter().enumerate() {
            match node.kind(NodeId(index as u32)) {
                NodeKind::Inner { left, right } => {
                    parents[left.index()] = index as u32;
                    parents[right.index()] = index as u32;
                }
                NodeKind::Leaf { first, count } => {
                    for position in first..first + count {
                        placements.push((members[position as usize], index as u32, position));
                    }
                }
            }
        }
        let mut tree = TopTree {
            bvh,
            parents,
            members,
            built_cost: 0.0,
            wide: None,
            wide_current: false,
        };
        tree.refresh_wide();
        tree.built_cost = tree.cost();
        (tree, placements)
    }

    /// Recomputes leaf `node` from its objects' boxes (`world_box` of an
    /// object index), then every node above it.
    pub(crate) fn refit_from(&mut self, node: u32, world_box: impl Fn(u32) -> Aabb) {
        let NodeKind::Leaf { first, count } = self.bvh.node(NodeId(node)).kind(NodeId(node)) else {
            unreachable!("objects sit in leaves");
        };
        let leaf = self.members[first as usize..(first + count) as usize]
            .iter()
            .filter(|&&m| m != REMOVED)
            .fold(Aabb::EMPTY, |b, &m| b.union(&world_box(m)));
        self.bvh.set_volume(NodeId(node), leaf);
        self.wide_current = false;
        let mut id = self.parents[node as usize];
        while id != u32::MAX {
            let NodeKind::Inner { left, right } = self.bvh.node(NodeId(id)).kind(NodeId(id)) else {
                unreachable!("parents are inner nodes");
            };
            let joined = self
                .bvh
                .node(left)
                .volume
                .union(&self.bvh.node(right).volume);
            self.bvh.set_volume(NodeId(id), joined);
            id = self.parents[id as usize];
        }
    }

    /// Brings the 8-wide form up to date: collapsed from the binary tree
    /// after a build, refitted in one pass after moves (not for a lone leaf).
    pub(crate) fn refresh_wide(&mut self) {
        if self.wide_current {
            return;
        }
        match &mut self.wide {
            Some((wide, sources)) => wide.refit(&self.bvh, sources),
            None if self.bvh.nodes().len() > 1 => {
                self.wide = Some(WideLayout::from_binary_with_sources(&self.bvh));
            }
            None => {}
        }
        self.wide_current = true;
    }

    /// The 8-wide form, when it is current.
    #[inline(always)]
    pub(crate) fn wide(&self) -> Option<&WideLayout> {
        self.wide
            .as_ref()
            .filter(|_| self.wide_current)
            .map(|(wide, _)| wide)
    }

    /// Bytes held: the binary tree, its parents and members, and the
    /// 8-wide form with its source table.
    pub(crate) fn bytes(&self) -> usize {
        let wide = self.wide.as_ref().map_or(0, |(wide, sources)| {
            wide.bytes() + std::mem::size_of_val(sources.as_slice())
        });
        self.bvh.stats().bytes
            + std::mem::size_of_val(self.parents.as_slice())
            + std::mem::size_of_val(self.members.as_slice())
            + wide
    }

    /// Surface-area cost: the summed area of every node below the root,
    /// relative to the root's (the expected number of node visits of a
    /// random ray that hits the root, up to constants).
    fn cost(&self) -> Real {
        let root = self.bvh.root_volume().surface_area();
        if !(root > 0.0) {
            return 0.0;
        }
        let below: Real = self.bvh.nodes()[1..]
            .iter()
            .filter(|n| !n.volume.is_empty())
            .map(|n| n.volume.surface_area())
            .sum();
        below / root
    }

    /// True when refits have made the tree enough worse than a rebuild would.
    pub(crate) fn degraded(&self) -> bool {
        self.cost() > REBUILD_COST_GROWTH * self.built_cost
    }
}
