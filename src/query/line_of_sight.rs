//! Line of sight shaped for cameras: one eye, many targets, visible or blocked.
//!
//! A target lying on a surface must not hide itself, so hits within a
//! distance of either endpoint can be ignored, as can a set of triangles
//! (the target's own object, say). Answers come back in the caller's order;
//! with the `parallel` feature, many targets are spread over all cores and
//! the answers are exactly the serial ones.

use crate::bvh::{BoundingVolume, WideLayout};
use crate::math::{Point, Real};
use crate::query::batch::{Threads, fill_batch};
use crate::query::raycast::PreparedRay;
use crate::query::raycast_stream::interleavable;
use crate::query::{MeshTree, RayHit};
use crate::shape::TriangleId;
use crate::shape::{Ray, RaySpan, Segment};
use crate::simd::{Avx2, Baseline, Isa, avx2_fn};

/// What may be ignored when deciding whether a segment is blocked.
///
/// Margins shrink the segment to `t ∈ [m_eye / len, 1 − m_target / len]`
/// of `eye + t (target − eye)`, with both bounds computed in `f32`. The ends
/// of the shrunk segment count like any segment's ends: a surface exactly at
/// one of them blocks, decided exactly for those rounded `t` (see
/// [`MeshTree::any_hit`]). With zero margins the ends are the eye
/// and the target themselves, so a target sampled exactly on a surface is
/// blocked by that surface: give the target a margin, or ignore its
/// triangles, to look *at* a surface point.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SightOptions {
    /// Hits closer than this distance to the eye are ignored.
    pub ignore_near_eye: Real,
    /// Hits closer than this distance to the target are ignored.
    pub ignore_near_target: Real,
    /// Triangles that never block (kept sorted).
    ignored: Vec<TriangleId>,
}

/// The answer for one target: `B` names the blocker, a triangle of a
/// mesh, or a [`crate::SceneTriangle`] for a scene.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visibility<B = TriangleId> {
    /// Nothing blocks the segment from the eye to the target.
    Visible,
    /// This blocks it: the first one found, not necessarily the nearest,
    /// but the same one for the same tree and query whatever the thread
    /// count, batch or build (parallel builds make the serial tree).
    Blocked(B),
    /// No answer: the eye or target has a NaN or infinite coordinate, the
    /// two are so far apart (beyond about 1e38) that the segment's length
    /// is not finite, or a margin is NaN.
    Invalid,
}

impl<B> Visibility<B> {
    /// True for [`Visibility::Visible`].
    #[must_use]
    pub fn is_visible(self) -> bool {
        matches!(self, Visibility::Visible)
    }

    /// The blocker, for [`Visibility::Blocked`].
    #[must_use]
    pub fn blocker(self) -> Option<B> {
        match self {
            Visibility::Blocked(triangle) => Some(triangle),
            _ => None,
        }
    }
}

impl SightOptions {
    /// Ignore hits within `eye` distance of the eye and `target` distance of
    /// the target. Negative margins count as 0; a NaN margin makes every
    /// answer [`Visibility::Invalid`].
    #[must_use]
    pub fn with_endpoint_margins(mut self, eye: Real, target: Real) -> Self {
        self.ignore_near_eye = eye;
        self.ignore_near_target = target;
        self
    }

    /// Never count these triangles as blockers.
    #[must_use]
    pub fn ignoring(mut self, triangles: impl IntoIterator<Item = TriangleId>) -> Self {
        self.ignored.extend(triangles);
        self.ignored.sort_unstable();
        self.ignored.dedup();
        self
    }

    /// True when some triangle is on the ignore list.
    #[must_use]
    pub fn ignores_any(&self) -> bool {
        !self.ignored.is_empty()
    }

    /// True when `triangle` is on the ignore list.
    #[must_use]
    pub fn ignores(&self, triangle: TriangleId) -> bool {
        !self.ignored.is_empty() && self.ignored.binary_search(&triangle).is_ok()
    }
}

impl<V: BoundingVolume> MeshTree<V> {
    /// Whether `target` can be seen from `eye`. A segment of zero length (or
    /// shorter than the two margins together) is visible.
    #[must_use]
    #[inline]
    pub fn line_of_sight(&self, eye: &Point, target: &Point, options: &SightOptions) -> Visibility {
        match sight_span(eye, target, options) {
            Ok(span) => {
                blocked_by(
                    self.any_hit_query(&span.ray, span.end, span.t_min, span.t_max, &|t| {
                        options.ignores(t)
                    }),
                )
            }
            Err(answer) => answer,
        }
    }

    /// [`MeshTree::line_of_sight`] from one eye to many targets: the
    /// answers go into `out` in the targets' order (`out` is cleared first;
    /// reusing it across frames saves the allocation), computed on the
    /// `threads` chosen.
    pub fn line_of_sight_many(
        &self,
        eye: &Point,
        targets: &[Point],
        options: &SightOptions,
        threads: Threads,
        out: &mut Vec<Visibility>,
    ) {
        fill_batch(
            out,
            targets.len(),
            Visibility::Visible,
            threads,
            |offset, chunk| {
                let targets = &targets[offset..offset + chunk.len()];
                self.line_of_sight_into(eye, targets, options, chunk);
            },
        );
    }

    fn line_of_sight_into(
        &self,
        eye: &Point,
        targets: &[Point],
        options: &SightOptions,
        out: &mut [Visibility],
    ) {
        let Some(wide) = interleavable(self) else {
            // One query at a time through the single query's entry, which
            // keeps the ray in registers (see `MeshTree::any_hit_query`).
            for (answer, target) in out.iter_mut().zip(targets) {
                *answer = self.line_of_sight(eye, target, options);
            }
            return;
        };
        // Every answer given without a descent is `Visible` but for invalid
        // input, so this cheap pass leaves the stream only the descents.
        for (answer, target) in out.iter_mut().zip(targets) {
            *answer = if sight_is_valid(eye, target, options) {
                Visibility::Visible
            } else {
                Visibility::Invalid
            };
        }
        self.any_hit_stream(
            wide,
            targets.len(),
            #[inline(always)]
            |q| sight_ray(eye, &targets[q], options).ok(),
            |t| options.ignores(t),
            |q, blocker| out[q] = blocked_by(blocker),
        );
    }

    /// [`MeshTree::any_hit`] for many segments: the answers go into
    /// `out` in the segments' order (`out` is cleared first; reusing it
    /// across frames saves the allocation), computed on the `threads`
    /// chosen. The answers are exactly those of one call per segment.
    pub fn segments_any_hit(
        &self,
        segments: &[Segment],
        threads: Threads,
        out: &mut Vec<Option<TriangleId>>,
    ) {
        fill_batch(out, segments.len(), None, threads, |offset, chunk| {
            self.segments_any_hit_into(&segments[offset..offset + chunk.len()], chunk);
        });
    }

    fn segments_any_hit_into(&self, segments: &[Segment], out: &mut [Option<TriangleId>]) {
        let Some(wide) = interleavable(self) else {
            for (answer, segment) in out.iter_mut().zip(segments) {
                *answer = self.any_hit(segment);
            }
            return;
        };
        self.any_hit_stream(
            wide,
            segments.len(),
            #[inline(always)]
            |q| PreparedRay::segment(&segments[q], 0.0, 1.0),
            |_| false,
            |q, blocker| out[q] = blocker,
        );
    }

    /// [`MeshTree::closest_hit`] for many rays sharing one `t_max`
    /// (over `[0, t_max]`), into `out` in the rays' order, on the `threads`
    /// chosen (see [`MeshTree::segments_any_hit`]).
    pub fn rays_closest_hit(
        &self,
        rays: &[Ray],
        t_max: Real,
        threads: Threads,
        out: &mut Vec<Option<RayHit>>,
    ) {
        fill_batch(out, rays.len(), None, threads, |offset, chunk| {
            self.rays_closest_hit_into(&rays[offset..offset + chunk.len()], t_max, chunk);
        });
    }

    fn rays_closest_hit_into(&self, rays: &[Ray], t_max: Real, out: &mut [Option<RayHit>]) {
        let Some(wide) = interleavable(self) else {
            for (answer, ray) in out.iter_mut().zip(rays) {
                *answer = self.closest_hit(ray.span(0.0, t_max));
            }
            return;
        };
        match Avx2::detect() {
            Some(avx2) => rays_closest_hit_avx2(avx2, self, wide, rays, t_max, out),
            None => self.rays_closest_hit_on(Baseline::default(), wide, rays, t_max, out),
        }
    }

    /// [`MeshTree::rays_closest_hit`] for one chunk, with the box tests on
    /// the instruction set `isa`.
    #[inline(always)]
    fn rays_closest_hit_on<I: Isa>(
        &self,
        isa: I,
        wide: &WideLayout,
        rays: &[Ray],
        t_max: Real,
        out: &mut [Option<RayHit>],
    ) {
        self.closest_hit_stream(
            isa,
            wide,
            rays.len(),
            #[inline(always)]
            |q| PreparedRay::new(&rays[q], 0.0, t_max),
            |q, hit| out[q] = hit,
        );
    }
}

/// The prepared segment from `eye` to `target` minus the margins, or the
/// answer when no descent is needed (invalid input, or nothing left).
fn sight_ray(
    eye: &Point,
    target: &Point,
    options: &SightOptions,
) -> Result<PreparedRay, Visibility> {
    let span = sight_span(eye, target, options)?;
    PreparedRay::with_end(&span.ray, span.end, span.t_min, span.t_max).ok_or(Visibility::Visible)
}

/// The segment from `eye` to `target` over the range its margins leave, or
/// the answer when no descent is needed (invalid input, zero length).
pub(crate) fn sight_span<B>(
    eye: &Point,
    target: &Point,
    options: &SightOptions,
) -> Result<RaySpan, Visibility<B>> {
    if !sight_is_valid(eye, target, options) {
        return Err(Visibility::Invalid);
    }
    let segment = Segment::new(*eye, *target);
    let length = crate::math::length_wide(&(segment.b - segment.a));
    if length == 0.0 {
        return Err(Visibility::Visible);
    }
    let t_min = options.ignore_near_eye.max(0.0) / length;
    let t_max = 1.0 - options.ignore_near_target.max(0.0) / length;
    Ok(RaySpan {
        t_min,
        t_max,
        ..RaySpan::segment(&segment)
    })
}

/// False for input that has no answer ([`Visibility::Invalid`]): a
/// non-finite eye or target, or a NaN margin (which `max(0.0)` would read
/// as 0). The batches' interleaved path answers from it without a descent.
fn sight_is_valid(eye: &Point, target: &Point, options: &SightOptions) -> bool {
    let margins = [options.ignore_near_eye, options.ignore_near_target];
    ends_are_finite(eye, target) && !margins.iter().any(|m| m.is_nan())
}

/// False when the eye or the target has a NaN or infinite coordinate (or
/// they are so far apart that the distance overflows): no answer exists.
fn ends_are_finite(eye: &Point, target: &Point) -> bool {
    // `length_wide`: the `f32` square overflowed from 1.8e19 apart.
    crate::math::length_wide(&(target - eye)).is_finite()
}

fn blocked_by(blocker: Option<TriangleId>) -> Visibility {
    match blocker {
        Some(triangle) => Visibility::Blocked(triangle),
        None => Visibility::Visible,
    }
}

avx2_fn! {
    /// A chunk of [`MeshTree::rays_closest_hit`] as AVX2 code: the
    /// interleaved descents test eight boxes per instruction, as a single
    /// closest hit does.
    fn rays_closest_hit_avx2[V: BoundingVolume](
        avx2: Avx2,
        tree: &MeshTree<V>,
        wide: &WideLayout,
        rays: &[Ray],
        t_max: Real,
        out: &mut [Option<RayHit>],
    ) -> () {
        tree.rays_closest_hit_on(avx2, wide, rays, t_max, out);
    }
}
