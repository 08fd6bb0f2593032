//! Batch execution: on rayon's pool or on the calling thread, as the caller
//! chooses; answers always in the input order and equal to one query at a
//! time.

/// Where a batch of queries runs.
///
/// Either way the answers are in the input order and equal to one query
/// at a time; on trees larger than the private caches, each thread's share
/// interleaves several descents so that their memory latencies overlap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Threads {
    /// Chunks of the batch on rayon's pool, all cores (with the `parallel`
    /// feature; without it, the calling thread).
    #[default]
    All,
    /// The calling thread only: for callers with their own job system, and
    /// the fastest way to ask many questions on one core.
    Current,
}

/// Queries per chunk on the pool: enough that a chunk's interleaved
/// descents rarely run short of work, few enough to spread small batches.
#[cfg(feature = "parallel")]
const CHUNK: usize = 256;

/// Clears `out`, sizes it to `len` answers of `blank`, and fills it:
/// `fill(offset, chunk)` answers queries `offset .. offset + chunk.len()`
/// on one thread; the chunks run on all cores for [`Threads::All`].
pub(crate) fn fill_batch<R: Send + Clone>(
    out: &mut Vec<R>,
    len: usize,
    blank: R,
    threads: Threads,
    fill: impl Fn(usize, &mut [R]) + Sync + Send,
) {
    out.clear();
    out.resize(len, blank);
    match threads {
        #[cfg(feature = "parallel")]
        Threads::All => {
            use rayon::prelude::*;
            out.par_chunks_mut(CHUNK)
                .enumerate()
                .for_each(|(i, chunk)| fill(i * CHUNK, chunk));
        }
        _ => fill(0, out),
    }
}
