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
//! Asking is not enough when the memory comes from `malloc`: a block that
//! reuses pages an earlier, dropped tree had touched keeps their 4 KiB
//! backing (the kernel picks the page size at the first touch), so a tree
//! built after another was dropped ran a third slower (issue 22). Large
//! arrays therefore get a mapping of their own, aligned to 2 MiB, advised
//! before the first write and returned to the kernel when dropped; the
//! kernel's own accounting (`/proc/self/smaps`) then says how much of it
//! landed on huge pages ([`PageArray::huge_page_bytes`]).
//!
//! Without transparent huge pages, or on other systems, the arrays are
//! ordinary vectors and the answers are the same.
// mmap, madvise and munmap of the mappings this module owns.
#![allow(unsafe_code)]

use std::fmt;
use std::ops::{Deref, DerefMut};

/// Huge-page size on x86-64 and most aarch64 Linux systems.
#[cfg(target_os = "linux")]
const HUGE_PAGE: usize = 2 << 20;

/// Arrays smaller than this stay in ordinary vectors: under two huge pages
/// the TLB gain is small and the 2 MiB alignment would waste address space.
#[cfg(target_os = "linux")]
const MAPPED_FROM: usize = 2 * HUGE_PAGE;

/// A fixed-length array of plain values that queries read at random (or
/// a build fills once in full): in a 2 MiB-aligned mapping of its own,
/// advised for huge pages, when it is large and the system is Linux; in a
/// vector otherwise.
pub(crate) struct PageArray<T: Copy> {
    storage: Storage<T>,
}

enum Storage<T: Copy> {
    Heap(Vec<T>),
    #[cfg(target_os = "linux")]
    Mapped(Mapping<T>),
}

impl<T: Copy> PageArray<T> {
    /// An empty array with room for `capacity` values: a reservation of
    /// address space, not of memory (pages are backed as they are written),
    /// so an upper bound costs nothing when the length is not known ahead.
    #[must_use]
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        #[cfg(target_os = "linux")]
        if capacity.saturating_mul(size_of::<T>()) >= MAPPED_FROM
            && let Some(mapping) = Mapping::new(capacity)
        {
            return PageArray {
                storage: Storage::Mapped(mapping),
            };
        }
        PageArray {
            storage: Storage::Heap(Vec::with_capacity(capacity)),
        }
    }

    /// Appends `value`; panics beyond the capacity (a logic error: callers
    /// reserve an upper bound).
    #[inline]
    pub(crate) fn push(&mut self, value: T) {
        match &mut self.storage {
            Storage::Heap(v) => {
                assert!(v.len() < v.capacity(), "PageArray is full");
                v.push(value);
            }
            #[cfg(target_os = "linux")]
            Storage::Mapped(m) => m.push(value),
        }
    }

    /// Collects exactly `len` items (fewer is a logic error: the array
    /// then holds what came; more are left unread).
    #[must_use]
    pub(crate) fn collect(len: usize, items: impl IntoIterator<Item = T>) -> Self {
        let mut array = Self::with_capacity(len);
        for item in items.into_iter().take(len) {
            array.push(item);
        }
        debug_assert_eq!(array.len(), len);
        array
    }

    /// A copy of `items`.
    #[must_use]
    pub(crate) fn copied(items: &[T]) -> Self {
        Self::collect(items.len(), items.iter().copied())
    }

    /// Bytes of this array that the kernel reports on huge pages; `None`
    /// where it cannot tell (not Linux, `/proc` unreadable). Arrays kept in
    /// vectors count 0: they are small, and share their pages.
    #[must_use]
    pub(crate) fn huge_page_bytes(&self) -> Option<usize> {
        match &self.storage {
            #[cfg(target_os = "linux")]
            Storage::Mapped(m) => huge_page_bytes_at(m.data as usize),
            Storage::Heap(_) => cfg!(target_os = "linux").then_some(0),
        }
    }
}

impl<T: Copy> Deref for PageArray<T> {
    type Target = [T];

    #[inline(always)]
    fn deref(&self) -> &[T] {
        match &self.storage {
            Storage::Heap(v) => v,
            #[cfg(target_os = "linux")]
            Storage::Mapped(m) => m.as_slice(),
        }
    }
}

impl<T: Copy> DerefMut for PageArray<T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [T] {
        match &mut self.storage {
            Storage::Heap(v) => v,
            #[cfg(target_os = "linux")]
            Storage::Mapped(m) => m.as_mut_slice(),
        }
    }
}

impl<T: Copy> Clone for PageArray<T> {
    fn clone(&self) -> Self {
        Self::copied(self)
    }
}

impl<T: Copy + fmt::Debug> fmt::Debug for PageArray<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: Copy + PartialEq> PartialEq for PageArray<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

/// An anonymous mapping holding up to `capacity` values from a 2 MiB
/// boundary, with an inaccessible guard page on each side so that the
/// kernel never merges it with a neighbouring mapping (its statistics are
/// then exactly this array's).
#[cfg(target_os = "linux")]
struct Mapping<T> {
    /// The whole reservation, guards and alignment slack included.
    raw: *mut libc::c_void,
    raw_len: usize,
    /// The first value, on a 2 MiB boundary.
    data: *mut T,
    /// Values written so far (the prefix that is initialised).
    len: usize,
    capacity: usize,
}

// SAFETY: a `Mapping` owns its memory exclusively, like a `Vec<T>`: moving
// it to or sharing it with another thread is as safe as for `T` itself.
#[cfg(target_os = "linux")]
unsafe impl<T: Send> Send for Mapping<T> {}
// SAFETY: as above; `&Mapping` gives only shared access to the values.
#[cfg(target_os = "linux")]
unsafe impl<T: Sync> Sync for Mapping<T> {}

#[cfg(target_os = "linux")]
impl<T> Mapping<T> {
    /// Reserves room for `capacity` values; `None` if the kernel refuses
    /// (the caller then uses a vector).
    fn new(capacity: usize) -> Option<Self> {
        const GUARD: usize = 4096;
        debug_assert!(align_of::<T>() <= HUGE_PAGE);
        let bytes = capacity
            .checked_mul(size_of::<T>())?
            .checked_next_multiple_of(HUGE_PAGE)?;
        let raw_len = bytes.checked_add(HUGE_PAGE + 2 * GUARD)?;
        // SAFETY: an anonymous private mapping at an address of the
        // kernel's choosing touches no existing memory.
        let raw = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                raw_len,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if raw == libc::MAP_FAILED {
            return None;
        }
        let start = (raw as usize + GUARD).next_multiple_of(HUGE_PAGE);
        // The data pages become readable and writable, and are advised
        // before their first touch; the rest of the reservation stays
        // inaccessible (the guards).
        let mapping = Mapping {
            raw,
            raw_len,
            data: start as *mut T,
            len: 0,
            capacity,
        };
        // SAFETY: `start .. start + bytes` lies inside the reservation
        // (`start - raw ≤ HUGE_PAGE`, leaving `bytes + GUARD` after it).
        // MADV_HUGEPAGE changes only how the kernel backs the pages; its
        // failure (no transparent huge pages) leaves ordinary pages.
        unsafe {
            let data = start as *mut libc::c_void;
            if libc::mprotect(data, bytes, libc::PROT_READ | libc::PROT_WRITE) != 0 {
                return None; // `mapping` is dropped and unmapped
            }
            libc::madvise(data, bytes, libc::MADV_HUGEPAGE);
        }
        Some(mapping)
    }

    fn push(&mut self, value: T) {
        assert!(self.len < self.capacity, "mapping is full");
        // SAFETY: slot `len` lies inside the writable data pages and is
        // suitably aligned (the data start is 2 MiB-aligned).
        unsafe { self.data.add(self.len).write(value) };
        self.len += 1;
    }

    fn as_slice(&self) -> &[T] {
        // SAFETY: the first `len` values are initialised and the mapping
        // lives as long as `self`.
        unsafe { std::slice::from_raw_parts(self.data, self.len) }
    }

    fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as in `as_slice`, with exclusive access through `&mut self`.
        unsafe { std::slice::from_raw_parts_mut(self.data, self.len) }
    }
}

#[cfg(target_os = "linux")]
impl<T> Drop for Mapping<T> {
    fn drop(&mut self) {
        // SAFETY: the reservation was made by `Mapping::new` and is
        // released once; the values are `Copy` (nothing to drop).
        unsafe {
            libc::munmap(self.raw, self.raw_len);
        }
    }
}

/// `AnonHugePages` of the mapping that starts at `start`, from
/// `/proc/self/smaps`; `None` if the file cannot be read or has no such
/// mapping.
#[cfg(target_os = "linux")]
fn huge_page_bytes_at(start: usize) -> Option<usize> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
    let mut in_mapping = false;
    for line in smaps.lines() {
        // A mapping's header starts with its address range in hex; its
        // fields ("Name:   value kB") follow until the next header.
        if let Some((range, _)) = line.split_once(' ')
            && let Some((from, _)) = range.split_once('-')
            && let Ok(from) = usize::from_str_radix(from, 16)
        {
            in_mapping = from == start;
        } else if in_mapping && let Some(value) = line.strip_prefix("AnonHugePages:") {
            let kib: usize = value.trim().trim_end_matches("kB").trim().parse().ok()?;
            return Some(kib * 1024);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// True when the kernel offers transparent huge pages to processes that
    /// ask (mode "always" or "madvise"); false where it does not or cannot say.
    fn transparent_huge_pages_offered() -> bool {
        std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
            .is_ok_and(|mode| !mode.contains("[never]"))
    }

    #[test]
    fn copies_are_exact_at_every_size() {
        // Empty, small, and large enough to be mapped (over 4 MiB).
        for len in [0usize, 1, 1000, 1_500_000] {
            let items: Vec<u64> = (0..len as u64)
                .map(|i| i.wrapping_mul(0x9e37_79b9))
                .collect();
            let copy = PageArray::copied(&items);
            assert_eq!(&*copy, items.as_slice());
            let again = copy.clone();
            assert_eq!(again, copy);
        }
    }

    #[test]
    fn large_arrays_are_mapped_on_huge_pages_where_offered() {
        let array = PageArray::collect(1 << 20, (0..1u64 << 20).map(|i| i * 3));
        assert_eq!(array[12345], 3 * 12345);
        if !transparent_huge_pages_offered() {
            eprintln!("transparent huge pages not offered here: statistic not checked");
            return;
        }
        // 8 MiB of values from a 2 MiB boundary: all four pages may be huge;
        // the kernel may still refuse under memory fragmentation, so the
        // test asks for at least one.
        let huge = array.huge_page_bytes().expect("smaps names the mapping");
        assert!(huge >= 2 << 20, "{huge} bytes on huge pages");
        assert_eq!(PageArray::copied(&[1u8; 10]).huge_page_bytes(), Some(0));
    }
}
