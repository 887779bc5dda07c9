//! Entry point: host mode when Chrome starts us, the command line otherwise.
fn main() {}
