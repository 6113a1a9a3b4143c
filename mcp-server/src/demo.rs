//! demo
/// x
pub fn run_demo() -> i32 {
    0
}
