//! Traversal stacks: a fixed array for trees of bounded depth (every tree
//! the builders make in practice), a growable one otherwise, behind one trait
//! so each kernel is compiled once per stack type without a per-push branch
//! for spilling.

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

/// Depth up to which [`ArrayStack`] suffices: a depth-first descent holds at
/// most one pending sibling per level.
pub const ARRAY_STACK_DEPTH: usize = 64;

/// A stack in a fixed array (never allocates). Only for trees with
/// depth below [`ARRAY_STACK_DEPTH`]; pushing more entries panics.
pub struct ArrayStack<T> {
    items: [T; ARRAY_STACK_DEPTH],
    len: usize,
}

impl<T: Copy + Default> ArrayStack<T> {
    /// An empty stack.
    #[must_use]
    pub fn new() -> Self {
        ArrayStack {
            items: [T::default(); ARRAY_STACK_DEPTH],
            len: 0,
        }
    }
}

impl<T: Copy + Default> Default for ArrayStack<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy> TraversalStack<T> for ArrayStack<T> {
    #[inline(always)]
    fn push(&mut self, item: T) {
        self.items[self.len] = item;
        self.len += 1;
    }

    #[inline(always)]
    fn push_if(&mut self, item: T, keep: bool) {
        // The slot past the top is always free: callers keep at most
        // `ARRAY_STACK_DEPTH - 1` entries (see `WideBvh::fits_array_stack`).
        self.items[self.len] = item;
        self.len += usize::from(keep);
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        Some(self.items[self.len])
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
