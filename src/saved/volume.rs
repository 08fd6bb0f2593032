//! Bounding volumes as words in a saved file.

use std::borrow::Cow;

use crate::bounding_volume::{Aabb, Obb, PackedObb};
use crate::bvh::{BoundingVolume, Bvh, Node, NodeId, NodeKind, ValidationError};
use crate::intersect::TriangleLanes;
use crate::math::{Matrix, Point, Vector};
use crate::query::run_box;
use crate::saved::LoadError;
use crate::saved::format::real;

mod sealed {
    pub trait Sealed {}
}

/// A volume whose trees can be saved: AABBs and both OBB forms. Sealed:
/// the file format names each kind.
pub trait SavedVolume: BoundingVolume + sealed::Sealed {
    /// The kind's number in a file's header.
    #[doc(hidden)]
    const KIND: u32;
    /// The kind's name, for errors.
    #[doc(hidden)]
    const NAME: &'static str;
    /// Words per volume.
    #[doc(hidden)]
    const WORDS: usize;
    /// Appends the volume's words.
    #[doc(hidden)]
    fn words(&self, out: &mut Vec<u32>);
    /// The volume from `WORDS` words, or `None` when they describe no
    /// volume a build makes (non-finite, inverted, negative extents).
    /// Whether it holds its triangles is [`SavedVolume::settle`]'s
    /// question, asked once the tree is linked.
    #[doc(hidden)]
    fn from_words(w: &[u32]) -> Option<Self>;
    /// Makes a loaded tree's volumes right for its mesh, whose triangles
    /// `triangles` holds in leaf order. AABBs, which are not saved, are
    /// refitted (exact in one pass, so no file can carry wrong ones). Saved
    /// volumes are checked here: every node's must hold the vertices of
    /// the triangles below it exactly as `Obb::contains_point` decides, as
    /// fits guarantee (within the looser tolerance of [`Bvh::validate`] a
    /// box shrunk by 6e-5 loaded, and region queries lost triangles
    /// touching it), each node against the run of the leaf
    /// order below it (as builds lay subtrees out; other layouts are
    /// refused), O(n · depth). (Skipping nodes whose children's boxes lie
    /// inside their own saved a quarter of it, but is not sound within a
    /// tolerance: a child's allowance, turned, pokes out further.)
    #[doc(hidden)]
    // The trait is sealed and this method hidden: only this crate calls it.
    #[allow(private_interfaces)]
    fn settle(bvh: &mut Bvh<Self>, triangles: &[TriangleLanes]) -> Result<(), LoadError> {
        let nodes = bvh.nodes();
        let ranges = subtree_runs(nodes)?;
        for (index, node) in nodes.iter().enumerate() {
            // Decoded once per node (a packed OBB's quaternion), not per point.
            let volume = node.volume.oriented_box();
            let (first, count) = ranges[index];
            let below = &triangles[first as usize..(first + count) as usize];
            let outside = below.iter().find(|t| {
                let vertices = t.triangle().vertices();
                !vertices.iter().all(|v| volume.contains_point(v))
            });
            if let Some(t) = outside {
                return Err(LoadError::Tree(ValidationError::NotBounded {
                    node: NodeId(index as u32),
                    triangle: t.id(),
                }));
            }
        }
        Ok(())
    }

    /// The nodes to save, so that [`SavedVolume::settle`] accepts them:
    /// the tree's own, unless a vertex lies outside a node's volume as
    /// `Obb::contains_point` decides; then a copy with those volumes
    /// grown. Built boxes never need it; a refit (`MeshTree::set_vertices`)
    /// fits a parent to its children's rounded corners, which can leave a
    /// vertex out by an ulp, and its tree then saved bytes its own load
    /// refused. O(n · depth), as the load's check.
    #[doc(hidden)]
    #[allow(private_interfaces)]
    fn saved_nodes<'a>(bvh: &'a Bvh<Self>, triangles: &[TriangleLanes]) -> Cow<'a, [Node<Self>]>;
}

/// Per node, the run of the leaf order below it, `(first, count)`: one
/// run, as builds (and refits, which keep the topology) lay subtrees out;
/// other layouts are refused. Children follow their parents, so a reverse
/// pass sees them first.
fn subtree_runs<V: BoundingVolume>(nodes: &[Node<V>]) -> Result<Vec<(u32, u32)>, LoadError> {
    let mut ranges = vec![(0u32, 0u32); nodes.len()];
    for index in (0..nodes.len()).rev() {
        ranges[index] = match nodes[index].kind(NodeId(index as u32)) {
            NodeKind::Leaf { first, count } => (first, count),
            NodeKind::Inner { left, right } => {
                let (l, r) = (ranges[left.index()], ranges[right.index()]);
                let first = l.0.min(r.0);
                let end = (l.0 + l.1).max(r.0 + r.1);
                if end - first != l.1 + r.1 {
                    return Err(LoadError::Corrupt {
                        section: "nodes",
                        index,
                        reason: "a subtree's triangles are not one run of the leaf order",
                    });
                }
                (first, l.1 + r.1)
            }
        };
    }
    Ok(ranges)
}

/// [`SavedVolume::saved_nodes`] for the oriented kinds: each box's
/// half-extents raised to the largest `|to_local(v)|` of the vertices below
/// it, the very values `Obb::contains_point` compares, so every vertex
/// passes (`regrown` replaces a volume's half-extents). A tree whose
/// subtrees are not runs (none this crate makes) is saved as it is, and
/// its load says why.
fn grown_to_hold<'a, V: SavedVolume>(
    bvh: &'a Bvh<V>,
    triangles: &[TriangleLanes],
    regrown: impl Fn(&V, Vector) -> V,
) -> Cow<'a, [Node<V>]> {
    let nodes = bvh.nodes();
    let Ok(ranges) = subtree_runs(nodes) else {
        return Cow::Borrowed(nodes);
    };
    let mut saved = Cow::Borrowed(nodes);
    for (index, (first, count)) in ranges.into_iter().enumerate() {
        let volume = nodes[index].volume.oriented_box();
        let mut half_extents = volume.half_extents;
        for t in &triangles[first as usize..(first + count) as usize] {
            for v in t.triangle().vertices() {
                let local = volume.to_local(&v);
                for axis in 0..3 {
                    if !(local[axis].abs() <= half_extents[axis]) {
                        half_extents[axis] = local[axis].abs();
                    }
                }
            }
        }
        if half_extents != volume.half_extents {
            saved.to_mut()[index].volume = regrown(&nodes[index].volume, half_extents);
        }
    }
    saved
}

fn finite(w: &[u32]) -> bool {
    w.iter().all(|&b| real(b).is_finite())
}

/// Half-extents a build makes: not negative, not NaN, and possibly `+∞`,
/// which the fit's rounding pad reaches for coordinates near `f32::MAX`
/// (such a box holds every finite point, so queries stay conservative).
fn extents(half_extents: &Vector) -> bool {
    half_extents.iter().all(|&h| h >= 0.0)
}

fn point(w: &[u32]) -> Point {
    Point::new(real(w[0]), real(w[1]), real(w[2]))
}

fn vector(w: &[u32]) -> Vector {
    Vector::new(real(w[0]), real(w[1]), real(w[2]))
}

impl sealed::Sealed for Aabb {}
impl SavedVolume for Aabb {
    const KIND: u32 = 1;
    const NAME: &'static str = "Aabb";
    const WORDS: usize = 0;

    #[allow(private_interfaces)]
    fn settle(bvh: &mut Bvh<Self>, triangles: &[TriangleLanes]) -> Result<(), LoadError> {
        bvh.refit_runs(|first, count| {
            run_box(&triangles[first as usize..(first + count) as usize])
        });
        Ok(())
    }

    /// Nothing: the load refits every box from the mesh.
    fn words(&self, _out: &mut Vec<u32>) {}

    #[allow(private_interfaces)]
    fn saved_nodes<'a>(bvh: &'a Bvh<Self>, _: &[TriangleLanes]) -> Cow<'a, [Node<Self>]> {
        Cow::Borrowed(bvh.nodes())
    }

    /// An empty box, refitted before any query can run.
    fn from_words(_w: &[u32]) -> Option<Self> {
        Some(Aabb::EMPTY)
    }
}

impl sealed::Sealed for Obb {}
impl SavedVolume for Obb {
    const KIND: u32 = 2;
    const NAME: &'static str = "Obb";
    const WORDS: usize = 15;

    fn words(&self, out: &mut Vec<u32>) {
        out.extend(
            self.center
                .iter()
                .chain(self.axes.iter())
                .chain(self.half_extents.iter())
                .map(|v| v.to_bits()),
        );
    }

    #[allow(private_interfaces)]
    fn saved_nodes<'a>(bvh: &'a Bvh<Self>, triangles: &[TriangleLanes]) -> Cow<'a, [Node<Self>]> {
        grown_to_hold(bvh, triangles, |obb, half_extents| Obb {
            half_extents,
            ..*obb
        })
    }

    fn from_words(w: &[u32]) -> Option<Self> {
        let half_extents = vector(&w[12..15]);
        let obb = Obb {
            center: point(&w[0..3]),
            axes: Matrix::from_iterator(w[3..12].iter().map(|&b| real(b))),
            half_extents,
        };
        // A rotation, as fits make them (their frames are orthonormal to
        // two ulps): the box tests assume one, and their guard for parallel
        // edges (1e-6) does not cover more skew (a frame 4e-6 off, accepted
        // under the earlier 1e-5, hid a touching pair). A degenerate frame
        // (zero axes) would "contain" every point.
        let tolerance = 4.0 * crate::math::Real::EPSILON;
        (finite(&w[..12]) && extents(&half_extents) && obb.has_valid_frame(tolerance))
            .then_some(obb)
    }
}

impl sealed::Sealed for PackedObb {}
impl SavedVolume for PackedObb {
    const KIND: u32 = 3;
    const NAME: &'static str = "PackedObb";
    const WORDS: usize = 9;

    fn words(&self, out: &mut Vec<u32>) {
        out.extend(
            self.center
                .iter()
                .chain(self.half_extents.iter())
                .chain(self.rotation().iter())
                .map(|v| v.to_bits()),
        );
    }

    #[allow(private_interfaces)]
    fn saved_nodes<'a>(bvh: &'a Bvh<Self>, triangles: &[TriangleLanes]) -> Cow<'a, [Node<Self>]> {
        grown_to_hold(bvh, triangles, |packed, half_extents| {
            PackedObb::new(packed.center, half_extents, packed.rotation())
        })
    }

    fn from_words(w: &[u32]) -> Option<Self> {
        let half_extents = vector(&w[3..6]);
        let rotation = [real(w[6]), real(w[7]), real(w[8])];
        let unit = rotation.iter().map(|r| r * r).sum::<f32>() <= 1.0 + 1e-5;
        let placed = finite(&w[0..3]) && finite(&w[6..9]);
        (placed && unit && extents(&half_extents))
            .then(|| PackedObb::new(point(&w[0..3]), half_extents, rotation))
    }
}
