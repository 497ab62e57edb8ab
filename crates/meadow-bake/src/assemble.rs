//! Stage 7, assemble.
