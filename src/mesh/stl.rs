//! STL meshes, ASCII and binary, welded into an indexed mesh.
//!
//! Format source: 3D Systems, *StereoLithography Interface Specification*
//! (1988; revised 1989). Binary: an 80-byte header, a little-endian `u32`
//! triangle count, then 50 bytes per triangle (normal, three corners as
//! `f32` triples, a `u16` attribute). ASCII: `solid name`, then per triangle
//! `facet normal nx ny nz / outer loop / vertex x y z` ×3 `/ endloop /
//! endfacet`, then `endsolid name`; keywords are read in any case, several
//! solids may follow each other, normals are ignored (they may even be NaN).
//!
//! Binary or ASCII: a binary file may itself begin with `solid`, so the
//! length decides first: a file of exactly `84 + 50 n` bytes, with `n` its
//! stored count, is binary. Otherwise text starting with `solid` and holding
//! no NUL byte is ASCII (a NUL after more than a header's worth of text is
//! an error naming its line), and anything else is binary, whose count is
//! then checked against the length before any allocation: a count that
//! does not match the length exactly is an error naming both.
//!
//! Welding: STL stores each triangle's corners separately. Corners with
//! exactly equal coordinates (bit equality after mapping `-0` to `+0`, via a
//! hash map) become one vertex, numbered in order of first appearance, so
//! that neighbouring triangles share edges as a watertight raycast needs.
//! Triangles keep the file's order; vertex counts can differ from other
//! formats' copies of the same mesh.

use std::collections::HashMap;
use std::path::Path;

use super::lex::{Token, Tokens, file_error, finish, parse_coordinate, parse_f32, quoted};
use super::{MeshError, TriMesh};
use crate::math::Point;

/// Bytes before the first binary triangle: header and count.
const BINARY_HEADER: usize = 84;
/// Bytes per binary triangle.
const BINARY_RECORD: usize = 50;

impl TriMesh {
    /// Parses an ASCII or binary STL file held in memory; `name` is used in errors.
    ///
    /// A file of exactly `84 + 50 n` bytes (`n` its stored count) is binary,
    /// even when it starts with `solid`; other text starting with `solid` is
    /// ASCII. Corners with equal coordinates (`-0` equal to `+0`) are welded
    /// into one vertex, numbered in order of first appearance, so triangles
    /// share edges; triangles keep the file's order.
    pub fn from_stl_bytes(name: impl AsRef<Path>, bytes: &[u8]) -> Result<TriMesh, MeshError> {
        parse(name.as_ref(), bytes)
    }
}

/// Parses an STL file held in `bytes`.
pub(super) fn parse(path: &Path, bytes: &[u8]) -> Result<TriMesh, MeshError> {
    if binary_length_matches(bytes) || !starts_with_solid(bytes) {
        return parse_binary(path, bytes);
    }
    match bytes.iter().position(|&b| b == 0) {
        None => parse_ascii(path, bytes),
        Some(at) if text_with_a_stray_nul(bytes, at) => {
            let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
            Err(file_error(
                path,
                Some(line),
                "a NUL byte in ASCII STL text (and the length fits no binary STL)",
            ))
        }
        Some(_) => parse_binary(path, bytes),
    }
}

/// True when the NUL byte at `at` follows text only (UTF-8 names
/// included), and lies past where a binary header would end: a damaged
/// ASCII file, whose error should name the line. A binary file starting
/// with `solid` has its first NUL within its header or count (a count
/// below 2²⁴ has a zero byte), or soon after among its floats' bytes,
/// which are rarely all text.
fn text_with_a_stray_nul(bytes: &[u8], at: usize) -> bool {
    at >= BINARY_HEADER
        && bytes[..at]
            .iter()
            .all(|&b| b.is_ascii_graphic() || b.is_ascii_whitespace() || !b.is_ascii())
}

/// True for a binary STL of the right length or text starting with `solid`.
pub(super) fn looks_like_stl(bytes: &[u8]) -> bool {
    binary_length_matches(bytes) || starts_with_solid(bytes)
}

/// The triangle count stored in a binary header, if there is a header.
fn binary_count(bytes: &[u8]) -> Option<u64> {
    let count = bytes.get(BINARY_HEADER - 4..BINARY_HEADER)?;
    Some(u64::from(u32::from_le_bytes(count.try_into().ok()?)))
}

/// True when the length is exactly that of a binary STL with the stored count.
fn binary_length_matches(bytes: &[u8]) -> bool {
    binary_count(bytes).is_some_and(|n| binary_length(n) == bytes.len() as u64)
}

/// Length in bytes of a binary STL holding `count` triangles.
fn binary_length(count: u64) -> u64 {
    BINARY_HEADER as u64 + BINARY_RECORD as u64 * count
}

fn starts_with_solid(bytes: &[u8]) -> bool {
    bytes
        .trim_ascii_start()
        .get(..5)
        .is_some_and(|s| s.eq_ignore_ascii_case(b"solid"))
}

/// Merges corners with equal coordinates into shared vertices.
#[derive(Default)]
struct Welder {
    vertices: Vec<Point>,
    index_of: HashMap<[u32; 3], u32>,
}

impl Welder {
    fn with_capacity(capacity: usize) -> Welder {
        Welder {
            vertices: Vec::with_capacity(capacity),
            index_of: HashMap::with_capacity(capacity),
        }
    }

    /// The index of the vertex at `p` (finite), adding it if it is new.
    fn weld(&mut self, p: [f32; 3]) -> Result<u32, String> {
        // `+ 0.0` maps -0 to +0 and changes nothing else.
        let key = p.map(|c| (c + 0.0).to_bits());
        if let Some(&index) = self.index_of.get(&key) {
            return Ok(index);
        }
        let index = u32::try_from(self.vertices.len())
            .map_err(|_| "more distinct vertices than 32-bit indices address".to_string())?;
        self.vertices.push(Point::new(p[0], p[1], p[2]));
        self.index_of.insert(key, index);
        Ok(index)
    }
}

fn parse_binary(path: &Path, bytes: &[u8]) -> Result<TriMesh, MeshError> {
    let fail = |message: String| file_error(path, None, message);
    let Some(count) = binary_count(bytes) else {
        return Err(fail(format!(
            "{} bytes is too short for a binary STL (at least {BINARY_HEADER}), \
             and the file is not ASCII STL (text starting with \"solid\")",
            bytes.len()
        )));
    };
    let expected = binary_length(count);
    if expected != bytes.len() as u64 {
        return Err(fail(format!(
            "binary STL header claims {count} triangles, which take {expected} bytes, \
             but the file has {} bytes",
            bytes.len()
        )));
    }
    // The count now matches the length, so it bounds these reservations.
    let count = (bytes.len() - BINARY_HEADER) / BINARY_RECORD;
    let mut welder = Welder::with_capacity(count);
    let mut triangles = Vec::with_capacity(count);
    for (triangle, record) in bytes[BINARY_HEADER..]
        .chunks_exact(BINARY_RECORD)
        .enumerate()
    {
        let mut corners = [0; 3];
        for (corner, index) in corners.iter_mut().enumerate() {
            let offset = 12 + 12 * corner;
            let p: [f32; 3] = std::array::from_fn(|axis| {
                let at = offset + 4 * axis;
                f32::from_le_bytes([record[at], record[at + 1], record[at + 2], record[at + 3]])
            });
            if !p.iter().all(|c| c.is_finite()) {
                return Err(fail(format!(
                    "triangle {triangle}, corner {corner}: non-finite coordinate {p:?} \
                     (at byte {})",
                    BINARY_HEADER + BINARY_RECORD * triangle + offset
                )));
            }
            *index = welder.weld(p).map_err(&fail)?;
        }
        triangles.push(corners);
    }
    finish(path, welder.vertices, triangles)
}

fn parse_ascii(path: &Path, bytes: &[u8]) -> Result<TriMesh, MeshError> {
    let mut tokens = Tokens::new(bytes, 1);
    let mut welder = Welder::default();
    let mut triangles = Vec::new();
    while let Some(solid) = tokens.next() {
        let solid = expect(path, Some(solid), "solid", &tokens)?;
        skip_name(&mut tokens, solid.line, "facet");
        loop {
            let token = tokens.next();
            if let Some(end) = token.filter(|t| t.is("endsolid")) {
                skip_name(&mut tokens, end.line, "solid");
                break;
            }
            expect(path, token, "facet", &tokens)
                .map_err(|_| unexpected(path, token, "\"facet\" or \"endsolid\"", &tokens))?;
            expect(path, tokens.next(), "normal", &tokens)?;
            for _ in 0..3 {
                let token = number_token(path, tokens.next(), &tokens)?;
                parse_f32(token.text).map_err(|m| file_error(path, Some(token.line), m))?;
            }
            expect(path, tokens.next(), "outer", &tokens)?;
            expect(path, tokens.next(), "loop", &tokens)?;
            let mut corners = [0; 3];
            for index in &mut corners {
                let vertex = expect(path, tokens.next(), "vertex", &tokens)?;
                let mut p = [0.0; 3];
                for c in &mut p {
                    let token = number_token(path, tokens.next(), &tokens)?;
                    *c = parse_coordinate(token.text)
                        .map_err(|m| file_error(path, Some(token.line), m))?;
                }
                *index = welder
                    .weld(p)
                    .map_err(|m| file_error(path, Some(vertex.line), m))?;
            }
            expect(path, tokens.next(), "endloop", &tokens)?;
            expect(path, tokens.next(), "endfacet", &tokens)?;
            triangles.push(corners);
        }
    }
    finish(path, welder.vertices, triangles)
}

/// Skips the name after `solid` or `endsolid` on line `line`: the rest of
/// that line (a name may hold spaces, and any words, keywords included),
/// unless a facet ends on it (`endfacet`): a file written on one line,
/// whose name then ends where the next facet (`facet normal`) or solid
/// (`next`: `"solid"`) or the solid's end starts.
fn skip_name(tokens: &mut Tokens<'_>, line: usize, next: &str) {
    let on_line = |t: &Token<'_>| t.line == line;
    let one_line = tokens.clone().take_while(on_line).any(|t| t.is("endfacet"));
    if !one_line {
        tokens.skip_line();
        return;
    }
    loop {
        let mut ahead = tokens.clone();
        let Some(token) = ahead.next().filter(on_line) else {
            return;
        };
        let starts = if next == "facet" {
            token.is("facet") && ahead.clone().next().is_some_and(|t| t.is("normal"))
        } else {
            token.is(next)
        };
        if starts || token.is("endsolid") {
            return;
        }
        *tokens = ahead;
    }
}

/// The token, when it is `keyword` (in any case).
fn expect<'a>(
    path: &Path,
    token: Option<Token<'a>>,
    keyword: &str,
    tokens: &Tokens<'_>,
) -> Result<Token<'a>, MeshError> {
    match token {
        Some(t) if t.is(keyword) => Ok(t),
        _ => Err(unexpected(path, token, &format!("\"{keyword}\""), tokens)),
    }
}

/// The token, when there is one (numbers are parsed by the caller).
fn number_token<'a>(
    path: &Path,
    token: Option<Token<'a>>,
    tokens: &Tokens<'_>,
) -> Result<Token<'a>, MeshError> {
    token.ok_or_else(|| unexpected(path, None, "a number", tokens))
}

/// "expected X, found Y" at the token's line, or at the end of the file.
fn unexpected(
    path: &Path,
    token: Option<Token<'_>>,
    wanted: &str,
    tokens: &Tokens<'_>,
) -> MeshError {
    match token {
        Some(t) => file_error(
            path,
            Some(t.line),
            format!("expected {wanted}, found {}", quoted(t.text)),
        ),
        None => file_error(
            path,
            Some(tokens.line()),
            format!("unexpected end of file, expected {wanted}"),
        ),
    }
}
