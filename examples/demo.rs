//! The main job on a built-in scene, no files needed:
//! `cargo run --release --example demo`.
//!
//! Until the trees land this exercises the primitive layer by brute force on a
//! small procedural town: line of sight from a camera to a grid of targets
//! past oriented-box buildings and triangle walls, balls falling onto the
//! ground and into each other (sphere sweeps), and crates sliding into each
//! other (AABB sweeps). It prints what it found.

use std::time::Instant;

use boxtree::intersect::{WatertightRay, segment_overlaps_obb};
use boxtree::sweep::{sweep_aabb_aabb, sweep_sphere_plane, sweep_sphere_sphere};
use boxtree::{Aabb, Obb, Plane, Point, Ray, Real, Rotation, Segment, Sphere, Triangle, Vector};

/// A small deterministic generator so every run prints the same numbers.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> Real {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 40) as Real / (1u64 << 24) as Real
    }

    fn range(&mut self, lo: Real, hi: Real) -> Real {
        lo + (hi - lo) * self.next()
    }
}

struct Town {
    buildings: Vec<Obb>,
    walls: Vec<Triangle>,
}

fn build_town(rng: &mut SplitMix) -> Town {
    let mut buildings = Vec::new();
    for i in 0..6 {
        for j in 0..6 {
            let half = Vector::new(rng.range(1.0, 3.0), rng.range(1.0, 3.0), rng.range(2.0, 8.0));
            let center = Point::new(i as Real * 12.0 - 30.0, j as Real * 12.0 - 30.0, half.z);
            let turn = Rotation::from_axis_angle(&Vector::z_axis(), rng.range(0.0, 1.5));
            buildings.push(Obb::from_rotation(center, &turn, half));
        }
    }
    // Free-standing walls made of two triangles each, sharing a diagonal.
    let mut walls = Vec::new();
    for k in 0..10 {
        let x = k as Real * 7.0 - 33.0;
        let (y0, y1, h) = (rng.range(-36.0, 0.0), rng.range(0.0, 36.0), rng.range(3.0, 6.0));
        let (a, b) = (Point::new(x, y0, 0.0), Point::new(x, y1, 0.0));
        let (c, d) = (Point::new(x, y1, h), Point::new(x, y0, h));
        walls.push(Triangle::new(a, b, c));
        walls.push(Triangle::new(a, c, d));
    }
    Town { buildings, walls }
}

fn line_of_sight(town: &Town) {
    let eye = Point::new(-45.0, -45.0, 30.0);
    let targets: Vec<Point> = (0..64)
        .flat_map(|i| (0..64).map(move |j| Point::new(i as Real * 1.2 - 38.0, j as Real * 1.2 - 38.0, 0.5)))
        .collect();
    let start = Instant::now();
    let (mut by_building, mut by_wall, mut visible) = (0, 0, 0);
    for target in &targets {
        let sight = Segment::new(eye, *target);
        if town.buildings.iter().any(|b| segment_overlaps_obb(&sight, b)) {
            by_building += 1;
            continue;
        }
        let ray = WatertightRay::new(&Ray::new(eye, sight.direction())).expect("finite ray");
        // Stop just short of the target so a target on a surface does not hide itself.
        if town.walls.iter().any(|w| ray.intersect(w, 0.0, 1.0 - 1e-4).is_some()) {
            by_wall += 1;
        } else {
            visible += 1;
        }
    }
    let elapsed = start.elapsed();
    let tests = targets.len() * (town.buildings.len() + town.walls.len());
    println!("line of sight from {eye:?} to {} targets (brute force over {} boxes and {} triangles):", targets.len(), town.buildings.len(), town.walls.len());
    println!("  visible {visible}, blocked by a building {by_building}, blocked by a wall {by_wall}");
    println!("  {:.1} ms, at most {tests} primitive tests, {:.0} ns per segment", elapsed.as_secs_f64() * 1e3, elapsed.as_nanos() as f64 / targets.len() as f64);
}

fn falling_balls(rng: &mut SplitMix) {
    let ground = Plane::from_point_normal(&Point::origin(), &Vector::z()).expect("unit normal");
    let balls: Vec<(Sphere, Vector)> = (0..200)
        .map(|_| {
            let s = Sphere::new(Point::new(rng.range(-20.0, 20.0), rng.range(-20.0, 20.0), rng.range(1.0, 10.0)), rng.range(0.2, 1.0));
            (s, Vector::new(rng.range(-4.0, 4.0), rng.range(-4.0, 4.0), rng.range(-12.0, 2.0)))
        })
        .collect();
    let landed: Vec<Real> = balls.iter().filter_map(|(s, v)| sweep_sphere_plane(s, v, &ground)).map(|h| h.time).collect();
    let mut collisions = 0;
    let mut earliest = Real::INFINITY;
    for (i, (a, va)) in balls.iter().enumerate() {
        for (b, vb) in &balls[i + 1..] {
            if let Some(hit) = sweep_sphere_sphere(a, va, b, vb) {
                collisions += 1;
                earliest = earliest.min(hit.first);
            }
        }
    }
    let mean = landed.iter().sum::<Real>() / landed.len().max(1) as Real;
    println!("{} balls falling for one frame:", balls.len());
    println!("  {} touch the ground this frame (mean first-contact time {mean:.3})", landed.len());
    println!("  {collisions} ball pairs touch during the frame (earliest at u = {earliest:.3})");
}

fn sliding_crates(rng: &mut SplitMix) {
    let crates: Vec<(Aabb, Vector)> = (0..300)
        .map(|_| {
            let c = Point::new(rng.range(-30.0, 30.0), rng.range(-30.0, 30.0), 1.0);
            let half = Vector::new(rng.range(0.5, 1.5), rng.range(0.5, 1.5), 1.0);
            (Aabb::from_center_half_extents(c, half), Vector::new(rng.range(-6.0, 6.0), rng.range(-6.0, 6.0), 0.0))
        })
        .collect();
    let mut touching = 0;
    let mut longest: Real = 0.0;
    for (i, (a, va)) in crates.iter().enumerate() {
        for (b, vb) in &crates[i + 1..] {
            if let Some(hit) = sweep_aabb_aabb(a, va, b, vb) {
                touching += 1;
                longest = longest.max(hit.last - hit.first);
            }
        }
    }
    println!("{} crates sliding for one frame: {touching} pairs touch (longest contact {longest:.3} of the frame)", crates.len());
}

fn main() {
    if std::env::args().any(|a| a == "--help" || a == "-h") {
        println!("demo: exercises boxtree's primitive tests on a built-in procedural town.\nUsage: cargo run --release --example demo");
        return;
    }
    let mut rng = SplitMix(2026);
    let town = build_town(&mut rng);
    line_of_sight(&town);
    falling_balls(&mut rng);
    sliding_crates(&mut rng);
}
