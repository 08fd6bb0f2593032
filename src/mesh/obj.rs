//! Wavefront OBJ meshes: vertices and polygonal faces.
//!
//! Format source: "Object Files (.obj)", Appendix B1 of Wavefront's *Advanced
//! Visualizer* manual (mirrored at paulbourke.net/dataformats/obj).
//!
//! Read: `v x y z [w]` (only `x y z` are kept; `w` and the vertex colours some
//! exporters append must still be numbers) and `f` with three or more
//! vertices in any of the `v`, `v/vt`, `v//vn`, `v/vt/vn` forms, with 1-based
//! or negative (relative: `-1` is the last vertex so far) indices. A face must
//! refer to vertices defined before it, so errors can name the line. The
//! file's vertices are kept as they are, unused ones included.
//!
//! Polygons are fan-triangulated from their first corner: `[v0, vi, vi+1]`.
//! That is exact for convex polygons (and any polygon star-shaped from `v0`);
//! for a non-convex polygon the fan can cover area outside it. This is a known
//! limitation: exporters triangulate such faces themselves, and ear clipping
//! would need a projection plane and robust orientation predicates.
//!
//! Ignored: every other statement of the specification (texture coordinates,
//! normals, groups, smoothing, materials, lines, points, free-form geometry).
//! An unknown statement is an error, so a file in another format fails on its
//! first line instead of loading as nothing.
//!
//! Tolerated: CRLF line ends, `\` line continuation, `#` comments (also at
//! the end of a statement), bytes that are not UTF-8 outside the numbers that
//! are read, and a first statement made only of unsigned integers. The last
//! is the vertex and face count line that the FCL benchmark meshes (`env.obj`,
//! `rob.obj`) start with; it is skipped, not checked.

use std::path::Path;

use super::lex::{file_error, finish, parse_coordinate, parse_f32, parse_i64, quoted};
use super::{MeshError, TriMesh};
use crate::math::Point;

/// Statements of the specification that carry no triangle geometry.
const IGNORED: &[&[u8]] = &[
    b"vt",
    b"vn",
    b"vp",
    b"g",
    b"o",
    b"s",
    b"mg",
    b"l",
    b"p",
    b"usemtl",
    b"mtllib",
    b"usemap",
    b"maplib",
    b"bevel",
    b"c_interp",
    b"d_interp",
    b"lod",
    b"shadow_obj",
    b"trace_obj",
    b"ctech",
    b"stech",
    b"cstype",
    b"deg",
    b"bmat",
    b"step",
    b"curv",
    b"curv2",
    b"surf",
    b"parm",
    b"trim",
    b"hole",
    b"scrv",
    b"sp",
    b"end",
    b"con",
    b"call",
    b"csh",
    b"res",
];

impl TriMesh {
    /// Parses OBJ text; `name` is the file name used in errors.
    pub fn from_obj_str(name: impl AsRef<Path>, text: &str) -> Result<TriMesh, MeshError> {
        parse(name.as_ref(), text.as_bytes())
    }

    /// Parses OBJ bytes (UTF-8 is required only of the numbers that are read);
    /// `name` is the file name used in errors.
    ///
    /// Reads `v x y z [w]` and `f` with 1-based or negative (relative) indices
    /// in any `v/vt/vn` form; a face may only use vertices defined before it.
    /// Polygons are fan-triangulated from their first corner, which is exact
    /// for convex polygons but can cover area outside a non-convex one. Other
    /// statements of the OBJ specification are ignored, unknown ones are
    /// errors, and a first line of integers only (FCL's vertex and face
    /// counts) is skipped. The file's vertices are kept, unused ones included.
    pub fn from_obj_bytes(name: impl AsRef<Path>, bytes: &[u8]) -> Result<TriMesh, MeshError> {
        parse(name.as_ref(), bytes)
    }
}

/// Parses an OBJ file held in `bytes`.
pub(super) fn parse(path: &Path, bytes: &[u8]) -> Result<TriMesh, MeshError> {
    // A UTF-8 byte order mark, as some Windows editors write, is not part
    // of the first statement.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut vertices = Vec::new();
    let mut triangles = Vec::new();
    let mut corners = Vec::new();
    let mut first_statement = true;
    let mut joined = Vec::new();
    let mut physical = bytes.split(|&b| b == b'\n').enumerate();
    while let Some((index, raw)) = physical.next() {
        let line_number = index + 1;
        let mut line = strip(raw);
        if let Some(head) = line.strip_suffix(b"\\") {
            joined.clear();
            joined.extend_from_slice(head);
            for (_, raw) in physical.by_ref() {
                joined.push(b' ');
                let next = strip(raw);
                match next.strip_suffix(b"\\") {
                    Some(head) => joined.extend_from_slice(head),
                    None => {
                        joined.extend_from_slice(next);
                        break;
                    }
                }
            }
            line = &joined;
        }
        let mut tokens = line
            .split(u8::is_ascii_whitespace)
            .filter(|t| !t.is_empty());
        let Some(keyword) = tokens.next() else {
            continue;
        };
        let first = std::mem::replace(&mut first_statement, false);
        let at_line = |message: String| file_error(path, Some(line_number), message);
        match keyword {
            b"v" => vertices.push(parse_vertex(tokens).map_err(at_line)?),
            b"f" => {
                corners.clear();
                for token in tokens {
                    corners.push(resolve(token, vertices.len()).map_err(at_line)?);
                }
                if corners.len() < 3 {
                    return Err(at_line(format!(
                        "face has {} vertices; at least 3 are needed",
                        corners.len()
                    )));
                }
                triangles.extend(corners.windows(2).skip(1).map(|w| [corners[0], w[0], w[1]]));
            }
            k if IGNORED.contains(&k) => {}
            _ if first && is_count_line(line) => {}
            _ => return Err(at_line(format!("unknown statement {}", quoted(keyword)))),
        }
    }
    finish(path, vertices, triangles)
}

/// True when the first statement of `bytes` is an OBJ statement or FCL's count line.
pub(super) fn looks_like_obj(bytes: &[u8]) -> bool {
    bytes
        .split(|&b| b == b'\n')
        .map(strip)
        .find_map(|line| {
            let keyword = line
                .split(u8::is_ascii_whitespace)
                .find(|t| !t.is_empty())?;
            Some(
                keyword == b"v"
                    || keyword == b"f"
                    || IGNORED.contains(&keyword)
                    || is_count_line(line),
            )
        })
        .unwrap_or(false)
}

/// The line without its carriage return and comment.
fn strip(raw: &[u8]) -> &[u8] {
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    let end = raw.iter().position(|&b| b == b'#').unwrap_or(raw.len());
    raw[..end].trim_ascii()
}

/// A line of unsigned integers only (FCL's `vertex_count face_count`).
fn is_count_line(line: &[u8]) -> bool {
    line.split(u8::is_ascii_whitespace)
        .filter(|t| !t.is_empty())
        .all(|t| t.iter().all(u8::is_ascii_digit))
}

/// The point of a `v` statement: three finite coordinates, then optional numbers.
fn parse_vertex<'a>(tokens: impl Iterator<Item = &'a [u8]>) -> Result<Point, String> {
    let mut xyz = [0.0; 3];
    let mut count = 0;
    for token in tokens {
        match xyz.get_mut(count) {
            Some(c) => *c = parse_coordinate(token)?,
            None => {
                parse_f32(token)?;
            }
        }
        count += 1;
    }
    if count < 3 {
        return Err(format!("vertex needs 3 coordinates, found {count}"));
    }
    Ok(Point::new(xyz[0], xyz[1], xyz[2]))
}

/// The 0-based vertex that a face corner (`v`, `v/vt`, `v//vn`, `v/vt/vn`)
/// refers to, given `defined` vertices so far.
fn resolve(token: &[u8], defined: usize) -> Result<u32, String> {
    let position = token.split(|&b| b == b'/').next().unwrap_or_default();
    if position.is_empty() {
        return Err(format!("face corner {} has no vertex index", quoted(token)));
    }
    let index = parse_i64(position).map_err(|_| format!("bad vertex index {}", quoted(token)))?;
    let too_far =
        || format!("face refers to vertex {index} but only {defined} vertices are defined so far");
    let zero_based = match index {
        0 => {
            return Err(
                "vertex index 0 is invalid: OBJ indices start at 1 (or count back from -1)".into(),
            );
        }
        i if i > 0 => usize::try_from(i - 1)
            .ok()
            .filter(|&i| i < defined)
            .ok_or_else(too_far)?,
        i => defined
            .checked_sub(i.unsigned_abs().try_into().unwrap_or(usize::MAX))
            .ok_or_else(too_far)?,
    };
    u32::try_from(zero_based).map_err(|_| "more vertices than 32-bit indices address".into())
}
