//! Batches in blocks: each block of rows is handed to one of the crate's
//! batch functions (which spread it over all cores with rayon), and its
//! answers are appended to the output columns. Blocks bound the staging
//! memory: a strided or float64 input, and the segments or rays the crate
//! reads, are never copied whole, only a block at a time.

use std::ops::Range;

use boxtree::{Point, Ray, Segment};

use crate::arrays::RowsView;

/// Rows per block: large enough that the crate's pool has hundreds of
/// chunks to share out, small enough that staging stays in the megabytes.
pub(crate) const BLOCK: usize = 1 << 16;

/// The row ranges of a batch of `len` rows, block by block.
pub(crate) fn blocks(len: usize) -> impl Iterator<Item = Range<usize>> {
    (0..len)
        .step_by(BLOCK)
        .map(move |start| start..(start + BLOCK).min(len))
}

/// Reusable buffers for one batch call.
#[derive(Default)]
pub(crate) struct Staging {
    points: Vec<Point>,
    segments: Vec<Segment>,
    rays: Vec<Ray>,
}

impl Staging {
    /// Rows `range` of `points`, in place when they allow it.
    pub(crate) fn points<'s>(
        &'s mut self,
        points: &'s RowsView<'_>,
        range: Range<usize>,
    ) -> &'s [Point] {
        points.points(range, &mut self.points)
    }

    /// The segments from `origins` to `ends` of rows `range`.
    pub(crate) fn segments(
        &mut self,
        origins: &RowsView<'_>,
        ends: &RowsView<'_>,
        range: Range<usize>,
    ) -> &[Segment] {
        gather(origins, ends, range, Segment::new, &mut self.segments);
        &self.segments
    }

    /// The rays from `origins` along `directions` of rows `range`.
    pub(crate) fn rays(
        &mut self,
        origins: &RowsView<'_>,
        directions: &RowsView<'_>,
        range: Range<usize>,
    ) -> &[Ray] {
        let ray = |o: Point, d: Point| Ray::new(o, d.coords);
        gather(origins, directions, range, ray, &mut self.rays);
        &self.rays
    }
}

/// `make(a[i], b[i])` for the rows `range` into `out`: straight from the
/// slices when both arrays are read in place (the common case, and a
/// loop the compiler vectorises), row by row through the strides otherwise.
fn gather<T>(
    a: &RowsView<'_>,
    b: &RowsView<'_>,
    range: Range<usize>,
    make: impl Fn(Point, Point) -> T,
    out: &mut Vec<T>,
) {
    out.clear();
    if let (RowsView::InPlace(a), RowsView::InPlace(b)) = (a, b) {
        let (a, b) = (&a[range.clone()], &b[range]);
        out.extend(a.iter().zip(b).map(|(&a, &b)| make(a, b)));
    } else {
        out.extend(range.map(|i| make(a.point(i), b.point(i))));
    }
}
