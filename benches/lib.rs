//! Nothing but a home for the bench targets: Cargo wants a library or a
//! binary in every package. The shared bench code is `common/`, compiled
//! into each bench, where criterion and parry3d (dev-dependencies) are in
//! scope.
