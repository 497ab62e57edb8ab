//! Stage 2, classify.
