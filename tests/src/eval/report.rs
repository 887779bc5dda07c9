//! The evaluation's results: one row per task run, per-task aggregates over runs, totals and
//! the success rate with its spread over runs, written as a markdown table and as JSON.

use super::stack::UsageView;
use serde::Serialize;
use std::fmt::Write;

/// One task, one run.
#[derive(Debug, Clone, Serialize)]
pub struct TaskResult {
    /// Suite name.
    pub suite: String,
    /// Task id.
    pub task: String,
    /// Run number (1-based).
    pub run: u32,
    /// What the task's own check says.
    pub success: bool,
    /// Model steps the agent took.
    pub steps: u32,
    /// Page actions it performed.
    pub actions: u32,
    /// Model calls, tokens and cost of the task (the host's price table).
    pub usage: UsageView,
    /// Wall time from the request to the task's end, in seconds.
    pub wall_s: f64,
    /// How the panel headed the ended task.
    pub heading: String,
    /// Whether the agent itself claimed success.
    pub agent_success: bool,
    /// Confirmation cards the harness approved.
    pub approvals: u32,
    /// Take-overs the harness did by hand as the user (a password typed), then continued.
    pub by_hand: u32,
    /// The agent's final answer.
    pub answer: String,
    /// Why the check failed, and how the task ended.
    pub failure: Option<String>,
    /// Each action as the panel's timeline showed it (failed ones with their error).
    pub timeline: Vec<String>,
    /// The task's known defect, when it has one.
    pub known_failure: Option<String>,
    /// A false success: the task's own check failed while its last step reported ok (see
    /// [`false_success`]).
    pub false_success: bool,
}

/// Whether a run is a false success: the task's own check failed, yet the last action the
/// agent performed reported ok — what Waymark said about the page was not what the page held
/// (a formatting command that changed nothing, a drag that moved nothing). A run whose last
/// step failed, that did nothing at all, or whose agent itself ended saying it could not
/// finish, told the truth.
pub fn false_success(success: bool, agent_claimed: bool, last_step_ok: Option<bool>) -> bool {
    !success && agent_claimed && last_step_ok == Some(true)
}

/// What the run was: model, date and settings (one row of BENCHMARKS.md's results).
#[derive(Debug, Clone, Serialize)]
pub struct Settings {
    /// Suites run.
    pub suites: Vec<String>,
    /// The navigator's model as the host reported it (`oracle` for the scripted oracle).
    pub model: String,
    /// Its endpoint.
    pub base_url: String,
    /// Role model overrides.
    pub role_models: Vec<(String, String)>,
    /// UTC date of the run.
    pub date: String,
    /// Runs per task.
    pub runs: u32,
    /// Step budget per task.
    pub max_steps: u32,
    /// Time budget per task, seconds.
    pub time_budget_s: u64,
}

/// Everything the evaluation writes.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// How it was run.
    pub settings: Settings,
    /// Every task run.
    pub results: Vec<TaskResult>,
    /// Totals.
    pub totals: Totals,
}

/// Sums and the success rate.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Totals {
    /// Task runs.
    pub task_runs: u32,
    /// Successful task runs.
    pub successes: u32,
    /// Failed task runs whose last step reported ok ([`false_success`]).
    pub false_successes: u32,
    /// Mean success rate over runs (0–1).
    pub success_rate: f64,
    /// Standard deviation of the per-run success rate (0 with one run).
    pub success_rate_sd: f64,
    /// Lowest and highest per-run success rate.
    pub success_rate_range: (f64, f64),
    /// Steps, summed.
    pub steps: u64,
    /// Usage, summed.
    pub usage: UsageView,
    /// Wall time, summed (seconds).
    pub wall_s: f64,
}

impl Report {
    /// Builds the report and its totals.
    pub fn new(settings: Settings, results: Vec<TaskResult>) -> Self {
        let totals = totals(&results, settings.runs);
        Report { settings, results, totals }
    }

    /// Whether every task run succeeded.
    pub fn all_passed(&self) -> bool {
        self.results.iter().all(|r| r.success)
    }

    /// The markdown: settings, one row per task (aggregated over runs), totals, failures.
    #[expect(clippy::let_underscore_must_use, reason = "writing to a String cannot fail")]
    pub fn markdown(&self) -> String {
        let s = &self.settings;
        let t = &self.totals;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "Suites {} · model `{}` at {} · {} · {} run(s) · ≤{} steps, ≤{} s per task{}\n",
            s.suites.join(", "),
            s.model,
            s.base_url,
            s.date,
            s.runs,
            s.max_steps,
            s.time_budget_s,
            if s.role_models.is_empty() {
                String::new()
            } else {
                let roles: Vec<String> =
                    s.role_models.iter().map(|(r, m)| format!("{r}={m}")).collect();
                format!(" · roles {}", roles.join(", "))
            }
        );
        out.push_str(
            "| suite | task | success | steps | calls | input tok | cached tok | output tok | cost | wall s |\n\
             |---|---|---|---|---|---|---|---|---|---|\n",
        );
        let mut keys: Vec<(String, String)> = Vec::new();
        for r in &self.results {
            let key = (r.suite.clone(), r.task.clone());
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        for (suite, task) in &keys {
            let rows: Vec<&TaskResult> =
                self.results.iter().filter(|r| r.suite == *suite && r.task == *task).collect();
            let n = rows.len() as f64;
            let ok = rows.iter().filter(|r| r.success).count();
            let mean = |f: &dyn Fn(&TaskResult) -> f64| rows.iter().map(|r| f(r)).sum::<f64>() / n;
            let by_hand: u32 = rows.iter().map(|r| r.by_hand).sum();
            let helped = if by_hand > 0 {
                format!(" ({by_hand} step(s) by the user)")
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "| {suite} | {task} | {ok}/{}{helped} | {:.1} | {:.1} | {:.0} | {:.0} | {:.0} | {} | {:.1} |",
                rows.len(),
                mean(&|r| f64::from(r.steps)),
                mean(&|r| f64::from(r.usage.calls)),
                mean(&|r| r.usage.input_tokens as f64),
                mean(&|r| r.usage.cached_input_tokens as f64),
                mean(&|r| r.usage.output_tokens as f64),
                cost(&rows),
                mean(&|r| r.wall_s),
            );
        }
        let _ = writeln!(
            out,
            "| **total** | {} task runs | **{}/{}** | {} | {} | {} | {} | {} | {} | {:.0} |\n",
            t.task_runs,
            t.successes,
            t.task_runs,
            t.steps,
            t.usage.calls,
            t.usage.input_tokens,
            t.usage.cached_input_tokens,
            t.usage.output_tokens,
            dollars(t.usage.usd, t.usage.unpriced_calls > 0),
            t.wall_s,
        );
        let _ = writeln!(
            out,
            "Success rate {:.1} % (sd {:.1} points over {} run(s), range {:.1}–{:.1} %). False \
             successes (the check failed, the last step said ok): {}.",
            t.success_rate * 100.0,
            t.success_rate_sd * 100.0,
            s.runs,
            t.success_rate_range.0 * 100.0,
            t.success_rate_range.1 * 100.0,
            t.false_successes
        );
        if t.usage.estimated_calls > 0 {
            let _ = writeln!(
                out,
                "\n{} of {} calls reported no token counts; the host counted them (o200k).",
                t.usage.estimated_calls, t.usage.calls
            );
        }
        let failures: Vec<&TaskResult> = self.results.iter().filter(|r| !r.success).collect();
        if !failures.is_empty() {
            out.push_str("\nFailures:\n\n");
            for r in failures {
                let known = r
                    .known_failure
                    .as_deref()
                    .map(|k| format!(" — known defect: {k}"))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "- {}/{} run {}: {}{}{known}",
                    r.suite,
                    r.task,
                    r.run,
                    if r.false_success { "FALSE SUCCESS (the last step said ok) — " } else { "" },
                    one_line(r.failure.as_deref().unwrap_or("failed"))
                );
            }
        }
        out
    }
}

/// `text` with its line breaks and runs of spaces made single spaces (a card's message spans
/// lines; a markdown list item must not).
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn cost(rows: &[&TaskResult]) -> String {
    let n = rows.len().max(1) as f64;
    let usd = rows.iter().map(|r| r.usage.usd).sum::<f64>() / n;
    dollars(usd, rows.iter().any(|r| r.usage.unpriced_calls > 0))
}

fn dollars(usd: f64, unpriced: bool) -> String {
    let sum = if usd == 0.0 { "$0".to_owned() } else { format!("${usd:.4}") };
    if unpriced { format!("≥{sum} (unpriced calls)") } else { sum }
}

fn totals(results: &[TaskResult], runs: u32) -> Totals {
    let mut t =
        Totals { task_runs: u32::try_from(results.len()).unwrap_or(u32::MAX), ..Totals::default() };
    for r in results {
        t.successes += u32::from(r.success);
        t.false_successes += u32::from(r.false_success);
        t.steps += u64::from(r.steps);
        t.usage.calls += r.usage.calls;
        t.usage.input_tokens += r.usage.input_tokens;
        t.usage.cached_input_tokens += r.usage.cached_input_tokens;
        t.usage.output_tokens += r.usage.output_tokens;
        t.usage.usd += r.usage.usd;
        t.usage.unpriced_calls += r.usage.unpriced_calls;
        t.usage.estimated_calls += r.usage.estimated_calls;
        t.wall_s += r.wall_s;
    }
    let rates: Vec<f64> = (1..=runs.max(1))
        .filter_map(|run| {
            let of_run: Vec<&TaskResult> = results.iter().filter(|r| r.run == run).collect();
            (!of_run.is_empty())
                .then(|| of_run.iter().filter(|r| r.success).count() as f64 / of_run.len() as f64)
        })
        .collect();
    if !rates.is_empty() {
        let n = rates.len() as f64;
        let mean = rates.iter().sum::<f64>() / n;
        let var = rates.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / n;
        t.success_rate = mean;
        t.success_rate_sd = var.sqrt();
        t.success_rate_range = (
            rates.iter().copied().fold(f64::INFINITY, f64::min),
            rates.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        );
    }
    t
}

/// Today's UTC date, `YYYY-MM-DD` (civil date from the Unix day count).
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(task: &str, run: u32, success: bool) -> TaskResult {
        TaskResult {
            suite: "sites".into(),
            task: task.into(),
            run,
            success,
            steps: 3,
            actions: 2,
            usage: UsageView {
                calls: 4,
                input_tokens: 1000,
                output_tokens: 50,
                ..UsageView::default()
            },
            wall_s: 2.0,
            heading: "Done".into(),
            agent_success: success,
            approvals: 0,
            by_hand: 0,
            answer: "a".into(),
            failure: (!success).then(|| "the answer lacks x".into()),
            timeline: vec![],
            known_failure: None,
            false_success: false,
        }
    }

    #[test]
    fn a_failed_task_whose_last_step_said_ok_is_a_false_success() {
        assert!(false_success(false, true, Some(true)));
        assert!(!false_success(false, true, Some(false)), "the last step said it failed");
        assert!(!false_success(false, true, None), "no step at all");
        assert!(!false_success(true, true, Some(true)));
        assert!(!false_success(false, false, Some(true)), "the agent said it could not finish");
        let settings = Settings {
            suites: vec!["widgets".into()],
            model: "m".into(),
            base_url: String::new(),
            role_models: vec![],
            date: "2026-11-27".into(),
            runs: 1,
            max_steps: 15,
            time_budget_s: 60,
        };
        let mut lied = result("bold", 1, false);
        lied.false_success = true;
        let report =
            Report::new(settings, vec![lied, result("ok", 1, true), result("x", 1, false)]);
        assert_eq!(report.totals.false_successes, 1);
        let md = report.markdown();
        assert!(
            md.contains("False successes (the check failed, the last step said ok): 1."),
            "{md}"
        );
        assert!(md.contains("- sites/bold run 1: FALSE SUCCESS"), "{md}");
    }

    #[test]
    fn success_rate_spread_is_over_runs() {
        let settings = Settings {
            suites: vec!["sites".into()],
            model: "m".into(),
            base_url: "u".into(),
            role_models: vec![],
            date: today(),
            runs: 2,
            max_steps: 15,
            time_budget_s: 180,
        };
        let report = Report::new(
            settings,
            vec![
                result("a", 1, true),
                result("b", 1, true),
                result("a", 2, true),
                result("b", 2, false),
            ],
        );
        let t = &report.totals;
        assert_eq!((t.task_runs, t.successes, t.steps), (4, 3, 12));
        assert!((t.success_rate - 0.75).abs() < 1e-9);
        assert!((t.success_rate_sd - 0.25).abs() < 1e-9);
        assert_eq!(t.success_rate_range, (0.5, 1.0));
        let md = report.markdown();
        assert!(md.contains("| sites | b | 1/2 |"), "{md}");
        assert!(md.contains("- sites/b run 2: the answer lacks x"), "{md}");
        assert!(!report.all_passed());
        assert_eq!(today().len(), 10);
    }
}
