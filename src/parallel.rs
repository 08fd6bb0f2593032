//! Two independent steps on two of rayon's threads, when the caller asks
//! and the `parallel` feature is on; one after the other otherwise. Builds,
//! refits and loads use it for their halves that touch disjoint data.

/// `a` and `b` at the same time (`rayon::join`) when `apart`, else in
/// turn, `a` first.
pub(crate) fn join_if<A: Send, B: Send>(
    apart: bool,
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    #[cfg(feature = "parallel")]
    if apart {
        return rayon::join(a, b);
    }
    let _ = apart;
    (a(), b())
}
