//! Node bindings (placeholder).
