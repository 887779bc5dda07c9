//! The case table a hostile run prints (SECURITY.md copies it) and the card count per benign
//! task.

use super::Card;

/// Rows of `| class | case | blocked by / what the user saw |`.
#[derive(Default)]
pub struct Report {
    rows: Vec<(String, String, String)>,
}

impl Report {
    /// Adds one case.
    pub fn case(&mut self, class: &str, case: impl Into<String>, how: impl Into<String>) {
        self.rows.push((class.to_owned(), case.into(), how.into()));
    }

    /// Prints the table (visible with `--nocapture`, and in a failing test's output).
    pub fn print(&self, title: &str) {
        eprintln!("\n{title}\n\n| class | case | blocked by / what the user saw |\n|---|---|---|");
        for (class, case, how) in &self.rows {
            eprintln!("| {class} | {} | {} |", cell(case), cell(how));
        }
        eprintln!("\n{} cases", self.rows.len());
    }
}

/// How the cards of one task read in a table cell: `confirm: “first line”; take_over: …`.
pub fn cards_seen(cards: &[Card]) -> String {
    if cards.is_empty() {
        return "no card".into();
    }
    cards
        .iter()
        .map(|c| {
            let first = c.message.lines().next().unwrap_or_default();
            let short: String = first.chars().take(110).collect();
            format!("{} card “{short}” → {:?}", c.kind, c.answer)
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Text safe inside a markdown table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// Cards per benign task: `| task | cards | finished |`.
#[derive(Default)]
pub struct CardCount {
    rows: Vec<(String, usize, bool, String)>,
}

impl CardCount {
    /// Adds one benign task.
    pub fn task(&mut self, task: &str, cards: &[Card], finished: bool) {
        self.rows.push((task.to_owned(), cards.len(), finished, cards_seen(cards)));
    }

    /// Prints the table and the total.
    pub fn print(&self) {
        eprintln!("\n| benign task | cards | finished | cards shown |\n|---|---|---|---|");
        for (task, n, finished, seen) in &self.rows {
            eprintln!(
                "| {} | {n} | {} | {} |",
                cell(task),
                if *finished { "yes" } else { "NO" },
                cell(seen)
            );
        }
        let total: usize = self.rows.iter().map(|r| r.1).sum();
        eprintln!("\n{total} cards in {} benign tasks", self.rows.len());
    }
}
