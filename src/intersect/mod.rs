//! Static intersection tests, one pair of shapes per file, named in argument order.

mod polytope_sat;

pub use polytope_sat::{ConvexPolytope, polytopes_overlap};
