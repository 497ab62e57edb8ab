//! Progress reporting supplied by the caller (the CLI draws bars; build scripts stay silent).

/// A stage of the bake pipeline, in the order they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    /// Reading the glTF file into world-space triangles.
    Ingest,
    /// Sorting triangles into walkable and blocking.
    Classify,
    /// Baking the tiles of a tiled bake (region to convex polygons per tile, in parallel),
    /// then stitching them into one mesh.
    Tiles,
    /// Computing the free walkable area as polygons with holes.
    Region,
    /// Dropping ring vertices that carry no shape (near-collinear runs, millimetre zigzags).
    Simplify,
    /// Ear-clipping the regions into triangles.
    Triangulate,
    /// Merging triangles into convex polygons.
    Convex,
    /// Linking polygons across shared edges.
    Portals,
    /// Building and validating the asset.
    Assemble,
    /// Finding the corners that see each other (the visibility graph).
    Visibility,
    /// Connecting the level's off-mesh links to the mesh.
    Links,
}

impl Stage {
    /// Every stage in pipeline order.
    pub const ALL: [Stage; 11] = [
        Stage::Ingest,
        Stage::Classify,
        Stage::Tiles,
        Stage::Region,
        Stage::Simplify,
        Stage::Triangulate,
        Stage::Convex,
        Stage::Portals,
        Stage::Assemble,
        Stage::Visibility,
        Stage::Links,
    ];

    /// A short lower-case name for display.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Ingest => "ingest",
            Stage::Classify => "classify",
            Stage::Tiles => "tiles",
            Stage::Region => "region",
            Stage::Simplify => "simplify",
            Stage::Triangulate => "triangulate",
            Stage::Convex => "convex",
            Stage::Portals => "portals",
            Stage::Assemble => "assemble",
            Stage::Visibility => "visibility",
            Stage::Links => "links",
        }
    }
}

/// Receives progress and warnings from a bake.
pub trait Progress {
    /// A stage starts; `total` work units follow (0 when unknown).
    fn begin(&mut self, stage: Stage, total: u64);
    /// `done` of the stage's units are finished.
    fn advance(&mut self, stage: Stage, done: u64);
    /// The stage finished.
    fn finish(&mut self, stage: Stage);
    /// Something the user should know that does not stop the bake.
    fn warn(&mut self, message: &str);
}

/// A [`Progress`] that ignores everything (for build scripts and tests).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn begin(&mut self, _: Stage, _: u64) {}
    fn advance(&mut self, _: Stage, _: u64) {}
    fn finish(&mut self, _: Stage) {}
    fn warn(&mut self, _: &str) {}
}
