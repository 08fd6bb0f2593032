//! A small raycaster: pictures of a mesh tree made with its own queries.
//!
//! One closest-hit ray per pixel (`MeshTree::rays_closest_hit`, a parallel
//! batch), Lambert shading by the hit normal, shadows from one any-hit segment
//! per lit pixel toward the sun (`MeshTree::segments_any_hit`), posed extra
//! meshes through `PlacedMesh::closest_hit`, and a light haze with distance.
//! A whole `boxtree::Scene` is drawn the same way through its own batches
//! (`Scene::rays_closest_hit`, `Scene::segments_any_hit`).
//! Overlays — target dots and the wireframe boxes of a tree cut at one depth —
//! are drawn with the same pinhole camera. The result is an in-memory RGB
//! buffer; PNG encoding lives in `png.rs`.

use boxtree::bvh::{BoundingVolume, Bvh, NodeId, NodeKind};
use boxtree::{
    Aabb, Filter, MeshTree, Obb, PackedObb, PlacedMesh, Point, Ray, Real, SceneHit, Segment,
    Threads, TriangleId, Vector, Visibility,
};

/// An 8-bit sRGB colour.
pub type Rgb = [u8; 3];

/// Dots of targets the camera can see.
pub const VISIBLE: Rgb = [40, 230, 70];
/// Dots of targets something blocks.
pub const BLOCKED: Rgb = [240, 40, 40];

/// A pinhole camera.
#[derive(Clone, Copy, Debug)]
pub struct Camera {
    eye: Point,
    forward: Vector,
    right: Vector,
    up: Vector,
    /// Half-height of the image plane at distance 1.
    tan_half_fov: Real,
    /// Points closer than this along `forward` are not drawn.
    near: Real,
    /// Picture width in pixels.
    pub width: u32,
    /// Picture height in pixels.
    pub height: u32,
}

impl Camera {
    /// A camera at `eye` looking at `target`, with `up` pointing up in the picture
    /// and a vertical field of view of `fov_degrees`.
    pub fn look_at(
        eye: Point,
        target: Point,
        up: Vector,
        fov_degrees: Real,
        width: u32,
        height: u32,
    ) -> Camera {
        let forward = (target - eye).try_normalize(0.0).unwrap_or(-up);
        let side = forward.cross(&up);
        let right = side
            .try_normalize(0.0)
            .unwrap_or_else(|| forward.cross(&Vector::new(up.y, up.z, up.x)).normalize());
        Camera {
            eye,
            forward,
            right,
            up: right.cross(&forward),
            tan_half_fov: (fov_degrees.to_radians() / 2.0).tan(),
            near: (target - eye).norm() * 1e-3,
            width: width.max(1),
            height: height.max(1),
        }
    }

    fn aspect(&self) -> Real {
        self.width as Real / self.height as Real
    }

    /// The ray through the centre of pixel `(x, y)` (row 0 at the top), with a unit direction.
    pub fn ray(&self, x: u32, y: u32) -> Ray {
        let sx = (2.0 * (x as Real + 0.5) / self.width as Real - 1.0)
            * self.tan_half_fov
            * self.aspect();
        let sy = (1.0 - 2.0 * (y as Real + 0.5) / self.height as Real) * self.tan_half_fov;
        Ray::new(
            self.eye,
            (self.forward + self.right * sx + self.up * sy).normalize(),
        )
    }

    /// The point in camera coordinates: right, up, forward.
    fn camera_space(&self, p: &Point) -> Vector {
        let d = p - self.eye;
        Vector::new(d.dot(&self.right), d.dot(&self.up), d.dot(&self.forward))
    }

    /// Pixel coordinates of a camera-space point in front of the camera.
    fn view_to_pixel(&self, v: &Vector) -> [Real; 2] {
        let sx = v.x / (v.z * self.tan_half_fov * self.aspect());
        let sy = v.y / (v.z * self.tan_half_fov);
        [
            (sx + 1.0) / 2.0 * self.width as Real,
            (1.0 - sy) / 2.0 * self.height as Real,
        ]
    }

    /// Pixel coordinates of `p`, or `None` when it is behind the camera.
    pub fn project(&self, p: &Point) -> Option<[Real; 2]> {
        let v = self.camera_space(p);
        (v.z > self.near).then(|| self.view_to_pixel(&v))
    }
}

/// An RGB picture, row 0 at the top.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Row-major pixels.
    pub pixels: Vec<Rgb>,
}

impl Image {
    /// Mixes `color` into the pixel at `(x, y)` with weight `alpha`; outside the picture, nothing.
    fn blend(&mut self, x: i64, y: i64, color: Rgb, alpha: Real) {
        if x < 0 || y < 0 || x >= i64::from(self.width) || y >= i64::from(self.height) {
            return;
        }
        let pixel = &mut self.pixels[y as usize * self.width as usize + x as usize];
        for (p, c) in pixel.iter_mut().zip(color) {
            *p = (Real::from(*p) * (1.0 - alpha) + Real::from(c) * alpha).round() as u8;
        }
    }

    /// A filled square of side `2 r + 1` centred on `(x, y)`.
    fn square(&mut self, x: i64, y: i64, r: i64, color: Rgb) {
        for dy in -r..=r {
            for dx in -r..=r {
                self.blend(x + dx, y + dy, color, 1.0);
            }
        }
    }

    /// A line from `a` to `b` (pixel coordinates), clipped to the picture;
    /// two pixels wide in pictures 800 or more pixels wide.
    fn line(&mut self, a: [Real; 2], b: [Real; 2], color: Rgb, alpha: Real) {
        let Some((a, b)) = clip_to_rectangle(a, b, self.width as Real, self.height as Real) else {
            return;
        };
        let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
        let steps = dx.abs().max(dy.abs()).ceil().max(1.0) as i64;
        // The second pixel sits across the line: below a flat line, beside a steep one.
        let across = if dx.abs() >= dy.abs() { (0, 1) } else { (1, 0) };
        let wide = self.width >= 800;
        for k in 0..=steps {
            let s = k as Real / steps as Real;
            let (x, y) = (
                (a[0] + dx * s).floor() as i64,
                (a[1] + dy * s).floor() as i64,
            );
            self.blend(x, y, color, alpha);
            if wide {
                self.blend(x + across.0, y + across.1, color, alpha);
            }
        }
    }

    /// This picture with colours washed out, as a quiet background for overlays.
    pub fn muted(&self) -> Image {
        let pixels = self
            .pixels
            .iter()
            .map(|&[r, g, b]| {
                let grey = 0.3 * Real::from(r) + 0.59 * Real::from(g) + 0.11 * Real::from(b);
                [r, g, b].map(|c| (0.25 * Real::from(c) + 0.45 * grey + 60.0).min(255.0) as u8)
            })
            .collect();
        Image { pixels, ..*self }
    }
}

/// Liang–Barsky: the part of segment `a b` inside `[0, w] × [0, h]`, if any.
fn clip_to_rectangle(
    a: [Real; 2],
    b: [Real; 2],
    w: Real,
    h: Real,
) -> Option<([Real; 2], [Real; 2])> {
    let d = [b[0] - a[0], b[1] - a[1]];
    let (mut t0, mut t1): (Real, Real) = (0.0, 1.0);
    for (p, q) in [
        (-d[0], a[0]),
        (d[0], w - a[0]),
        (-d[1], a[1]),
        (d[1], h - a[1]),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
        } else {
            let r = q / p;
            if p < 0.0 {
                t0 = t0.max(r);
            } else {
                t1 = t1.min(r);
            }
        }
    }
    // NaN coordinates fail this comparison too.
    (t0 <= t1).then(|| {
        (
            [a[0] + d[0] * t0, a[1] + d[1] * t0],
            [a[0] + d[0] * t1, a[1] + d[1] * t1],
        )
    })
}

/// Light and sky.
#[derive(Clone, Copy, Debug)]
pub struct Lighting {
    /// Unit direction toward the sun.
    pub sun: Vector,
    /// Unit up direction of the world (for the sky gradient).
    pub up: Vector,
    /// Cast shadows (one any-hit segment per lit pixel).
    pub shadows: bool,
    /// Distance over which the air hazes 63% of a colour toward the sky (infinite: clear air).
    pub haze_distance: Real,
}

impl Lighting {
    /// Sun high in front-left of a world whose up axis is `up`, with shadows and clear air.
    pub fn daylight(up: Vector) -> Lighting {
        let (a, b) = if up.x.abs() < 0.9 {
            (Vector::x(), Vector::y())
        } else {
            (Vector::y(), Vector::z())
        };
        let sun =
            (up * 1.6 + (a - up * a.dot(&up)) * 0.8 + (b - up * b.dot(&up)) * 0.5).normalize();
        Lighting {
            sun,
            up,
            shadows: true,
            haze_distance: Real::INFINITY,
        }
    }

    fn sky(&self, direction: &Vector) -> [Real; 3] {
        let s = direction.dot(&self.up).clamp(0.0, 1.0).sqrt();
        let horizon = [0.78, 0.85, 0.93];
        let zenith = [0.30, 0.50, 0.82];
        std::array::from_fn(|i| horizon[i] + (zenith[i] - horizon[i]) * s)
    }
}

/// A posed mesh drawn in one flat colour.
pub struct Instance<'a, W> {
    /// The mesh and its pose.
    pub placed: PlacedMesh<'a, W>,
    /// Linear RGB in `[0, 1]`.
    pub color: [Real; 3],
}

/// What a pixel's ray hit.
#[derive(Clone, Copy)]
struct Surface {
    t: Real,
    normal: Vector,
    color: [Real; 3],
}

/// Raycasts `tree` (coloured by `color_of`, linear RGB in `[0, 1]`) and the `instances` from `camera`.
pub fn render<V: BoundingVolume, W: BoundingVolume>(
    tree: &MeshTree<V>,
    color_of: impl Fn(TriangleId) -> [Real; 3],
    instances: &[Instance<'_, W>],
    camera: &Camera,
    lighting: &Lighting,
) -> Image {
    let rays = camera_rays(camera);
    let mut hits = Vec::new();
    tree.rays_closest_hit(&rays, Real::INFINITY, Threads::All, &mut hits);
    let surfaces: Vec<Option<Surface>> = rays
        .iter()
        .zip(&hits)
        .map(|(ray, hit)| {
            let mut best = hit.map(|h| Surface {
                t: h.t,
                normal: h.normal,
                color: color_of(h.triangle),
            });
            for instance in instances {
                let reach = best.map_or(Real::INFINITY, |s| s.t);
                if let Some(h) = instance.placed.closest_hit(ray.span(0.0, reach)) {
                    best = Some(Surface {
                        t: h.t,
                        normal: h.normal,
                        color: instance.color,
                    });
                }
            }
            best.map(|s| s.facing(ray))
        })
        .collect();

    let scene_size = tree.mesh().aabb().half_extents().norm();
    let lit = if lighting.shadows {
        shadows(
            &rays,
            &surfaces,
            lighting,
            scene_size,
            |segments, blocked| {
                let mut blockers = Vec::new();
                tree.segments_any_hit(segments, Threads::All, &mut blockers);
                blocked.extend(blockers.iter().map(Option::is_some));
            },
        )
    } else {
        vec![true; rays.len()]
    };
    shade(camera, &rays, &surfaces, &lit, lighting)
}

/// Raycasts every object of a [`boxtree::Scene`] from `camera`
/// (`Scene::rays_closest_hit` for the pixels, `Scene::segments_any_hit` for
/// the shadows), each hit coloured by `color_of` (linear RGB in `[0, 1]`).
/// `scene_size` is the length scale of the world (the shadow rays' reach).
pub fn render_scene(
    scene: &boxtree::Scene,
    color_of: impl Fn(&SceneHit) -> [Real; 3],
    camera: &Camera,
    lighting: &Lighting,
    scene_size: Real,
) -> Image {
    let rays = camera_rays(camera);
    let everything = Filter::everything();
    let mut hits = Vec::new();
    scene.rays_closest_hit(&rays, Real::INFINITY, &everything, Threads::All, &mut hits);
    let surfaces: Vec<Option<Surface>> = rays
        .iter()
        .zip(&hits)
        .map(|(ray, hit)| {
            hit.as_ref().map(|h| {
                Surface {
                    t: h.hit.t,
                    normal: h.hit.normal,
                    color: color_of(h),
                }
                .facing(ray)
            })
        })
        .collect();
    let lit = if lighting.shadows {
        shadows(
            &rays,
            &surfaces,
            lighting,
            scene_size,
            |segments, blocked| {
                let mut blockers = Vec::new();
                scene.segments_any_hit(segments, &everything, Threads::All, &mut blockers);
                blocked.extend(blockers.iter().map(Option::is_some));
            },
        )
    } else {
        vec![true; rays.len()]
    };
    shade(camera, &rays, &surfaces, &lit, lighting)
}

/// One ray per pixel, row by row from the top.
fn camera_rays(camera: &Camera) -> Vec<Ray> {
    (0..camera.height)
        .flat_map(|y| (0..camera.width).map(move |x| camera.ray(x, y)))
        .collect()
}

impl Surface {
    /// The surface with its normal turned to the side that faces the camera.
    fn facing(self, ray: &Ray) -> Surface {
        Surface {
            normal: if self.normal.dot(&ray.direction) > 0.0 {
                -self.normal
            } else {
                self.normal
            },
            ..self
        }
    }
}

/// The pixels: sky where nothing was hit, else the surface's colour lit by
/// the sun (where `lit`) and the sky, hazed with distance.
fn shade(
    camera: &Camera,
    rays: &[Ray],
    surfaces: &[Option<Surface>],
    lit: &[bool],
    lighting: &Lighting,
) -> Image {
    let pixels = rays
        .iter()
        .zip(surfaces)
        .zip(lit)
        .map(|((ray, surface), &lit)| {
            let sky = lighting.sky(&ray.direction);
            let color = match surface {
                None => sky,
                Some(s) => {
                    let sun = if lit {
                        s.normal.dot(&lighting.sun).max(0.0)
                    } else {
                        0.0
                    };
                    let sky_light = 0.2 + 0.1 * s.normal.dot(&lighting.up);
                    let haze = 1.0 - (-s.t / lighting.haze_distance).exp();
                    std::array::from_fn(|i| {
                        s.color[i] * (sky_light + sun) * (1.0 - haze) + sky[i] * haze
                    })
                }
            };
            color.map(to_srgb)
        })
        .collect();
    Image {
        width: camera.width,
        height: camera.height,
        pixels,
    }
}

/// Whether each hit point sees the sun: one batch of any-hit segments,
/// answered by `blocked` (which appends, per segment, whether something blocks it).
fn shadows(
    rays: &[Ray],
    surfaces: &[Option<Surface>],
    lighting: &Lighting,
    scene_size: Real,
    blocked: impl FnOnce(&[Segment], &mut Vec<bool>),
) -> Vec<bool> {
    let mut lit = vec![false; rays.len()];
    let mut asked = Vec::new();
    let mut segments = Vec::new();
    for (k, (ray, surface)) in rays.iter().zip(surfaces).enumerate() {
        if let Some(s) = surface.filter(|s| s.normal.dot(&lighting.sun) > 0.0) {
            // Start a little off the surface, relative to the distance from the eye, so it does not shadow itself.
            let p = ray.point_at(s.t) + s.normal * (s.t * 1e-3);
            segments.push(Segment::new(p, p + lighting.sun * (4.0 * scene_size)));
            asked.push(k);
        }
    }
    let mut answers = Vec::with_capacity(segments.len());
    blocked(&segments, &mut answers);
    for (k, blocked) in asked.into_iter().zip(answers) {
        lit[k] = !blocked;
    }
    lit
}

fn to_srgb(linear: Real) -> u8 {
    (linear.clamp(0.0, 1.0).powf(1.0 / 2.2) * 255.0).round() as u8
}

/// Draws each target as a dot: [`VISIBLE`] or [`BLOCKED`] by its answer; invalid ones are skipped.
pub fn draw_targets<B>(
    image: &mut Image,
    camera: &Camera,
    targets: &[Point],
    answers: &[Visibility<B>],
) {
    let r = i64::from(image.width / 640).max(1);
    for (target, answer) in targets.iter().zip(answers) {
        let color = match answer {
            Visibility::Visible => VISIBLE,
            Visibility::Blocked(_) => BLOCKED,
            Visibility::Invalid => continue,
        };
        if let Some([x, y]) = camera.project(target) {
            image.square(x.floor() as i64, y.floor() as i64, r, color);
        }
    }
}

/// Volumes with eight corners, for wireframes.
pub trait Corners {
    /// The eight corners, indexed by sign pattern (bit `i` set → the maximum along axis `i`).
    fn corner_points(&self) -> [Point; 8];
}

impl Corners for Aabb {
    fn corner_points(&self) -> [Point; 8] {
        self.corners()
    }
}

impl Corners for Obb {
    fn corner_points(&self) -> [Point; 8] {
        self.corners()
    }
}

impl Corners for PackedObb {
    fn corner_points(&self) -> [Point; 8] {
        self.unpack().corners()
    }
}

/// The tree cut at `depth`: every node at that depth, and shallower leaves.
pub fn cut_at_depth<V: BoundingVolume>(bvh: &Bvh<V>, depth: usize) -> Vec<NodeId> {
    let mut cut = Vec::new();
    let mut stack = vec![(NodeId::ROOT, 0)];
    while let Some((id, d)) = stack.pop() {
        match bvh.node(id).kind(id) {
            NodeKind::Inner { left, right } if d < depth => {
                stack.push((right, d + 1));
                stack.push((left, d + 1));
            }
            _ => cut.push(id),
        }
    }
    cut
}

/// The shallowest nodes whose triangles all carry the same `label` (for
/// example, one object of a scene), in depth-first order. Leaves that mix
/// labels are left out, so their triangles are in no returned subtree.
pub fn cut_by_label<V: BoundingVolume>(
    bvh: &Bvh<V>,
    label: impl Fn(TriangleId) -> usize,
) -> Vec<NodeId> {
    // Children come after their parents, so one backward pass labels every subtree.
    let mut common: Vec<Option<usize>> = vec![None; bvh.nodes().len()];
    for index in (0..bvh.nodes().len()).rev() {
        let id = NodeId(index as u32);
        common[index] = match bvh.node(id).kind(id) {
            NodeKind::Inner { left, right } => {
                common[left.index()].filter(|&l| common[right.index()] == Some(l))
            }
            NodeKind::Leaf { first, count } => {
                let mut labels = bvh.leaf_triangles(first, count).map(&label);
                let first_label = labels.next();
                first_label.filter(|&l| labels.all(|m| m == l))
            }
        };
    }
    let mut cut = Vec::new();
    let mut stack = vec![NodeId::ROOT];
    while let Some(id) = stack.pop() {
        match bvh.node(id).kind(id) {
            _ if common[id.index()].is_some() => cut.push(id),
            NodeKind::Inner { left, right } => stack.extend([right, left]),
            NodeKind::Leaf { .. } => {}
        }
    }
    cut
}

/// The triangles below node `id`.
pub fn subtree_triangles<V: BoundingVolume>(bvh: &Bvh<V>, id: NodeId) -> Vec<TriangleId> {
    let mut triangles = Vec::new();
    let mut stack = vec![id];
    while let Some(id) = stack.pop() {
        match bvh.node(id).kind(id) {
            NodeKind::Inner { left, right } => stack.extend([right, left]),
            NodeKind::Leaf { first, count } => triangles.extend(bvh.leaf_triangles(first, count)),
        }
    }
    triangles
}

/// Draws the twelve edges of a box.
pub fn draw_box<B: Corners>(image: &mut Image, camera: &Camera, b: &B, color: Rgb) {
    let corners = b.corner_points().map(|p| camera.camera_space(&p));
    for i in 0..8 {
        for axis in 0..3 {
            if i & (1 << axis) == 0 {
                draw_edge(image, camera, corners[i], corners[i | (1 << axis)], color);
            }
        }
    }
}

/// One box edge in camera coordinates, clipped to the near plane, then projected.
fn draw_edge(image: &mut Image, camera: &Camera, a: Vector, b: Vector, color: Rgb) {
    let near = camera.near;
    if a.z < near && b.z < near {
        return;
    }
    let cut = |p: Vector, q: Vector| p + (q - p) * ((near - p.z) / (q.z - p.z));
    let (a, b) = if a.z < near {
        (cut(a, b), b)
    } else if b.z < near {
        (a, cut(b, a))
    } else {
        (a, b)
    };
    image.line(
        camera.view_to_pixel(&a),
        camera.view_to_pixel(&b),
        color,
        0.9,
    );
}

/// Bright colour number `k`: well-separated hues (golden-ratio steps around the colour wheel).
pub fn palette(k: usize) -> Rgb {
    let hue = (k as Real * 0.618_034).fract() * 6.0;
    let x = 1.0 - (hue % 2.0 - 1.0).abs();
    let [r, g, b] = match hue as u32 {
        0 => [1.0, x, 0.0],
        1 => [x, 1.0, 0.0],
        2 => [0.0, 1.0, x],
        3 => [0.0, x, 1.0],
        4 => [x, 0.0, 1.0],
        _ => [1.0, 0.0, x],
    };
    [r, g, b].map(|c: Real| (60.0 + 195.0 * c) as u8)
}
