//! Moving-object tests that report contact times within one frame.
