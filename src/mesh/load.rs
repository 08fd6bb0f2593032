//! Reading meshes from files: the format is chosen by extension, else by
//! content, and the three parsers ([`super::obj`], [`super::stl`],
//! [`super::ply`]) share the error and tokenising helpers below.
//!
//! Error contract: every loader error is a [`MeshError::File`] naming the file
//! (the path, or the display name given to the in-memory functions) and, for
//! text, the 1-based line; binary errors name the byte offset and the
//! triangle, vertex or face instead. Non-finite coordinates are caught while
//! parsing, so they too carry their line or record number. The validation of
//! [`TriMesh::new`] still runs afterwards; what it can then still reject (no
//! triangles, more than 32-bit indices address) is wrapped into
//! [`MeshError::File`] with its message and no line.
//!
//! Malformed input never panics and never drives an allocation: counts read
//! from a file are checked against the bytes that follow before anything is
//! reserved.

use std::path::Path;

use super::{MeshError, TriMesh, obj, ply, stl};
use crate::math::Point;

/// A mesh file format that [`TriMesh::load`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MeshFormat {
    /// Wavefront OBJ (text).
    Obj,
    /// STL, ASCII or binary.
    Stl,
    /// Stanford PLY: ASCII, binary little-endian or binary big-endian.
    Ply,
}

impl MeshFormat {
    /// The format named by the path's extension (`obj`, `stl`, `ply`, in any case).
    #[must_use]
    pub fn from_path(path: impl AsRef<Path>) -> Option<MeshFormat> {
        let extension = path.as_ref().extension()?.to_str()?;
        [
            ("obj", MeshFormat::Obj),
            ("stl", MeshFormat::Stl),
            ("ply", MeshFormat::Ply),
        ]
        .into_iter()
        .find(|(name, _)| extension.eq_ignore_ascii_case(name))
        .map(|(_, format)| format)
    }

    /// The format the bytes look like: a first line `ply`; a binary STL whose
    /// length matches its triangle count, or text starting with `solid`; or a
    /// first statement that is an OBJ keyword (or FCL's leading count line).
    #[must_use]
    pub fn sniff(bytes: &[u8]) -> Option<MeshFormat> {
        if ply::has_magic(bytes) {
            Some(MeshFormat::Ply)
        } else if stl::looks_like_stl(bytes) {
            Some(MeshFormat::Stl)
        } else if obj::looks_like_obj(bytes) {
            Some(MeshFormat::Obj)
        } else {
            None
        }
    }
}

impl TriMesh {
    /// Reads a mesh file; the format comes from the extension, or from the
    /// content when the extension is not `.obj`, `.stl` or `.ply`.
    ///
    /// A file that cannot be read is [`MeshError::Io`], keeping the
    /// operating system's error as its source. Every other error is a
    /// [`MeshError::File`] naming `path` and, for text, the
    /// 1-based line (binary errors name the record and byte offset instead);
    /// non-finite coordinates are reported there too, and what [`TriMesh::new`]
    /// still rejects afterwards (no triangles) is wrapped with no line.
    /// Malformed bytes never panic, and counts read from a header never drive
    /// an allocation larger than the file could fill. See
    /// [`TriMesh::from_obj_bytes`], [`TriMesh::from_stl_bytes`] and
    /// [`TriMesh::from_ply_bytes`] for what each format reads.
    pub fn load(path: impl AsRef<Path>) -> Result<TriMesh, MeshError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| MeshError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        TriMesh::from_bytes(path, &bytes)
    }

    /// Parses a mesh held in memory; `name` appears in errors, and its
    /// extension picks the format (the content is sniffed when it has none).
    pub fn from_bytes(name: impl AsRef<Path>, bytes: &[u8]) -> Result<TriMesh, MeshError> {
        let name = name.as_ref();
        match MeshFormat::from_path(name).or_else(|| MeshFormat::sniff(bytes)) {
            Some(MeshFormat::Obj) => obj::parse(name, bytes),
            Some(MeshFormat::Stl) => stl::parse(name, bytes),
            Some(MeshFormat::Ply) => ply::parse(name, bytes),
            None => Err(file_error(
                name,
                None,
                "unknown mesh format: the extension is not .obj, .stl or .ply \
                 and the content looks like none of them",
            )),
        }
    }
}

/// A [`MeshError::File`] for `path`.
pub(super) fn file_error(
    path: &Path,
    line: Option<usize>,
    message: impl Into<String>,
) -> MeshError {
    MeshError::File {
        path: path.to_path_buf(),
        line,
        message: message.into(),
    }
}

/// Validates the parsed buffers, wrapping a rejection into a file error.
pub(super) fn finish(
    path: &Path,
    vertices: Vec<Point>,
    indices: Vec<[u32; 3]>,
) -> Result<TriMesh, MeshError> {
    TriMesh::new(vertices, indices).map_err(|e| file_error(path, None, e.to_string()))
}

/// A token in double quotes for messages: lossy UTF-8, at most 40 characters.
pub(super) fn quoted(text: &[u8]) -> String {
    const LIMIT: usize = 40;
    let text = String::from_utf8_lossy(text);
    match text.char_indices().nth(LIMIT) {
        Some((cut, _)) => format!("\"{}…\"", &text[..cut]),
        None => format!("\"{text}\""),
    }
}

/// Parses a decimal `f32` (including `nan` and `inf`, which callers reject
/// where coordinates must be finite).
pub(super) fn parse_f32(text: &[u8]) -> Result<f32, String> {
    std::str::from_utf8(text)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("bad number {}", quoted(text)))
}

/// Parses a decimal `f64`.
pub(super) fn parse_f64(text: &[u8]) -> Result<f64, String> {
    std::str::from_utf8(text)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("bad number {}", quoted(text)))
}

/// Parses a decimal integer.
pub(super) fn parse_i64(text: &[u8]) -> Result<i64, String> {
    std::str::from_utf8(text)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("bad integer {}", quoted(text)))
}

/// Parses a coordinate that must be a finite `f32`.
pub(super) fn parse_coordinate(text: &[u8]) -> Result<f32, String> {
    let value = parse_f32(text)?;
    if value.is_finite() {
        Ok(value)
    } else {
        Err(format!("coordinate {} is not a finite f32", quoted(text)))
    }
}

/// One whitespace-separated token and the 1-based line it starts on.
#[derive(Clone, Copy, Debug)]
pub(super) struct Token<'a> {
    /// The token's bytes (never empty, no ASCII whitespace).
    pub text: &'a [u8],
    /// Its 1-based line.
    pub line: usize,
}

impl Token<'_> {
    /// True when the token is `keyword`, ignoring ASCII case.
    pub fn is(&self, keyword: &str) -> bool {
        self.text.eq_ignore_ascii_case(keyword.as_bytes())
    }
}

/// Whitespace-separated tokens of a byte buffer, counting lines as it goes
/// (for the token-based text formats: ASCII STL and the ASCII PLY body).
pub(super) struct Tokens<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// Line of the read position.
    pos_line: usize,
    /// Line of the last token returned.
    token_line: usize,
}

impl<'a> Tokens<'a> {
    /// Tokens of `bytes`, whose first byte is on line `line`.
    pub fn new(bytes: &'a [u8], line: usize) -> Tokens<'a> {
        Tokens {
            bytes,
            pos: 0,
            pos_line: line,
            token_line: line,
        }
    }

    /// The line of the last token returned (the first line before any):
    /// where an "unexpected end of file" is reported.
    pub fn line(&self) -> usize {
        self.token_line
    }

    /// Bytes not yet read.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// Skips the rest of the current line, including its line break.
    pub fn skip_line(&mut self) {
        match self.bytes[self.pos..].iter().position(|&b| b == b'\n') {
            Some(offset) => {
                self.pos += offset + 1;
                self.pos_line += 1;
            }
            None => self.pos = self.bytes.len(),
        }
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = Token<'a>;

    fn next(&mut self) -> Option<Token<'a>> {
        while let Some(&b) = self.bytes.get(self.pos) {
            if b == b'\n' {
                self.pos_line += 1;
            } else if !b.is_ascii_whitespace() {
                break;
            }
            self.pos += 1;
        }
        let start = self.pos;
        while self
            .bytes
            .get(self.pos)
            .is_some_and(|b| !b.is_ascii_whitespace())
        {
            self.pos += 1;
        }
        if self.pos == start {
            return None;
        }
        self.token_line = self.pos_line;
        Some(Token {
            text: &self.bytes[start..self.pos],
            line: self.pos_line,
        })
    }
}
