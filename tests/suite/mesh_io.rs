//! Mesh loading: OBJ, STL (ASCII and binary) and PLY (ASCII, binary of both
//! byte orders) against independent oracles.
//!
//! Oracles: the counts in `tests/data/README.md` and a naive line splitter
//! for the real meshes; writers in this file (not the crate's code) for
//! round trips, compared bit for bit; a brute-force set of distinct corners
//! for STL welding; explicit expected errors (file, line, message) for
//! malformed input; a counting global allocator for "never allocate what the
//! header claims"; and proptest random/mutated bytes for "never panic".

use crate::common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use boxtree::{MeshError, MeshFormat, Point, TriMesh};
use common::SplitMix;
use proptest::prelude::*;

// ---------------------------------------------------------------------------
// A global allocator that remembers the largest request made by the watching
// thread, so tests can prove a lying header did not drive an allocation.

struct WatchingAllocator;

thread_local! {
    static WATCHING: Cell<bool> = const { Cell::new(false) };
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note_allocation(size: usize) {
    let _ = WATCHING.try_with(|watching| {
        if watching.get() {
            let _ = LARGEST.try_with(|largest| largest.set(largest.get().max(size)));
        }
    });
}

// SAFETY: every call is forwarded unchanged to the system allocator; the
// bookkeeping touches only const-initialised thread-locals, which never allocate.
unsafe impl GlobalAlloc for WatchingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_allocation(layout.size());
        // SAFETY: the caller's GlobalAlloc contract, forwarded unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_allocation(layout.size());
        // SAFETY: the caller's GlobalAlloc contract, forwarded unchanged.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's GlobalAlloc contract, forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_allocation(new_size);
        // SAFETY: the caller's GlobalAlloc contract, forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: WatchingAllocator = WatchingAllocator;

/// The result of `f`, the largest single allocation it made, and its duration.
struct Watched<T> {
    result: T,
    largest_allocation: usize,
    elapsed: Duration,
}

impl<T> Watched<T> {
    /// Asserts the call failed fast: no allocation sized from a claimed
    /// count, well under a second. Gives back the result for its checks.
    fn cheap(self, label: &str) -> T {
        assert!(
            self.largest_allocation < 4096,
            "{label}: allocated {} bytes",
            self.largest_allocation
        );
        assert!(
            self.elapsed < Duration::from_secs(1),
            "{label}: took {:?}",
            self.elapsed
        );
        self.result
    }
}

fn watch<T>(f: impl FnOnce() -> T) -> Watched<T> {
    LARGEST.with(|l| l.set(0));
    WATCHING.with(|w| w.set(true));
    let start = Instant::now();
    let result = f();
    let elapsed = start.elapsed();
    WATCHING.with(|w| w.set(false));
    Watched {
        result,
        largest_allocation: LARGEST.with(Cell::get),
        elapsed,
    }
}

// ---------------------------------------------------------------------------
// Helpers: data files, error inspection, bitwise comparison.

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// The file error's path, line and message; fails the test for other errors.
fn file_error(result: Result<TriMesh, MeshError>) -> (PathBuf, Option<usize>, String) {
    match result {
        Err(MeshError::File {
            path,
            line,
            message,
        }) => (path, line, message),
        Err(other) => panic!("expected a file error, got {other:?}"),
        Ok(mesh) => panic!(
            "expected an error, got a mesh with {} triangles",
            mesh.len()
        ),
    }
}

/// Asserts the error names `path` and `line` and its message contains `needle`.
#[track_caller]
fn assert_error(result: Result<TriMesh, MeshError>, path: &str, line: Option<usize>, needle: &str) {
    let (got_path, got_line, message) = file_error(result);
    assert_eq!(got_path, Path::new(path), "message: {message}");
    assert_eq!(got_line, line, "message: {message}");
    assert!(
        message.contains(needle),
        "{message:?} does not contain {needle:?}"
    );
}

fn bits(p: &Point) -> [u32; 3] {
    [p.x.to_bits(), p.y.to_bits(), p.z.to_bits()]
}

/// Vertices and indices equal bit for bit.
#[track_caller]
fn assert_same_mesh(got: &TriMesh, expected: &TriMesh) {
    assert_eq!(got.indices(), expected.indices());
    let got: Vec<_> = got.vertices().iter().map(bits).collect();
    let expected: Vec<_> = expected.vertices().iter().map(bits).collect();
    assert_eq!(got, expected);
}

/// A corner's weld key: its bits, with -0 read as +0.
fn weld_key(p: &Point) -> [u32; 3] {
    let z = |c: f32| if c == 0.0 { 0 } else { c.to_bits() };
    [z(p.x), z(p.y), z(p.z)]
}

/// Triangles as corner coordinates equal bit for bit, except that -0 and +0
/// are one value (STL welding keeps the first one it meets).
#[track_caller]
fn assert_same_triangles(got: &TriMesh, expected: &TriMesh) {
    let corners = |m: &TriMesh| -> Vec<[[u32; 3]; 3]> {
        m.triangles()
            .map(|t| [weld_key(&t.a), weld_key(&t.b), weld_key(&t.c)])
            .collect()
    };
    assert_eq!(corners(got), corners(expected));
}

/// STL welding is right: one vertex per distinct used corner, and two
/// corners share an index exactly when their coordinates are equal.
#[track_caller]
fn assert_welded(welded: &TriMesh, original: &TriMesh) {
    let distinct: BTreeSet<_> = original
        .triangles()
        .flat_map(|t| t.vertices())
        .map(|p| weld_key(&p))
        .collect();
    assert_eq!(welded.vertices().len(), distinct.len());
    let mut index_of = HashMap::new();
    for (tri, idx) in welded.triangles().zip(welded.indices()) {
        for (p, &i) in tri.vertices().iter().zip(idx) {
            assert_eq!(*index_of.entry(weld_key(p)).or_insert(i), i);
        }
    }
}

/// Independent reader for the simple OBJ files: `v x y z` and `f a b c` only.
fn naive_obj(text: &str) -> (Vec<Point>, Vec<[u32; 3]>) {
    let mut vertices = Vec::new();
    let mut faces = Vec::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["v", x, y, z] => vertices.push(Point::new(
                x.parse().unwrap(),
                y.parse().unwrap(),
                z.parse().unwrap(),
            )),
            ["f", a, b, c] => faces.push([a, b, c].map(|i| i.parse::<u32>().unwrap() - 1)),
            _ => {}
        }
    }
    (vertices, faces)
}

// ---------------------------------------------------------------------------
// Writers, independent of the crate's readers.

fn write_obj(mesh: &TriMesh) -> String {
    let mut out = String::from("# written by mesh_io.rs\n");
    for v in mesh.vertices() {
        out += &format!("v {:?} {:?} {:?}\n", v.x, v.y, v.z);
    }
    for [a, b, c] in mesh.indices() {
        out += &format!("f {} {} {}\n", a + 1, b + 1, c + 1);
    }
    out
}

fn write_stl_ascii(mesh: &TriMesh, uppercase: bool) -> String {
    let mut out = String::from("solid written by mesh_io.rs\n");
    for t in mesh.triangles() {
        out += "  facet normal 0 0 0\n    outer loop\n";
        for p in t.vertices() {
            out += &format!("      vertex {:e} {:e} {:e}\n", p.x, p.y, p.z);
        }
        out += "    endloop\n  endfacet\n";
    }
    out += "endsolid written by mesh_io.rs\n";
    if uppercase { out.to_uppercase() } else { out }
}

fn write_stl_binary(mesh: &TriMesh, header: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; 80];
    out[..header.len()].copy_from_slice(header);
    out.extend_from_slice(&(mesh.len() as u32).to_le_bytes());
    for t in mesh.triangles() {
        out.extend_from_slice(&[0u8; 12]);
        for p in t.vertices() {
            for c in [p.x, p.y, p.z] {
                out.extend_from_slice(&c.to_le_bytes());
            }
        }
        out.extend_from_slice(&[0u8; 2]);
    }
    out
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum PlyEncoding {
    Ascii,
    LittleEndian,
    BigEndian,
}

#[derive(Clone, Copy, Debug)]
struct PlyOptions {
    encoding: PlyEncoding,
    /// `float` or `double` coordinates.
    coordinate: &'static str,
    /// Type of the face list length.
    length: &'static str,
    /// Type of the face list items.
    index: &'static str,
}

const PLY_LITTLE: PlyOptions = PlyOptions {
    encoding: PlyEncoding::LittleEndian,
    coordinate: "float",
    length: "uchar",
    index: "int",
};

/// Appends `value` as PLY type `ty`.
fn put(out: &mut Vec<u8>, encoding: PlyEncoding, ty: &str, value: f64) {
    let mut bytes: Vec<u8> = match ty {
        "char" => (value as i8).to_le_bytes().to_vec(),
        "uchar" => (value as u8).to_le_bytes().to_vec(),
        "short" => (value as i16).to_le_bytes().to_vec(),
        "ushort" => (value as u16).to_le_bytes().to_vec(),
        "int" => (value as i32).to_le_bytes().to_vec(),
        "uint" => (value as u32).to_le_bytes().to_vec(),
        "float" => (value as f32).to_le_bytes().to_vec(),
        "double" => value.to_le_bytes().to_vec(),
        _ => unreachable!("type {ty}"),
    };
    match encoding {
        PlyEncoding::Ascii => {
            let text = match ty {
                "float" => format!("{:?} ", value as f32),
                "double" => format!("{value:?} "),
                _ => format!("{value} "),
            };
            out.extend_from_slice(text.as_bytes());
        }
        PlyEncoding::LittleEndian => out.extend_from_slice(&bytes),
        PlyEncoding::BigEndian => {
            bytes.reverse();
            out.extend_from_slice(&bytes);
        }
    }
}

/// A PLY file with extra vertex properties (a scalar and a list), an extra
/// element between vertices and faces, and extra face properties around the
/// index list, all of which the reader must skip.
fn write_ply(vertices: &[Point], faces: &[Vec<u32>], options: PlyOptions) -> Vec<u8> {
    let format = match options.encoding {
        PlyEncoding::Ascii => "ascii",
        PlyEncoding::LittleEndian => "binary_little_endian",
        PlyEncoding::BigEndian => "binary_big_endian",
    };
    let c = options.coordinate;
    let mut out = format!(
        "ply\nformat {format} 1.0\ncomment written by mesh_io.rs\n\
         element vertex {}\nproperty {c} x\nproperty uchar red\nproperty {c} y\nproperty {c} z\n\
         property list uchar short junk\n\
         element edge 1\nproperty int vertex1\nproperty int vertex2\n\
         element face {}\nproperty uchar flags\nproperty list {} {} vertex_indices\nproperty float quality\n\
         end_header\n",
        vertices.len(),
        faces.len(),
        options.length,
        options.index,
    )
    .into_bytes();
    let e = options.encoding;
    let line_end = |out: &mut Vec<u8>| {
        if e == PlyEncoding::Ascii {
            out.push(b'\n');
        }
    };
    for (i, v) in vertices.iter().enumerate() {
        let coordinate = |out: &mut Vec<u8>, value: f32| put(out, e, c, f64::from(value));
        coordinate(&mut out, v.x);
        put(&mut out, e, "uchar", (i % 256) as f64);
        coordinate(&mut out, v.y);
        coordinate(&mut out, v.z);
        put(&mut out, e, "uchar", (i % 3) as f64);
        for k in 0..i % 3 {
            put(&mut out, e, "short", -(k as f64));
        }
        line_end(&mut out);
    }
    put(&mut out, e, "int", 0.0);
    put(&mut out, e, "int", 1.0);
    line_end(&mut out);
    for (i, face) in faces.iter().enumerate() {
        put(&mut out, e, "uchar", (i % 7) as f64);
        put(&mut out, e, options.length, face.len() as f64);
        for &index in face {
            put(&mut out, e, options.index, f64::from(index));
        }
        put(&mut out, e, "float", 0.5);
        line_end(&mut out);
    }
    out
}

fn ply_of(mesh: &TriMesh, options: PlyOptions) -> Vec<u8> {
    let faces: Vec<Vec<u32>> = mesh.indices().iter().map(|t| t.to_vec()).collect();
    write_ply(mesh.vertices(), &faces, options)
}

/// A mesh with every vertex used, from the seeded generator.
fn random_mesh(seed: u64, vertices: usize, triangles: usize) -> TriMesh {
    let mut rng = SplitMix(seed);
    let points: Vec<Point> = (0..vertices).map(|_| rng.point(10.0)).collect();
    let mut indices: Vec<[u32; 3]> = (0..triangles)
        .map(|_| std::array::from_fn(|_| (rng.next_u64() % vertices as u64) as u32))
        .collect();
    // Every vertex used: vertex v is corner v % 3 of triangle v / 3.
    assert!(3 * triangles >= vertices);
    for v in 0..vertices {
        indices[v / 3][v % 3] = v as u32;
    }
    TriMesh::new(points, indices).unwrap()
}

// ---------------------------------------------------------------------------
// The real meshes.

#[test]
fn bunny_obj_loads_with_readme_counts_and_exact_coordinates() {
    let path = data("bunny.obj");
    let mesh = TriMesh::load(&path).unwrap();
    assert_eq!((mesh.vertices().len(), mesh.len()), (1839, 3674));
    let (vertices, faces) = naive_obj(&std::fs::read_to_string(&path).unwrap());
    assert_same_mesh(&mesh, &TriMesh::new(vertices, faces).unwrap());
    // Closed and outward-oriented: positive signed volume (divergence theorem).
    let volume: f64 = mesh
        .triangles()
        .map(|t| {
            let [a, b, c] = t.vertices().map(|p| p.coords.cast::<f64>());
            a.dot(&b.cross(&c)) / 6.0
        })
        .sum();
    assert!(volume > 0.0, "signed volume {volume}");
}

#[test]
fn fcl_meshes_load_skipping_their_count_line() {
    for (name, vertex_count, triangle_count) in [("env.obj", 6540, 2180), ("rob.obj", 648, 216)] {
        let path = data(name);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with(&format!("{vertex_count} {triangle_count}\r\n")));
        let mesh = TriMesh::load(&path).unwrap();
        assert_eq!(
            (mesh.vertices().len(), mesh.len()),
            (vertex_count, triangle_count),
            "{name}"
        );
        let (vertices, faces) = naive_obj(&text);
        assert_same_mesh(&mesh, &TriMesh::new(vertices, faces).unwrap());
    }
}

#[test]
fn real_meshes_round_trip_through_every_format() {
    for name in ["bunny.obj", "env.obj", "rob.obj"] {
        let mesh = TriMesh::load(data(name)).unwrap();
        let obj = TriMesh::from_obj_str(name, &write_obj(&mesh)).unwrap();
        assert_same_mesh(&obj, &mesh);
        for bytes in [
            write_stl_binary(&mesh, b"solid trap"),
            write_stl_ascii(&mesh, false).into_bytes(),
        ] {
            let stl = TriMesh::from_stl_bytes(name, &bytes).unwrap();
            assert_same_triangles(&stl, &mesh);
            assert_welded(&stl, &mesh);
        }
        let ply = TriMesh::from_ply_bytes(name, &ply_of(&mesh, PLY_LITTLE)).unwrap();
        assert_same_mesh(&ply, &mesh);
    }
}

#[test]
fn welding_shares_the_soup_corners_of_env() {
    let mesh = TriMesh::load(data("env.obj")).unwrap();
    let stl = TriMesh::from_stl_bytes("env.stl", &write_stl_binary(&mesh, b"")).unwrap();
    assert!(stl.vertices().len() < mesh.vertices().len());
    assert_welded(&stl, &mesh);
}

// ---------------------------------------------------------------------------
// Round trips of random meshes, bit for bit.

fn finite_coordinate() -> impl Strategy<Value = f32> {
    prop_oneof![
        3 => -1e3f32..1e3,
        1 => prop::num::f32::NORMAL | prop::num::f32::SUBNORMAL | prop::num::f32::ZERO,
        1 => prop::sample::select(vec![0.0, -0.0, 1e6, -1e6, 1e-6, f32::MAX, f32::MIN, f32::MIN_POSITIVE]),
    ]
}

fn mesh_strategy() -> impl Strategy<Value = TriMesh> {
    prop::collection::vec(
        (
            finite_coordinate(),
            finite_coordinate(),
            finite_coordinate(),
        )
            .prop_map(|(x, y, z)| Point::new(x, y, z)),
        1..24,
    )
    .prop_flat_map(|vertices| {
        let n = vertices.len() as u32;
        (
            Just(vertices),
            prop::collection::vec([0..n, 0..n, 0..n], 1..32),
        )
    })
    .prop_map(|(vertices, indices)| TriMesh::new(vertices, indices).unwrap())
}

fn ply_options() -> impl Strategy<Value = PlyOptions> {
    (
        prop::sample::select(vec![
            PlyEncoding::Ascii,
            PlyEncoding::LittleEndian,
            PlyEncoding::BigEndian,
        ]),
        prop::sample::select(vec!["float", "double"]),
        prop::sample::select(vec!["uchar", "ushort", "int", "uint"]),
        prop::sample::select(vec!["ushort", "int", "uint"]),
    )
        .prop_map(|(encoding, coordinate, length, index)| PlyOptions {
            encoding,
            coordinate,
            length,
            index,
        })
}

proptest! {
    #[test]
    fn obj_round_trip_is_exact(mesh in mesh_strategy()) {
        let read = TriMesh::from_obj_str("random.obj", &write_obj(&mesh)).unwrap();
        assert_same_mesh(&read, &mesh);
    }

    #[test]
    fn stl_round_trip_keeps_triangles_and_welds_equal_corners(mesh in mesh_strategy(), uppercase: bool) {
        for bytes in [
            write_stl_binary(&mesh, b""),
            write_stl_binary(&mesh, b"solid binary file whose header looks like ASCII"),
            write_stl_ascii(&mesh, uppercase).into_bytes(),
        ] {
            let read = TriMesh::from_stl_bytes("random.stl", &bytes).unwrap();
            assert_same_triangles(&read, &mesh);
            assert_welded(&read, &mesh);
        }
    }

    #[test]
    fn ply_round_trip_is_exact(mesh in mesh_strategy(), options in ply_options()) {
        let read = TriMesh::from_ply_bytes("random.ply", &ply_of(&mesh, options)).unwrap();
        assert_same_mesh(&read, &mesh);
    }

    #[test]
    fn sniffing_finds_every_format(mesh in mesh_strategy(), options in ply_options()) {
        let files = [
            (write_obj(&mesh).into_bytes(), MeshFormat::Obj),
            (write_stl_binary(&mesh, b"solid"), MeshFormat::Stl),
            (write_stl_ascii(&mesh, false).into_bytes(), MeshFormat::Stl),
            (ply_of(&mesh, options), MeshFormat::Ply),
        ];
        for (bytes, format) in files {
            prop_assert_eq!(MeshFormat::sniff(&bytes), Some(format));
            let read = TriMesh::from_bytes("no_extension", &bytes).unwrap();
            assert_same_triangles(&read, &mesh);
        }
    }
}

// ---------------------------------------------------------------------------
// OBJ features.

const TRIANGLE: &str = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";

fn obj(text: &str) -> Result<TriMesh, MeshError> {
    TriMesh::from_obj_str("test.obj", text)
}

#[test]
fn obj_polygons_are_fan_triangulated_from_the_first_corner() {
    let mesh =
        obj("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv -1 1 0\nf 1 2 3 4 5\nf 1 2 3 4\n").unwrap();
    assert_eq!(
        mesh.indices(),
        &[[0, 1, 2], [0, 2, 3], [0, 3, 4], [0, 1, 2], [0, 2, 3]]
    );
}

#[test]
fn obj_non_convex_polygon_fan_is_the_documented_limitation() {
    // An arrowhead (tip (0,0), notch at the reflex corner (1,0)), area 1 by
    // the shoelace formula. The fan from its first corner (2,-1) makes the
    // notch a triangle outside the polygon, wound backwards: areas 1 + 2 = 3.
    let mesh = obj("v 0 0 0\nv 2 -1 0\nv 1 0 0\nv 2 1 0\nf 2 3 4 1\n").unwrap();
    assert_eq!(mesh.indices(), &[[1, 2, 3], [1, 3, 0]]);
    let areas: Vec<f32> = mesh.triangles().map(|t| t.area()).collect();
    assert_eq!(areas, [1.0, 2.0]);
    let [notch, rest] = [0, 1].map(|i| mesh.triangles().nth(i).unwrap().scaled_normal().z);
    assert!(notch < 0.0 && rest > 0.0, "{notch} {rest}");
}

#[test]
fn obj_reads_every_face_corner_form_and_relative_indices() {
    let text = format!(
        "{TRIANGLE}v 1 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nvn 0 0 1\n\
         f 1/1/1 2/2/1 3/3/1\nf 1//1 2//1 4//1\nf 1/1 3/2 4/3\nf -4 -3 -2\nf -1 -3 -2\n"
    );
    let mesh = obj(&text).unwrap();
    assert_eq!(
        mesh.indices(),
        &[[0, 1, 2], [0, 1, 3], [0, 2, 3], [0, 1, 2], [3, 1, 2]]
    );
}

#[test]
fn obj_ignores_comments_blank_lines_and_non_geometry_statements() {
    let text = "# comment\n\nmtllib a.mtl\no thing\ng group\ns 1\nusemtl red\n\
                v 0 0 0 # trailing comment\nv 1 0 0 1.0\nv 0 1 0 0.5 0.5 0.5\nvp 0.5\n\
                l 1 2\np 1\n   \t\nf 1 2 3\n";
    let mesh = obj(text).unwrap();
    assert_eq!(mesh.vertices()[1], Point::new(1.0, 0.0, 0.0));
    assert_eq!(mesh.indices(), &[[0, 1, 2]]);
}

#[test]
fn obj_tolerates_crlf_continuations_and_non_utf8_comments() {
    let mut bytes =
        b"# caf\xe9 \xff\r\nv 0 0 0\r\nv 1 \\\r\n 0 0\r\nv 0 1 0\r\nf 1 2 \\\n 3\r\n".to_vec();
    let mesh = TriMesh::from_obj_bytes("test.obj", &bytes).unwrap();
    assert_eq!(mesh.indices(), &[[0, 1, 2]]);
    // After a continuation, errors still name the line the statement starts on.
    bytes.extend_from_slice(b"f 1 \\\n 2\n");
    assert_error(
        TriMesh::from_obj_bytes("test.obj", &bytes),
        "test.obj",
        Some(8),
        "face has 2 vertices",
    );
}

#[test]
fn obj_count_line_is_skipped_only_as_the_first_statement() {
    let mesh = obj(&format!("# counts\n3 1\n{TRIANGLE}f 1 2 3\n")).unwrap();
    assert_eq!(mesh.len(), 1);
    assert_error(
        obj(&format!("{TRIANGLE}3 1\nf 1 2 3\n")),
        "test.obj",
        Some(4),
        "unknown statement \"3\"",
    );
}

#[test]
fn obj_bad_number_names_file_and_line() {
    let err = obj("v 0 0 0\nv 1.2.3 0 0\n").unwrap_err();
    assert_eq!(err.to_string(), "test.obj:2: bad number \"1.2.3\"");
}

#[test]
fn obj_face_index_out_of_range_names_file_and_line() {
    let err = obj(&format!("{TRIANGLE}f 1 2 4\n")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "test.obj:4: face refers to vertex 4 but only 3 vertices are defined so far"
    );
    assert_error(
        obj(&format!("{TRIANGLE}f -1 -2 -4\n")),
        "test.obj",
        Some(4),
        "vertex -4 but only 3",
    );
    // Forward references are rejected: vertices must come before their faces.
    assert_error(
        obj(&format!("f 1 2 3\n{TRIANGLE}")),
        "test.obj",
        Some(1),
        "only 0 vertices",
    );
    assert_error(
        obj(&format!("{TRIANGLE}f 1 2 99999999999999999999\n")),
        "test.obj",
        Some(4),
        "bad vertex index",
    );
}

#[test]
fn obj_index_zero_is_an_error() {
    assert_error(
        obj(&format!("{TRIANGLE}f 0 1 2\n")),
        "test.obj",
        Some(4),
        "index 0 is invalid",
    );
}

#[test]
fn obj_too_few_face_indices_is_an_error() {
    assert_error(
        obj(&format!("{TRIANGLE}\n\nf 1 2\n")),
        "test.obj",
        Some(6),
        "face has 2 vertices; at least 3",
    );
    assert_error(
        obj(&format!("{TRIANGLE}f\n")),
        "test.obj",
        Some(4),
        "face has 0 vertices",
    );
    assert_error(
        obj(&format!("{TRIANGLE}f 1 //2 3\n")),
        "test.obj",
        Some(4),
        "no vertex index",
    );
}

#[test]
fn obj_vertex_errors_name_the_line() {
    assert_error(
        obj("v 0 0\n"),
        "test.obj",
        Some(1),
        "vertex needs 3 coordinates, found 2",
    );
    assert_error(
        obj("v 0 0 0\nv nan 0 0\n"),
        "test.obj",
        Some(2),
        "\"nan\" is not a finite f32",
    );
    assert_error(
        obj("v 0 0 0\nv 0 1e39 0\n"),
        "test.obj",
        Some(2),
        "\"1e39\" is not a finite f32",
    );
    assert_error(obj("v 0 0 0 w\n"), "test.obj", Some(1), "bad number \"w\"");
    let bytes = b"v 0 0 0\nv 0 \xff 0\n";
    assert_error(
        TriMesh::from_obj_bytes("test.obj", bytes),
        "test.obj",
        Some(2),
        "bad number \"\u{fffd}\"",
    );
}

#[test]
fn obj_unknown_statement_and_empty_files_are_errors() {
    assert_error(
        obj("hello world\n"),
        "test.obj",
        Some(1),
        "unknown statement \"hello\"",
    );
    assert_error(obj(""), "test.obj", None, "no triangles");
    assert_error(obj(TRIANGLE), "test.obj", None, "no triangles");
}

// ---------------------------------------------------------------------------
// STL.

#[test]
fn stl_ascii_tolerates_nan_normals_case_and_several_solids() {
    let facet = "facet normal nan -nan nan\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\n";
    let text = format!(
        "  SOLID a\n{}endsolid a\nsolid b\n{facet}endsolid\n",
        facet.to_uppercase()
    );
    let mesh = TriMesh::from_stl_bytes("test.stl", text.as_bytes()).unwrap();
    assert_eq!(mesh.indices(), &[[0, 1, 2], [0, 1, 2]]);
}

#[test]
fn stl_ascii_on_one_line_and_names_with_spaces_load() {
    let facet =
        "facet normal 0 0 1 outer loop vertex 0 0 0 vertex 1 0 0 vertex 0 1 0 endloop endfacet";
    for text in [
        format!("solid x {facet} endsolid x\n"),
        format!("solid {facet} endsolid\n"),
        // Names are the rest of their line, keywords and all, unless a
        // facet ends on that line.
        format!("solid a part named facet\n{facet}\nendsolid a part named facet\n"),
        format!("solid facet normal map\n{facet}\nendsolid\n"),
        format!("solid Facet Normal test\n{facet}\nendsolid\n"),
        format!("solid part endsolid copy\n{facet}\nendsolid\n"),
    ] {
        let mesh = TriMesh::from_stl_bytes("test.stl", text.as_bytes())
            .unwrap_or_else(|e| panic!("{text:?}: {e}"));
        assert_eq!(mesh.indices(), &[[0, 1, 2]], "{text:?}");
    }
    // Two solids on one line: both are read.
    let two = format!("solid a {facet} endsolid a solid b {facet} endsolid b\n");
    let mesh = TriMesh::from_stl_bytes("test.stl", two.as_bytes()).unwrap();
    assert_eq!(mesh.len(), 2);
    // An empty solid on one line has no triangles, which a mesh needs.
    assert!(TriMesh::from_stl_bytes("test.stl", b"solid x endsolid x\n").is_err());
}

#[test]
fn obj_with_a_byte_order_mark_loads() {
    let text = b"\xEF\xBB\xBFv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    let mesh = TriMesh::from_obj_bytes("bom.obj", text).unwrap();
    assert_eq!(mesh.indices(), &[[0, 1, 2]]);
}

#[test]
fn stl_ascii_errors_name_the_line() {
    let stl = |text: &str| TriMesh::from_stl_bytes("test.stl", text.as_bytes());
    let head = "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n";
    assert_error(
        stl(&format!("{head}vertex 0 1.2.3 0\n")),
        "test.stl",
        Some(6),
        "bad number \"1.2.3\"",
    );
    assert_error(
        stl(&format!("{head}vertex 0 inf 0\n")),
        "test.stl",
        Some(6),
        "not a finite f32",
    );
    assert_error(
        stl(&format!("{head}vertex 0 1 0\nvertex 1 1 0\nendloop\n")),
        "test.stl",
        Some(7),
        "expected \"endloop\", found \"vertex\"",
    );
    assert_error(
        stl(&format!("{head}vertex 0 1 0\nendloop\nendfacet\n")),
        "test.stl",
        Some(8),
        "unexpected end of file, expected \"facet\" or \"endsolid\"",
    );
    assert_error(
        stl(&format!("{head}vertex 0 1")),
        "test.stl",
        Some(6),
        "end of file, expected a number",
    );
    assert_error(
        stl("solid x\nendsolid x\n"),
        "test.stl",
        None,
        "no triangles",
    );
    // A NUL byte in text (long enough to be more than a binary header)
    // names its line, rather than reading the file as a binary STL; also
    // when the solid's name is not ASCII.
    let text = format!("{head}vertex 0 1 0\nendloop\nendfacet\nendsolid x\n");
    for text in [text.clone(), text.replacen("solid x", "solid é", 1)] {
        let mut bytes = text.into_bytes();
        bytes.insert(bytes.len() - 20, 0);
        assert_error(
            TriMesh::from_stl_bytes("test.stl", &bytes),
            "test.stl",
            Some(8),
            "a NUL byte in ASCII STL text",
        );
    }
    let bytes = b"solid x\n\xff\n";
    assert_error(
        TriMesh::from_stl_bytes("test.stl", bytes),
        "test.stl",
        Some(2),
        "expected \"facet\" or \"endsolid\", found \"\u{fffd}\"",
    );
}

#[test]
fn stl_binary_starting_with_solid_is_read_as_binary() {
    let mesh = random_mesh(7, 10, 12);
    let bytes = write_stl_binary(&mesh, b"solid this header lies");
    let read = TriMesh::from_stl_bytes("test.stl", &bytes).unwrap();
    assert_same_triangles(&read, &mesh);
}

#[test]
fn stl_truncated_binary_is_an_error_naming_both_lengths() {
    let bytes = write_stl_binary(&random_mesh(1, 10, 12), b"");
    assert_eq!(bytes.len(), 84 + 50 * 12);
    for cut in [1, 49, 50, 51, 600] {
        let truncated = &bytes[..bytes.len() - cut];
        assert_error(
            TriMesh::from_stl_bytes("cut.stl", truncated),
            "cut.stl",
            None,
            &format!(
                "claims 12 triangles, which take 684 bytes, but the file has {}",
                684 - cut
            ),
        );
    }
    // Still a count mismatch, not an ASCII parse, when the header says "solid".
    let bytes = write_stl_binary(&random_mesh(1, 10, 12), b"solid");
    assert_error(
        TriMesh::from_stl_bytes("cut.stl", &bytes[..683]),
        "cut.stl",
        None,
        "claims 12 triangles",
    );
    assert_error(
        TriMesh::from_stl_bytes("short.stl", b"\x00\x01"),
        "short.stl",
        None,
        "too short",
    );
}

#[test]
fn stl_lying_triangle_count_fails_fast_without_allocating() {
    let mut bytes = vec![0u8; 100];
    bytes[80..84].copy_from_slice(&u32::MAX.to_le_bytes());
    let result = watch(|| TriMesh::from_stl_bytes("liar.stl", &bytes)).cheap("liar.stl");
    assert_error(result, "liar.stl", None, "claims 4294967295 triangles");
}

#[test]
fn stl_binary_non_finite_corner_names_the_triangle() {
    let mut bytes = write_stl_binary(&random_mesh(3, 10, 12), b"");
    let at = 84 + 50 * 5 + 12 + 12 + 4;
    bytes[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    assert_error(
        TriMesh::from_stl_bytes("nan.stl", &bytes),
        "nan.stl",
        None,
        "triangle 5, corner 1: non-finite",
    );
}

// ---------------------------------------------------------------------------
// PLY.

fn ply(text: &[u8]) -> Result<TriMesh, MeshError> {
    TriMesh::from_ply_bytes("test.ply", text)
}

const PLY_ASCII_HEAD: &str = "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\nproperty float z\n\
                              element face 2\nproperty list uchar int vertex_indices\nend_header\n";

#[test]
fn ply_polygons_are_fanned_and_elements_may_come_in_any_order() {
    let faces = vec![vec![0, 1, 2, 3], vec![3, 2, 1]];
    let vertices = [
        Point::new(0.0, 0.0, 0.0),
        Point::new(1.0, 0.0, 0.0),
        Point::new(1.0, 1.0, 0.0),
        Point::new(0.0, 1.0, 0.0),
    ];
    let mesh = ply(&write_ply(&vertices, &faces, PLY_LITTLE)).unwrap();
    assert_eq!(mesh.indices(), &[[0, 1, 2], [0, 2, 3], [3, 2, 1]]);
    // Faces before vertices, `vertex_index`, int8 lengths, CRLF header.
    let text = "ply\r\nformat ascii 1.0\r\nelement face 1\r\nproperty list char uint vertex_index\r\n\
                element vertex 3\r\nproperty double z\r\nproperty double y\r\nproperty double x\r\nend_header\r\n\
                3 0 1 2\r\n0 0 0\r\n0 0 1\r\n0 1 0\r\n";
    let mesh = ply(text.as_bytes()).unwrap();
    assert_eq!(
        mesh.vertices(),
        &[
            Point::new(0.0, 0.0, 0.0),
            Point::new(1.0, 0.0, 0.0),
            Point::new(0.0, 1.0, 0.0)
        ]
    );
}

#[test]
fn ply_ascii_errors_name_the_line() {
    let body = "0 0 0\n1 0 0\n1 1 0\n0 1 0\n";
    let ok = format!("{PLY_ASCII_HEAD}{body}3 0 1 2\n3 0 2 3\n");
    assert_eq!(ply(ok.as_bytes()).unwrap().len(), 2);
    let with = |tail: &str| {
        ply(format!("{PLY_ASCII_HEAD}{body}{tail}")
            .into_bytes()
            .as_slice())
    };
    assert_error(
        with("3 0 1 2\n3 0 2 4\n"),
        "test.ply",
        Some(15),
        "face 1: face refers to vertex 4 but the file has 4",
    );
    // One item per line: a body read as a token stream loaded these with
    // every later value shifted.
    let shifted = |body: &str| ply(format!("{PLY_ASCII_HEAD}{body}").as_bytes());
    assert_error(
        shifted("0 0\n1 0 0 0\n1 1 0\n0 1 0\n3 0 1 2\n3 0 2 3\n"),
        "test.ply",
        Some(11),
        "vertex 0: line 10 ends before the item does (it goes on on line 11)",
    );
    assert_error(
        shifted("0 0 0 1\n0 0 1 1\n0 0 1 0\n3 0 1 2\n3 0 2 3\n"),
        "test.ply",
        Some(10),
        "vertex 1: line 10 holds more values than one item has",
    );
    assert_error(
        shifted("0 0 0\n1 0 0\n1 1 0\n0 1 0\n3 0 1 2 3 0 2 3\n"),
        "test.ply",
        Some(14),
        "face 1: line 14 holds more values than one item has",
    );
    assert_error(
        with("3 0 1 2\n3 0 -2 3\n"),
        "test.ply",
        Some(15),
        "face 1: negative vertex index -2",
    );
    assert_error(
        with("3 0 1 2\n2 0 2\n"),
        "test.ply",
        Some(15),
        "face 1: the face has 2 vertices",
    );
    assert_error(
        with("3 0 1 2\n3 0 1.5 2\n"),
        "test.ply",
        Some(15),
        "bad integer \"1.5\"",
    );
    assert_error(
        with("3 0 1 2\n256 0 1 2\n"),
        "test.ply",
        Some(15),
        "256 is out of range for uchar",
    );
    assert_error(
        with("3 0 1 2\n3 0 1\n\n"),
        "test.ply",
        Some(15),
        "unexpected end of file",
    );
    assert_error(
        with("3 0 1 2\n3 0 1 2\n7\n"),
        "test.ply",
        Some(16),
        "unexpected \"7\" after the last element",
    );
    // Bytes that are not UTF-8: tolerated in a header comment, an error in a number.
    let (head, tail) = PLY_ASCII_HEAD.split_at(PLY_ASCII_HEAD.find("end_header").unwrap());
    let latin1 = [
        head.as_bytes(),
        b"comment caf\xe9\n",
        tail.as_bytes(),
        body.as_bytes(),
    ]
    .concat();
    assert_eq!(
        ply(&[&latin1[..], b"3 0 1 2\n3 0 2 3\n"].concat())
            .unwrap()
            .len(),
        2
    );
    assert_error(
        ply(&[&latin1[..], b"3 0 1 2\n3 0 \xff 3\n"].concat()),
        "test.ply",
        Some(16),
        "bad integer \"\u{fffd}\"",
    );
    let bad_vertex = format!("{PLY_ASCII_HEAD}0 0 0\n1 x 0\n1 1 0\n0 1 0\n3 0 1 2\n3 0 2 3\n");
    assert_error(
        ply(bad_vertex.as_bytes()),
        "test.ply",
        Some(11),
        "vertex 1: bad number \"x\"",
    );
    let nan_vertex = format!("{PLY_ASCII_HEAD}0 0 0\n1 nan 0\n1 1 0\n0 1 0\n3 0 1 2\n3 0 2 3\n");
    assert_error(
        ply(nan_vertex.as_bytes()),
        "test.ply",
        Some(11),
        "vertex 1: non-finite coordinate",
    );
}

#[test]
fn ply_header_errors_name_the_line() {
    let replace = |from: &str, to: &str| ply(PLY_ASCII_HEAD.replacen(from, to, 1).as_bytes());
    // Faces without vertices: named at the face element's line.
    assert_error(
        ply(b"ply\nformat ascii 1.0\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n3 0 1 2\n"),
        "test.ply",
        Some(3),
        "the file has faces but no vertex element",
    );
    assert_error(
        replace("ascii", "binary_middle_endian"),
        "test.ply",
        Some(2),
        "unknown PLY format \"binary_middle_endian\"",
    );
    assert_error(
        replace("ply\n", "plyx\n"),
        "test.ply",
        Some(1),
        "not a PLY file",
    );
    assert_error(
        replace("float y", "float128 y"),
        "test.ply",
        Some(5),
        "unknown property type \"float128\"",
    );
    assert_error(
        replace("property float z\n", ""),
        "test.ply",
        Some(3),
        "no \"z\" property",
    );
    assert_error(
        replace("vertex_indices", "corners"),
        "test.ply",
        Some(7),
        "no \"vertex_indices\" list",
    );
    assert_error(
        replace("uchar int", "uchar float"),
        "test.ply",
        Some(7),
        "list of an integer type",
    );
    assert_error(
        replace("list uchar", "list float"),
        "test.ply",
        Some(8),
        "length type must be an integer",
    );
    assert_error(
        replace("end_header\n", ""),
        "test.ply",
        Some(8),
        "without an \"end_header\"",
    );
    assert_error(
        replace("format ascii 1.0\n", ""),
        "test.ply",
        Some(8),
        "no \"format\" line",
    );
    assert_error(
        replace("element vertex 4\n", ""),
        "test.ply",
        Some(3),
        "a property before any element",
    );
    assert_error(
        replace("vertex 4", "vertex -4"),
        "test.ply",
        Some(3),
        "bad element count \"-4\"",
    );
    assert_error(
        replace("end_header", "end_header please"),
        "test.ply",
        Some(9),
        "unexpected header line",
    );
}

#[test]
fn ply_huge_vertex_count_with_little_data_fails_fast_without_allocating() {
    for format in ["binary_little_endian", "binary_big_endian", "ascii"] {
        let mut bytes = format!(
            "ply\nformat {format} 1.0\nelement vertex 4000000000\nproperty float x\nproperty float y\nproperty float z\n\
             element face 1\nproperty list uchar int vertex_indices\nend_header\n"
        )
        .into_bytes();
        bytes.extend_from_slice(&[0; 40]);
        let result = watch(|| ply(&bytes)).cheap(format);
        assert_error(
            result,
            "test.ply",
            Some(3),
            "4000000000 \"vertex\" items need at least",
        );
    }
}

#[test]
fn ply_other_versions_and_repeated_properties_are_refused_by_line() {
    let body = "element vertex 3\nproperty float x\nproperty float y\nproperty float z\n\
                element face 1\nproperty list uchar int vertex_indices\nend_header\n\
                0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n";
    assert!(ply(format!("ply\nformat ascii 1\n{body}").as_bytes()).is_ok());
    assert_error(
        ply(format!("ply\nformat ascii 2.0\n{body}").as_bytes()),
        "test.ply",
        Some(2),
        "PLY version \"2.0\"",
    );
    let repeated = format!(
        "ply\nformat ascii 1.0\n{}",
        body.replace("property float z\n", "property float z\nproperty float x\n")
            .replace("0 0 0\n1 0 0\n0 1 0\n", "0 0 0 0\n1 0 0 1\n0 1 0 0\n")
    );
    assert_error(
        ply(repeated.as_bytes()),
        "test.ply",
        Some(7),
        "a second property \"x\" in element \"vertex\"",
    );
}

#[test]
fn ply_face_counts_of_empty_lists_reserve_no_more_than_the_file_can_fill() {
    // Every face's list is empty (one byte, or one token): the header's
    // count is then as large as the body allows, but faces of fewer than
    // three corners make no triangle, so nothing may be reserved for them
    // beyond what a body of real triangles could fill: a binary face of
    // three one-byte corners (4 bytes) becomes one 12-byte triangle, so 3
    // times the file at most (a reservation of 12 bytes per claimed face
    // was 12 times the file).
    const FACES: usize = 200_000;
    for format in ["binary_little_endian", "ascii"] {
        let mut bytes = format!(
            "ply\nformat {format} 1.0\nelement vertex 0\nproperty uchar x\nproperty uchar y\n\
             property uchar z\nelement face {FACES}\nproperty list uchar uchar vertex_indices\nend_header\n"
        )
        .into_bytes();
        if format == "ascii" {
            bytes.extend(std::iter::repeat_n(*b"0\n", FACES).flatten());
        } else {
            bytes.resize(bytes.len() + FACES, 0);
        }
        let watched = watch(|| ply(&bytes));
        assert!(
            watched.largest_allocation <= 3 * bytes.len(),
            "{format}: {} bytes allocated for a file of {}",
            watched.largest_allocation,
            bytes.len()
        );
        let line = (format == "ascii").then_some(10);
        assert_error(
            watched.result,
            "test.ply",
            line,
            "face 0: the face has 0 vertices",
        );
    }
}

#[test]
fn ply_huge_list_length_fails_fast_without_allocating() {
    let mut bytes = b"ply\nformat binary_big_endian 1.0\nelement vertex 3\nproperty float x\nproperty float y\n\
                      property float z\nelement face 1\nproperty list uint int vertex_indices\nend_header\n"
        .to_vec();
    bytes.extend_from_slice(&[0; 36]);
    bytes.extend_from_slice(&u32::MAX.to_be_bytes());
    bytes.extend_from_slice(&[0; 12]);
    let result = watch(|| ply(&bytes)).cheap("huge list length");
    assert_error(
        result,
        "test.ply",
        None,
        "face 0: a list of 4294967295 items runs past the end",
    );
}

#[test]
fn ply_binary_errors_name_the_item_and_byte() {
    let mesh = random_mesh(5, 6, 8);
    let bytes = ply_of(&mesh, PLY_LITTLE);
    let (_, line, message) = file_error(ply(&bytes[..bytes.len() - 3]));
    assert_eq!(line, None);
    assert!(
        message.starts_with("face 7: unexpected end of file (at byte"),
        "{message}"
    );
    let mut longer = bytes.clone();
    longer.push(0);
    assert_error(
        ply(&longer),
        "test.ply",
        None,
        "1 bytes left over after the last element",
    );
}

/// A binary body's errors name the byte where the offending value
/// starts, not where its item ends: a NaN `x`, an index out of range, a
/// short face's list length.
#[test]
fn ply_binary_errors_name_the_offending_value_s_byte() {
    let head = b"ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n\
                 property uchar red\nproperty uchar green\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n";
    let vertex = |v: [f32; 3]| -> Vec<u8> {
        let mut out: Vec<u8> = v.iter().flat_map(|c| c.to_le_bytes()).collect();
        out.extend_from_slice(&[7, 9]);
        out
    };
    let body = |second_x: f32, indices: &[i32]| -> Vec<u8> {
        let mut bytes = head.to_vec();
        bytes.extend(vertex([0.0, 0.0, 0.0]));
        bytes.extend(vertex([second_x, 0.0, 0.0]));
        bytes.extend(vertex([0.0, 1.0, 0.0]));
        bytes.push(indices.len() as u8);
        bytes.extend(indices.iter().flat_map(|i| i.to_le_bytes()));
        bytes
    };
    // Vertices take 14 bytes each; vertex 1's `x` starts one vertex in.
    let second_x = head.len() + 14;
    assert_error(
        ply(&body(f32::NAN, &[0, 1, 2])),
        "test.ply",
        None,
        &format!("(at byte {second_x})"),
    );
    let list = head.len() + 3 * 14;
    assert!(ply(&body(1.0, &[0, 1, 2])).is_ok());
    assert_error(
        ply(&body(1.0, &[0, 1, 7])),
        "test.ply",
        None,
        &format!(
            "face 0: face refers to vertex 7 but the file has 3 vertices (at byte {})",
            list + 1 + 8
        ),
    );
    assert_error(
        ply(&body(1.0, &[0, 1])),
        "test.ply",
        None,
        &format!("(at byte {list})"),
    );
}

#[test]
fn ply_without_faces_is_an_empty_mesh_error() {
    let text = "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nend_header\n0 0 0\n";
    assert_error(ply(text.as_bytes()), "test.ply", None, "no triangles");
}

// ---------------------------------------------------------------------------
// Dispatch.

#[test]
fn missing_file_error_names_the_path() {
    let path = data("no_such_mesh.obj");
    let error = TriMesh::load(&path).unwrap_err();
    match &error {
        MeshError::Io { path: got, source } => {
            assert_eq!(got, &path);
            assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        }
        other => panic!("expected an I/O error, got {other:?}"),
    }
    // The operating system's error is kept as the source, not flattened.
    let source = std::error::Error::source(&error).expect("an I/O error has a source");
    assert!(source.downcast_ref::<std::io::Error>().is_some());
    let shown = error.to_string();
    assert!(shown.starts_with(&path.display().to_string()), "{shown}");
    assert!(shown.contains("cannot read the file"), "{shown}");
}

#[test]
fn extension_picks_the_format_in_any_case() {
    assert_eq!(MeshFormat::from_path("a/b.OBJ"), Some(MeshFormat::Obj));
    assert_eq!(MeshFormat::from_path("b.Stl"), Some(MeshFormat::Stl));
    assert_eq!(MeshFormat::from_path("b.pLy"), Some(MeshFormat::Ply));
    assert_eq!(MeshFormat::from_path("b.off"), None);
    assert_eq!(MeshFormat::from_path("obj"), None);
    let mesh = random_mesh(11, 8, 10);
    let dir = std::env::temp_dir().join(format!("boxtree_mesh_io_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let files = [
        ("m.OBJ", write_obj(&mesh).into_bytes()),
        ("m.Stl", write_stl_binary(&mesh, b"solid")),
        ("m.PLY", ply_of(&mesh, PLY_LITTLE)),
        ("m.mesh", ply_of(&mesh, PLY_LITTLE)),
    ];
    for (name, bytes) in files {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        assert_same_triangles(&TriMesh::load(&path).unwrap(), &mesh);
    }
    // The extension wins over the content.
    std::fs::write(dir.join("wrong.obj"), ply_of(&mesh, PLY_LITTLE)).unwrap();
    assert_error(
        TriMesh::load(dir.join("wrong.obj")),
        dir.join("wrong.obj").to_str().unwrap(),
        Some(1),
        "unknown statement \"ply\"",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unrecognisable_content_without_extension_is_an_error() {
    assert_eq!(MeshFormat::sniff(b"\x89PNG\r\n"), None);
    assert_eq!(MeshFormat::sniff(b""), None);
    assert_eq!(MeshFormat::sniff(b"# only a comment\n"), None);
    assert_eq!(
        MeshFormat::sniff(b"6540 2180\r\nv 0 0 0\r\n"),
        Some(MeshFormat::Obj)
    );
    assert_error(
        TriMesh::from_bytes("image", b"\x89PNG\r\n"),
        "image",
        None,
        "unknown mesh format",
    );
}

// ---------------------------------------------------------------------------
// Never panic: random bytes and mutated valid files.

/// Every parser on `bytes`: no panic, and every error names the file.
fn parse_everywhere(bytes: &[u8]) {
    let results = [
        TriMesh::from_obj_bytes("fuzz", bytes),
        TriMesh::from_stl_bytes("fuzz", bytes),
        TriMesh::from_ply_bytes("fuzz", bytes),
        TriMesh::from_bytes("fuzz", bytes),
    ];
    for result in results {
        match result {
            Ok(mesh) => assert!(!mesh.is_empty()),
            Err(MeshError::File { path, .. }) => assert_eq!(path, Path::new("fuzz")),
            Err(other) => panic!("loader error that names no file: {other:?}"),
        }
    }
}

/// Small valid files of every encoding, plus the FCL robot (built once).
fn seed_files() -> &'static [Vec<u8>] {
    static FILES: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    FILES.get_or_init(build_seed_files)
}

fn build_seed_files() -> Vec<Vec<u8>> {
    let mesh = random_mesh(42, 6, 9);
    let mut files = vec![
        write_obj(&mesh).into_bytes(),
        write_stl_ascii(&mesh, false).into_bytes(),
        write_stl_binary(&mesh, b"solid"),
        std::fs::read(data("rob.obj")).unwrap(),
    ];
    for encoding in [
        PlyEncoding::Ascii,
        PlyEncoding::LittleEndian,
        PlyEncoding::BigEndian,
    ] {
        for (length, index) in [("uchar", "int"), ("uint", "ushort")] {
            files.push(ply_of(
                &mesh,
                PlyOptions {
                    encoding,
                    coordinate: "double",
                    length,
                    index,
                },
            ));
        }
    }
    files
}

/// Flips, overwrites, inserts, deletes and truncates bytes at random.
fn mutate(mut bytes: Vec<u8>, seed: u64, edits: usize) -> Vec<u8> {
    let mut rng = SplitMix(seed);
    let interesting = [
        0u8, 1, 0xff, 0x7f, 0x80, b'\n', b' ', b'-', b'/', b'9', b'e',
    ];
    for _ in 0..edits {
        let len = bytes.len().max(1);
        let at = (rng.next_u64() % len as u64) as usize;
        match rng.next_u64() % 6 {
            0 if at < bytes.len() => bytes[at] ^= 1 << (rng.next_u64() % 8),
            1 if at < bytes.len() => {
                bytes[at] = interesting[(rng.next_u64() % interesting.len() as u64) as usize]
            }
            2 => bytes.insert(at.min(bytes.len()), rng.next_u64() as u8),
            3 if at < bytes.len() => {
                let end = (at + (rng.next_u64() % 8) as usize).min(bytes.len());
                bytes.drain(at..end);
            }
            4 => bytes.truncate(at),
            _ if at + 4 <= bytes.len() => {
                // A large number where a count may be.
                bytes[at..at + 4]
                    .copy_from_slice(&(rng.next_u64() as u32 | 0x8000_0000).to_le_bytes());
            }
            _ => {}
        }
    }
    bytes
}

/// Fuzz case count: the default, or 100 000 with `BOXTREE_LONG_TESTS` set.
fn fuzz_config() -> ProptestConfig {
    match std::env::var_os("BOXTREE_LONG_TESTS") {
        Some(_) => ProptestConfig::with_cases(100_000),
        None => ProptestConfig::default(),
    }
}

proptest! {
    #![proptest_config(fuzz_config())]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        parse_everywhere(&bytes);
    }

    #[test]
    fn random_bytes_after_a_valid_header_never_panic(
        header in prop::sample::select(vec![
            "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n\
             element face 2\nproperty list uchar int vertex_indices\nend_header\n",
            "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n\
             element face 2\nproperty list uint uchar vertex_indices\nend_header\n",
            "solid x\nfacet normal 0 0 1\nouter loop\nvertex ",
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nf ",
        ]),
        tail in prop::collection::vec(any::<u8>(), 0..200),
    ) {
        let mut bytes = header.as_bytes().to_vec();
        bytes.extend_from_slice(&tail);
        parse_everywhere(&bytes);
    }

    #[test]
    fn mutated_valid_files_never_panic(which in 0usize..10, seed: u64, edits in 1usize..6) {
        let files = seed_files();
        let original = files[which % files.len()].clone();
        parse_everywhere(&mutate(original, seed, edits));
    }
}

/// `TriMesh::new` checks every coordinate and index in one pass before it
/// looks for the culprit; the error must still name the first one.
#[test]
fn in_memory_meshes_name_the_first_non_finite_vertex_and_out_of_range_index() {
    let vertices: Vec<Point> = (0..50)
        .map(|i| Point::new(i as f32, (i * 7 % 11) as f32, -(i as f32)))
        .collect();
    let indices: Vec<[u32; 3]> = (0..30).map(|t| [t, t + 1, t + 20]).collect();
    // Extreme but finite coordinates are accepted.
    let mut extreme = vertices.clone();
    extreme[3] = Point::new(f32::MAX, -f32::MAX, f32::MIN_POSITIVE / 4.0);
    assert!(TriMesh::new(extreme, indices.clone()).is_ok());
    for vertex in [0, 17, 49] {
        for axis in 0..3 {
            for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
                let mut given = vertices.clone();
                given[vertex][axis] = bad;
                // A later culprit must not be the one reported.
                if vertex + 1 < given.len() {
                    given[vertex + 1][(axis + 1) % 3] = f32::NAN;
                }
                match TriMesh::new(given.clone(), indices.clone()) {
                    Err(MeshError::NonFiniteVertex {
                        vertex: v,
                        position,
                    }) => {
                        assert_eq!(v, vertex);
                        assert_eq!(
                            position.map(f32::to_bits),
                            [0, 1, 2].map(|k| given[vertex][k].to_bits())
                        );
                    }
                    other => panic!("vertex {vertex}, axis {axis}, {bad}: {other:?}"),
                }
                let mut mesh = TriMesh::new(vertices.clone(), indices.clone()).unwrap();
                assert!(matches!(
                    mesh.set_vertices(given),
                    Err(MeshError::NonFiniteVertex { vertex: v, .. }) if v == vertex
                ));
                assert_eq!(
                    mesh.vertices(),
                    &vertices[..],
                    "a rejected update changes nothing"
                );
            }
        }
    }
    let count = vertices.len();
    let mut last_valid = indices.clone();
    last_valid[29] = [0, 1, count as u32 - 1];
    assert!(TriMesh::new(vertices.clone(), last_valid).is_ok());
    for triangle in [0, 13, 29] {
        for corner in 0..3 {
            for bad in [count as u32, count as u32 + 1, u32::MAX] {
                let mut given = indices.clone();
                given[triangle][corner] = bad;
                if triangle + 1 < given.len() {
                    given[triangle + 1][0] = u32::MAX - 1;
                }
                let result = TriMesh::new(vertices.clone(), given);
                assert!(
                    matches!(
                        result,
                        Err(MeshError::IndexOutOfRange { triangle: t, index, vertex_count })
                            if t == triangle && index == bad && vertex_count == count
                    ),
                    "triangle {triangle}, corner {corner}: {result:?}"
                );
            }
        }
    }
}
