//! How tight each bounding-volume fit is, and what it costs, on real and
//! procedural meshes.
//!
//! Run with `cargo run --release --example fitting_table`. Prints two Markdown
//! tables: the volume of each fit relative to the mesh's AABB, and the median
//! time of each fit. Points are the mesh's vertices; the triangle covariance
//! OBB gets its triangles.
//!
//! The k-DOP-26 volume is exact (up to `f64` rounding): the polytope is the
//! AABB clipped by the other 20 slab planes one at a time, each face clipped
//! Sutherland–Hodgman style and the cut closed by the 2-D convex hull of the
//! points on the cutting plane; the volume is the sum over faces of the
//! pyramids `area · height / 3` from an interior point (the divergence
//! theorem; Ericson, *Real-Time Collision Detection* §4.6 for the k-DOP).

use std::time::{Duration, Instant};

use boxtree::fit::{
    obb_from_points_hull_covariance, obb_from_points_min_volume, obb_from_triangles_covariance,
    ritter_sphere, welzl_sphere,
};
use boxtree::math::nalgebra;
use boxtree::{Aabb, Kdop26, Obb, Point, Rotation, Sphere, TriMesh, Triangle, Vector};

type V64 = nalgebra::Vector3<f64>;

/// One number per fit: a volume, a ratio or a time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PerFit {
    /// The axis-aligned box.
    pub aabb: f64,
    /// The 26-DOP (exact polytope volume).
    pub kdop26: f64,
    /// The OBB oriented by the hull's surface covariance.
    pub obb_hull_covariance: f64,
    /// The OBB oriented by the triangles' surface covariance.
    pub obb_triangle_covariance: f64,
    /// The near-minimum-volume OBB.
    pub obb_min_volume: f64,
    /// Ritter's sphere.
    pub ritter: f64,
    /// Welzl's minimum sphere.
    pub welzl: f64,
}

impl PerFit {
    /// The column headers, in field order.
    pub const HEADERS: [&'static str; 7] = [
        "AABB",
        "k-DOP-26",
        "cov. OBB (hull)",
        "cov. OBB (triangles)",
        "min-volume OBB",
        "Ritter sphere",
        "Welzl sphere",
    ];

    /// The values, in field order.
    #[must_use]
    pub fn values(&self) -> [f64; 7] {
        [
            self.aabb,
            self.kdop26,
            self.obb_hull_covariance,
            self.obb_triangle_covariance,
            self.obb_min_volume,
            self.ritter,
            self.welzl,
        ]
    }

    /// Every value divided by `divisor`.
    #[must_use]
    pub fn divided_by(&self, divisor: f64) -> PerFit {
        PerFit {
            aabb: self.aabb / divisor,
            kdop26: self.kdop26 / divisor,
            obb_hull_covariance: self.obb_hull_covariance / divisor,
            obb_triangle_covariance: self.obb_triangle_covariance / divisor,
            obb_min_volume: self.obb_min_volume / divisor,
            ritter: self.ritter / divisor,
            welzl: self.welzl / divisor,
        }
    }
}

/// The fitted volumes themselves, for checks beyond the volumes.
#[derive(Clone, Debug)]
pub struct Fits {
    /// The axis-aligned box.
    pub aabb: Aabb,
    /// The 26-DOP.
    pub kdop26: Kdop26,
    /// The OBB oriented by the hull's surface covariance.
    pub obb_hull_covariance: Obb,
    /// The OBB oriented by the triangles' surface covariance.
    pub obb_triangle_covariance: Obb,
    /// The near-minimum-volume OBB.
    pub obb_min_volume: Obb,
    /// Ritter's sphere.
    pub ritter: Sphere,
    /// Welzl's minimum sphere.
    pub welzl: Sphere,
}

/// One mesh's measurements.
#[derive(Clone, Debug)]
pub struct Row {
    /// The mesh's name.
    pub mesh: String,
    /// Its triangle count.
    pub triangles: usize,
    /// Its vertex count.
    pub vertices: usize,
    /// The fitted volumes.
    pub fits: Fits,
    /// The volume of each fit.
    pub volumes: PerFit,
    /// The median seconds of each fit.
    pub seconds: PerFit,
}

/// Median seconds of `run`: at least one call, more until `budget` is spent (at most 101).
fn median_seconds<T>(budget: Duration, mut run: impl FnMut() -> T) -> (T, f64) {
    let started = Instant::now();
    let mut samples = Vec::new();
    let mut result;
    loop {
        let start = Instant::now();
        result = std::hint::black_box(run());
        samples.push(start.elapsed().as_secs_f64());
        if samples.len() >= 101 || started.elapsed() >= budget {
            break;
        }
    }
    samples.sort_by(f64::total_cmp);
    (result, samples[samples.len() / 2])
}

fn obb_volume(obb: &Obb) -> f64 {
    8.0 * obb.half_extents.cast::<f64>().product()
}

fn sphere_volume(sphere: &Sphere) -> f64 {
    4.0 / 3.0 * std::f64::consts::PI * f64::from(sphere.radius).powi(3)
}

fn aabb_volume(aabb: &Aabb) -> f64 {
    (aabb.max - aabb.min).cast::<f64>().product()
}

/// Fits every volume to `mesh`, timing each fit for about `budget` (one call when zero).
///
/// # Panics
/// If a fit fails, which the crate documents only for empty or non-finite input.
#[must_use]
pub fn measure(name: &str, mesh: &TriMesh, budget: Duration) -> Row {
    let points = mesh.vertices();
    let triangles: Vec<Triangle> = mesh.triangles().collect();
    let (aabb, t_aabb) = median_seconds(budget, || Aabb::from_points(points));
    let (kdop26, t_kdop) = median_seconds(budget, || Kdop26::from_points(points));
    let (hull_cov, t_hull_cov) = median_seconds(budget, || obb_from_points_hull_covariance(points));
    let (tri_cov, t_tri_cov) = median_seconds(budget, || obb_from_triangles_covariance(&triangles));
    let (min_volume, t_min_volume) = median_seconds(budget, || obb_from_points_min_volume(points));
    let (ritter, t_ritter) = median_seconds(budget, || ritter_sphere(points));
    let (welzl, t_welzl) = median_seconds(budget, || welzl_sphere(points));
    let fits = Fits {
        aabb,
        kdop26,
        obb_hull_covariance: hull_cov.expect("finite, non-empty mesh"),
        obb_triangle_covariance: tri_cov.expect("finite, non-empty mesh"),
        obb_min_volume: min_volume.expect("finite, non-empty mesh"),
        ritter: ritter.expect("finite, non-empty mesh"),
        welzl: welzl.expect("finite, non-empty mesh"),
    };
    let volumes = PerFit {
        aabb: aabb_volume(&fits.aabb),
        kdop26: kdop_volume(&fits.kdop26),
        obb_hull_covariance: obb_volume(&fits.obb_hull_covariance),
        obb_triangle_covariance: obb_volume(&fits.obb_triangle_covariance),
        obb_min_volume: obb_volume(&fits.obb_min_volume),
        ritter: sphere_volume(&fits.ritter),
        welzl: sphere_volume(&fits.welzl),
    };
    let seconds = PerFit {
        aabb: t_aabb,
        kdop26: t_kdop,
        obb_hull_covariance: t_hull_cov,
        obb_triangle_covariance: t_tri_cov,
        obb_min_volume: t_min_volume,
        ritter: t_ritter,
        welzl: t_welzl,
    };
    Row {
        mesh: name.to_owned(),
        triangles: mesh.len(),
        vertices: points.len(),
        fits,
        volumes,
        seconds,
    }
}

/// A face of a convex polytope: outward unit normal, plane offset (`normal · x = offset`)
/// and its vertices in cyclic order.
#[derive(Clone, Debug)]
struct Face {
    normal: V64,
    offset: f64,
    polygon: Vec<V64>,
}

/// The exact volume of a 26-DOP (0 when empty or flat), computed in `f64` as
/// the module documentation describes; the rounding error is of order
/// `f64::EPSILON` times the cube of the AABB's diagonal.
///
/// A point counts as on a cutting plane within `1e-12` of the k-DOP's AABB
/// diagonal (a dimensionless tolerance far below the `f32` resolution of the
/// slab values), so vertices the plane merely touches are not cut twice.
#[must_use]
pub fn kdop_volume(kdop: &Kdop26) -> f64 {
    if kdop.is_empty() {
        return 0.0;
    }
    let directions = Kdop26::directions().map(|d| d.cast::<f64>());
    let (min, max) = (kdop.min().map(f64::from), kdop.max().map(f64::from));
    let lo = V64::new(min[0], min[1], min[2]);
    let hi = V64::new(max[0], max[1], max[2]);
    if (0..3).any(|i| lo[i] >= hi[i]) {
        // Flat: no volume, exactly (the clipping below would leave rounding dust).
        return 0.0;
    }
    let tolerance = 1e-12 * (hi - lo).norm();
    let mut faces = box_faces(&lo, &hi);
    for i in 3..directions.len() {
        let length = directions[i].norm();
        let unit = directions[i] / length;
        faces = clip(faces, &unit, max[i] / length, tolerance);
        faces = clip(faces, &-unit, -min[i] / length, tolerance);
    }
    polytope_volume(&faces)
}

/// The six faces of the box `[lo, hi]`, each polygon in cyclic order.
fn box_faces(lo: &V64, hi: &V64) -> Vec<Face> {
    let corner = |x: bool, y: bool, z: bool| {
        V64::new(
            if x { hi.x } else { lo.x },
            if y { hi.y } else { lo.y },
            if z { hi.z } else { lo.z },
        )
    };
    let mut faces = Vec::with_capacity(6);
    for axis in 0..3 {
        for upper in [false, true] {
            let mut normal = V64::zeros();
            normal[axis] = if upper { 1.0 } else { -1.0 };
            let offset = if upper { hi[axis] } else { -lo[axis] };
            // The other two axes, walked around the square.
            let polygon = [(false, false), (true, false), (true, true), (false, true)]
                .iter()
                .map(|&(a, b)| {
                    let mut flags = [upper; 3];
                    flags[(axis + 1) % 3] = a;
                    flags[(axis + 2) % 3] = b;
                    corner(flags[0], flags[1], flags[2])
                })
                .collect();
            faces.push(Face {
                normal,
                offset,
                polygon,
            });
        }
    }
    faces
}

/// The polytope cut by the half-space `normal · x ≤ offset`.
fn clip(faces: Vec<Face>, normal: &V64, offset: f64, tolerance: f64) -> Vec<Face> {
    let side = |p: &V64| normal.dot(p) - offset;
    if faces
        .iter()
        .all(|f| f.polygon.iter().all(|p| side(p) <= tolerance))
    {
        return faces;
    }
    let mut kept = Vec::with_capacity(faces.len() + 1);
    let mut on_plane = Vec::new();
    for face in faces {
        let n = face.polygon.len();
        let mut polygon = Vec::with_capacity(n + 1);
        for i in 0..n {
            let (a, b) = (face.polygon[i], face.polygon[(i + 1) % n]);
            let (sa, sb) = (side(&a), side(&b));
            if sa <= tolerance {
                polygon.push(a);
            }
            if (sa <= tolerance) != (sb <= tolerance) {
                polygon.push(a + (b - a) * (sa / (sa - sb)));
            }
        }
        on_plane.extend(polygon.iter().filter(|p| side(p).abs() <= tolerance));
        if polygon.len() >= 3 {
            kept.push(Face { polygon, ..face });
        }
    }
    let cap = convex_polygon_in_plane(&on_plane, normal);
    if cap.len() >= 3 {
        kept.push(Face {
            normal: *normal,
            offset,
            polygon: cap,
        });
    }
    kept
}

/// The convex hull of points lying in a plane with unit `normal`, in cyclic
/// order (Andrew's monotone chain in a basis of the plane).
fn convex_polygon_in_plane(points: &[V64], normal: &V64) -> Vec<V64> {
    let helper = if normal.x.abs() < 0.5 {
        V64::x()
    } else {
        V64::y()
    };
    let u = normal.cross(&helper).normalize();
    let w = normal.cross(&u);
    let mut planar: Vec<(f64, f64, V64)> =
        points.iter().map(|p| (p.dot(&u), p.dot(&w), *p)).collect();
    planar.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let turn = |o: &(f64, f64, V64), a: &(f64, f64, V64), b: &(f64, f64, V64)| {
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    };
    let mut hull: Vec<(f64, f64, V64)> = Vec::with_capacity(2 * planar.len());
    for pass in 0..2 {
        let start = hull.len();
        let ordered: Box<dyn Iterator<Item = &(f64, f64, V64)>> = if pass == 0 {
            Box::new(planar.iter())
        } else {
            Box::new(planar.iter().rev())
        };
        for p in ordered {
            while hull.len() >= start + 2
                && turn(&hull[hull.len() - 2], &hull[hull.len() - 1], p) <= 0.0
            {
                hull.pop();
            }
            hull.push(*p);
        }
        hull.pop();
    }
    hull.into_iter().map(|(_, _, p)| p).collect()
}

/// Σ area · height / 3 over the faces, heights from the mean of the vertices.
fn polytope_volume(faces: &[Face]) -> f64 {
    let count: usize = faces.iter().map(|f| f.polygon.len()).sum();
    if count == 0 {
        return 0.0;
    }
    let inside = faces.iter().flat_map(|f| &f.polygon).sum::<V64>() / count as f64;
    faces
        .iter()
        .map(|face| {
            let origin = face.polygon[0];
            let twice_area = face
                .polygon
                .windows(2)
                .skip(1)
                .map(|pair| (pair[0] - origin).cross(&(pair[1] - origin)))
                .sum::<V64>()
                .norm();
            let height = (face.offset - face.normal.dot(&inside)).max(0.0);
            twice_area * 0.5 * height / 3.0
        })
        .sum()
}

/// An icosphere stretched to semi-axes 4, 2, 1 and turned off the coordinate axes.
fn turned_ellipsoid() -> TriMesh {
    let sphere = TriMesh::icosphere(Point::origin(), 1.0, 4);
    let turn = Rotation::from_euler_angles(0.3, 0.7, 1.1);
    let vertices = sphere
        .vertices()
        .iter()
        .map(|p| Point::from(turn * Vector::new(4.0 * p.x, 2.0 * p.y, p.z)))
        .collect();
    TriMesh::new(vertices, sphere.indices().to_vec()).expect("a transformed icosphere is valid")
}

/// The meshes of the table: the three test meshes, then two procedural ones.
#[must_use]
pub fn meshes() -> Vec<(String, TriMesh)> {
    let mut meshes = Vec::new();
    for name in ["bunny", "env", "rob"] {
        let path = format!("{}/tests/data/{name}.obj", env!("CARGO_MANIFEST_DIR"));
        match TriMesh::load(&path) {
            Ok(mesh) => meshes.push((format!("{name}.obj"), mesh)),
            Err(e) => eprintln!("skipping {name}: {e}"),
        }
    }
    meshes.push((
        "turned ellipsoid (icosphere 4·2·1)".to_owned(),
        turned_ellipsoid(),
    ));
    meshes.push((
        "terrain 64×64".to_owned(),
        TriMesh::terrain(64, 100.0, 8.0, 1),
    ));
    meshes
}

fn print_table(title: &str, rows: &[Row], cell: impl Fn(&Row) -> [String; 7]) {
    println!("{title}\n");
    println!("| mesh | triangles | {} |", PerFit::HEADERS.join(" | "));
    println!("|---|---:|{}", "---:|".repeat(PerFit::HEADERS.len()));
    for row in rows {
        println!(
            "| {} | {} | {} |",
            row.mesh,
            row.triangles,
            cell(row).join(" | ")
        );
    }
    println!();
}

fn format_time(seconds: f64) -> String {
    if seconds < 1e-3 {
        format!("{:.1} µs", seconds * 1e6)
    } else {
        format!("{:.2} ms", seconds * 1e3)
    }
}

#[path = "shared/command_line.rs"]
mod command_line;

fn main() {
    command_line::quiet_on_closed_pipe();
    match command_line::no_arguments(
        "usage: fitting_table: bounding-volume fits of the bench meshes, timed (no arguments)",
    ) {
        Ok(false) => {}
        Ok(true) => return,
        Err(message) => {
            eprintln!("error: {message}");
            std::process::exit(2);
        }
    }
    let rows: Vec<Row> = meshes()
        .iter()
        .map(|(name, mesh)| measure(name, mesh, Duration::from_millis(200)))
        .collect();
    print_table(
        "Fitted volume relative to the AABB's volume (lower is tighter):",
        &rows,
        |row| {
            row.volumes
                .divided_by(row.volumes.aabb)
                .values()
                .map(|v| format!("{v:.3}"))
        },
    );
    print_table(
        "Median fit time (points are the mesh's vertices):",
        &rows,
        |row| row.seconds.values().map(format_time),
    );
}
