//! Saving and loading meshes and mesh trees.

use crate::bvh::{Bvh, Node, WideBvh, WideLayout};
use crate::intersect::TriangleLanes;
use crate::math::Point;
use crate::memory::PageArray;
use crate::mesh::TriMesh;
use crate::query::MeshTree;
use crate::saved::format::{Reader, Words, Writer, damage_first, real, verified, verified_pair};
use crate::saved::{FORMAT_VERSION, LoadError, SavedVolume};

/// What a file holds, in its header.
const MESH: u32 = 1;
const TREE: u32 = 2;
pub(crate) const SCENE: u32 = 3;
/// Words of a saved wide node: 48 bounds, 8 child and 8 count words.
const WIDE_WORDS: usize = 64;

pub(crate) fn header(content: u32, kind: u32) -> Writer {
    let mut w = Writer::default();
    w.bytes.extend_from_slice(&super::format::MAGIC);
    w.u32(FORMAT_VERSION);
    w.u32(content);
    w.u32(kind);
    w
}

fn describe(content: u32, kind: u32) -> String {
    match (content, kind) {
        (MESH, _) => "a mesh".into(),
        (TREE, 1) => "a MeshTree<Aabb>".into(),
        (TREE, 2) => "a MeshTree<Obb>".into(),
        (TREE, 3) => "a MeshTree<PackedObb>".into(),
        (SCENE, _) => "a Scene".into(),
        _ => format!("unknown content {content} of kind {kind}"),
    }
}

/// Opens `bytes` and checks that they hold `content` of volume `kind`.
pub(crate) fn open(bytes: &[u8], content: u32, kind: u32) -> Result<Reader<'_>, LoadError> {
    let mut r = Reader::open(bytes, FORMAT_VERSION)?;
    let found = (r.u32("header")?, r.u32("header")?);
    if found != (content, kind) {
        return Err(LoadError::Kind {
            found: describe(found.0, found.1),
            expected: describe(content, kind),
        });
    }
    Ok(r)
}

fn write_mesh(w: &mut Writer, mesh: &TriMesh) {
    w.words(mesh.vertices(), |p, out| {
        out.extend(p.iter().map(|v| v.to_bits()));
    });
    w.words(mesh.indices(), |t, out| out.extend_from_slice(t));
}

fn read_mesh(vertices: &Words<'_>, indices: &Words<'_>) -> Result<TriMesh, LoadError> {
    let vertices = vertices
        .decoded()
        .chunks_exact(3)
        .map(|w| Point::new(real(w[0]), real(w[1]), real(w[2])))
        .collect();
    let indices = indices
        .decoded()
        .chunks_exact(3)
        .map(|w| [w[0], w[1], w[2]])
        .collect();
    TriMesh::new(vertices, indices).map_err(LoadError::Mesh)
}

/// The binary tree's nodes, each volume well-formed (links are checked by
/// `Bvh::from_saved`).
fn read_nodes<V: SavedVolume>(count: usize, words: &[u32]) -> Result<Vec<Node<V>>, LoadError> {
    let mut nodes = Vec::with_capacity(count);
    for (index, w) in words.chunks_exact(V::WORDS + 2).enumerate() {
        let Some(volume) = V::from_words(&w[..V::WORDS]) else {
            return Err(LoadError::Corrupt {
                section: "nodes",
                index,
                reason: "not a well-formed volume",
            });
        };
        nodes.push(Node::from_raw(volume, w[V::WORDS], w[V::WORDS + 1]));
    }
    Ok(nodes)
}

/// The leaf-order triangles, each with the id the leaf order names there.
fn read_leaf_triangles(
    words: &[u32],
    order: &[u32],
) -> Result<PageArray<TriangleLanes>, LoadError> {
    let count = words.len() / 12;
    if count != order.len() {
        return Err(LoadError::Corrupt {
            section: "leaf triangles",
            index: count,
            reason: "not one per triangle",
        });
    }
    let triangles = PageArray::collect(
        count,
        words.chunks_exact(12).map(|w| {
            TriangleLanes::from_lanes(std::array::from_fn(|axis| {
                std::array::from_fn(|lane| real(w[4 * axis + lane]))
            }))
        }),
    );
    match (0..count).find(|&k| triangles[k].id().0 != order[k]) {
        Some(k) => Err(LoadError::Corrupt {
            section: "leaf triangles",
            index: k,
            reason: "id differs from the leaf order",
        }),
        None => Ok(triangles),
    }
}

impl TriMesh {
    /// The mesh in boxtree's saved form (see [`crate::saved`]).
    #[must_use]
    pub fn to_saved_bytes(&self) -> Vec<u8> {
        let mut w = header(MESH, 0);
        write_mesh(&mut w, self);
        w.finish()
    }

    /// A mesh from [`TriMesh::to_saved_bytes`]' bytes, validated as
    /// [`TriMesh::new`] validates.
    pub fn from_saved_bytes(bytes: &[u8]) -> Result<TriMesh, LoadError> {
        let mut r = open(bytes, MESH, 0)?;
        let decode = |r: &mut Reader<'_>| {
            let (_, vertices) = r.words(3, "vertices")?;
            let (_, indices) = r.words(3, "indices")?;
            r.end()?;
            verified(bytes, || read_mesh(&vertices, &indices))
        };
        damage_first(bytes, decode(&mut r))
    }
}

impl<V: SavedVolume> MeshTree<V> {
    /// The mesh and its tree in boxtree's saved form (see
    /// [`crate::saved`]): the binary tree, the 8-wide layout and the
    /// leaf-order triangles as they are, so loading copies instead of
    /// building. About 125 bytes per triangle for AABB trees.
    ///
    /// ```
    /// # use boxtree::{Aabb, MeshTree, Point, Segment, TriMesh};
    /// let tree = MeshTree::<Aabb>::new(TriMesh::icosphere(Point::origin(), 1.0, 3));
    /// let bytes = tree.to_saved_bytes(); // e.g. std::fs::write("level.boxtree", &bytes)
    /// let loaded = MeshTree::<Aabb>::from_saved_bytes(&bytes)?;
    /// let s = Segment::new(Point::new(0.0, 0.0, 5.0), Point::origin());
    /// assert_eq!(loaded.closest_hit(&s), tree.closest_hit(&s));
    /// # Ok::<(), boxtree::saved::LoadError>(())
    /// ```
    #[must_use]
    pub fn to_saved_bytes(&self) -> Vec<u8> {
        let mut w = header(TREE, V::KIND);
        write_mesh(&mut w, self.mesh());
        w.words(self.bvh().nodes(), |n: &Node<V>, out| {
            n.volume.words(out);
            let (first, count) = n.raw();
            out.extend([first, count]);
        });
        w.words(self.bvh().leaf_order(), |&t, out| out.push(t));
        let wide: &[_] = self.wide().map_or(&[], |w| w.nodes());
        w.words(wide, WideLayout::saved_words);
        let n = self.mesh().len() as u32;
        w.words(self.leaf_ray_triangles(0, n), |t, out| {
            for lanes in t.lanes() {
                out.extend(lanes.iter().map(|v| v.to_bits()));
            }
        });
        w.finish()
    }

    /// A tree from [`MeshTree::to_saved_bytes`]' bytes, every link, index
    /// and leaf range checked first (a [`LoadError`] names what is wrong).
    /// The file must hold a tree of this volume type.
    pub fn from_saved_bytes(bytes: &[u8]) -> Result<Self, LoadError> {
        let mut r = open(bytes, TREE, V::KIND)?;
        damage_first(bytes, Self::decode(bytes, &mut r))
    }

    /// The tree's sections, each checked, and the checksum: the mesh and
    /// binary tree in one task, the wide layout and leaf triangles in
    /// another (see [`verified_pair`]).
    fn decode(bytes: &[u8], r: &mut Reader<'_>) -> Result<Self, LoadError> {
        let (_, vertices) = r.words(3, "vertices")?;
        let (_, indices) = r.words(3, "indices")?;
        let (node_count, nodes) = r.words(V::WORDS + 2, "nodes")?;
        let (_, order) = r.words(1, "leaf order")?;
        let (wide_count, wide) = r.words(WIDE_WORDS, "wide nodes")?;
        let (leaf_count, leaves) = r.words(12, "leaf triangles")?;
        r.end()?;
        let order = order.decoded();
        let triangles = leaf_count;
        let ((mesh, bvh), (wide, leaf_triangles)) = verified_pair(
            bytes,
            || -> Result<_, LoadError> {
                let mesh = read_mesh(&vertices, &indices)?;
                let nodes = read_nodes::<V>(node_count, &nodes.decoded())?;
                let bvh =
                    Bvh::from_saved(nodes, order.to_vec(), mesh.len()).map_err(LoadError::Tree)?;
                Ok((mesh, bvh))
            },
            || -> Result<_, LoadError> {
                let wide = if wide_count == 0 {
                    None
                } else {
                    let nodes = PageArray::collect(
                        wide_count,
                        wide.decoded()
                            .chunks_exact(WIDE_WORDS)
                            .map(WideLayout::node_from_saved_words),
                    );
                    Some(WideBvh::from_saved(nodes, triangles).map_err(LoadError::Tree)?)
                };
                Ok((wide, read_leaf_triangles(&leaves.decoded(), &order)?))
            },
        )?;
        if mesh.len() != triangles {
            return Err(LoadError::Corrupt {
                section: "leaf triangles",
                index: triangles,
                reason: "not one per triangle",
            });
        }
        Ok(MeshTree::from_parts(mesh, bvh, wide, leaf_triangles))
    }
}
