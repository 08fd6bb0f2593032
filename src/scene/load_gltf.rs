//! glTF 2.0 files as scenes (feature `gltf`): every mesh built into one
//! tree, every node that places it an object.
//!
//! Node transforms compose down the hierarchy in `f64`. Where a node's
//! world transform is rigid, the object shares its mesh's tree; where it
//! scales or shears (common for props), the linear part is applied to a
//! copy of the vertices, built once per distinct transform of that mesh,
//! and the object keeps the translation: scenes place rigid poses only
//! (see the module documentation of `scene`). Buffers come from a `.glb`
//! file's binary chunk, from files beside the `.gltf`, or from base64
//! `data:` URIs. Errors name the file and the mesh or node.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gltf::accessor::{DataType, Dimensions};

use crate::bounding_volume::Aabb;
use crate::math::{Isometry, Point, Real, Rotation, Vector};
use crate::mesh::{MeshError, TriMesh};
use crate::query::MeshTree;
use crate::scene::{ObjectId, Scene, SceneError};

/// Why a glTF file could not become a scene. New kinds of problems may be
/// added: match with a wildcard arm.
#[derive(Debug)]
#[non_exhaustive]
pub enum GltfError {
    /// The file, or a buffer file it names, could not be read.
    Io {
        /// The file that failed.
        path: PathBuf,
        /// Why reading failed.
        source: std::io::Error,
    },
    /// The file is not valid glTF, or a buffer or accessor is broken.
    Format {
        /// The file.
        path: PathBuf,
        /// What was wrong, and where.
        message: String,
    },
    /// A mesh's triangles were rejected (non-finite vertex, bad index).
    Mesh {
        /// The file.
        path: PathBuf,
        /// The mesh's index and name.
        mesh: String,
        /// Why.
        source: MeshError,
    },
    /// A node is its own ancestor.
    Cycle {
        /// The file.
        path: PathBuf,
        /// The node met twice on one path from a root.
        node: usize,
    },
    /// A node's transform is not finite, its matrix is not affine (a
    /// bottom row other than `0 0 0 1`), or its rotation quaternion has
    /// zero length. Singular scales are accepted: the mesh collapses, as
    /// renderers draw it.
    Transform {
        /// The file.
        path: PathBuf,
        /// The node.
        node: usize,
    },
}

impl fmt::Display for GltfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GltfError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            GltfError::Format { path, message } => write!(f, "{}: {message}", path.display()),
            GltfError::Mesh { path, mesh, source } => {
                write!(f, "{}: mesh {mesh}: {source}", path.display())
            }
            GltfError::Cycle { path, node } => {
                write!(f, "{}: node {node} is its own ancestor", path.display())
            }
            GltfError::Transform { path, node } => {
                write!(
                    f,
                    "{}: node {node} has a non-finite or non-affine transform",
                    path.display()
                )
            }
        }
    }
}

impl std::error::Error for GltfError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GltfError::Io { source, .. } => Some(source),
            GltfError::Mesh { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// A scene loaded from a glTF file, with the node each object came from.
#[derive(Debug)]
pub struct GltfScene {
    /// The objects, one per (node, mesh) placement, already updated.
    pub scene: Scene,
    /// Per object: the glTF node index that placed it.
    pub nodes: Vec<(ObjectId, usize)>,
}

/// A 4×4 affine transform, column-major as glTF writes it.
type Affine = [[f64; 4]; 4];

fn multiply(a: &Affine, b: &Affine) -> Affine {
    let mut out = [[0.0; 4]; 4];
    for (col, out_col) in out.iter_mut().enumerate() {
        for (row, value) in out_col.iter_mut().enumerate() {
            *value = (0..4).map(|k| a[k][row] * b[col][k]).sum();
        }
    }
    out
}

const IDENTITY: Affine = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
    [0.0, 0.0, 0.0, 1.0],
];

/// A node's own transform in `f64`: its matrix as written, or `T·R·S`
/// from its parts with the rotation quaternion normalised first, as
/// renderers do (the gltf crate's formula assumes a unit quaternion, so
/// one written to four digits came out slightly scaled and its instances
/// lost their shared tree). `None` for a matrix that is not affine (its
/// bottom row is not `0 0 0 1`) and for a quaternion of zero or
/// non-finite length.
fn local_transform(transform: &gltf::scene::Transform) -> Option<Affine> {
    let (translation, rotation, scale) = match *transform {
        gltf::scene::Transform::Matrix { matrix } => {
            let affine = matrix.map(|column| column[3]) == [0.0, 0.0, 0.0, 1.0];
            return affine.then(|| matrix.map(|c| c.map(f64::from)));
        }
        gltf::scene::Transform::Decomposed {
            translation,
            rotation,
            scale,
        } => (translation, rotation, scale),
    };
    let q = rotation.map(f64::from);
    let length = q.iter().map(|v| v * v).sum::<f64>().sqrt();
    if !(length > 0.0 && length.is_finite()) {
        return None;
    }
    let [x, y, z, w] = q.map(|v| v / length);
    let rotation = [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y + z * w),
            2.0 * (x * z - y * w),
        ],
        [
            2.0 * (x * y - z * w),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z + x * w),
        ],
        [
            2.0 * (x * z + y * w),
            2.0 * (y * z - x * w),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ];
    let column = |k: usize| {
        let s = f64::from(scale[k]);
        [
            rotation[k][0] * s,
            rotation[k][1] * s,
            rotation[k][2] * s,
            0.0,
        ]
    };
    let [tx, ty, tz] = translation.map(f64::from);
    Some([column(0), column(1), column(2), [tx, ty, tz, 1.0]])
}

/// The rotation of `m`'s linear part when it is one (orthonormal columns,
/// determinant +1, to a few `f32` ulps: a product of matrices written in
/// `f32` rounds that far); `None` when it scales or shears. (At 1e-5 a
/// node scaled by 1.000009 counted as rigid and lost its scale: 9 mm at
/// 1 km.)
fn rigid_rotation(m: &Affine) -> Option<Rotation> {
    let col = |c: usize| Vector::new(m[c][0] as Real, m[c][1] as Real, m[c][2] as Real);
    let (x, y, z) = (col(0), col(1), col(2));
    let tolerance = 1e-6;
    let unit = |v: &Vector| (v.norm() - 1.0).abs() < tolerance;
    let orthogonal =
        x.dot(&y).abs() < tolerance && y.dot(&z).abs() < tolerance && x.dot(&z).abs() < tolerance;
    let right_handed = x.cross(&y).dot(&z) > 0.0;
    (unit(&x) && unit(&y) && unit(&z) && orthogonal && right_handed).then(|| {
        let matrix = crate::math::Matrix::from_columns(&[x, y, z]);
        Rotation::from_matrix(&matrix)
    })
}

/// How many vertices and triangles the loader builds at most per byte of
/// the file and its buffers (plus 2²⁰): an honest file spends at least a
/// byte per triangle (a strip of 8-bit indices), while a small one that
/// names the same accessors in a thousand primitives, or bakes one large
/// mesh under many non-uniform scales, would otherwise build gigabytes.
const BUILT_PER_BYTE: usize = 4;

/// How many implicit zeros a sparse accessor without a buffer view may have
/// per byte of the file's buffers (plus 65,536): the bound on what a small
/// file can make the loader allocate.
const SPARSE_ZEROS_PER_BYTE: usize = 16;

/// Why the `gltf` crate's reader cannot read `accessor` from `buffers`, if
/// it cannot: no elements, a stride shorter than an element, or a byte
/// range past the end of its view or buffer (or overflowing `usize`). The
/// reader panics on these or reads other bytes, so they are checked first.
fn unreadable(accessor: &gltf::Accessor<'_>, buffers: &[Vec<u8>]) -> Option<String> {
    // `count` elements of `size` bytes from `offset` in `view`.
    let span = |view: gltf::buffer::View<'_>, offset: usize, count: usize, size: usize| {
        let stride = view.stride().unwrap_or(size);
        if stride < size {
            return Some(format!(
                "buffer view {} has stride {stride}, less than its {size}-byte elements",
                view.index()
            ));
        }
        let buffer = buffers.get(view.buffer().index()).map_or(0, Vec::len);
        let view_end = view.offset().checked_add(view.length());
        if view_end.is_none_or(|end| end > buffer) {
            return Some(format!("buffer view {} runs past its buffer", view.index()));
        }
        let end = stride
            .checked_mul(count.checked_sub(1)?)
            .and_then(|bytes| bytes.checked_add(size))
            .and_then(|bytes| bytes.checked_add(offset));
        end.is_none_or(|end| end > view.length()).then(|| {
            format!(
                "{count} elements from byte {offset} run past buffer view {}",
                view.index()
            )
        })
    };
    if accessor.count() == 0 {
        return Some("no elements".to_string());
    }
    if let Some(problem) = accessor
        .view()
        .and_then(|view| span(view, accessor.offset(), accessor.count(), accessor.size()))
    {
        return Some(problem);
    }
    let sparse = accessor.sparse()?;
    if sparse.count() == 0 {
        return Some("a sparse part with no elements".to_string());
    }
    let (indices, values) = (sparse.indices(), sparse.values());
    // glTF forbids strides on these views; the reader honours one where
    // the checks below read the bytes packed.
    for (what, view) in [("indices", indices.view()), ("values", values.view())] {
        if view.stride().is_some() {
            return Some(format!(
                "buffer view {} of sparse {what} has a byte stride",
                view.index()
            ));
        }
    }
    // Without a buffer view the accessor is `count` zeros before the
    // replacements: a few bytes could ask for gigabytes of vertices.
    let stored: usize = buffers.iter().map(Vec::len).sum();
    if accessor.view().is_none() && accessor.count() > SPARSE_ZEROS_PER_BYTE * stored + 65_536 {
        return Some(format!(
            "{} elements, all but {} of them implicit zeros, from {stored} bytes of buffers",
            accessor.count(),
            sparse.count()
        ));
    }
    let index_size = indices.index_type().size();
    if let Some(problem) = span(indices.view(), indices.offset(), sparse.count(), index_size)
        .or_else(|| {
            span(
                values.view(),
                values.offset(),
                sparse.count(),
                accessor.size(),
            )
        })
    {
        return Some(problem);
    }
    // The reader drops a replacement whose index lies past the accessor,
    // and stops replacing after one out of order: glTF requires them
    // strictly increasing, so both are errors here.
    let start = indices.view().offset() + indices.offset();
    let end = start + sparse.count() * index_size;
    let buffer = buffers.get(indices.view().buffer().index());
    let Some(bytes) = buffer.and_then(|b| b.get(start..end)) else {
        return Some("sparse indices run past their buffer".to_string());
    };
    let mut previous = None;
    for little_endian in bytes.chunks_exact(index_size) {
        let index = little_endian
            .iter()
            .rev()
            .fold(0u64, |value, &byte| value << 8 | u64::from(byte));
        if index >= accessor.count() as u64 {
            return Some(format!(
                "sparse index {index} lies past the accessor's {} elements",
                accessor.count()
            ));
        }
        if previous.is_some_and(|p| index <= p) {
            return Some(format!("sparse index {index} does not increase"));
        }
        previous = Some(index);
    }
    None
}

/// The first `length` bytes of a buffer's file (fewer when it is shorter):
/// only regular files are read, so a name such as `../../dev/zero` cannot
/// make the loader read without end.
fn read_buffer_file(file: &Path, length: usize) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let opened = std::fs::File::open(file)?;
    let metadata = opened.metadata()?;
    if !metadata.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    let wanted = (length as u64).min(metadata.len());
    let mut data = Vec::with_capacity(usize::try_from(wanted).unwrap_or(0));
    opened.take(wanted).read_to_end(&mut data)?;
    Ok(data)
}

/// Decodes a URI's percent escapes (`with%20space.bin`); `None` for a
/// broken escape or bytes that are not UTF-8.
fn percent_decoded(uri: &str) -> Option<String> {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut k = 0;
    while k < bytes.len() {
        if bytes[k] == b'%' {
            let hex = std::str::from_utf8(bytes.get(k + 1..k + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            k += 3;
        } else {
            out.push(bytes[k]);
            k += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Triangles from a primitive's vertex indices.
type Triangulation = fn(&[u32]) -> Vec<[u32; 3]>;

/// How a primitive drawn in `mode` makes triangles of its vertex indices
/// (glTF 2.0 §3.7.2.1): lists by threes, strips with every other
/// triangle's winding restored, fans around the first vertex; `None` for
/// points and lines, which have no surface.
fn triangulation(mode: gltf::mesh::Mode) -> Option<Triangulation> {
    use gltf::mesh::Mode;
    match mode {
        Mode::Triangles => Some(|flat| flat.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect()),
        Mode::TriangleStrip => Some(|flat| {
            (0..flat.len().saturating_sub(2))
                .map(|i| {
                    let odd = i % 2;
                    [flat[i], flat[i + 1 + odd], flat[i + 2 - odd]]
                })
                .collect()
        }),
        Mode::TriangleFan => Some(|flat| {
            (0..flat.len().saturating_sub(2))
                .map(|i| [flat[i + 1], flat[i + 2], flat[0]])
                .collect()
        }),
        Mode::Points | Mode::Lines | Mode::LineLoop | Mode::LineStrip => None,
    }
}

/// Decodes standard base64 (padding optional; whitespace not allowed).
fn base64(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let bytes = text.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut acc = 0u32;
        for (k, &c) in chunk.iter().enumerate() {
            acc |= value(c)? << (18 - 6 * k);
        }
        let produced = chunk.len() * 6 / 8;
        if chunk.len() == 1 {
            return None;
        }
        out.extend(acc.to_be_bytes()[1..1 + produced].iter());
    }
    Some(out)
}

impl Scene {
    /// Loads a glTF 2.0 file (`.gltf` with its buffers, or `.glb`) as a
    /// scene of AABB trees: the default scene's node hierarchy (every
    /// scene's, if none is marked default; every parentless node's, if the
    /// file has no scene), each mesh built once. Triangle lists, strips
    /// and fans are read; points and lines, which have no surface, are
    /// skipped. Buffers are read from `data:` URIs and from regular files
    /// named relative to the `.gltf` (percent escapes decoded; at most the
    /// declared length is read), never fetched. A file builds at most
    /// four vertices and triangles per byte it and its buffers hold, plus
    /// 2²⁰ (an error names the mesh that would exceed it): a small file
    /// naming one accessor in thousands of primitives, or one large mesh
    /// under thousands of non-uniform scales, is refused rather than built.
    pub fn load_gltf(path: impl AsRef<Path>) -> Result<GltfScene, GltfError> {
        let path = path.as_ref();
        let format = |message: String| GltfError::Format {
            path: path.to_path_buf(),
            message,
        };
        let bytes = std::fs::read(path).map_err(|source| GltfError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        // The gltf crate takes the 12-byte header from a GLB's declared
        // length unchecked (a panic when it is shorter).
        if let [b'g', b'l', b'T', b'F', _, _, _, _, a, b, c, d, ..] = bytes[..] {
            let length = u32::from_le_bytes([a, b, c, d]);
            if length < 12 {
                return Err(format(format!(
                    "the GLB header gives a length of {length} bytes, less than its own 12"
                )));
            }
        }
        let unchecked =
            gltf::Gltf::from_slice_without_validation(&bytes).map_err(|e| format(e.to_string()))?;
        // gltf-json's validation reads a primitive's POSITION accessor
        // before it checks that the accessor exists (a panic in the crate):
        // attribute indices are checked first.
        let root = unchecked.document.as_json();
        for (m, mesh) in root.meshes.iter().enumerate() {
            for (p, primitive) in mesh.primitives.iter().enumerate() {
                for index in primitive.attributes.values() {
                    if index.value() >= root.accessors.len() {
                        return Err(format(format!(
                            "mesh {m}, primitive {p}: attribute accessor {} does not exist",
                            index.value()
                        )));
                    }
                }
            }
        }
        let gltf = gltf::Gltf {
            document: gltf::Document::from_json(unchecked.document.into_json())
                .map_err(|e| format(e.to_string()))?,
            blob: unchecked.blob,
        };
        let mut blob = gltf.blob.clone();
        let mut buffers = Vec::new();
        for buffer in gltf.buffers() {
            let data = match buffer.source() {
                gltf::buffer::Source::Bin => blob.take().ok_or_else(|| {
                    format(format!(
                        "buffer {} names a missing binary chunk",
                        buffer.index()
                    ))
                })?,
                gltf::buffer::Source::Uri(uri) => {
                    if let Some(rest) = uri.strip_prefix("data:") {
                        let encoded = rest.split_once(";base64,").map(|(_, data)| data);
                        encoded.and_then(base64).ok_or_else(|| {
                            format(format!("buffer {}: undecodable data URI", buffer.index()))
                        })?
                    } else {
                        if uri.contains("://") {
                            return Err(format(format!(
                                "buffer {}: only files and data: URIs are read, not {uri}",
                                buffer.index()
                            )));
                        }
                        let name = percent_decoded(uri).ok_or_else(|| {
                            format(format!("buffer {}: broken escape in {uri}", buffer.index()))
                        })?;
                        if Path::new(&name).has_root() {
                            return Err(format(format!(
                                "buffer {}: {uri} is not relative to the file",
                                buffer.index()
                            )));
                        }
                        let file = path.parent().unwrap_or(Path::new(".")).join(name);
                        read_buffer_file(&file, buffer.length())
                            .map_err(|source| GltfError::Io { path: file, source })?
                    }
                }
            };
            if data.len() < buffer.length() {
                return Err(format(format!(
                    "buffer {} holds {} bytes, {} declared",
                    buffer.index(),
                    data.len(),
                    buffer.length()
                )));
            }
            buffers.push(data);
        }

        // What the file may make the loader build (see `BUILT_PER_BYTE`).
        let read: usize = bytes.len() + buffers.iter().map(Vec::len).sum::<usize>();
        let budget = read.saturating_mul(BUILT_PER_BYTE).saturating_add(1 << 20);
        let mut built = 0usize;
        let mut spend = |more: usize, what: &dyn Fn() -> String| {
            built = built.saturating_add(more);
            if built > budget {
                return Err(format(format!(
                    "{}: the file would build more than {budget} vertices and triangles \
                     ({BUILT_PER_BYTE} per byte of its {read} bytes, and 2^20)",
                    what()
                )));
            }
            Ok(())
        };
        // Each mesh's triangles, in the mesh frame.
        let mut meshes: Vec<Option<TriMesh>> = Vec::new();
        for mesh in gltf.meshes() {
            let name = format!("{} ({})", mesh.index(), mesh.name().unwrap_or("unnamed"));
            let (mut vertices, mut indices) = (Vec::new(), Vec::new());
            for primitive in mesh.primitives() {
                let Some(triangulate) = triangulation(primitive.mode()) else {
                    continue; // points or lines: no surface
                };
                let broken = |role: &str, accessor: &gltf::Accessor<'_>, why: String| {
                    format(format!(
                        "mesh {name}: primitive {}: {role} accessor {}: {why}",
                        primitive.index(),
                        accessor.index()
                    ))
                };
                if let Some(accessor) = primitive.get(&gltf::Semantic::Positions) {
                    let (kind, dims) = (accessor.data_type(), accessor.dimensions());
                    if !matches!((kind, dims), (DataType::F32, Dimensions::Vec3)) {
                        let why = format!("{dims:?} of {kind:?}, not Vec3 of F32");
                        return Err(broken("position", &accessor, why));
                    }
                    if let Some(why) = unreadable(&accessor, &buffers) {
                        return Err(broken("position", &accessor, why));
                    }
                }
                if let Some(accessor) = primitive.indices() {
                    let (kind, dims) = (accessor.data_type(), accessor.dimensions());
                    let integer = matches!(kind, DataType::U8 | DataType::U16 | DataType::U32);
                    if !integer || !matches!(dims, Dimensions::Scalar) {
                        let why = format!("{dims:?} of {kind:?}, not Scalar of U8, U16 or U32");
                        return Err(broken("index", &accessor, why));
                    }
                    if let Some(why) = unreadable(&accessor, &buffers) {
                        return Err(broken("index", &accessor, why));
                    }
                }
                let vertex_count = primitive
                    .get(&gltf::Semantic::Positions)
                    .map_or(0, |a| a.count());
                let index_count = primitive.indices().map_or(vertex_count, |a| a.count());
                spend(vertex_count.saturating_add(index_count), &|| {
                    format!("mesh {name}: primitive {}", primitive.index())
                })?;
                let reader = primitive.reader(|b| buffers.get(b.index()).map(Vec::as_slice));
                let positions = reader.read_positions().ok_or_else(|| {
                    format(format!(
                        "mesh {name}: a primitive without readable positions"
                    ))
                })?;
                let base = vertices.len() as u32;
                vertices.extend(positions.map(|[x, y, z]| Point::new(x, y, z)));
                let count = vertices.len() as u32 - base;
                // Unreadable indices are an error, never a list drawn in order.
                let flat: Vec<u32> = match primitive.indices() {
                    Some(_) => reader
                        .read_indices()
                        .ok_or_else(|| format(format!("mesh {name}: unreadable indices")))?
                        .into_u32()
                        .collect(),
                    None => (0..count).collect(),
                };
                // An index past this primitive's own vertices would land on
                // another primitive's (or overflow `u32`): refuse it here.
                if let Some(&index) = flat.iter().find(|&&i| i >= count) {
                    return Err(format(format!(
                        "mesh {name}: primitive {} refers to vertex {index}, but it has {count} vertices",
                        primitive.index()
                    )));
                }
                if primitive.mode() == gltf::mesh::Mode::Triangles && !flat.len().is_multiple_of(3)
                {
                    return Err(format(format!(
                        "mesh {name}: {} indices, not triangles",
                        flat.len()
                    )));
                }
                indices.extend(
                    triangulate(&flat)
                        .into_iter()
                        .map(|[a, b, c]| [a + base, b + base, c + base]),
                );
            }
            let built = if indices.is_empty() {
                None
            } else {
                Some(
                    TriMesh::new(vertices, indices).map_err(|source| GltfError::Mesh {
                        path: path.to_path_buf(),
                        mesh: name,
                        source,
                    })?,
                )
            };
            meshes.push(built);
        }

        // The nodes must form trees: a node with two parents, or a root
        // with a parent, would be placed once per path to it (a number
        // that doubles with each level of a chain of shared children).
        let mut parents: Vec<Option<usize>> = vec![None; gltf.nodes().len()];
        for node in gltf.nodes() {
            for child in node.children() {
                if let Some(other) = parents[child.index()].replace(node.index()) {
                    return Err(format(format!(
                        "node {} is a child of node {other} and of node {}",
                        child.index(),
                        node.index()
                    )));
                }
            }
        }
        // A cycle anywhere is an error, reachable from a root or not (a
        // file without scenes whose nodes form only a cycle has no root,
        // and had loaded as an empty scene). One walk up from each node,
        // stopping at a node an earlier walk passed: linear in the nodes.
        let mut walked_by = vec![usize::MAX; parents.len()];
        for start in 0..parents.len() {
            let mut at = Some(start);
            while let Some(node) = at {
                match walked_by[node] {
                    usize::MAX => {
                        walked_by[node] = start;
                        at = parents[node];
                    }
                    walk if walk == start => {
                        return Err(GltfError::Cycle {
                            path: path.to_path_buf(),
                            node,
                        });
                    }
                    _ => break,
                }
            }
        }
        // Without any scene, every parentless node is a root: the file's
        // meshes are placed rather than dropped.
        let mut roots: Vec<gltf::Node<'_>> = match gltf.default_scene() {
            Some(scene) => scene.nodes().collect(),
            None if gltf.scenes().len() == 0 => gltf
                .nodes()
                .filter(|n| parents[n.index()].is_none())
                .collect(),
            None => gltf.scenes().flat_map(|s| s.nodes()).collect(),
        };
        // A root of several scenes (or listed twice) is placed once.
        let mut listed = vec![false; parents.len()];
        roots.retain(|root| !std::mem::replace(&mut listed[root.index()], true));
        // No cycle is left; a root with a parent would be placed twice.
        if let Some((root, parent)) = roots
            .iter()
            .find_map(|root| parents[root.index()].map(|parent| (root.index(), parent)))
        {
            return Err(format(format!(
                "node {root} is a scene root and a child of node {parent}"
            )));
        }
        let mut out = GltfScene {
            scene: Scene::new(),
            nodes: Vec::new(),
        };
        let mut rigid_trees: HashMap<usize, Arc<MeshTree<Aabb>>> = HashMap::new();
        let mut baked_trees: HashMap<(usize, [u64; 9]), Arc<MeshTree<Aabb>>> = HashMap::new();
        // Depth-first; every node has one path from its root (checked above).
        let mut stack: Vec<(gltf::Node<'_>, Affine)> =
            roots.into_iter().map(|n| (n, IDENTITY)).collect();
        while let Some((node, parent)) = stack.pop() {
            let local = local_transform(&node.transform()).ok_or_else(|| GltfError::Transform {
                path: path.to_path_buf(),
                node: node.index(),
            })?;
            let world = multiply(&parent, &local);
            if !world.iter().flatten().all(|v| v.is_finite()) {
                return Err(GltfError::Transform {
                    path: path.to_path_buf(),
                    node: node.index(),
                });
            }
            if let Some(mesh) = node.mesh()
                && let Some(Some(triangles)) = meshes.get(mesh.index())
            {
                let translation = Vector::new(
                    world[3][0] as Real,
                    world[3][1] as Real,
                    world[3][2] as Real,
                );
                let (tree, rotation) = match rigid_rotation(&world) {
                    Some(rotation) => {
                        let tree = rigid_trees
                            .entry(mesh.index())
                            .or_insert_with(|| Arc::new(MeshTree::new(triangles.clone())))
                            .clone();
                        (tree, rotation)
                    }
                    None => {
                        let key: [u64; 9] = std::array::from_fn(|k| world[k / 3][k % 3].to_bits());
                        let tree = match baked_trees.get(&(mesh.index(), key)) {
                            Some(tree) => tree.clone(),
                            None => {
                                spend(triangles.vertices().len() + triangles.len(), &|| {
                                    format!("mesh {} under node {}", mesh.index(), node.index())
                                })?;
                                let vertices = triangles
                                    .vertices()
                                    .iter()
                                    .map(|p| {
                                        let v = [f64::from(p.x), f64::from(p.y), f64::from(p.z)];
                                        let row = |r: usize| {
                                            (world[0][r] * v[0]
                                                + world[1][r] * v[1]
                                                + world[2][r] * v[2])
                                                as Real
                                        };
                                        Point::new(row(0), row(1), row(2))
                                    })
                                    .collect();
                                // A mirroring transform turns the winding
                                // over: glTF then takes clockwise faces as
                                // front, so the copy swaps two corners to
                                // keep its normals facing out.
                                let linear = [world[0], world[1], world[2]]
                                    .map(|c| Vector::new(c[0] as Real, c[1] as Real, c[2] as Real));
                                let mirrored = linear[0].cross(&linear[1]).dot(&linear[2]) < 0.0;
                                let indices = triangles
                                    .indices()
                                    .iter()
                                    .map(|&[a, b, c]| if mirrored { [a, c, b] } else { [a, b, c] })
                                    .collect();
                                let baked = TriMesh::new(vertices, indices).map_err(|source| {
                                    GltfError::Mesh {
                                        path: path.to_path_buf(),
                                        mesh: format!(
                                            "{} (under node {})",
                                            mesh.index(),
                                            node.index()
                                        ),
                                        source,
                                    }
                                })?;
                                let tree = Arc::new(MeshTree::new(baked));
                                baked_trees.insert((mesh.index(), key), tree.clone());
                                tree
                            }
                        };
                        (tree, Rotation::identity())
                    }
                };
                let pose = Isometry::from_parts(translation.into(), rotation);
                let id = out.scene.add(tree, pose).map_err(|e| match e {
                    SceneError::NonFinitePose { .. } => GltfError::Transform {
                        path: path.to_path_buf(),
                        node: node.index(),
                    },
                    other => format(other.to_string()),
                })?;
                out.nodes.push((id, node.index()));
            }
            for child in node.children() {
                stack.push((child, world));
            }
        }
        out.scene.update();
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::{base64, percent_decoded, triangulation};

    #[test]
    fn base64_decodes_the_rfc_examples() {
        for (text, plain) in [
            ("", ""),
            ("Zg==", "f"),
            ("Zm8=", "fo"),
            ("Zm9v", "foo"),
            ("Zm9vYg==", "foob"),
            ("Zm9vYmE=", "fooba"),
            ("Zm9vYmFy", "foobar"),
        ] {
            assert_eq!(base64(text).as_deref(), Some(plain.as_bytes()), "{text}");
        }
        assert_eq!(base64("Zm9v!"), None);
        assert_eq!(base64("Z"), None);
    }

    #[test]
    fn strips_and_fans_follow_the_specification() {
        use gltf::mesh::Mode;
        let triangles = |mode, flat: &[u32]| triangulation(mode).map(|make| make(flat));
        let five = [10, 11, 12, 13, 14];
        // Strip triangle i is (v_i, v_{i+1+i%2}, v_{i+2-i%2}): every other
        // one swaps its last two corners, so all keep one winding.
        assert_eq!(
            triangles(Mode::TriangleStrip, &five),
            Some(vec![[10, 11, 12], [11, 13, 12], [12, 13, 14]])
        );
        // Fan triangle i is (v_{i+1}, v_{i+2}, v_0).
        assert_eq!(
            triangles(Mode::TriangleFan, &five),
            Some(vec![[11, 12, 10], [12, 13, 10], [13, 14, 10]])
        );
        assert_eq!(
            triangles(Mode::Triangles, &[1, 2, 3, 4, 5, 6]),
            Some(vec![[1, 2, 3], [4, 5, 6]])
        );
        assert_eq!(triangles(Mode::TriangleStrip, &[1, 2]), Some(vec![]));
        assert_eq!(triangles(Mode::LineStrip, &five), None);
        assert_eq!(percent_decoded("a%2"), None);
        assert_eq!(percent_decoded("%zz"), None);
    }
}
