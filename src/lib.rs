//! Test support for Meadow's end-to-end fixture tests (one module, shared by every test file).
