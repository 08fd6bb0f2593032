//! Which objects a scene query may report.

use crate::scene::ObjectId;

/// The objects a query looks at: those whose layer mask shares a bit with
/// the filter's, minus an ignore list (the target's own object, so that it
/// cannot hide itself; the player's own body).
///
/// The default filter sees every object on at least one layer. An object
/// whose layer mask is 0 is on none: it stays in the scene, but no query
/// that takes a filter (all overlapping pairs included) reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filter {
    layers: u32,
    /// Kept sorted and without duplicates.
    ignored: Vec<ObjectId>,
}

impl Default for Filter {
    fn default() -> Self {
        Filter::everything()
    }
}

impl Filter {
    /// Every object on at least one layer (every layer mask but 0).
    #[must_use]
    pub fn everything() -> Self {
        Filter {
            layers: u32::MAX,
            ignored: Vec::new(),
        }
    }

    /// Objects whose layer mask shares a bit with `layers`.
    #[must_use]
    pub fn layers(layers: u32) -> Self {
        Filter {
            layers,
            ignored: Vec::new(),
        }
    }

    /// This filter, never reporting these objects.
    #[must_use]
    pub fn ignoring(mut self, objects: impl IntoIterator<Item = ObjectId>) -> Self {
        self.ignored.extend(objects);
        self.ignored.sort_unstable();
        self.ignored.dedup();
        self
    }

    /// True when an object `id` on `layers` passes the filter.
    #[must_use]
    #[inline(always)]
    pub fn accepts(&self, id: ObjectId, layers: u32) -> bool {
        self.layers & layers != 0
            && (self.ignored.is_empty() || self.ignored.binary_search(&id).is_err())
    }
}
