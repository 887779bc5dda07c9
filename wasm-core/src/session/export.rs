//! Markdown export of a session, written to be pasted into another agent such as Claude Code.

use super::Session;
use std::fmt::Write;

/// The session as self-contained markdown.
pub fn to_markdown(session: &Session, now_ms: f64) -> String {
    let mut out = String::new();
    let title = if session.title.is_empty() { "Waymark session" } else { &session.title };
    let _ = writeln!(out, "# {title}\n");
    let _ = writeln!(
        out,
        "Exported {} from the Waymark browser agent: {} task(s), run in the user's own browser.\n",
        timestamp(now_ms, true),
        session.records.len()
    );
    for record in &session.records {
        let status = if record.success { "done" } else { "not finished" };
        let _ = writeln!(out, "## Task {}: {}\n", record.turn, one_line(&record.task));
        let _ = writeln!(
            out,
            "- Status: {status}, {} step(s), {:.1} s",
            record.steps_taken,
            record.elapsed_ms / 1000.0
        );
        let _ = writeln!(out, "- Result: {}\n", one_line(&record.summary));
        if !record.actions.is_empty() {
            out.push_str("Actions:\n\n");
            for (i, action) in record.actions.iter().enumerate() {
                let result = match &action.outcome.error {
                    None => "ok".to_owned(),
                    Some(e) => format!("failed: {}", one_line(e)),
                };
                let _ = writeln!(out, "{}. {} → {result}", i + 1, action.description);
            }
            out.push('\n');
        }
    }
    out.push_str("## Suggested follow-up\n\n");
    out.push_str(
        "You are continuing work that a browser agent started. Use the findings above as \
         context; ask me before repeating any action that changed a website.\n",
    );
    out
}

/// The default file stem: `browse-session-YYYYMMDD-HHMMSS` (UTC).
pub fn export_name_hint(now_ms: f64) -> String {
    format!("browse-session-{}", timestamp(now_ms, false))
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `YYYYMMDD-HHMMSS`, or `YYYY-MM-DD HH:MM:SS UTC` when `pretty`.
fn timestamp(ms: f64, pretty: bool) -> String {
    let secs = (ms / 1000.0).floor() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    let (hh, mm, ss) = (rem / 3600, rem % 3600 / 60, rem % 60);
    if pretty {
        format!("{y:04}-{m:02}-{d:02} {hh:02}:{mm:02}:{ss:02} UTC")
    } else {
        format!("{y:04}{m:02}{d:02}-{hh:02}{mm:02}{ss:02}")
    }
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::TaskRecord;

    #[test]
    fn name_hint_uses_utc_calendar_time() {
        // 2026-11-22 13:05:09 UTC
        assert_eq!(export_name_hint(1_795_352_709_000.0), "browse-session-20261122-130509");
        assert_eq!(export_name_hint(0.0), "browse-session-19700101-000000");
    }

    #[test]
    fn markdown_has_every_task_and_a_follow_up() {
        let session = Session {
            id: "s1".into(),
            title: String::new(),
            created_ms: 0.0,
            records: vec![TaskRecord {
                turn: 1,
                task: "Fill the name\nfield".into(),
                summary: "Saved Ada.".into(),
                success: true,
                actions: vec![],
                steps_taken: 2,
                elapsed_ms: 1500.0,
                created_ms: 0.0,
            }],
        };
        let md = to_markdown(&session, 0.0);
        assert!(md.contains("## Task 1: Fill the name field"), "{md}");
        assert!(md.contains("- Result: Saved Ada."), "{md}");
        assert!(md.contains("## Suggested follow-up"), "{md}");
    }
}
