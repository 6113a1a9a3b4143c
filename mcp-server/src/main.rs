//! `sqlgate-mcp`: placeholder, replaced by the command line.
fn main() {}
