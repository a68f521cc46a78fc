//! What keeps a Rust failure from crossing into Python: panics caught and raised as errors,
//! deeply nested values handled on a deep stack.

pub mod deep_stack;
pub mod guard;
