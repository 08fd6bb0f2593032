//! Deterministic pseudo-random numbers for the unit tests: one xorshift64
//! generator (Marsaglia 2003) that every module's tests share; and counts
//! of a query's costly steps, so that tests can pin a speed fix by the work
//! it saves (timed tests would depend on the machine).

use std::cell::Cell;

use crate::math::Real;

/// A costly step of a query, counted in test builds.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Work {
    /// An exact point–triangle closest point (nearest-point leaves).
    ExactClosestPoint,
    /// An exact triangle–triangle distance (mesh distance leaves).
    TrianglePairDistance,
    /// A leaf triangle offered to a shape cast.
    CastTriangle,
    /// A shape cast's sweep against one triangle (closest hits).
    CastSweep,
    /// A generalised winding number over a whole mesh (`contact`).
    WindingNumber,
    /// A raycast's careful triangle test (exact endpoint decisions).
    CarefulTriangleTest,
    /// An object asked for its closest hit by a scene's descent.
    SceneObjectAsked,
    /// An exact endpoint decision by orientation predicates (keep it
    /// last: it sizes the counts).
    ExactEndDecision,
}

/// How many kinds of [`Work`] there are (the last one's index, plus one).
const WORK_KINDS: usize = Work::ExactEndDecision as usize + 1;

thread_local! {
    /// Steps counted on this thread, by [`Work`].
    static WORK: Cell<[u64; WORK_KINDS]> = const { Cell::new([0; WORK_KINDS]) };
}

/// Counts one step of `work` (called by the query layer in test builds
/// only).
pub(crate) fn count(work: Work) {
    WORK.with(|c| {
        let mut counts = c.get();
        counts[work as usize] += 1;
        c.set(counts);
    });
}

/// The answer of `f` and how many steps of `work` it took on this thread
/// (tests run on threads of their own, so the count is the test's).
pub(crate) fn counted<R>(work: Work, f: impl FnOnce() -> R) -> (R, u64) {
    let before = WORK.with(Cell::get)[work as usize];
    let answer = f();
    (answer, WORK.with(Cell::get)[work as usize] - before)
}

/// The xorshift64 sequence from `seed` (which must not be 0).
pub(crate) fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// Uniform floats in `[0, 1)` with 24 random bits each.
pub(crate) fn unit_floats(seed: u64) -> impl FnMut() -> Real {
    let mut next = xorshift(seed);
    move || unit(next())
}

/// The top 24 bits of `bits` as a float in `[0, 1)`.
pub(crate) fn unit(bits: u64) -> Real {
    (bits >> 40) as Real / (1u64 << 24) as Real
}
