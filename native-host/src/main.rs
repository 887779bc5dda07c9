//! host
fn main() {}
