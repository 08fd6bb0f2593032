//! What the three mesh parsers share: file errors with their line, number
//! parsing with messages that quote the offending token, and a
//! whitespace tokenizer that counts lines (for ASCII STL and the ASCII PLY
//! body). Kept apart from `load.rs`, which dispatches to the parsers, so
//! the parsers depend on this file and the dispatcher on them, never in a
//! circle.

use std::path::Path;

use super::{MeshError, TriMesh};
use crate::math::Point;

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
#[derive(Clone)]
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
