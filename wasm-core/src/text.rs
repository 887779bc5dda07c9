//! Small wording helpers for what the user reads (panel lines, answers, exports).

use std::fmt::Display;

/// `n` with its noun in the right number: "1 step", "3 steps", "0 tasks" (regular plurals
/// only: every noun Waymark counts takes an "s").
pub fn counted<N: Display + PartialEq + From<u8>>(n: N, noun: &str) -> String {
    if n == N::from(1) { format!("{n} {noun}") } else { format!("{n} {noun}s") }
}

#[cfg(test)]
mod tests {
    use super::counted;

    #[test]
    fn one_is_singular_everything_else_plural() {
        assert_eq!(counted(1u32, "step"), "1 step");
        assert_eq!(counted(0usize, "task"), "0 tasks");
        assert_eq!(counted(12u64, "call"), "12 calls");
    }
}
