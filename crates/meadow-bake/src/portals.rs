//! Stage 6, portals.
