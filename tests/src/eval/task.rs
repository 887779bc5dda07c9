//! What an evaluation task is: where it starts, what the user says, the budgets, and the
//! task's own check of success.

use std::path::PathBuf;
use std::time::Duration;

/// The suites `cargo xtask eval --suite NAME` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SuiteName {
    /// Multi-page tasks on this repository's fixture sites (`tests/fixtures/eval/`).
    Sites,
    /// MiniWoB++ task pages from the `miniwob` package; the reward comes from the page.
    MiniWob,
    /// Component-library widgets on the widget zoo (`tests/fixtures/zoo/`): a date picker, an
    /// async combobox, sliders, drag and drop, a rich-text editor, a virtualised list, a
    /// terminal, a canvas app.
    Widgets,
    /// Widgets of published component libraries on the library zoo
    /// (`tests/fixtures/libzoo/`, see `crate::libzoo`).
    Libs,
}

impl SuiteName {
    /// The name on the command line and in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            SuiteName::Sites => "sites",
            SuiteName::MiniWob => "miniwob",
            SuiteName::Widgets => "widgets",
            SuiteName::Libs => "libs",
        }
    }

    /// Parses a suite name.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "sites" => Some(SuiteName::Sites),
            "miniwob" => Some(SuiteName::MiniWob),
            "widgets" => Some(SuiteName::Widgets),
            "libs" => Some(SuiteName::Libs),
            _ => None,
        }
    }
}

/// What the user types.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prompt {
    /// These words.
    Fixed(String),
    /// The instruction the page itself shows once its episode starts (MiniWoB's utterance).
    FromPage,
}

/// How a task's success is decided (never from the agent's own claim).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// The site received a request to `path` (form body, JSON body or query) whose fields
    /// each hold their value (case-insensitively: `body` holds "24 December" when it says
    /// "The office is closed on 24 December.").
    Sent {
        /// The path on the task's site.
        path: String,
        /// Field names and the values they must hold.
        fields: Vec<(String, String)>,
    },
    /// The site received a request to `path` whose raw body (a multipart upload, say) holds
    /// every one of these strings.
    Received {
        /// The path on the task's site.
        path: String,
        /// What the body must contain.
        contains: Vec<String>,
    },
    /// The final answer names every one of these (case-insensitively).
    Answer(Vec<String>),
    /// MiniWoB: the page's own JavaScript ended the episode with a positive raw reward.
    Reward,
    /// The task cannot be done here: the agent must stop without claiming success and say why,
    /// naming every one of these (case-insensitively), rather than pretend.
    GaveUp(Vec<String>),
    /// Every check holds.
    All(Vec<Check>),
}

/// One task of a suite.
#[derive(Debug, Clone)]
pub struct EvalTask {
    /// Short id (`signup`, `click-button`).
    pub id: String,
    /// Its suite.
    pub suite: SuiteName,
    /// Path of the page the task starts on, on the suite's site.
    pub start: String,
    /// What the user types.
    pub prompt: Prompt,
    /// Files the user attaches: name → file under the suite's site root.
    pub resources: Vec<(String, PathBuf)>,
    /// How success is decided.
    pub check: Check,
    /// Tasks with the same group run one after the other in one session (later ones may
    /// need earlier ones' findings); every other task starts a fresh session.
    pub session: Option<&'static str>,
    /// Why the task is known to fail today (a defect the evaluation found, explained): the
    /// oracle run in CI expects it to fail, so fixing the defect flips the flag.
    pub known_failure: Option<&'static str>,
    /// What the user does by hand when the agent hands a step over (a take-over card): an
    /// unattended run stops there unless the task says.
    pub by_hand: Option<ByHand>,
}

/// A step the user does themselves when Waymark hands it over, as designed (Waymark never types
/// a password).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByHand {
    /// The user types the password the task names (its last quoted word) into every empty
    /// password field of the page, with the keyboard, then continues.
    TypePassword,
}

/// The limits each task runs under.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Model steps the agent may take (`max_steps` of the task).
    pub steps: u32,
    /// Wall time after which the harness stops the task.
    pub time: Duration,
}

impl Default for Budget {
    fn default() -> Self {
        Budget { steps: 15, time: Duration::from_secs(180) }
    }
}

/// Whether `value` appears in `haystack`, case-insensitively.
pub fn mentions(haystack: &str, value: &str) -> bool {
    haystack.to_lowercase().contains(&value.trim().to_lowercase())
}

/// The `(field, value)` pairs of a request to the site: form-encoded body, a flat JSON
/// object body, or the query string.
pub fn request_fields(body: &str, query: Option<&str>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Ok(serde_json::Value::Object(map)) = serde_json::from_str::<serde_json::Value>(body) {
        for (k, v) in map {
            let v = match v {
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            };
            out.push((k, v));
        }
    } else {
        out.extend(form_pairs(body));
    }
    if let Some(q) = query {
        out.extend(form_pairs(q));
    }
    out
}

/// `a=1&b=two+words` as pairs (percent-decoded, `+` as space).
fn form_pairs(s: &str) -> Vec<(String, String)> {
    let decode = |t: &str| {
        percent_encoding::percent_decode_str(&t.replace('+', " ")).decode_utf8_lossy().into_owned()
    };
    s.split('&')
        .filter(|p| !p.is_empty() && p.contains('='))
        .filter_map(|p| p.split_once('=').map(|(k, v)| (decode(k), decode(v))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_come_from_json_forms_and_queries() {
        let json = request_fields(r#"{"name":"Ada L","n":3}"#, None);
        assert!(json.contains(&("name".into(), "Ada L".into())));
        assert!(json.contains(&("n".into(), "3".into())));
        let form = request_fields("name=Ada+L&city=K%C3%B6ln", Some("step=2"));
        assert!(form.contains(&("city".into(), "Köln".into())));
        assert!(form.contains(&("name".into(), "Ada L".into())));
        assert!(form.contains(&("step".into(), "2".into())));
        assert!(mentions("Total: 1,234 EUR", " 1,234 eur"));
    }
}
