//! Batch execution: on rayon's pool with the `parallel` feature, serially
//! otherwise; answers always in the input order and equal to the serial ones.

/// Smallest number of queries handed to one rayon task.
#[cfg(feature = "parallel")]
const MIN_QUERIES_PER_TASK: usize = 256;

/// `items.iter().map(f).collect()`, on all cores when the feature is on.
pub(crate) fn map_batch<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(&T) -> R + Sync + Send,
) -> Vec<R> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        items
            .par_iter()
            .with_min_len(MIN_QUERIES_PER_TASK)
            .map(f)
            .collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        items.iter().map(f).collect()
    }
}
