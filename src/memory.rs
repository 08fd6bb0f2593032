//! Where the big query arrays live: on huge pages when the system allows.
//!
//! A descent through a large tree reads a few cache lines at scattered
//! addresses per level. With 4 KiB pages each of those reads also misses
//! the TLB once the arrays outgrow its reach (2,048 entries cover 8 MiB on
//! the machines we measure on), so every level pays a page walk on top of
//! the cache miss. On 2 MiB pages the 140 MB of nodes and triangles of a
//! 1.7M-triangle mesh take 70 entries. Linux backs memory with huge pages
//! where the process asks (`madvise(MADV_HUGEPAGE)`, the default
//! "madvise" mode of transparent huge pages) or everywhere ("always");
//! Embree asks the same way for its large allocations.
//!
//! The advice is a hint: without transparent huge pages, or on other
//! systems, the arrays are ordinary vectors and the answers are the same.
// `madvise` on the pages of arrays this module allocates.
#![allow(unsafe_code)]

/// Huge-page size on x86-64 and most aarch64 Linux systems.
#[cfg(target_os = "linux")]
const HUGE_PAGE: usize = 2 << 20;

/// Collects `len` items into a new vector of exactly that capacity whose
/// whole 2 MiB pages were advised for huge pages before the first write
/// (the kernel picks the page size when a page is first touched; advising
/// later leaves the collapse to a background thread that may take minutes).
///
/// Used for arrays that queries read at random: the wide nodes and the
/// leaf-order triangles, where huge pages spare large trees most of their
/// TLB misses. Arrays under two huge pages get no advice.
#[must_use]
pub(crate) fn collect_on_huge_pages<T>(len: usize, items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::with_capacity(len);
    #[cfg(target_os = "linux")]
    advise_huge_pages(out.as_ptr() as usize, len * std::mem::size_of::<T>());
    out.extend(items);
    debug_assert_eq!(out.len(), len);
    out
}

/// [`collect_on_huge_pages`] of a copy of `items`.
#[must_use]
pub(crate) fn copy_to_huge_pages<T: Copy>(items: &[T]) -> Vec<T> {
    collect_on_huge_pages(items.len(), items.iter().copied())
}

/// Advises the whole huge pages inside `bytes` bytes from `start`.
#[cfg(target_os = "linux")]
fn advise_huge_pages(start: usize, bytes: usize) {
    let first = start.next_multiple_of(HUGE_PAGE);
    let end = start + bytes;
    if end < first + 2 * HUGE_PAGE {
        return;
    }
    let len = (end - first) / HUGE_PAGE * HUGE_PAGE;
    // SAFETY: the range lies inside an allocation this function's caller
    // owns and has not yet written; MADV_HUGEPAGE changes only how the
    // kernel backs the pages, never their contents or validity. A failure
    // (no transparent huge pages) leaves ordinary pages, so it is ignored.
    unsafe {
        libc::madvise(first as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_are_exact_at_every_size() {
        // Empty, small, and large enough to be advised (over 4 MiB).
        for len in [0usize, 1, 1000, 1_500_000] {
            let items: Vec<u64> = (0..len as u64)
                .map(|i| i.wrapping_mul(0x9e37_79b9))
                .collect();
            let copy = copy_to_huge_pages(&items);
            assert_eq!(copy, items);
            assert_eq!(copy.capacity(), len);
        }
    }
}
