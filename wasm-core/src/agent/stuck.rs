//! Stuck detection: the same action on an unchanged page, the same failure again, a page that
//! stops changing. Escalates from a nudge in the prompt to a new plan to asking the user.

use serde::{Deserialize, Serialize};

/// Repeats before the prompt gets a nudge: one repeat is often legitimate (a slow page, a
/// retry after a transient error); the second is a pattern worth pointing out.
pub const NUDGE_AFTER: u32 = 2;
/// Repeats before the planner is asked for a different plan: the nudge had one step to work.
pub const REPLAN_AFTER: u32 = 3;
/// Repeats before the agent stops and asks the user: the new plan had one step to work too,
/// and each further step spends the user's money on a loop.
pub const ASK_AFTER: u32 = 4;

/// How strongly to react.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StuckLevel {
    /// Nothing wrong.
    Fine,
    /// Point the repetition out in the prompt.
    Nudge,
    /// Ask the planner for another plan.
    Replan,
    /// Stop and ask the user.
    Ask,
}

/// Counts repetitions across steps.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StuckDetector {
    last_fingerprint: Option<u64>,
    same_page: u32,
    last_action: Option<(String, u64)>,
    same_action: u32,
    last_failure: Option<String>,
    same_failure: u32,
    /// Why the latest level was reached, for the prompt and the user.
    pub reason: Option<String>,
}

impl StuckDetector {
    /// A page was read; `fingerprint` summarises what the model sees.
    pub fn page(&mut self, fingerprint: u64) {
        if self.last_fingerprint == Some(fingerprint) {
            self.same_page += 1;
        } else {
            self.same_page = 0;
            self.last_fingerprint = Some(fingerprint);
        }
    }

    /// An action ran on the page with the current fingerprint.
    pub fn action(&mut self, description: &str, error: Option<&str>) {
        let key = (description.to_owned(), self.last_fingerprint.unwrap_or(0));
        if self.last_action.as_ref() == Some(&key) {
            self.same_action += 1;
        } else {
            self.same_action = 0;
            self.last_action = Some(key);
        }
        match error {
            Some(e) if self.last_failure.as_deref() == Some(e) => self.same_failure += 1,
            Some(e) => {
                self.same_failure = 0;
                self.last_failure = Some(e.to_owned());
            }
            None => {
                self.same_failure = 0;
                self.last_failure = None;
            }
        }
    }

    /// The level now, and remembers why.
    pub fn level(&mut self) -> StuckLevel {
        let (count, why) = [
            (self.same_action, "the same action was repeated on an unchanged page"),
            (self.same_failure, "the same failure happened again"),
            (self.same_page, "the page has not changed"),
        ]
        .into_iter()
        .rev() // on a tie the first, most specific reason wins (max_by_key keeps the last)
        .max_by_key(|(n, _)| *n)
        .unwrap_or((0, ""));
        let level = match count {
            n if n >= ASK_AFTER => StuckLevel::Ask,
            n if n >= REPLAN_AFTER => StuckLevel::Replan,
            n if n >= NUDGE_AFTER => StuckLevel::Nudge,
            _ => StuckLevel::Fine,
        };
        self.reason = (level > StuckLevel::Fine).then(|| format!("{why} ({} times)", count + 1));
        level
    }

    /// The user or a new plan changed the situation: start counting afresh.
    pub fn reset(&mut self) {
        *self = Self { last_fingerprint: self.last_fingerprint, ..Self::default() };
    }
}

/// A cheap fingerprint of what the model sees of a page (FNV-1a over the prompt text).
pub fn fingerprint(text: &str) -> u64 {
    text.bytes()
        .fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escalates_on_the_same_action_on_an_unchanged_page() {
        let mut s = StuckDetector::default();
        let mut levels = Vec::new();
        for _ in 0..5 {
            s.page(7);
            s.action("Click “Next” [3]", None);
            levels.push(s.level());
        }
        use StuckLevel::*;
        assert_eq!(levels, vec![Fine, Fine, Nudge, Replan, Ask]);
        assert!(s.reason.as_deref().is_some_and(|r| r.contains("same action")));
    }

    #[test]
    fn progress_resets_the_count() {
        let mut s = StuckDetector::default();
        for page in 0..6 {
            s.page(page);
            s.action("Click “Next” [3]", None);
            assert_eq!(s.level(), StuckLevel::Fine);
        }
    }

    #[test]
    fn repeated_failures_count_even_on_changing_pages() {
        let mut s = StuckDetector::default();
        for page in 0..3 {
            s.page(page);
            s.action(&format!("Click [{page}]"), Some("element is disabled"));
        }
        assert_eq!(s.level(), StuckLevel::Nudge);
        s.reset();
        assert_eq!(s.level(), StuckLevel::Fine);
    }
}
