//! The order a descent visits a wide node's children in.

use crate::bvh::TraversalStack;
use crate::math::Real;

/// Returns `child` of the lane in `lanes` (not empty) with the least
/// entry and pushes the others: the second nearest last, so that it is
/// popped next, and the rest in lane order. Ties keep the lower lane first.
///
/// A full sort is not worth its cost in a descent: the popped order only
/// decides how soon a farther child is pruned, and after the nearest two
/// the rest rarely survive the hit found in them. Against a 19-comparator
/// network over the eight lanes this took 8% off closest hits on the bunny
/// and the city, for 0.2% more node visits (`docs/performance.md`, Raycasts). One
/// child needs no order and two one comparison (the most frequent cases).
#[inline(always)]
pub(crate) fn nearest_first<T, const W: usize>(
    entries: &[Real; W],
    lanes: u32,
    child: impl Fn(usize) -> T,
    stack: &mut impl TraversalStack<T>,
) -> T
where
    T: Copy,
{
    let first = lanes.trailing_zeros() as usize;
    let rest = lanes & (lanes - 1);
    if rest == 0 {
        return child(first);
    }
    let second = rest.trailing_zeros() as usize;
    let (mut near, mut next) = if entries[second] < entries[first] {
        (second, first)
    } else {
        (first, second)
    };
    let mut others = rest & (rest - 1);
    if others != 0 {
        // The nearest two of three or more, by one pass over the lanes.
        let mut pending = others;
        while pending != 0 {
            let lane = pending.trailing_zeros() as usize;
            pending &= pending - 1;
            if entries[lane] < entries[near] {
                next = near;
                near = lane;
            } else if entries[lane] < entries[next] {
                next = lane;
            }
        }
        others = lanes & !(1 << near) & !(1 << next);
        while others != 0 {
            let lane = others.trailing_zeros() as usize;
            others &= others - 1;
            stack.push(child(lane));
        }
    }
    stack.push(child(next));
    child(near)
}
