//! Saving and loading meshes and mesh trees.

use crate::bvh::{Bvh, Node, WideBvh, WideLayout};
use crate::math::Point;
use crate::memory::PageArray;
use crate::mesh::TriMesh;
use crate::parallel::join_if;
use crate::query::MeshTree;
use crate::saved::format::{Reader, Words, Writer, damage_first, real, verified, verified_pair};
use crate::saved::{FORMAT_VERSION, LoadError, SavedVolume};

/// What a file holds, in its header.
const MESH: u32 = 1;
const TREE: u32 = 2;
pub(crate) const SCENE: u32 = 3;
/// Words of a saved wide node: 8 child and 8 count words (its boxes are
/// refitted on load).
const WIDE_WORDS: usize = 16;

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
        (MESH, 0) => "a mesh".into(),
        (TREE, 1) => "a MeshTree<Aabb>".into(),
        (TREE, 2) => "a MeshTree<Obb>".into(),
        (TREE, 3) => "a MeshTree<PackedObb>".into(),
        (SCENE, 0) => "a Scene".into(),
        _ => format!("unknown content {content} of kind {kind}"),
    }
}

/// Opens `bytes` and checks that they hold `content` of volume `kind`.
pub(crate) fn open(bytes: &[u8], content: u32, kind: u32) -> Result<Reader<'_>, LoadError> {
    let mut r = Reader::open(bytes, FORMAT_VERSION)?;
    let found = (r.u32("header")?, r.u32("header")?);
    if found != (content, kind) {
        // A flipped bit in these words is damage, not another kind.
        return damage_first(
            bytes,
            Err(LoadError::Kind {
                found: describe(found.0, found.1),
                expected: describe(content, kind),
            }),
        );
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
    /// [`crate::saved`]): the mesh, the binary tree (links, and the
    /// volumes of OBB trees), the leaf order and the 8-wide layout's links.
    /// What a load can recompute exactly in one pass is left out: the
    /// leaf-order triangles and every AABB, which it refits from the mesh,
    /// so a loaded tree's geometry is its mesh's by construction. About 37
    /// bytes per triangle for AABB trees.
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
        let triangles = self.leaf_ray_triangles(0, self.mesh().len() as u32);
        w.words(
            &V::saved_nodes(self.bvh(), triangles),
            |n: &Node<V>, out| {
                n.volume.words(out);
                let (first, count) = n.raw();
                out.extend([first, count]);
            },
        );
        w.words(self.bvh().leaf_order(), |&t, out| out.push(t));
        let wide: &[_] = self.wide().map_or(&[], |w| w.nodes());
        w.words(wide, WideLayout::saved_words);
        w.finish()
    }

    /// A tree from [`MeshTree::to_saved_bytes`]' bytes, every link, index
    /// and leaf range checked first (a [`LoadError`] names what is wrong).
    /// The file must hold a tree of this volume type.
    pub fn from_saved_bytes(bytes: &[u8]) -> Result<Self, LoadError> {
        let mut r = open(bytes, TREE, V::KIND)?;
        damage_first(bytes, Self::decode(bytes, &mut r))
    }

    /// The tree's sections, each checked, and the checksum, in two tasks
    /// (see [`verified_pair`]): the mesh and its leaf triangles in one, the
    /// binary tree's and the wide layout's links in the other. Then, from
    /// the leaf triangles, the binary tree's AABBs refitted (or its OBBs
    /// checked) beside the wide layout's boxes.
    fn decode(bytes: &[u8], r: &mut Reader<'_>) -> Result<Self, LoadError> {
        let (_, vertices) = r.words(3, "vertices")?;
        let (triangles, indices) = r.words(3, "indices")?;
        let (node_count, nodes) = r.words(V::WORDS + 2, "nodes")?;
        let (_, order) = r.words(1, "leaf order")?;
        let (wide_count, wide) = r.words(WIDE_WORDS, "wide nodes")?;
        r.end()?;
        let order = order.decoded();
        let positions = order.len();
        let ((mesh, leaf_triangles), (mut bvh, wide)) = verified_pair(
            bytes,
            // The mesh, and its triangles in the saved leaf order (checked
            // only for range here: whether it names each triangle once is
            // `Bvh::from_saved`'s question, beside).
            || -> Result<_, LoadError> {
                let mesh = read_mesh(&vertices, &indices)?;
                let in_range =
                    positions == mesh.len() && order.iter().all(|&t| (t as usize) < positions);
                let leaf_triangles = in_range.then(|| crate::query::leaf_triangles(&mesh, &order));
                Ok((mesh, leaf_triangles))
            },
            || -> Result<_, LoadError> {
                let nodes = read_nodes::<V>(node_count, &nodes.decoded())?;
                let bvh =
                    Bvh::from_saved(nodes, order.to_vec(), triangles).map_err(LoadError::Tree)?;
                if wide_count == 0 {
                    return Ok((bvh, None));
                }
                let nodes = PageArray::collect(
                    wide_count,
                    wide.decoded()
                        .chunks_exact(WIDE_WORDS)
                        .map(WideLayout::node_from_saved_words),
                );
                let wide = WideBvh::from_saved(nodes, &order).map_err(LoadError::Tree)?;
                Ok((bvh, Some(wide)))
            },
        )?;
        // `Bvh::from_saved` accepted the order, so the triangles were made.
        let leaf_triangles = leaf_triangles.expect("an order over the mesh's triangles");
        let triangles = &leaf_triangles;
        let settle = || V::settle(&mut bvh, triangles);
        let mut wide = wide;
        let refit_wide = || {
            if let Some(wide) = &mut wide {
                wide.refit(|first, count| {
                    crate::query::run_box(&triangles[first as usize..(first + count) as usize])
                });
            }
        };
        let apart = crate::query::apart(&mesh, true);
        let (settled, ()) = join_if(apart, settle, refit_wide);
        settled?;
        Ok(MeshTree::from_parts(mesh, bvh, wide, leaf_triangles))
    }
}
