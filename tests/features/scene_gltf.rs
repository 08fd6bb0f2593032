//! glTF files as scenes (feature `gltf`): hierarchy, instancing, baked
//! scales, and broken files that must give errors, not panics.

use std::path::PathBuf;

use boxtree::math::Point;
use boxtree::{Filter, GltfError, Scene, Segment};

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(TABLE[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A unit square in the z = 0 plane (two triangles, `u16` indices), as one
/// buffer: 4 positions then 6 indices.
fn square_buffer() -> Vec<u8> {
    let mut bytes = Vec::new();
    for p in [
        [0.0f32, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 1.0, 0.0],
    ] {
        for c in p {
            bytes.extend(c.to_le_bytes());
        }
    }
    for i in [0u16, 1, 2, 0, 2, 3] {
        bytes.extend(i.to_le_bytes());
    }
    bytes
}

/// A glTF document placing the square under `nodes` (JSON array text),
/// with the buffer's declared length `declared`.
fn document(nodes: &str, scene_nodes: &str, declared: usize) -> String {
    let buffer = square_buffer();
    format!(
        r#"{{
  "asset": {{"version": "2.0"}},
  "scene": 0,
  "scenes": [{{"nodes": {scene_nodes}}}],
  "nodes": {nodes},
  "meshes": [{{"name": "square", "primitives": [{{"attributes": {{"POSITION": 0}}, "indices": 1}}]}}],
  "buffers": [{{"byteLength": {declared}, "uri": "data:application/octet-stream;base64,{}"}}],
  "bufferViews": [
    {{"buffer": 0, "byteOffset": 0, "byteLength": 48}},
    {{"buffer": 0, "byteOffset": 48, "byteLength": 12}}
  ],
  "accessors": [
    {{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]}},
    {{"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"}}
  ]
}}"#,
        base64(&buffer)
    )
}

fn write(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gltf");
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("written");
    path
}

#[test]
fn a_hierarchy_places_instances_and_bakes_scales() {
    // Node 0 moves everything up by 10; its children place the square at
    // x = 0 (rigid), at x = 5 turned a half turn about z, and at x = 20
    // scaled by 2 (baked into a copy of the mesh).
    let nodes = r#"[
      {"translation": [0, 0, 10], "children": [1, 2, 3]},
      {"mesh": 0},
      {"mesh": 0, "translation": [5, 0, 0], "rotation": [0, 0, 1, 0]},
      {"mesh": 0, "translation": [20, 0, 0], "scale": [2, 2, 2]}
    ]"#;
    let path = write("hierarchy.gltf", &document(nodes, "[0]", 60));
    let loaded = Scene::load_gltf(&path).expect("a valid file");
    let scene = &loaded.scene;
    assert_eq!(scene.len(), 3);
    let node_of = |k: usize| loaded.nodes[k].1;
    let mut placed: Vec<usize> = (0..3).map(node_of).collect();
    placed.sort_unstable();
    assert_eq!(placed, [1, 2, 3]);
    let ids: Vec<_> = loaded.nodes.iter().map(|&(id, _)| id).collect();
    let mesh = |node: usize| {
        scene
            .mesh(ids[loaded.nodes.iter().position(|&(_, n)| n == node).unwrap()])
            .unwrap()
    };
    assert!(mesh(1).same_tree(mesh(2)), "rigid instances share one tree");
    assert!(!mesh(1).same_tree(mesh(3)), "a scaled instance has its own");

    let down = |x: f32, y: f32| Segment::new(Point::new(x, y, 20.0), Point::new(x, y, 0.0));
    let all = Filter::everything();
    let hit = |x: f32, y: f32| {
        scene
            .closest_hit(down(x, y), &all)
            .map(|h| (h.hit.t, h.object))
    };
    // The square at the origin, lifted to z = 10: t = 0.5.
    assert_eq!(hit(0.5, 0.5).map(|h| h.0), Some(0.5));
    // The turned square covers x in [4, 5], y in [-1, 0].
    assert!(hit(4.5, -0.5).is_some() && hit(5.5, 0.5).is_none());
    // The scaled square covers x in [20, 22], y in [0, 2].
    assert!(hit(21.5, 1.5).is_some() && hit(22.5, 0.5).is_none());
}

#[test]
fn broken_files_give_errors_naming_the_file() {
    // A buffer shorter than declared.
    let short = write("short.gltf", &document(r#"[{"mesh": 0}]"#, "[0]", 600));
    let error = Scene::load_gltf(&short).expect_err("the buffer is short");
    assert!(matches!(error, GltfError::Format { .. }), "{error:?}");
    assert!(error.to_string().contains("short.gltf"), "{error}");

    // A cycle: node 0 is its own grandchild.
    let cyclic = write(
        "cyclic.gltf",
        &document(
            r#"[{"mesh": 0, "children": [1]}, {"children": [0]}]"#,
            "[0]",
            60,
        ),
    );
    let error = Scene::load_gltf(&cyclic).expect_err("the graph has a cycle");
    assert!(
        matches!(error, GltfError::Cycle { .. } | GltfError::Format { .. }),
        "{error:?}"
    );

    // Not JSON at all, and a missing file.
    let garbage = write("garbage.gltf", "{ not gltf");
    assert!(matches!(
        Scene::load_gltf(&garbage),
        Err(GltfError::Format { .. })
    ));
    let missing = Scene::load_gltf("/no/such/file.gltf").expect_err("no file");
    assert!(matches!(missing, GltfError::Io { .. }));
    assert!(std::error::Error::source(&missing).is_some());

    // A node with a NaN translation.
    let nan = write(
        "nan.gltf",
        &document(
            r#"[{"mesh": 0, "matrix": [1,0,0,0, 0,1,0,0, 0,0,1,0, 1e39,0,0,1]}]"#,
            "[0]",
            60,
        ),
    );
    let result = Scene::load_gltf(&nan);
    assert!(result.is_err(), "an infinite translation is refused");
}

#[test]
fn a_binary_glb_file_loads_from_its_own_chunk() {
    let buffer = square_buffer();
    let json = r#"{
  "asset": {"version": "2.0"},
  "scene": 0,
  "scenes": [{"nodes": [0, 1]}],
  "nodes": [{"mesh": 0}, {"mesh": 0, "translation": [3, 0, 0]}],
  "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
  "buffers": [{"byteLength": 60}],
  "bufferViews": [
    {"buffer": 0, "byteOffset": 0, "byteLength": 48},
    {"buffer": 0, "byteOffset": 48, "byteLength": 12}
  ],
  "accessors": [
    {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]},
    {"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"}
  ]
}"#;
    let pad = |mut bytes: Vec<u8>, with: u8| {
        while !bytes.len().is_multiple_of(4) {
            bytes.push(with);
        }
        bytes
    };
    let json = pad(json.as_bytes().to_vec(), b' ');
    let bin = pad(buffer, 0);
    let mut glb = Vec::new();
    glb.extend(b"glTF");
    glb.extend(2u32.to_le_bytes());
    glb.extend(((12 + 8 + json.len() + 8 + bin.len()) as u32).to_le_bytes());
    glb.extend((json.len() as u32).to_le_bytes());
    glb.extend(b"JSON");
    glb.extend(&json);
    glb.extend((bin.len() as u32).to_le_bytes());
    glb.extend(b"BIN\0");
    glb.extend(&bin);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gltf");
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let path = dir.join("two.glb");
    std::fs::write(&path, &glb).expect("written");

    let loaded = Scene::load_gltf(&path).expect("a valid GLB");
    assert_eq!(loaded.scene.len(), 2);
    let all = Filter::everything();
    let down = |x: f32| Segment::new(Point::new(x, 0.5, 1.0), Point::new(x, 0.5, -1.0));
    assert!(loaded.scene.any_hit(down(0.5), &all).is_some());
    assert!(loaded.scene.any_hit(down(3.5), &all).is_some());
    assert!(loaded.scene.any_hit(down(2.0), &all).is_none());

    // The same file cut short inside its binary chunk.
    let cut = dir.join("cut.glb");
    std::fs::write(&cut, &glb[..glb.len() - 20]).expect("written");
    assert!(Scene::load_gltf(&cut).is_err());

    // A header whose declared length is less than the header itself.
    for length in [0u32, 11] {
        let mut short = glb.clone();
        short[8..12].copy_from_slice(&length.to_le_bytes());
        let path = dir.join("short_header.glb");
        std::fs::write(&path, &short).expect("written");
        let error = Scene::load_gltf(&path).expect_err("a length under 12");
        assert!(matches!(error, GltfError::Format { .. }), "{error:?}");
        assert!(error.to_string().contains("short_header.glb"), "{error}");
    }
}

#[test]
fn malformed_accessors_give_errors_not_panics() {
    // The square's file with one accessor or view broken: each used to
    // panic inside the gltf crate's reader, or (indices past their view)
    // to be read as a list of vertices drawn in order.
    let valid = document(r#"[{"mesh": 0}]"#, "[0]", 60);
    let positions = r#""componentType": 5126, "count": 4, "type": "VEC3""#;
    let indices = r#""componentType": 5123, "count": 6, "type": "SCALAR""#;
    let view = r#""byteOffset": 0, "byteLength": 48"#;
    for (name, from, to) in [
        (
            "float_indices",
            indices,
            r#""componentType": 5126, "count": 3, "type": "SCALAR""#,
        ),
        (
            "signed_indices",
            indices,
            r#""componentType": 5122, "count": 6, "type": "SCALAR""#,
        ),
        (
            "no_indices",
            indices,
            r#""componentType": 5123, "count": 0, "type": "SCALAR""#,
        ),
        (
            "indices_past_view",
            indices,
            r#""componentType": 5123, "count": 30, "type": "SCALAR""#,
        ),
        (
            "indices_offset_overflow",
            indices,
            r#""componentType": 5123, "count": 6, "type": "SCALAR", "byteOffset": 18446744073709551615"#,
        ),
        (
            "vec2_positions",
            positions,
            r#""componentType": 5126, "count": 4, "type": "VEC2""#,
        ),
        (
            "u16_positions",
            positions,
            r#""componentType": 5123, "count": 4, "type": "VEC3""#,
        ),
        (
            "no_positions",
            positions,
            r#""componentType": 5126, "count": 0, "type": "VEC3""#,
        ),
        (
            "short_stride",
            view,
            r#""byteOffset": 0, "byteLength": 48, "byteStride": 4"#,
        ),
        (
            "empty_sparse",
            positions,
            r#""componentType": 5126, "count": 4, "type": "VEC3", "sparse": {"count": 0, "indices": {"bufferView": 1, "componentType": 5121}, "values": {"bufferView": 0}}"#,
        ),
    ] {
        let text = valid.replace(from, to);
        assert_ne!(text, valid, "{name}: the file was changed");
        let path = write(&format!("{name}.gltf"), &text);
        let error = Scene::load_gltf(&path).expect_err(name);
        assert!(
            matches!(error, GltfError::Format { .. }),
            "{name}: {error:?}"
        );
        let message = error.to_string();
        assert!(message.contains(&format!("{name}.gltf")), "{message}");
        assert!(message.contains("mesh 0 (square)"), "{message}");
    }
}

#[test]
fn nodes_must_form_trees_and_shared_roots_are_placed_once() {
    let refused = |name: &str, nodes: &str, scene_nodes: &str| {
        let path = write(name, &document(nodes, scene_nodes, 60));
        let error = Scene::load_gltf(&path).expect_err(name);
        assert!(
            matches!(error, GltfError::Format { .. } | GltfError::Cycle { .. }),
            "{name}: {error:?}"
        );
        assert!(error.to_string().contains(name), "{error}");
    };
    // Node 1 is placed through two parents; twice under one parent; and as
    // a root that is also a child.
    refused(
        "two_parents.gltf",
        r#"[{"children": [2]}, {"children": [2]}, {"mesh": 0}]"#,
        "[0, 1]",
    );
    refused(
        "child_twice.gltf",
        r#"[{"children": [1, 1]}, {"mesh": 0}]"#,
        "[0]",
    );
    refused(
        "root_and_child.gltf",
        r#"[{"mesh": 0}, {"children": [0]}]"#,
        "[0, 1]",
    );
    refused(
        "self_parent.gltf",
        r#"[{"mesh": 0, "children": [0]}]"#,
        "[0]",
    );
    // 40 levels of two nodes that both parent the next two: 2^39 paths to
    // the square, each of which used to place it again.
    let nodes: Vec<String> = (0..80)
        .map(|k| match k / 2 {
            39 => r#"{"mesh": 0}"#.to_string(),
            level => format!(r#"{{"children": [{}, {}]}}"#, 2 * level + 2, 2 * level + 3),
        })
        .collect();
    refused(
        "diamonds.gltf",
        &format!("[{}]", nodes.join(", ")),
        "[0, 1]",
    );

    // A root listed twice, or by two scenes when none is the default,
    // places its mesh once.
    let twice = write(
        "root_twice.gltf",
        &document(r#"[{"mesh": 0}]"#, "[0, 0]", 60),
    );
    assert_eq!(Scene::load_gltf(&twice).expect("valid").scene.len(), 1);
    let two_scenes = document(r#"[{"mesh": 0}]"#, "[0]", 60).replace(
        r#""scene": 0,
  "scenes": [{"nodes": [0]}],"#,
        r#""scenes": [{"nodes": [0]}, {"nodes": [0]}],"#,
    );
    assert!(two_scenes.contains(r#"{"nodes": [0]}, {"nodes": [0]}"#));
    let shared = write("two_scenes.gltf", &two_scenes);
    assert_eq!(Scene::load_gltf(&shared).expect("valid").scene.len(), 1);
}

#[test]
fn mirrored_instances_keep_their_normals_facing_out() {
    // The square faces +z. Mirrored in z it faces -z; mirrored in x it
    // still faces +z (glTF takes clockwise faces as front under a negative
    // determinant). Its baked copies used to keep the winding, so their
    // normals pointed the other way.
    let nodes = r#"[
      {"mesh": 0, "scale": [1, 1, -1]},
      {"mesh": 0, "translation": [6, 0, 0], "scale": [-1, 1, 1]},
      {"mesh": 0, "translation": [10, 0, 0], "scale": [1, 1, 2]}
    ]"#;
    let path = write("mirrored.gltf", &document(nodes, "[0, 1, 2]", 60));
    let loaded = Scene::load_gltf(&path).expect("a valid file");
    let all = Filter::everything();
    let hit = |x: f32| {
        let down = Segment::new(Point::new(x, 0.5, 1.0), Point::new(x, 0.5, -1.0));
        let found = loaded.scene.closest_hit(down, &all).expect("a hit").hit;
        (found.normal.z, found.front_face)
    };
    assert_eq!(hit(0.5), (-1.0, false), "mirrored in z");
    assert_eq!(hit(5.5), (1.0, true), "mirrored in x");
    assert_eq!(hit(10.5), (1.0, true), "scaled, not mirrored");
}

#[test]
fn an_index_past_its_primitive_is_refused() {
    // One mesh, two primitives over the square's 4 positions. Index 5 in
    // the first used to land on the second's vertices, and u32::MAX in
    // the second to overflow once offset past the first's.
    let mut buffer = square_buffer();
    for i in [0u32, 1, 2, 0, 1, 5, u32::MAX - 2, u32::MAX - 1, u32::MAX] {
        buffer.extend(i.to_le_bytes());
    }
    let text = |first: usize, second: usize| {
        format!(
            r#"{{
  "asset": {{"version": "2.0"}},
  "scene": 0,
  "scenes": [{{"nodes": [0]}}],
  "nodes": [{{"mesh": 0}}],
  "meshes": [{{"name": "two", "primitives": [
    {{"attributes": {{"POSITION": 0}}, "indices": {first}}},
    {{"attributes": {{"POSITION": 0}}, "indices": {second}}}
  ]}}],
  "buffers": [{{"byteLength": {}, "uri": "data:application/octet-stream;base64,{}"}}],
  "bufferViews": [
    {{"buffer": 0, "byteOffset": 0, "byteLength": 48}},
    {{"buffer": 0, "byteOffset": 60, "byteLength": 36}}
  ],
  "accessors": [
    {{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]}},
    {{"bufferView": 1, "componentType": 5125, "count": 3, "type": "SCALAR"}},
    {{"bufferView": 1, "byteOffset": 12, "componentType": 5125, "count": 3, "type": "SCALAR"}},
    {{"bufferView": 1, "byteOffset": 24, "componentType": 5125, "count": 3, "type": "SCALAR"}}
  ]
}}"#,
            buffer.len(),
            base64(&buffer)
        )
    };
    for (name, first, second) in [("into_neighbour.gltf", 2, 1), ("past_u32.gltf", 1, 3)] {
        let path = write(name, &text(first, second));
        let error = Scene::load_gltf(&path).expect_err(name);
        assert!(matches!(error, GltfError::Format { .. }), "{error:?}");
        let message = error.to_string();
        assert!(
            message.contains(name) && message.contains("mesh 0 (two)"),
            "{message}"
        );
    }
}

#[test]
fn strips_and_fans_are_read_and_points_and_lines_skipped() {
    // The square's four corners drawn as a fan (no indices), and its six
    // indices drawn as a strip: (0 1 2), (1 0 2), (2 0 2), (0 3 2), which
    // covers both halves. Lines over the same vertices add no surface.
    let valid = document(r#"[{"mesh": 0}]"#, "[0]", 60);
    let list = r#""indices": 1}"#;
    let down = |x: f32, y: f32| Segment::new(Point::new(x, y, 1.0), Point::new(x, y, -1.0));
    for (name, drawn, objects) in [
        ("fan", r#""mode": 6}"#, 1),
        ("strip", r#""indices": 1, "mode": 5}"#, 1),
        ("lines", r#""indices": 1, "mode": 1}"#, 0),
    ] {
        let path = write(&format!("{name}.gltf"), &valid.replace(list, drawn));
        let loaded = Scene::load_gltf(&path).expect(name);
        assert_eq!(loaded.scene.len(), objects, "{name}");
        for (x, y) in [(0.6, 0.3), (0.3, 0.6)] {
            let hit = loaded.scene.any_hit(down(x, y), &Filter::everything());
            assert_eq!(hit.is_some(), objects == 1, "{name} at ({x}, {y})");
        }
    }
}

/// The square's document with its buffer at `uri` instead of embedded.
fn with_uri(uri: &str) -> String {
    let embedded = document(r#"[{"mesh": 0}]"#, "[0]", 60);
    let start = embedded.find("data:").expect("an embedded buffer");
    let end = start + embedded[start..].find('"').expect("its end");
    format!("{}{uri}{}", &embedded[..start], &embedded[end..])
}

#[test]
fn buffer_files_are_named_by_percent_decoded_relative_uris_only() {
    let escaped = write("escaped.gltf", &with_uri("with%20space.bin"));
    std::fs::write(escaped.with_file_name("with space.bin"), square_buffer()).expect("written");
    assert_eq!(Scene::load_gltf(&escaped).expect("decoded").scene.len(), 1);
    for (name, uri) in [
        ("remote", "https://example.com/square.bin"),
        ("broken_escape", "with%2space.bin"),
    ] {
        let path = write(&format!("{name}.gltf"), &with_uri(uri));
        let error = Scene::load_gltf(&path).expect_err(name);
        assert!(
            matches!(error, GltfError::Format { .. }),
            "{name}: {error:?}"
        );
        assert!(error.to_string().contains(uri), "{error}");
    }
}

#[test]
fn non_affine_matrices_are_refused_and_files_without_scenes_place_their_nodes() {
    let projective = r#"[{"mesh": 0, "matrix": [1,0,0,0, 0,1,0,0, 0,0,1,0.5, 0,0,0,1]}]"#;
    let path = write("projective.gltf", &document(projective, "[0]", 60));
    let error = Scene::load_gltf(&path).expect_err("a projective matrix");
    assert!(
        matches!(error, GltfError::Transform { node: 0, .. }),
        "{error:?}"
    );

    // No "scene" and no "scenes": node 0 (the parent) and its child, whose
    // mesh is placed, rather than an empty scene.
    let nodes = r#"[{"translation": [0, 0, 2], "children": [1]}, {"mesh": 0}]"#;
    let text = document(nodes, "[0]", 60).replace(
        r#""scene": 0,
  "scenes": [{"nodes": [0]}],"#,
        "",
    );
    assert!(!text.contains("scenes"), "the scenes were removed");
    let loaded = Scene::load_gltf(write("no_scenes.gltf", &text)).expect("a valid file");
    assert_eq!(loaded.scene.len(), 1);
    assert_eq!(loaded.nodes[0].1, 1);
}

#[test]
fn rotation_quaternions_are_normalised_and_zero_ones_refused() {
    // The same quarter turn about z written as a unit quaternion and as
    // one 1% too long: both rigid, so both share the mesh's tree, and
    // both place the square over x in [-1, 0], y in [0, 1].
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let long = 1.01 * h;
    let nodes = format!(
        r#"[{{"mesh": 0, "rotation": [0, 0, {h}, {h}]}},
            {{"mesh": 0, "rotation": [0, 0, {long}, {long}], "translation": [0, 0, 5]}}]"#
    );
    let path = write("long_quaternion.gltf", &document(&nodes, "[0, 1]", 60));
    let loaded = Scene::load_gltf(&path).expect("a valid file");
    let scene = &loaded.scene;
    assert_eq!(scene.len(), 2);
    let ids: Vec<_> = loaded.nodes.iter().map(|&(id, _)| id).collect();
    assert!(
        scene
            .mesh(ids[0])
            .unwrap()
            .same_tree(scene.mesh(ids[1]).unwrap())
    );
    let down =
        |x: f32, y: f32, top: f32| Segment::new(Point::new(x, y, top), Point::new(x, y, top - 2.0));
    let all = Filter::everything();
    for top in [1.0, 6.0] {
        assert!(scene.any_hit(down(-0.5, 0.5, top), &all).is_some(), "{top}");
        assert!(scene.any_hit(down(0.5, 0.5, top), &all).is_none(), "{top}");
    }

    let zero = write(
        "zero_quaternion.gltf",
        &document(r#"[{"mesh": 0, "rotation": [0, 0, 0, 0]}]"#, "[0]", 60),
    );
    let error = Scene::load_gltf(&zero).expect_err("a zero quaternion");
    assert!(
        matches!(error, GltfError::Transform { node: 0, .. }),
        "{error:?}"
    );
}

#[test]
fn sparse_indices_past_the_accessor_or_out_of_order_are_refused() {
    // Sparse replacements of the square's positions. The reader used to
    // drop one whose index lies past the 4 positions (here byte 15 of the
    // positions, 63, read as a `u8` index) and to stop at one out of order
    // (the index buffer's 2 then 0).
    let valid = document(r#"[{"mesh": 0}]"#, "[0]", 60);
    let positions = r#""componentType": 5126, "count": 4, "type": "VEC3""#;
    for (name, sparse) in [
        (
            "sparse_past",
            r#""sparse": {"count": 1, "indices": {"bufferView": 0, "byteOffset": 15, "componentType": 5121}, "values": {"bufferView": 0}}"#,
        ),
        (
            "sparse_unordered",
            r#""sparse": {"count": 2, "indices": {"bufferView": 1, "byteOffset": 4, "componentType": 5123}, "values": {"bufferView": 0}}"#,
        ),
    ] {
        let text = valid.replace(positions, &format!("{positions}, {sparse}"));
        let path = write(&format!("{name}.gltf"), &text);
        let error = Scene::load_gltf(&path).expect_err(name);
        assert!(
            matches!(error, GltfError::Format { .. }),
            "{name}: {error:?}"
        );
        assert!(error.to_string().contains("sparse index"), "{error}");
    }
    // In range and increasing: loads.
    let fine = r#""sparse": {"count": 2, "indices": {"bufferView": 1, "byteOffset": 2, "componentType": 5123}, "values": {"bufferView": 0}}"#;
    let text = valid.replace(positions, &format!("{positions}, {fine}"));
    let loaded = Scene::load_gltf(write("sparse_fine.gltf", &text)).expect("indices 1 then 2");
    assert_eq!(loaded.scene.len(), 1);
}

#[test]
fn a_primitive_naming_a_missing_accessor_is_an_error_not_a_panic() {
    // gltf-json's own validation indexed the accessors by POSITION first.
    let text =
        r#"{"asset":{"version":"2.0"},"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}]}"#;
    let path = write("missing_accessor.gltf", text);
    let error = Scene::load_gltf(&path).expect_err("no accessor 0");
    assert!(matches!(error, GltfError::Format { .. }), "{error:?}");
    assert!(error.to_string().contains("accessor 0"), "{error}");
}

#[test]
fn buffer_files_are_regular_relative_files_read_to_their_declared_length() {
    // An absolute name, and a device that never ends.
    let absolute = write("absolute.gltf", &with_uri("/dev/zero"));
    let error = Scene::load_gltf(&absolute).expect_err("absolute");
    assert!(error.to_string().contains("not relative"), "{error}");
    let depth = absolute.components().count();
    let device = format!("{}dev/zero", "../".repeat(depth));
    let error = Scene::load_gltf(write("device.gltf", &with_uri(&device))).expect_err("a device");
    assert!(matches!(error, GltfError::Io { .. }), "{error:?}");
    // A file longer than declared is read to the declared length only.
    let long = write("long.gltf", &with_uri("long.bin"));
    let mut bytes = square_buffer();
    bytes.extend([7u8; 4096]);
    std::fs::write(long.with_file_name("long.bin"), bytes).expect("written");
    assert_eq!(
        Scene::load_gltf(&long).expect("first 60 bytes").scene.len(),
        1
    );
}

#[test]
fn sparse_parts_need_packed_views_and_implicit_zeros_are_bounded() {
    let valid = document(r#"[{"mesh": 0}]"#, "[0]", 60);
    let positions = r#""bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3""#;
    // Sparse indices in a strided view: glTF forbids it, and the reader
    // used the stride where the checks read the bytes packed.
    let strided = valid
        .replace(
            r#"{"buffer": 0, "byteOffset": 48, "byteLength": 12}"#,
            r#"{"buffer": 0, "byteOffset": 48, "byteLength": 12, "byteStride": 4}"#,
        )
        .replace(
            positions,
            &format!(
                r#"{positions}, "sparse": {{"count": 2, "indices": {{"bufferView": 1, "componentType": 5121}}, "values": {{"bufferView": 0}}}}"#
            ),
        );
    let error = Scene::load_gltf(write("sparse_strided.gltf", &strided)).expect_err("strided");
    assert!(error.to_string().contains("byte stride"), "{error}");
    // No buffer view: ten million implicit zeros from a 60-byte buffer.
    let zeros = valid.replace(
        positions,
        r#""componentType": 5126, "count": 10000000, "type": "VEC3", "sparse": {"count": 1, "indices": {"bufferView": 1, "componentType": 5123}, "values": {"bufferView": 0}}"#,
    ).replace(r#", "indices": 1}"#, "}");
    let error = Scene::load_gltf(write("sparse_zeros.gltf", &zeros)).expect_err("too many zeros");
    assert!(error.to_string().contains("implicit zeros"), "{error}");
}

#[test]
fn a_cycle_unreachable_from_any_root_is_an_error() {
    // No scene, and nodes 0 and 1 children of each other: no root at all.
    let valid = document(
        r#"[{"mesh": 0, "children": [1]}, {"children": [0]}]"#,
        "[0]",
        60,
    );
    let text = valid
        .replace(r#"  "scene": 0,"#, "")
        .replace(r#"  "scenes": [{"nodes": [0]}],"#, "");
    let error = Scene::load_gltf(write("rootless_cycle.gltf", &text)).expect_err("a cycle");
    assert!(matches!(error, GltfError::Cycle { .. }), "{error:?}");
}

#[test]
fn scales_a_few_millionths_from_one_are_baked_not_dropped() {
    // A hunt's case: a scale of 1.000009 counted as rigid (the tolerance
    // was 1e-5) and was dropped. A segment down through x = 1.000005 hits
    // the scaled square, beyond the unscaled one's edge at x = 1.
    let nodes = r#"[{"mesh": 0, "scale": [1.000009, 1.000009, 1.000009]}]"#;
    let loaded = Scene::load_gltf(write("nearly_unit_scale.gltf", &document(nodes, "[0]", 60)))
        .expect("loads");
    let down = Segment::new(
        Point::new(1.000005, 0.5, 1.0),
        Point::new(1.000005, 0.5, -1.0),
    );
    assert!(loaded.scene.any_hit(down, &Filter::everything()).is_some());
    let beyond = Segment::new(
        Point::new(1.00002, 0.5, 1.0),
        Point::new(1.00002, 0.5, -1.0),
    );
    assert!(
        loaded
            .scene
            .any_hit(beyond, &Filter::everything())
            .is_none()
    );
}

/// A small file may not make the loader build much more than it holds: a
/// mesh naming one large accessor in many primitives (a 553 KB file built
/// 4.1 GB so, in a review) is refused, naming the mesh and primitive, while
/// a few primitives over it load.
#[test]
fn files_cannot_build_far_more_than_they_hold() {
    // 65,535 positions as one triangle list without indices (786 KB).
    let vertices = 65_535usize;
    let mut buffer = Vec::with_capacity(vertices * 12);
    for i in 0..vertices {
        for c in [i as f32, (i % 7) as f32, (i % 3) as f32] {
            buffer.extend(c.to_le_bytes());
        }
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gltf");
    std::fs::create_dir_all(&dir).expect("scratch directory");
    std::fs::write(dir.join("many.bin"), &buffer).expect("written");
    let text = |primitives: usize, scaled: usize| {
        let list = vec![r#"{"attributes": {"POSITION": 0}}"#; primitives].join(", ");
        // Nodes 1.. bake the mesh under distinct non-uniform scales.
        let nodes: Vec<String> = std::iter::once(r#"{"mesh": 0}"#.to_string())
            .chain((0..scaled).map(|k| format!(r#"{{"mesh": 0, "scale": [1, {}, 1]}}"#, k + 2)))
            .collect();
        let roots: Vec<String> = (0..=scaled).map(|k| k.to_string()).collect();
        format!(
            r#"{{
  "asset": {{"version": "2.0"}},
  "scene": 0,
  "scenes": [{{"nodes": [{}]}}],
  "nodes": [{}],
  "meshes": [{{"name": "again", "primitives": [{list}]}}],
  "buffers": [{{"byteLength": {}, "uri": "many.bin"}}],
  "bufferViews": [{{"buffer": 0, "byteOffset": 0, "byteLength": {}}}],
  "accessors": [
    {{"bufferView": 0, "componentType": 5126, "count": {vertices}, "type": "VEC3", "min": [0, 0, 0], "max": [65535, 6, 2]}}
  ]
}}"#,
            roots.join(", "),
            nodes.join(", "),
            buffer.len(),
            buffer.len()
        )
    };
    let few = Scene::load_gltf(write("few.gltf", &text(2, 2))).expect("a few copies load");
    assert_eq!(few.scene.len(), 3);
    let path = write("scales.gltf", &text(1, 60));
    let message = Scene::load_gltf(&path).expect_err("60 scales").to_string();
    assert!(message.contains("mesh 0 under node"), "{message}");
    let path = write("bomb.gltf", &text(40, 0));
    let error = Scene::load_gltf(&path).expect_err("40 copies of 786 KB");
    assert!(matches!(error, GltfError::Format { .. }), "{error:?}");
    let message = error.to_string();
    assert!(
        message.contains("bomb.gltf")
            && message.contains("mesh 0 (again): primitive")
            && message.contains("4 per byte"),
        "{message}"
    );
}
