//! `f64` distance oracles for the distance tests: small vector helpers on
//! `[f64; 3]`, point–segment and point–triangle distances.

use boxtree::math::Point;

/// A point or vector in `f64`.
pub type P64 = [f64; 3];

/// `p` in `f64`.
pub fn p64(p: &Point) -> P64 {
    [f64::from(p.x), f64::from(p.y), f64::from(p.z)]
}

pub fn sub(a: P64, b: P64) -> P64 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// `a + t d`.
pub fn add_scaled(a: P64, d: P64, t: f64) -> P64 {
    [a[0] + t * d[0], a[1] + t * d[1], a[2] + t * d[2]]
}

pub fn dot(a: P64, b: P64) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub fn cross(a: P64, b: P64) -> P64 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

pub fn norm(a: P64) -> f64 {
    dot(a, a).sqrt()
}

/// Distance from `p` to the segment `a b` (a point when `a = b`).
pub fn point_segment(p: P64, a: P64, b: P64) -> f64 {
    let ab = sub(b, a);
    let len2 = dot(ab, ab);
    let t = if len2 > 0.0 {
        (dot(sub(p, a), ab) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    norm(sub(p, add_scaled(a, ab, t)))
}

/// Distance from `p` to the closed triangle: the plane distance when the
/// projection falls inside, otherwise the nearest edge (which also covers
/// degenerate triangles, as the segment or point they are).
pub fn point_triangle(p: P64, [a, b, c]: [P64; 3]) -> f64 {
    let n = cross(sub(b, a), sub(c, a));
    let edges = point_segment(p, a, b)
        .min(point_segment(p, b, c))
        .min(point_segment(p, c, a));
    let nn = dot(n, n);
    if nn > 0.0
        && [(a, b), (b, c), (c, a)]
            .iter()
            .all(|&(u, v)| dot(cross(sub(v, u), sub(p, u)), n) >= 0.0)
    {
        return (dot(sub(p, a), n).abs() / nn.sqrt()).min(edges);
    }
    edges
}
