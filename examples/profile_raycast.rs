//! Profiling aid (not part of the suite): any-hit on the bunny.
use boxtree::bvh::BuildOptions;
use boxtree::{Aabb, MeshTree, Point, Segment, TriMesh};
fn main() {
    let mesh = TriMesh::load("tests/data/bunny.obj").unwrap();
    let tree = MeshTree::<Aabb>::build(mesh.clone(), &BuildOptions::sah());
    let b = mesh.aabb();
    let mut s = 1u64;
    let mut r = || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    };
    let segs: Vec<Segment> = (0..std::env::args()
        .nth(1)
        .map_or(1_000_000, |a| a.parse().unwrap()))
        .map(|_| {
            let a = b.center() + Vector3(r(), r(), r()).component_mul(&b.half_extents());
            let c = b.center() + Vector3(r(), r(), r()).component_mul(&b.half_extents());
            Segment::new(Point::new(a.x, b.max.z.max(a.y), a.z), c)
        })
        .collect();
    let t = std::time::Instant::now();
    let mut n = 0;
    for _ in 0..1 {
        n += segs
            .iter()
            .filter(|s| tree.segment_any_hit(s).is_some())
            .count();
    }
    println!("{n} {:?}", t.elapsed() / 3_000_000);
    let t = std::time::Instant::now();
    let mut n = 0;
    for _ in 0..1 {
        n += segs
            .iter()
            .filter(|s| tree.segment_closest_hit(s).is_some())
            .count();
    }
    println!("closest {n} {:?}", t.elapsed() / 3_000_000);
}
#[allow(non_snake_case)]
fn Vector3(x: f32, y: f32, z: f32) -> boxtree::Vector {
    boxtree::Vector::new(x, y, z)
}
