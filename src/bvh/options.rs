//! Build settings as a plain struct with named presets.

use crate::bvh::ObbFit;

/// How a node's triangles are divided between its two children.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitRule {
    /// Binned surface-area heuristic over triangle centroids (Wald, "On fast
    /// construction of SAH-based bounding volume hierarchies", 2007): best for
    /// raycasts. `bins` candidate planes per axis.
    Sah {
        /// Number of bins per axis (clamped to 2..=64).
        bins: u32,
        /// How thoroughly each node's plane is searched.
        search: SplitSearch,
    },
    /// Gottschalk, Lin, Manocha (1996): the plane through the mean of the
    /// centroids, perpendicular to the node volume's longest axis; if one side
    /// is empty, the next axis; then a median split.
    MeanAlongLongestAxis,
}

/// How much of a node the binned SAH looks at to choose its plane: a
/// trade of build time against the number of nodes a query visits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitSearch {
    /// Bins only the axes whose centroid extent is at least 0.6 of the
    /// longest, and nodes of 4,096 triangles or more bin an evenly strided
    /// sample of 2,048 to 3,072 of them. On meshes of similar triangles
    /// (the bunny, terrains) raycasts visit only 2–3% more nodes than with
    /// [`SplitSearch::Thorough`], and the trees build about a quarter
    /// faster.
    Fast,
    /// Bins every axis and every triangle, for about a third more build
    /// time. Where triangles of very different sizes and orientations
    /// share nodes (architecture: walls, railings, roofs and ground) the
    /// skipped and sampled-away planes are often the best ones: on
    /// `TriMesh::city(10, 3)` raycasts visit 11–13% fewer nodes than with
    /// [`SplitSearch::Fast`], and the layouts of towns of 6 to 16 blocks
    /// model 2–10% cheaper. The greedy top-down choice does not always
    /// gain: a town of 4 blocks came out 18–20% costlier
    /// (`docs/performance.md`, Builds).
    Thorough,
}

/// Settings for [`crate::bvh::Bvh::build`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BuildOptions {
    /// How nodes are split.
    pub split: SplitRule,
    /// Largest number of triangles in a leaf (at least 1). With SAH, smaller
    /// leaves may still be chosen when they are cheaper.
    pub max_leaf_size: u32,
    /// How OBB nodes are oriented (ignored by other volumes).
    pub obb_fit: ObbFit,
    /// Build subtrees on several threads (needs the `parallel` feature; the
    /// result is identical to the serial build).
    pub parallel: bool,
}

impl BuildOptions {
    /// The AABB-tree preset: binned SAH with 16 bins, leaves of up to 4 triangles.
    #[must_use]
    pub fn sah() -> Self {
        BuildOptions {
            split: SplitRule::Sah {
                bins: 16,
                search: SplitSearch::Fast,
            },
            max_leaf_size: 4,
            obb_fit: ObbFit::Triangles,
            parallel: cfg!(feature = "parallel"),
        }
    }

    /// The OBB-tree preset of Gottschalk et al.: mean split along the longest
    /// box axis, one triangle per leaf, boxes from the triangles' covariance.
    #[must_use]
    pub fn gottschalk() -> Self {
        BuildOptions {
            split: SplitRule::MeanAlongLongestAxis,
            max_leaf_size: 1,
            obb_fit: ObbFit::Triangles,
            parallel: cfg!(feature = "parallel"),
        }
    }

    /// This preset built on one thread.
    #[must_use]
    pub fn serial(self) -> Self {
        BuildOptions {
            parallel: false,
            ..self
        }
    }

    /// This preset with a different split rule.
    #[must_use]
    pub fn with_split(self, split: SplitRule) -> Self {
        BuildOptions { split, ..self }
    }

    /// This preset with a different leaf size.
    #[must_use]
    pub fn with_max_leaf_size(self, max_leaf_size: u32) -> Self {
        BuildOptions {
            max_leaf_size,
            ..self
        }
    }

    /// This preset with a different OBB orientation rule.
    #[must_use]
    pub fn with_obb_fit(self, obb_fit: ObbFit) -> Self {
        BuildOptions { obb_fit, ..self }
    }
}
