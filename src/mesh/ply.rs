//! Stanford PLY meshes: ASCII, binary little-endian and binary big-endian.
//!
//! Format source: Greg Turk, *The PLY Polygon File Format* (1994), and the
//! type names of later writers (`int8` … `float64` beside `char` … `double`).
//!
//! Read: the `vertex` element's `x`, `y`, `z` (any scalar type, converted to
//! `f32`) and the `face` element's `vertex_indices` (or `vertex_index`) list
//! of any integer types; polygons are fan-triangulated from their first corner
//! as in [`super::obj`], with the same limitation for non-convex ones.
//! Every other property (scalars or lists of any type) and every other
//! element is read past and ignored. Vertices are kept as the file has them.
//!
//! The header's counts never drive an allocation by themselves: before the
//! body is read, the counts are checked against the bytes that follow (each
//! binary item needs its scalars and list lengths; each ASCII item needs one
//! token per property), and each list length is checked against the bytes
//! left before its items are read. ASCII errors name the line; binary errors
//! name the element item and the byte offset.

use std::path::Path;

use super::lex::{Tokens, file_error, finish, parse_f32, parse_f64, parse_i64, quoted};
use super::{MeshError, TriMesh};
use crate::math::Point;

impl TriMesh {
    /// Parses an ASCII or binary PLY file held in memory; `name` is used in errors.
    ///
    /// Reads the `vertex` element's `x y z` (any scalar type) and the `face`
    /// element's `vertex_indices` list (any integer types), fan-triangulating
    /// polygons from their first corner (wrong for non-convex polygons, as in
    /// [`TriMesh::from_obj_bytes`]); all other properties and elements are
    /// skipped. Vertices are kept as the file has them.
    pub fn from_ply_bytes(name: impl AsRef<Path>, bytes: &[u8]) -> Result<TriMesh, MeshError> {
        parse(name.as_ref(), bytes)
    }
}

/// True when the first line is `ply`.
pub(super) fn has_magic(bytes: &[u8]) -> bool {
    let first = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    first.strip_suffix(b"\r").unwrap_or(first) == b"ply"
}

/// A scalar property type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scalar {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    F32,
    F64,
}

impl Scalar {
    fn parse(name: &[u8]) -> Option<Scalar> {
        Some(match name {
            b"char" | b"int8" => Scalar::I8,
            b"uchar" | b"uint8" => Scalar::U8,
            b"short" | b"int16" => Scalar::I16,
            b"ushort" | b"uint16" => Scalar::U16,
            b"int" | b"int32" => Scalar::I32,
            b"uint" | b"uint32" => Scalar::U32,
            b"float" | b"float32" => Scalar::F32,
            b"double" | b"float64" => Scalar::F64,
            _ => return None,
        })
    }

    fn size(self) -> usize {
        match self {
            Scalar::I8 | Scalar::U8 => 1,
            Scalar::I16 | Scalar::U16 => 2,
            Scalar::I32 | Scalar::U32 | Scalar::F32 => 4,
            Scalar::F64 => 8,
        }
    }

    /// The name the PLY specification gives the type.
    fn name(self) -> &'static str {
        match self {
            Scalar::I8 => "char",
            Scalar::U8 => "uchar",
            Scalar::I16 => "short",
            Scalar::U16 => "ushort",
            Scalar::I32 => "int",
            Scalar::U32 => "uint",
            Scalar::F32 => "float",
            Scalar::F64 => "double",
        }
    }

    /// The value range of an integer type; `None` for floating point.
    fn integer_range(self) -> Option<(i64, i64)> {
        Some(match self {
            Scalar::I8 => (i8::MIN.into(), i8::MAX.into()),
            Scalar::U8 => (0, u8::MAX.into()),
            Scalar::I16 => (i16::MIN.into(), i16::MAX.into()),
            Scalar::U16 => (0, u16::MAX.into()),
            Scalar::I32 => (i32::MIN.into(), i32::MAX.into()),
            Scalar::U32 => (0, u32::MAX.into()),
            Scalar::F32 | Scalar::F64 => return None,
        })
    }
}

/// A property: one scalar, or a list with its length type and item type.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Scalar(Scalar),
    List { length: Scalar, item: Scalar },
}

#[derive(Debug)]
struct Property {
    name: Vec<u8>,
    kind: Kind,
}

#[derive(Debug)]
struct Element {
    name: Vec<u8>,
    count: usize,
    properties: Vec<Property>,
    /// The header line that declared it.
    line: usize,
}

impl Element {
    fn property(&self, name: &[u8]) -> Option<usize> {
        self.properties.iter().position(|p| p.name == name)
    }

    /// The fewest bytes (binary) or body bytes (ASCII: a token and a
    /// separator each) an item can take whose list property `list` holds
    /// the three corners of a triangle.
    fn min_face_size(&self, binary: bool, list: usize) -> u64 {
        let corner = match self.properties[list].kind {
            Kind::List { item, .. } if binary => item.size() as u64,
            _ => 1,
        };
        let size = self.min_item_size(binary) + 3 * corner;
        if binary { size } else { 2 * size - 1 }
    }

    /// The fewest bytes (binary) or tokens (ASCII) one item can take.
    fn min_item_size(&self, binary: bool) -> u64 {
        let sizes = self.properties.iter().map(|p| match p.kind {
            Kind::Scalar(s) | Kind::List { length: s, .. } => s.size() as u64,
        });
        if binary {
            sizes.sum()
        } else {
            sizes.count() as u64
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Encoding {
    Ascii,
    LittleEndian,
    BigEndian,
}

struct Header {
    encoding: Encoding,
    elements: Vec<Element>,
    /// Offset of the first body byte.
    body: usize,
    /// Line number of the first body byte.
    body_line: usize,
}

/// Where the mesh lives in the elements.
struct Layout {
    /// The vertex element and its `x`, `y`, `z` properties.
    vertex: Option<(usize, [usize; 3])>,
    /// The face element and its index list property.
    face: Option<(usize, usize)>,
}

/// Parses a PLY file held in `bytes`.
pub(super) fn parse(path: &Path, bytes: &[u8]) -> Result<TriMesh, MeshError> {
    let header = parse_header(path, bytes)?;
    let layout = layout(path, &header)?;
    let body = &bytes[header.body..];
    check_counts(path, &header, body.len())?;
    let (vertices, triangles) = match header.encoding {
        Encoding::Ascii => {
            let mut reader = AsciiReader {
                tokens: Tokens::new(body, header.body_line),
                item_line: None,
                last_line: 0,
            };
            let mesh = read_body(path, &header, &layout, body.len(), &mut reader)?;
            if let Some(extra) = reader.tokens.next() {
                return Err(file_error(
                    path,
                    Some(extra.line),
                    format!("unexpected {} after the last element", quoted(extra.text)),
                ));
            }
            mesh
        }
        Encoding::LittleEndian | Encoding::BigEndian => {
            let mut reader = BinaryReader {
                bytes,
                pos: header.body,
                big_endian: header.encoding == Encoding::BigEndian,
            };
            let mesh = read_body(path, &header, &layout, body.len(), &mut reader)?;
            if reader.pos < bytes.len() {
                return Err(file_error(
                    path,
                    None,
                    format!(
                        "{} bytes left over after the last element (at byte {})",
                        bytes.len() - reader.pos,
                        reader.pos
                    ),
                ));
            }
            mesh
        }
    };
    finish(path, vertices, triangles)
}

fn parse_header(path: &Path, bytes: &[u8]) -> Result<Header, MeshError> {
    if !has_magic(bytes) {
        return Err(file_error(
            path,
            Some(1),
            "not a PLY file: the first line must be \"ply\"",
        ));
    }
    let mut encoding = None;
    let mut elements: Vec<Element> = Vec::new();
    let mut pos = 0;
    let mut line_number = 0;
    while pos < bytes.len() {
        let end = bytes[pos..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |i| pos + i);
        let raw = &bytes[pos..end];
        pos = (end + 1).min(bytes.len());
        line_number += 1;
        if line_number == 1 {
            continue;
        }
        let at_line = |message: String| file_error(path, Some(line_number), message);
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let words: Vec<&[u8]> = raw
            .split(u8::is_ascii_whitespace)
            .filter(|w| !w.is_empty())
            .collect();
        match words.as_slice() {
            [] | [b"comment" | b"obj_info", ..] => {}
            [b"format", kind, rest @ ..] => {
                if encoding.is_some() {
                    return Err(at_line("a second \"format\" line".into()));
                }
                // The specification has one version; a later one could
                // change the layout, so it is refused rather than guessed.
                if let Some(version) = rest.first()
                    && parse_f64(version) != Ok(1.0)
                {
                    return Err(at_line(format!(
                        "PLY version {} (this reader knows 1.0)",
                        quoted(version)
                    )));
                }
                encoding = Some(match *kind {
                    b"ascii" => Encoding::Ascii,
                    b"binary_little_endian" => Encoding::LittleEndian,
                    b"binary_big_endian" => Encoding::BigEndian,
                    other => return Err(at_line(format!("unknown PLY format {}", quoted(other)))),
                });
            }
            [b"element", name, count] => {
                let count = std::str::from_utf8(count)
                    .ok()
                    .and_then(|c| c.parse().ok())
                    .ok_or_else(|| at_line(format!("bad element count {}", quoted(count))))?;
                elements.push(Element {
                    name: name.to_vec(),
                    count,
                    properties: Vec::new(),
                    line: line_number,
                });
            }
            [b"element", ..] => return Err(at_line("expected \"element NAME COUNT\"".into())),
            [b"format"] => {
                return Err(at_line(
                    "expected \"format ascii|binary_little_endian|binary_big_endian 1.0\"".into(),
                ));
            }
            [b"property", rest @ ..] => {
                let element = elements
                    .last_mut()
                    .ok_or_else(|| at_line("a property before any element".into()))?;
                let scalar = |name: &[u8]| {
                    Scalar::parse(name)
                        .ok_or_else(|| at_line(format!("unknown property type {}", quoted(name))))
                };
                let (kind, name) = match rest {
                    [b"list", length, item, name] => {
                        let length = scalar(length)?;
                        if length.integer_range().is_none() {
                            return Err(at_line(
                                "a list length type must be an integer type".into(),
                            ));
                        }
                        (
                            Kind::List {
                                length,
                                item: scalar(item)?,
                            },
                            name,
                        )
                    }
                    [ty, name] if *ty != b"list" => (Kind::Scalar(scalar(ty)?), name),
                    _ => {
                        return Err(at_line(
                            "expected \"property TYPE NAME\" or \"property list LENGTH_TYPE ITEM_TYPE NAME\""
                                .into(),
                        ));
                    }
                };
                if element.property(name).is_some() {
                    return Err(at_line(format!(
                        "a second property {} in element {}",
                        quoted(name),
                        quoted(&element.name)
                    )));
                }
                element.properties.push(Property {
                    name: name.to_vec(),
                    kind,
                });
            }
            [b"end_header"] => {
                let encoding =
                    encoding.ok_or_else(|| at_line("the header has no \"format\" line".into()))?;
                return Ok(Header {
                    encoding,
                    elements,
                    body: pos,
                    body_line: line_number + 1,
                });
            }
            [keyword, ..] => {
                return Err(at_line(format!(
                    "unexpected header line starting with {}",
                    quoted(keyword)
                )));
            }
        }
    }
    Err(file_error(
        path,
        Some(line_number),
        "the header ends without an \"end_header\" line",
    ))
}

fn layout(path: &Path, header: &Header) -> Result<Layout, MeshError> {
    let find = |name: &[u8]| {
        let mut found = header
            .elements
            .iter()
            .enumerate()
            .filter(|(_, e)| e.name == name);
        match (found.next(), found.next()) {
            (_, Some((_, second))) => Err(file_error(
                path,
                Some(second.line),
                format!("a second {} element", quoted(name)),
            )),
            (first, None) => Ok(first),
        }
    };
    let vertex = match find(b"vertex")? {
        None => None,
        Some((index, element)) => {
            let coordinate = |axis: &str| {
                let at = element.property(axis.as_bytes()).ok_or_else(|| {
                    file_error(
                        path,
                        Some(element.line),
                        format!("the vertex element has no \"{axis}\" property"),
                    )
                })?;
                match element.properties[at].kind {
                    Kind::Scalar(_) => Ok(at),
                    Kind::List { .. } => Err(file_error(
                        path,
                        Some(element.line),
                        format!("the vertex property \"{axis}\" is a list, not a number"),
                    )),
                }
            };
            Some((
                index,
                [coordinate("x")?, coordinate("y")?, coordinate("z")?],
            ))
        }
    };
    let face = match find(b"face")? {
        None => None,
        Some((index, element)) => {
            let at = element
                .property(b"vertex_indices")
                .or_else(|| element.property(b"vertex_index"))
                .ok_or_else(|| {
                    file_error(
                        path,
                        Some(element.line),
                        "the face element has no \"vertex_indices\" list",
                    )
                })?;
            match element.properties[at].kind {
                Kind::List { item, .. } if item.integer_range().is_some() => Some((index, at)),
                _ => {
                    return Err(file_error(
                        path,
                        Some(element.line),
                        "the face property \"vertex_indices\" must be a list of an integer type",
                    ));
                }
            }
        }
    };
    if let (Some((index, _)), None) = (face, vertex) {
        return Err(file_error(
            path,
            Some(header.elements[index].line),
            "the file has faces but no vertex element",
        ));
    }
    Ok(Layout { vertex, face })
}

/// Rejects headers whose counts need more data than the body holds.
fn check_counts(path: &Path, header: &Header, body_len: usize) -> Result<(), MeshError> {
    let binary = header.encoding != Encoding::Ascii;
    // n tokens need at least 2n - 1 bytes: one each and a separator between.
    let available = if binary {
        body_len as u64
    } else {
        (body_len as u64).div_ceil(2)
    };
    let unit = if binary { "bytes" } else { "numbers" };
    let mut needed: u64 = 0;
    for element in &header.elements {
        let size = element.min_item_size(binary);
        needed = needed.saturating_add(size.saturating_mul(element.count as u64));
        if needed > available {
            return Err(file_error(
                path,
                Some(element.line),
                format!(
                    "the header's {} {} items need at least {needed} {unit} up to here, \
                     but the {body_len} bytes after the header hold at most {available}",
                    element.count,
                    quoted(&element.name),
                ),
            ));
        }
    }
    Ok(())
}

/// Reads scalars from the body, in either encoding.
trait Reader {
    /// The next value of type `ty` (integers are exact in `f64`).
    fn scalar(&mut self, ty: Scalar) -> Result<f64, String>;
    /// Marks the end of an element's item (a vertex, a face).
    fn end_item(&mut self) {}
    /// Fails unless `count` items of type `ty` could still follow.
    fn check_list(&self, count: usize, ty: Scalar) -> Result<(), String>;
    /// Where the next value starts (a byte offset; 0 where errors name
    /// lines instead).
    fn here(&self) -> usize {
        0
    }
    /// The error for `message` about the value that started at `at` (a
    /// binary body names that byte, an ASCII body its line).
    fn error(&self, path: &Path, at: usize, message: String) -> MeshError;
}

/// The ASCII body, one item per line: an item read across lines, or a
/// line holding more than one item, is an error naming the line (read as a
/// plain token stream, such a body loaded with its values shifted).
struct AsciiReader<'a> {
    tokens: Tokens<'a>,
    /// The line of the item being read, once its first value is.
    item_line: Option<usize>,
    /// The line of the last item read.
    last_line: usize,
}

impl Reader for AsciiReader<'_> {
    fn scalar(&mut self, ty: Scalar) -> Result<f64, String> {
        let Some(token) = self.tokens.next() else {
            return Err("unexpected end of file".into());
        };
        match self.item_line {
            None if token.line == self.last_line => {
                return Err(format!(
                    "line {} holds more values than one item has",
                    token.line
                ));
            }
            None => self.item_line = Some(token.line),
            Some(line) if line != token.line => {
                return Err(format!(
                    "line {line} ends before the item does (it goes on on line {})",
                    token.line
                ));
            }
            Some(_) => {}
        }
        match (ty, ty.integer_range()) {
            (Scalar::F32, _) => parse_f32(token.text).map(f64::from),
            (_, None) => parse_f64(token.text),
            (_, Some((min, max))) => {
                let value = parse_i64(token.text)?;
                if (min..=max).contains(&value) {
                    Ok(value as f64)
                } else {
                    Err(format!("{value} is out of range for {}", ty.name()))
                }
            }
        }
    }

    fn end_item(&mut self) {
        if let Some(line) = self.item_line.take() {
            self.last_line = line;
        }
    }

    fn check_list(&self, count: usize, _: Scalar) -> Result<(), String> {
        if count <= self.tokens.remaining().div_ceil(2) {
            Ok(())
        } else {
            Err(format!(
                "a list of {count} items runs past the end of the file"
            ))
        }
    }

    fn error(&self, path: &Path, _at: usize, message: String) -> MeshError {
        file_error(path, Some(self.tokens.line()), message)
    }
}

struct BinaryReader<'a> {
    bytes: &'a [u8],
    pos: usize,
    big_endian: bool,
}

impl BinaryReader<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let bytes = self
            .bytes
            .get(self.pos..self.pos + N)
            .ok_or("unexpected end of file")?;
        self.pos += N;
        let mut array: [u8; N] = bytes.try_into().map_err(|_| "unexpected end of file")?;
        if self.big_endian {
            array.reverse();
        }
        Ok(array)
    }
}

impl Reader for BinaryReader<'_> {
    fn scalar(&mut self, ty: Scalar) -> Result<f64, String> {
        // `take` returns little-endian bytes whatever the file's order.
        Ok(match ty {
            Scalar::I8 => i8::from_le_bytes(self.take()?).into(),
            Scalar::U8 => u8::from_le_bytes(self.take()?).into(),
            Scalar::I16 => i16::from_le_bytes(self.take()?).into(),
            Scalar::U16 => u16::from_le_bytes(self.take()?).into(),
            Scalar::I32 => i32::from_le_bytes(self.take()?).into(),
            Scalar::U32 => u32::from_le_bytes(self.take()?).into(),
            Scalar::F32 => f32::from_le_bytes(self.take()?).into(),
            Scalar::F64 => f64::from_le_bytes(self.take()?),
        })
    }

    fn check_list(&self, count: usize, ty: Scalar) -> Result<(), String> {
        let left = (self.bytes.len() - self.pos) as u64;
        if (count as u64).saturating_mul(ty.size() as u64) <= left {
            Ok(())
        } else {
            Err(format!(
                "a list of {count} items runs past the end of the file"
            ))
        }
    }

    fn here(&self) -> usize {
        self.pos
    }

    fn error(&self, path: &Path, at: usize, message: String) -> MeshError {
        file_error(path, None, format!("{message} (at byte {at})"))
    }
}

/// Reads every element of a body of `body_len` bytes, keeping the vertex
/// positions and the fanned faces.
fn read_body(
    path: &Path,
    header: &Header,
    layout: &Layout,
    body_len: usize,
    reader: &mut impl Reader,
) -> Result<(Vec<Point>, Vec<[u32; 3]>), MeshError> {
    let mut vertices = Vec::new();
    let mut triangles = Vec::new();
    let mut corners: Vec<u32> = Vec::new();
    let vertex_count = layout.vertex.map_or(0, |(e, _)| header.elements[e].count);
    for (e, element) in header.elements.iter().enumerate() {
        // Zero-property items take no bytes; `check_counts` bounded the rest.
        if element.properties.is_empty() {
            continue;
        }
        let is_vertex = layout.vertex.filter(|(v, _)| *v == e).map(|(_, xyz)| xyz);
        let is_face = layout.face.filter(|(f, _)| *f == e).map(|(_, list)| list);
        if is_vertex.is_some() {
            vertices.reserve(element.count);
        }
        if let Some(list) = is_face {
            // Only faces of three or more corners make triangles (fewer is
            // an error), so the body holds at most this many: the header's
            // count alone may claim faces of empty lists, one byte each.
            let binary = header.encoding != Encoding::Ascii;
            let fillable = body_len as u64 / element.min_face_size(binary, list);
            triangles.reserve(element.count.min(fillable as usize));
        }
        let name = String::from_utf8_lossy(&element.name);
        for item in 0..element.count {
            // Errors name where the offending value starts.
            let fail = |reader: &dyn Reader, at: usize, message: String| {
                reader.error(path, at, format!("{name} {item}: {message}"))
            };
            let mut xyz = [0.0; 3];
            let mut xyz_at = [0; 3];
            for (p, property) in element.properties.iter().enumerate() {
                match property.kind {
                    Kind::Scalar(ty) => {
                        let at = reader.here();
                        let value = reader.scalar(ty).map_err(|m| fail(reader, at, m))?;
                        if let Some(axis) =
                            is_vertex.and_then(|xyz| xyz.iter().position(|&a| a == p))
                        {
                            (xyz[axis], xyz_at[axis]) = (value, at);
                        }
                    }
                    Kind::List { length, item: ty } => {
                        let list_at = reader.here();
                        let count = reader
                            .scalar(length)
                            .map_err(|m| fail(reader, list_at, m))?;
                        if count < 0.0 {
                            let message = format!("negative list length {count}");
                            return Err(fail(reader, list_at, message));
                        }
                        let count = count as usize;
                        reader
                            .check_list(count, ty)
                            .map_err(|m| fail(reader, list_at, m))?;
                        let is_indices = is_face == Some(p);
                        corners.clear();
                        for _ in 0..count {
                            let at = reader.here();
                            let value = reader.scalar(ty).map_err(|m| fail(reader, at, m))?;
                            if is_indices {
                                corners.push(
                                    vertex_index(value, vertex_count)
                                        .map_err(|m| fail(reader, at, m))?,
                                );
                            }
                        }
                        if is_indices {
                            if count < 3 {
                                return Err(fail(
                                    reader,
                                    list_at,
                                    format!("the face has {count} vertices; at least 3 are needed"),
                                ));
                            }
                            triangles.extend(
                                corners.windows(2).skip(1).map(|w| [corners[0], w[0], w[1]]),
                            );
                        }
                    }
                }
            }
            if is_vertex.is_some() {
                let p = xyz.map(|c| c as f32);
                if let Some(axis) = p.iter().position(|c| !c.is_finite()) {
                    return Err(fail(
                        reader,
                        xyz_at[axis],
                        format!("non-finite coordinate {xyz:?} as f32"),
                    ));
                }
                vertices.push(Point::new(p[0], p[1], p[2]));
            }
            reader.end_item();
        }
    }
    Ok((vertices, triangles))
}

/// A face's vertex index, checked against the vertex count.
fn vertex_index(value: f64, vertex_count: usize) -> Result<u32, String> {
    if value < 0.0 {
        return Err(format!("negative vertex index {value}"));
    }
    if value >= vertex_count as f64 {
        return Err(format!(
            "face refers to vertex {value} but the file has {vertex_count} vertices"
        ));
    }
    u32::try_from(value as u64).map_err(|_| "more vertices than 32-bit indices address".into())
}
