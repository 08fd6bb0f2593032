//! Traversal stacks: a fixed array for trees of bounded depth (every tree
//! the builders make in practice), a growable one otherwise, behind one trait
//! so each kernel is compiled once per stack type without a per-push branch
//! for spilling.
// Traversal stacks in uninitialised fixed arrays: no per-query zeroing.
#![allow(unsafe_code)]

use std::mem::MaybeUninit;

/// The stack a traversal kernel pushes pending nodes on.
pub trait TraversalStack<T: Copy> {
    /// Adds an entry.
    fn push(&mut self, item: T);
    /// Removes the latest entry.
    fn pop(&mut self) -> Option<T>;
    /// Adds `item` when `keep` holds. Wide-node kernels call it once per
    /// child lane; the array stack does it without a branch (write always,
    /// advance by `keep`), since which children a ray enters is unpredictable.
    #[inline(always)]
    fn push_if(&mut self, item: T, keep: bool) {
        if keep {
            self.push(item);
        }
    }
}

/// Entries an [`ArrayStack`] holds: enough for a depth-first binary
/// descent (one pending sibling per level) to depth 127, and for an
/// 8-wide one (up to seven per level) to depth 17.
pub const ARRAY_STACK_DEPTH: usize = 128;

/// Storage for an [`ArrayStack`], left uninitialised: zeroing 1 KiB per
/// query measured 5% of an 8-wide closest hit on the bunny.
pub type StackItems<T> = [MaybeUninit<T>; ARRAY_STACK_DEPTH];

/// Fresh [`StackItems`] (nothing written).
#[must_use]
#[inline(always)]
pub const fn stack_items<T: Copy>() -> StackItems<T> {
    [const { MaybeUninit::uninit() }; ARRAY_STACK_DEPTH]
}

/// A stack in a fixed array (never allocates). Only for trees with
/// depth below [`ARRAY_STACK_DEPTH`]; pushing more entries panics.
///
/// The array is borrowed from the caller so that the stack itself is just
/// a pointer and a length: kernels then keep the length in a register (with
/// the array inside the struct it stayed in memory, and every push and pop
/// waited on a store to it).
pub struct ArrayStack<'a, T> {
    /// Entries below `len` are initialised: every push writes its slot
    /// before `len` moves past it.
    items: &'a mut StackItems<T>,
    len: usize,
}

impl<'a, T: Copy> ArrayStack<'a, T> {
    /// An empty stack over `items` (their contents are ignored).
    #[must_use]
    #[inline(always)]
    pub fn new(items: &'a mut StackItems<T>) -> Self {
        ArrayStack { items, len: 0 }
    }
}

impl<T: Copy> TraversalStack<T> for ArrayStack<'_, T> {
    #[inline(always)]
    fn push(&mut self, item: T) {
        self.items[self.len] = MaybeUninit::new(item);
        self.len += 1;
    }

    #[inline(always)]
    fn push_if(&mut self, item: T, keep: bool) {
        // The slot past the top is always free: callers keep at most
        // `ARRAY_STACK_DEPTH - 1` entries (see `WideBvh::fits_array_stack`).
        self.items[self.len] = MaybeUninit::new(item);
        self.len += usize::from(keep);
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        // SAFETY: entries below the old `len` are initialised (see `items`).
        Some(unsafe { self.items[self.len].assume_init() })
    }
}

/// A fixed-array stack parked between the steps of an interleaved descent:
/// its entries and their count kept together, so resuming it needs no
/// promise from the caller about which entries are initialised.
pub(crate) struct ParkedStack<T> {
    items: StackItems<T>,
    /// Entries below `len` are initialised: only an [`ArrayStack`] over
    /// `items` sets it, when a [`ResumedStack`] is dropped.
    len: usize,
}

impl<T: Copy> ParkedStack<T> {
    /// An empty parked stack.
    #[must_use]
    pub(crate) const fn new() -> Self {
        ParkedStack {
            items: stack_items(),
            len: 0,
        }
    }

    /// Empties the stack for the next descent.
    #[inline(always)]
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    /// The stack, to push and pop until the returned value is dropped,
    /// which parks its new length here.
    #[inline(always)]
    pub(crate) fn resume(&mut self) -> ResumedStack<'_, T> {
        ResumedStack {
            stack: ArrayStack {
                items: &mut self.items,
                len: self.len,
            },
            home: &mut self.len,
        }
    }
}

/// A [`ParkedStack`] in use: an [`ArrayStack`] whose length goes back to
/// its parking place when dropped.
pub(crate) struct ResumedStack<'a, T: Copy> {
    stack: ArrayStack<'a, T>,
    home: &'a mut usize,
}

impl<T: Copy> Drop for ResumedStack<'_, T> {
    #[inline(always)]
    fn drop(&mut self) {
        *self.home = self.stack.len;
    }
}

impl<T: Copy> TraversalStack<T> for ResumedStack<'_, T> {
    #[inline(always)]
    fn push(&mut self, item: T) {
        self.stack.push(item);
    }

    #[inline(always)]
    fn push_if(&mut self, item: T, keep: bool) {
        self.stack.push_if(item, keep);
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<T> {
        self.stack.pop()
    }
}

impl<T: Copy> TraversalStack<T> for Vec<T> {
    #[inline(always)]
    fn push(&mut self, item: T) {
        Vec::push(self, item);
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<T> {
        Vec::pop(self)
    }
}
