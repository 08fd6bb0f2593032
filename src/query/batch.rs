//! Batch execution: on rayon's pool with the `parallel` feature, serially
//! otherwise; answers always in the input order and equal to the serial ones.

/// Queries per chunk of [`fill_batch`]: enough that a chunk's interleaved
/// descents rarely run short of work, few enough to spread small batches.
#[cfg(feature = "parallel")]
const CHUNK: usize = 256;

/// Fills `out` chunk by chunk: `fill(offset, chunk)` answers queries
/// `offset .. offset + chunk.len()` on one thread; the chunks run on all
/// cores when the feature is on.
pub(crate) fn fill_batch<R: Send>(out: &mut [R], fill: impl Fn(usize, &mut [R]) + Sync + Send) {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        out.par_chunks_mut(CHUNK)
            .enumerate()
            .for_each(|(i, chunk)| fill(i * CHUNK, chunk));
    }
    #[cfg(not(feature = "parallel"))]
    {
        fill(0, out);
    }
}
