//! Importers: navigation meshes made by other tools, turned into Meadow assets.
//!
//! An importer skips the glTF stages of the bake (the input already is a convex decomposition
//! of the free space) and runs the last ones on it: [`crate::assemble`] (outlines, validation)
//! and, when the settings ask for it, [`crate::visibility`].

pub mod polyanya;
