//! Tree construction, refit, statistics and traversal for every volume type,
//! on procedural meshes and degenerate input, checked by `validate()` and by
//! brute force over all triangles.

use crate::common;

use boxtree::bvh::{BuildOptions, NodeKind, ObbFit, SplitRule, SplitSearch, Visit};
use boxtree::intersect::triangle_overlaps_aabb;
use boxtree::{
    Aabb, AabbTree, BoundingVolume, Bvh, Kdop14, KdopTree, Obb, ObbTree, PackedObb, Point, Rss,
    SphereTree, TriMesh, TriangleId, Vector,
};

fn meshes() -> Vec<(&'static str, TriMesh)> {
    vec![
        (
            "icosphere",
            TriMesh::icosphere(Point::new(1.0, 2.0, 3.0), 2.0, 3),
        ),
        ("terrain", TriMesh::terrain(40, 100.0, 5.0, 7)),
        ("soup", TriMesh::random_soup(3000, 10.0, 1.0, 3)),
        (
            "cuboid",
            TriMesh::cuboid(Point::new(-1.0, -2.0, -3.0), Point::new(1.0, 2.0, 3.0)),
        ),
        ("cuboids", cuboids(200, 5)),
    ]
}

/// `count` random axis-aligned boxes, as CAD scenes are built: the two
/// triangles of each face share one bounding box and follow each other.
fn cuboids(count: u32, seed: u64) -> TriMesh {
    let mut rng = common::SplitMix(seed);
    let mut mesh = TriMesh::cuboid(Point::origin(), Point::new(1.0, 1.0, 1.0));
    for _ in 1..count {
        let min = rng.point(20.0);
        let size = Vector::new(
            rng.range(0.1, 4.0),
            rng.range(0.1, 4.0),
            rng.range(0.1, 0.5),
        );
        mesh = mesh.merged(&TriMesh::cuboid(min, min + size));
    }
    mesh
}

fn presets() -> Vec<(&'static str, BuildOptions)> {
    vec![
        ("sah", BuildOptions::sah()),
        ("sah leaf 8", BuildOptions::sah().with_max_leaf_size(8)),
        (
            "sah leaf 1, 4 bins",
            BuildOptions {
                split: SplitRule::Sah {
                    bins: 4,
                    search: SplitSearch::Fast,
                },
                ..BuildOptions::sah().with_max_leaf_size(1)
            },
        ),
        (
            "sah thorough, 32 bins",
            BuildOptions::sah().with_split(SplitRule::Sah {
                bins: 32,
                search: SplitSearch::Thorough,
            }),
        ),
        ("gottschalk", BuildOptions::gottschalk()),
        (
            "gottschalk hull",
            BuildOptions::gottschalk().with_obb_fit(ObbFit::Hull),
        ),
        (
            "gottschalk leaf 8",
            BuildOptions::gottschalk().with_max_leaf_size(8),
        ),
    ]
}

fn check_all_volumes(name: &str, mesh: &TriMesh, options: &BuildOptions) {
    let context = format!("{name} with {options:?}");
    let aabb = AabbTree::build(mesh, options);
    aabb.validate(mesh)
        .unwrap_or_else(|e| panic!("AABB tree on {context}: {e:?}"));
    let obb = ObbTree::build(mesh, options);
    obb.validate(mesh)
        .unwrap_or_else(|e| panic!("OBB tree on {context}: {e:?}"));
    for node in obb.nodes() {
        assert!(
            node.volume.unpack().has_valid_frame(1e-4),
            "OBB frame on {context}: {:?}",
            node.volume
        );
    }
    Bvh::<Obb>::build(mesh, options)
        .validate(mesh)
        .unwrap_or_else(|e| panic!("unpacked OBB tree on {context}: {e:?}"));
    SphereTree::build(mesh, options)
        .validate(mesh)
        .unwrap_or_else(|e| panic!("sphere tree on {context}: {e:?}"));
    KdopTree::build(mesh, options)
        .validate(mesh)
        .unwrap_or_else(|e| panic!("18-DOP tree on {context}: {e:?}"));
    Bvh::<Kdop14>::build(mesh, options)
        .validate(mesh)
        .unwrap_or_else(|e| panic!("14-DOP tree on {context}: {e:?}"));
    Bvh::<Rss>::build(mesh, options)
        .validate(mesh)
        .unwrap_or_else(|e| panic!("RSS tree on {context}: {e:?}"));
}

#[test]
fn every_volume_and_preset_builds_a_valid_tree() {
    for (name, mesh) in meshes() {
        for (_, options) in presets() {
            check_all_volumes(name, &mesh, &options.serial());
        }
    }
}

#[test]
fn statistics_are_consistent_with_the_tree() {
    for (name, mesh) in meshes() {
        for (preset, options) in presets() {
            let tree = AabbTree::build(&mesh, &options);
            let stats = tree.stats();
            assert_eq!(
                stats.nodes,
                2 * stats.leaves - 1,
                "{name}/{preset}: binary tree"
            );
            let counted: usize = stats
                .leaf_sizes
                .iter()
                .enumerate()
                .map(|(size, n)| size * n)
                .sum();
            assert_eq!(
                counted,
                mesh.len(),
                "{name}/{preset}: leaf sizes cover every triangle"
            );
            assert!(
                stats.leaf_sizes.len() <= options.max_leaf_size as usize + 1,
                "{name}/{preset}: leaf size bound"
            );
            assert!(stats.depth < 64, "{name}/{preset}: depth {}", stats.depth);
            assert_eq!(
                tree.depth() as usize,
                stats.depth,
                "{name}/{preset}: depth recorded by the build"
            );
            assert!(
                stats.sah_cost >= 1.0,
                "{name}/{preset}: SAH cost counts at least the root"
            );
            assert!(stats.bytes_per_triangle > 0.0);
        }
    }
}

/// Issue 4's memory budget, excluding the mesh: 64 bytes per triangle for
/// the AABB tree, 96 for the (packed) OBB tree with its default leaf size 1.
#[test]
fn trees_fit_their_memory_budgets() {
    for (name, mesh) in [
        ("terrain", TriMesh::terrain(80, 100.0, 5.0, 3)),
        ("bunny", common::data_mesh("bunny.obj")),
    ] {
        let aabb = AabbTree::build(&mesh, &BuildOptions::sah()).stats();
        assert!(aabb.bytes_per_triangle <= 64.0, "{name}: AABB {aabb:?}");
        let obb = ObbTree::build(&mesh, &BuildOptions::gottschalk()).stats();
        assert!(obb.bytes_per_triangle <= 96.0, "{name}: OBB {obb:?}");
    }
    assert_eq!(std::mem::size_of::<boxtree::bvh::Node<PackedObb>>(), 44);
}

#[test]
fn sah_tree_is_cheaper_than_a_median_split_tree() {
    let mesh =
        TriMesh::terrain(60, 100.0, 5.0, 1).merged(&TriMesh::random_soup(2000, 50.0, 1.0, 9));
    let sah = AabbTree::build(&mesh, &BuildOptions::sah())
        .stats()
        .sah_cost;
    let mean = AabbTree::build(&mesh, &BuildOptions::gottschalk().with_max_leaf_size(4))
        .stats()
        .sah_cost;
    assert!(
        sah < mean,
        "SAH cost {sah} should beat the mean-split tree's {mean}"
    );
}

#[test]
fn parallel_build_equals_serial_build() {
    let mesh = TriMesh::terrain(80, 100.0, 5.0, 2)
        .merged(&TriMesh::random_soup(6000, 50.0, 2.0, 4))
        .merged(&cuboids(500, 6));
    assert!(mesh.len() > 16_000, "big enough to fork several times");
    for (preset, options) in presets().into_iter().take(3) {
        let parallel = BuildOptions {
            parallel: true,
            ..options
        };
        assert_eq!(
            AabbTree::build(&mesh, &parallel),
            AabbTree::build(&mesh, &parallel.serial()),
            "{preset}"
        );
        assert_eq!(
            ObbTree::build(&mesh, &parallel),
            ObbTree::build(&mesh, &parallel.serial()),
            "{preset}"
        );
    }
}

#[test]
fn runs_of_triangles_with_one_box_build_trees_as_good_as_single_triangles() {
    // The builder groups consecutive triangles with identical boxes; the same
    // triangles with every face's pair split apart must build as good a tree.
    let grouped = cuboids(400, 9);
    let (firsts, seconds): (Vec<[u32; 3]>, Vec<[u32; 3]>) = grouped
        .indices()
        .chunks(2)
        .map(|pair| (pair[0], pair[1]))
        .unzip();
    let apart = TriMesh::new(grouped.vertices().to_vec(), [firsts, seconds].concat()).unwrap();
    for (preset, options) in presets().into_iter().take(3) {
        let (a, b) = (
            AabbTree::build(&grouped, &options),
            AabbTree::build(&apart, &options),
        );
        a.validate(&grouped).unwrap();
        b.validate(&apart).unwrap();
        let (a, b) = (a.stats(), b.stats());
        assert!(
            a.leaf_sizes.len() <= options.max_leaf_size as usize + 1,
            "{preset}"
        );
        assert!(
            a.sah_cost <= b.sah_cost * 1.003,
            "{preset}: SAH {} grouped, {} apart",
            a.sah_cost,
            b.sah_cost
        );
    }
}

fn copies_of(triangle: [Point; 3], count: u32) -> TriMesh {
    let indices = (0..count).map(|_| [0, 1, 2]).collect();
    TriMesh::new(triangle.to_vec(), indices).unwrap()
}

#[test]
fn identical_triangles_build_balanced_trees() {
    let tri = [
        Point::new(0.0, 0.0, 0.0),
        Point::new(1.0, 0.0, 0.0),
        Point::new(0.0, 1.0, 0.0),
    ];
    let mesh = copies_of(tri, 20_000);
    for (preset, options) in presets() {
        if preset.contains("hull") {
            continue; // the hull fit is for one-off quality, not 20k-triangle nodes
        }
        let tree = ObbTree::build(&mesh, &options);
        tree.validate(&mesh).unwrap();
        assert!(
            tree.stats().depth <= 2 * 15 + 2,
            "{preset}: depth {} for 20k copies",
            tree.stats().depth
        );
        let aabb = AabbTree::build(&mesh, &options);
        aabb.validate(&mesh).unwrap();
        assert!(
            aabb.stats().depth <= 16,
            "{preset}: depth {}",
            aabb.stats().depth
        );
    }
}

#[test]
fn a_million_copies_of_one_triangle_build_without_deep_recursion() {
    let tri = [
        Point::new(0.0, 0.0, 0.0),
        Point::new(1.0, 0.0, 0.0),
        Point::new(0.0, 1.0, 0.0),
    ];
    let mesh = copies_of(tri, 1_000_000);
    let tree = AabbTree::build(&mesh, &BuildOptions::sah());
    let stats = tree.stats();
    assert_eq!(
        stats
            .leaf_sizes
            .iter()
            .enumerate()
            .map(|(s, n)| s * n)
            .sum::<usize>(),
        1_000_000
    );
    assert!(
        stats.depth <= 20,
        "median splits keep depth logarithmic: {}",
        stats.depth
    );
}

#[test]
fn collinear_and_zero_area_triangles_build_valid_trees() {
    // Every vertex on one line: all triangles have zero area.
    let vertices: Vec<Point> = (0..300)
        .map(|i| Point::new(i as f32, 2.0 * i as f32, -(i as f32)))
        .collect();
    let indices: Vec<[u32; 3]> = (0..298).map(|i| [i, i + 1, i + 2]).collect();
    let mesh = TriMesh::new(vertices, indices).unwrap();
    assert_eq!(mesh.report().degenerate_triangles, 298);
    check_all_volumes("collinear", &mesh, &BuildOptions::gottschalk().serial());
    check_all_volumes("collinear", &mesh, &BuildOptions::sah().serial());
}

#[test]
fn a_single_triangle_is_a_single_leaf() {
    let mesh = TriMesh::new(
        vec![
            Point::origin(),
            Point::new(1.0, 0.0, 0.0),
            Point::new(0.0, 1.0, 0.0),
        ],
        vec![[0, 1, 2]],
    )
    .unwrap();
    for (_, options) in presets() {
        let tree = ObbTree::build(&mesh, &options);
        tree.validate(&mesh).unwrap();
        assert_eq!(tree.nodes().len(), 1);
        assert!(tree.nodes()[0].is_leaf());
        check_all_volumes("single", &mesh, &options);
    }
}

#[test]
fn wildly_different_scales_build_valid_trees() {
    let tiny = TriMesh::icosphere(Point::new(1e-3, 0.0, 0.0), 1e-6, 2);
    let huge = TriMesh::icosphere(Point::new(0.0, 1e6, 0.0), 1e5, 2);
    let mid = TriMesh::random_soup(500, 10.0, 1.0, 5);
    let mesh = tiny.merged(&huge).merged(&mid);
    for (_, options) in presets() {
        check_all_volumes("mixed scales", &mesh, &options.serial());
    }
}

#[test]
fn refit_after_deformation_bounds_the_moved_mesh() {
    for (name, mesh) in meshes() {
        for (preset, options) in presets() {
            let mut aabb = AabbTree::build(&mesh, &options);
            let mut obb = ObbTree::build(&mesh, &options);
            let mut sphere = SphereTree::build(&mesh, &options);
            let mut rss = Bvh::<Rss>::build(&mesh, &options);
            let before = aabb.clone();
            aabb.refit(&mesh);
            assert_eq!(
                aabb, before,
                "{name}/{preset}: refit without motion changes nothing"
            );
            // Twist and stretch the mesh; same triangles.
            let moved = common::twisted_vertices(&mesh);
            let mut deformed = mesh.clone();
            deformed.set_vertices(moved).unwrap();
            assert!(
                aabb.validate(&deformed).is_err() || name == "cuboid",
                "{name}/{preset}: the old tree should not fit the moved mesh"
            );
            aabb.refit(&deformed);
            obb.refit(&deformed);
            sphere.refit(&deformed);
            rss.refit(&deformed);
            rss.validate(&deformed)
                .unwrap_or_else(|e| panic!("{name}/{preset} RSS: {e:?}"));
            aabb.validate(&deformed)
                .unwrap_or_else(|e| panic!("{name}/{preset} AABB: {e:?}"));
            obb.validate(&deformed)
                .unwrap_or_else(|e| panic!("{name}/{preset} OBB: {e:?}"));
            sphere
                .validate(&deformed)
                .unwrap_or_else(|e| panic!("{name}/{preset} sphere: {e:?}"));
            // A refitted AABB tree has exactly the volumes of a fresh fit over the same topology.
            for (id, node) in aabb.nodes().iter().enumerate() {
                if let NodeKind::Leaf { first, count } = node.kind(boxtree::bvh::NodeId(id as u32))
                {
                    let fresh = Aabb::fit(
                        &aabb
                            .leaf_triangles(first, count)
                            .map(|t| deformed.triangle(t))
                            .collect::<Vec<_>>(),
                        ObbFit::Triangles,
                    );
                    assert_eq!(node.volume, fresh);
                }
            }
        }
    }
}

#[test]
fn traversal_region_query_matches_brute_force() {
    let mut rng = common::SplitMix(5);
    for (name, mesh) in meshes() {
        let aabb = AabbTree::build(&mesh, &BuildOptions::sah());
        let obb = ObbTree::build(&mesh, &BuildOptions::gottschalk());
        let bounds = mesh.aabb();
        for _ in 0..50 {
            let c = bounds.center() + (rng.point(1.0).coords).component_mul(&bounds.half_extents());
            let region =
                Aabb::from_center_half_extents(c, bounds.half_extents() * rng.range(0.01, 0.3));
            let mut expected: Vec<u32> = (0..mesh.len() as u32)
                .filter(|&i| triangle_overlaps_aabb(&mesh.triangle(TriangleId(i)), &region))
                .collect();
            expected.sort_unstable();
            let collect = |tree_hits: &mut Vec<u32>| {
                tree_hits.sort_unstable();
                tree_hits.clone()
            };
            let mut from_aabb = Vec::new();
            aabb.traverse(
                |v| v.overlaps(&region),
                |t| {
                    if triangle_overlaps_aabb(&mesh.triangle(t), &region) {
                        from_aabb.push(t.0);
                    }
                    Visit::Continue
                },
            );
            let region_box = Obb::from_aabb(&region);
            let mut from_obb = Vec::new();
            obb.traverse(
                |v| v.unpack().overlaps(&region_box),
                |t| {
                    if triangle_overlaps_aabb(&mesh.triangle(t), &region) {
                        from_obb.push(t.0);
                    }
                    Visit::Continue
                },
            );
            assert_eq!(
                collect(&mut from_aabb),
                expected,
                "{name}: AABB tree region query"
            );
            assert_eq!(
                collect(&mut from_obb),
                expected,
                "{name}: OBB tree region query"
            );
        }
    }
}

#[test]
fn traversal_stops_at_the_first_stop() {
    let mesh = TriMesh::terrain(20, 10.0, 1.0, 3);
    let tree = AabbTree::build(&mesh, &BuildOptions::sah());
    let mut visited = 0;
    let stopped = tree.traverse(
        |_| true,
        |_| {
            visited += 1;
            if visited == 5 {
                Visit::Stop
            } else {
                Visit::Continue
            }
        },
    );
    assert!(stopped);
    assert_eq!(visited, 5);
}

#[test]
fn obb_tree_boxes_are_tighter_than_aabb_tree_boxes_on_rotated_geometry() {
    // A long thin rotated soup: world-aligned boxes waste volume, covariance boxes do not.
    let r = boxtree::Rotation::from_euler_angles(0.4, 0.7, 0.2);
    let base = TriMesh::random_soup(2000, 1.0, 0.05, 8);
    let stretched: Vec<Point> = base
        .vertices()
        .iter()
        .map(|p| r * Point::new(20.0 * p.x, p.y, 0.2 * p.z))
        .collect();
    let mesh = TriMesh::new(stretched, base.indices().to_vec()).unwrap();
    let options = BuildOptions::gottschalk();
    let obb_volume: f64 = ObbTree::build(&mesh, &options)
        .nodes()
        .iter()
        .map(|n| f64::from(n.volume.volume()))
        .sum();
    let aabb_volume: f64 = AabbTree::build(&mesh, &options)
        .nodes()
        .iter()
        .map(|n| f64::from(Aabb::volume(&n.volume)))
        .sum();
    assert!(
        obb_volume < 0.5 * aabb_volume,
        "OBB total {obb_volume} vs AABB total {aabb_volume}"
    );
}

#[test]
fn trees_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<AabbTree>();
    assert_send_sync::<ObbTree>();
    assert_send_sync::<SphereTree>();
    assert_send_sync::<KdopTree>();
}

#[test]
fn validation_errors_are_errors_naming_their_node_and_triangle() {
    use boxtree::bvh::{NodeId, ValidationError};
    let error = ValidationError::NotBounded {
        node: NodeId(3),
        triangle: boxtree::TriangleId(7),
    };
    assert_eq!(
        error.to_string(),
        "a vertex of triangle 7 lies outside the volume of node 3"
    );
    let as_error: &dyn std::error::Error = &error;
    assert!(as_error.source().is_none());
}
