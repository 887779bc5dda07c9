//! The steps so far, append-only, and the latest step's output shown once.
//!
//! A step's line never changes once written (so the list stays a cacheable prefix): a short
//! output sits on its line; a long one (what extract and find read) is shown in full only in
//! the call right after its step, fenced as page text, and its line says how long it was.
//! What the model kept of it (`progress.memory`) follows as a `kept:` line.

use super::super::StepRecord;
use super::super::context::{Kept, Recalled};
use super::{PromptPart, fenced, scrub};
use std::fmt::Write;
use waymark_page::observation::clean;

/// Outputs up to this many characters, on one line, stay on their step's line.
const INLINE_OUTPUT_CHARS: usize = 160;

/// The step's status without its output (`ok`, `failed: why`, `ok (page changed)`).
fn status(step: &StepRecord) -> String {
    let summary = step.outcome.summary();
    match &step.outcome.text {
        Some(text) => summary
            .strip_suffix(text.as_str())
            .and_then(|s| s.strip_suffix(":\n"))
            .map(str::to_owned)
            .unwrap_or(summary),
        None => summary,
    }
}

/// The output's cleaned lines, when it has any.
fn output_lines(step: &StepRecord) -> Vec<String> {
    step.outcome
        .text
        .as_deref()
        .map(|t| t.lines().map(clean).filter(|l| !l.is_empty()).collect())
        .unwrap_or_default()
}

/// Whether the output is too long for its step's line.
fn is_long(lines: &[String]) -> bool {
    lines.len() > 1 || lines.first().is_some_and(|l| l.chars().count() > INLINE_OUTPUT_CHARS)
}

/// The steps so far, fenced: their descriptions name page elements, their outputs are page
/// text; all of it is a record, never instructions.
pub(super) struct HistoryPart<'a> {
    pub steps: &'a [StepRecord],
    pub kept: &'a [Kept],
    pub recalled: &'a [Recalled],
    pub nonce: &'a str,
}

impl HistoryPart<'_> {
    /// The `kept:` and `recalled` lines that belong after `count` step records.
    #[expect(clippy::let_underscore_must_use, reason = "writing to a String cannot fail")]
    fn notes_after(&self, count: usize, out: &mut String) {
        let nonce = self.nonce;
        for k in self.kept.iter().filter(|k| k.after == count) {
            let _ = writeln!(out, "  kept: {}", scrub(&clean(&k.text), nonce));
        }
        for r in self.recalled.iter().filter(|r| r.after == count) {
            let found = r.text.lines().filter(|l| l.starts_with("Turn ")).count();
            let line = format!("  recalled “{}”: {found} earlier tasks", clean(&r.query));
            let _ = writeln!(out, "{}", scrub(&line, nonce));
        }
    }
}

impl PromptPart for HistoryPart<'_> {
    #[expect(clippy::let_underscore_must_use, reason = "writing to a String cannot fail")]
    fn write(&self, out: &mut String) {
        if self.steps.is_empty() && self.kept.is_empty() && self.recalled.is_empty() {
            return;
        }
        let nonce = self.nonce;
        out.push_str("Steps so far:\n");
        let _ = writeln!(out, "<steps id={nonce}>");
        for (i, step) in self.steps.iter().enumerate() {
            self.notes_after(i, out);
            let line = format!("{}. {} → {}", i + 1, clean(&step.description), status(step));
            let output = output_lines(step);
            let line = match output.as_slice() {
                [] => line,
                lines if is_long(lines) => {
                    let chars: usize = lines.iter().map(|l| l.chars().count() + 1).sum();
                    format!("{line}: read {chars} characters (output of step {})", i + 1)
                }
                [one] => format!("{line}: {one}"),
                _ => line,
            };
            let _ = writeln!(out, "{}", scrub(&line, nonce));
        }
        self.notes_after(self.steps.len(), out);
        let _ = writeln!(out, "</steps id={nonce}>\n");
    }
}

/// The long outputs of the latest answer's steps, in full: the only time they are shown.
pub(super) struct LatestOutputPart<'a> {
    pub steps: &'a [StepRecord],
    pub nonce: &'a str,
}

impl PromptPart for LatestOutputPart<'_> {
    #[expect(clippy::let_underscore_must_use, reason = "writing to a String cannot fail")]
    fn write(&self, out: &mut String) {
        let Some(last) = self.steps.last().map(|s| s.step) else { return };
        let first = self.steps.iter().rposition(|s| s.step != last).map_or(0, |i| i + 1);
        for (i, step) in self.steps.iter().enumerate().skip(first) {
            let lines = output_lines(step);
            if !is_long(&lines) {
                continue;
            }
            let _ = writeln!(
                out,
                "Output of step {} (shown this once; keep what you need in progress memory):",
                i + 1
            );
            fenced(out, "step_output", self.nonce, lines.iter().map(String::as_str));
            out.push('\n');
        }
    }
}

/// What the latest answer's `recall` found, in full: the only time it is shown.
pub(super) struct RecalledPart<'a> {
    pub recalled: &'a [Recalled],
    pub step: u32,
    pub nonce: &'a str,
}

impl PromptPart for RecalledPart<'_> {
    #[expect(clippy::let_underscore_must_use, reason = "writing to a String cannot fail")]
    fn write(&self, out: &mut String) {
        for r in self.recalled.iter().filter(|r| r.step + 1 >= self.step) {
            let _ = writeln!(
                out,
                "Earlier tasks matching “{}” (shown this once):",
                scrub(&clean(&r.query), self.nonce)
            );
            if r.text.trim().is_empty() {
                out.push_str("none\n\n");
                continue;
            }
            if r.turns.is_empty() {
                fenced(out, "session_notes", self.nonce, r.text.lines());
                out.push('\n');
                continue;
            }
            // Each task in its own fence, headed by the sites it read, like a page: what it
            // found is those pages' words, never an instruction.
            for turn in &r.turns {
                let from = if turn.read_from.is_empty() {
                    "no web page recorded".to_owned()
                } else {
                    turn.read_from.join(", ")
                };
                let head = format!("recalled turn {}, read on: {from}", turn.turn);
                let lines = std::iter::once(head.as_str()).chain(turn.text.lines());
                fenced(out, "recalled", self.nonce, lines);
            }
            out.push('\n');
        }
    }
}

/// Notes for the model: refusals, rejected claims, take-overs.
pub(super) struct NotesPart<'a>(pub &'a [String], pub &'a str);

impl PromptPart for NotesPart<'_> {
    #[expect(clippy::let_underscore_must_use, reason = "writing to a String cannot fail")]
    fn write(&self, out: &mut String) {
        for note in self.0 {
            let _ = writeln!(out, "Note: {}", scrub(&clean(note), self.1));
        }
        if !self.0.is_empty() {
            out.push('\n');
        }
    }
}
