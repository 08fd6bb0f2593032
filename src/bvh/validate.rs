//! Structural and geometric checks of a built tree, used after every build in the tests.

use crate::bvh::{BoundingVolume, Bvh, Node, NodeId, NodeKind};
use crate::math::Real;
use crate::shape::{TriangleId, TriangleSoup};

/// The first thing found wrong with a tree.
#[derive(Clone, Debug, PartialEq)]
pub enum ValidationError {
    /// The tree has no nodes, or a different triangle count than the mesh.
    WrongSize {
        /// Triangles in the mesh.
        mesh: usize,
        /// Triangles in the tree.
        tree: usize,
    },
    /// A triangle is missing from the leaves or appears more than once.
    TriangleCount {
        /// The triangle.
        triangle: TriangleId,
        /// How often it appears.
        seen: usize,
    },
    /// A link points outside the node array, or a node is reached twice or never.
    BadLink {
        /// The node.
        node: NodeId,
    },
    /// A vertex of a triangle in the subtree lies outside the node's volume.
    NotBounded {
        /// The node.
        node: NodeId,
        /// The escaping triangle.
        triangle: TriangleId,
    },
}

impl std::fmt::Display for ValidationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ValidationError::WrongSize { mesh, tree } => {
                write!(f, "the tree holds {tree} triangles, the mesh {mesh}")
            }
            ValidationError::TriangleCount { triangle, seen } => {
                write!(
                    f,
                    "triangle {} appears {seen} times in the leaves",
                    triangle.0
                )
            }
            ValidationError::BadLink { node } => {
                write!(
                    f,
                    "node {} is linked wrongly (outside, twice or never)",
                    node.0
                )
            }
            ValidationError::NotBounded { node, triangle } => write!(
                f,
                "a vertex of triangle {} lies outside the volume of node {}",
                triangle.0, node.0
            ),
        }
    }
}

impl std::error::Error for ValidationError {}

/// How far outside a node's volume a vertex may lie and still count as
/// inside for [`Bvh::validate`]: `1e-5` of the mesh's size, as volume
/// fits round. (Saved OBBs are held to exact containment instead, which
/// fits guarantee: see `crate::saved`.)
fn containment_tolerance(mesh: &TriangleSoup<'_>) -> Real {
    1e-5 * mesh.aabb().extents().amax().max(Real::MIN_POSITIVE)
}

impl<V: BoundingVolume> Bvh<V> {
    /// Checks that every triangle appears exactly once, every node is reached
    /// exactly once, and every node's volume contains every vertex of every
    /// triangle below it (within a rounding tolerance of `1e-5` of the mesh
    /// size). O(n · depth).
    pub fn validate<'a>(&self, mesh: impl Into<TriangleSoup<'a>>) -> Result<(), ValidationError> {
        let mesh = mesh.into();
        if self.nodes.is_empty() || self.order.len() != mesh.len() {
            return Err(ValidationError::WrongSize {
                mesh: mesh.len(),
                tree: self.order.len(),
            });
        }
        let mut seen = vec![0usize; mesh.len()];
        for &t in &self.order {
            seen[t as usize] += 1;
        }
        if let Some(t) = seen.iter().position(|&s| s != 1) {
            return Err(ValidationError::TriangleCount {
                triangle: TriangleId(t as u32),
                seen: seen[t],
            });
        }
        let tolerance = containment_tolerance(&mesh);
        let mut reached = vec![false; self.nodes.len()];
        // Each stack entry: a node and the ancestors whose volumes must contain its triangles.
        let mut stack: Vec<(NodeId, Vec<NodeId>)> = vec![(NodeId::ROOT, Vec::new())];
        while let Some((id, mut ancestors)) = stack.pop() {
            if id.index() >= self.nodes.len() || std::mem::replace(&mut reached[id.index()], true) {
                return Err(ValidationError::BadLink { node: id });
            }
            ancestors.push(id);
            match self.node(id).kind(id) {
                NodeKind::Inner { left, right } => {
                    stack.push((right, ancestors.clone()));
                    stack.push((left, ancestors));
                }
                NodeKind::Leaf { first, count } => {
                    if (first + count) as usize > self.order.len() {
                        return Err(ValidationError::BadLink { node: id });
                    }
                    for triangle in self.leaf_triangles(first, count) {
                        let vertices = mesh.triangle(triangle).vertices();
                        for &a in &ancestors {
                            let volume = &self.node(a).volume;
                            if !vertices
                                .iter()
                                .all(|v| volume.contains_point_within(v, tolerance))
                            {
                                return Err(ValidationError::NotBounded { node: a, triangle });
                            }
                        }
                    }
                }
            }
        }
        if let Some(node) = reached.iter().position(|r| !r) {
            return Err(ValidationError::BadLink {
                node: NodeId(node as u32),
            });
        }
        Ok(())
    }
}

impl<V: BoundingVolume> Bvh<V> {
    /// A tree from saved nodes and leaf order over `triangles` triangles,
    /// checked in O(n) before any query can run: every triangle once in the
    /// order, every child after its parent and inside the array, every node
    /// reached once, leaf ranges inside the order and covering it exactly
    /// once. The depth is recomputed, never read (traversal stacks are
    /// sized by it). Volumes are not checked against the triangles: a
    /// forged volume can make answers wrong, not unsafe.
    pub(crate) fn from_saved(
        nodes: Vec<Node<V>>,
        order: Vec<u32>,
        triangles: usize,
    ) -> Result<Self, ValidationError> {
        if nodes.is_empty() || order.len() != triangles {
            return Err(ValidationError::WrongSize {
                mesh: triangles,
                tree: order.len(),
            });
        }
        let mut seen = vec![0u8; triangles];
        for &t in &order {
            let Some(count) = seen.get_mut(t as usize) else {
                return Err(ValidationError::TriangleCount {
                    triangle: TriangleId(t),
                    seen: 0,
                });
            };
            *count = count.saturating_add(1);
        }
        if let Some(t) = seen.iter().position(|&s| s != 1) {
            return Err(ValidationError::TriangleCount {
                triangle: TriangleId(t as u32),
                seen: usize::from(seen[t]),
            });
        }
        let mut covered = vec![false; triangles];
        let mut reached = vec![false; nodes.len()];
        let mut depth = 0u32;
        let mut stack = vec![(0usize, 0u32)];
        while let Some((i, level)) = stack.pop() {
            let bad = || ValidationError::BadLink {
                node: NodeId(i as u32),
            };
            if std::mem::replace(&mut reached[i], true) {
                return Err(bad());
            }
            depth = depth.max(level);
            let (first, count) = nodes[i].raw();
            if count == 0 {
                let left = first as usize;
                if left <= i || left + 1 >= nodes.len() {
                    return Err(bad());
                }
                stack.push((left + 1, level + 1));
                stack.push((left, level + 1));
            } else {
                let range = first as usize..first as usize + count as usize;
                let Some(slots) = covered.get_mut(range) else {
                    return Err(bad());
                };
                if slots.iter().any(|&c| c) {
                    return Err(bad());
                }
                slots.fill(true);
            }
        }
        if let Some(node) = reached.iter().position(|r| !r) {
            return Err(ValidationError::BadLink {
                node: NodeId(node as u32),
            });
        }
        if let Some(position) = covered.iter().position(|c| !c) {
            return Err(ValidationError::TriangleCount {
                triangle: TriangleId(order[position]),
                seen: 0,
            });
        }
        Ok(Bvh {
            nodes,
            order,
            depth,
        })
    }
}
