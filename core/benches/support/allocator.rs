//! The allocator for the benchmarks and the timing examples, shared through `#[path]`:
//! mimalloc with `--features mimalloc` (what sqlgate-mcp and the Python and Node packages ship
//! with), the system allocator otherwise (what a Rust program gets from `cargo add sqlgate`).

#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Which allocator these timings ran with.
pub const ALLOCATOR: &str = if cfg!(feature = "mimalloc") {
    "mimalloc"
} else {
    "system"
};
