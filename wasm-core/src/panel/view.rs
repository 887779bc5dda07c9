//! What the panel draws beyond the stored state: the one-dot status line (ready, working,
//! needs you, problem — details on click), the first-run guide's view, and which earlier tasks
//! the conversation lists. Derived from [`PanelState`] each time the worker sends it, so the
//! view never decides any of it.

use serde::{Deserialize, Serialize};

use super::guide::GuideView;
use super::{HostStatus, PanelState};
use crate::session::TocEntry;

/// The status dot's colour and meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Dot {
    /// Waymark can take a task.
    Ready,
    /// Connecting, or a task runs.
    Working,
    /// A task waits for the user (a card, a pause, a take-over).
    NeedsYou,
    /// Something the user must fix (host, model, storage).
    Problem,
}

/// The quiet status line: a dot, a few words, and the details shown on click.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct StatusLine {
    /// Its dot.
    pub dot: Dot,
    /// A few words ("Ready", "Working · step 3", "Needs you", "Host missing").
    pub text: String,
    /// Each detail line (host version, model, problems), for the click-open panel.
    pub details: Vec<String>,
}

/// The state as the panel draws it: the stored state plus what is derived from it.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PanelView<'a> {
    /// Everything stored.
    #[serde(flatten)]
    pub state: &'a PanelState,
    /// The status line.
    pub status: StatusLine,
    /// The first-run guide, while it is not done.
    pub guide: Option<GuideView>,
    /// Earlier tasks of the session the conversation lists (the current task is drawn after
    /// them, once).
    pub thread: &'a [TocEntry],
}

/// How many earlier tasks the conversation lists; the table of contents jumps to the others
/// (a 200-task session must still open within the start-up budget).
pub const THREAD_MAX: usize = 30;

impl PanelState {
    /// The view the panel draws.
    pub fn view(&self) -> PanelView<'_> {
        PanelView {
            state: self,
            status: self.status_line(),
            guide: self.guide.view(&self.host, &self.llm, self.model_checked()),
            thread: self.thread(),
        }
    }

    /// Whether the last setup check found every model answering (`None`: not run).
    fn model_checked(&self) -> Option<bool> {
        let doctor = self.settings.doctor.as_ref().filter(|d| !d.running)?;
        let llm: Vec<bool> =
            doctor.checks.iter().filter(|c| c.text.contains("LLM")).map(|c| c.ok).collect();
        (!llm.is_empty()).then(|| llm.iter().all(|ok| *ok))
    }

    /// The earlier tasks to list: the last [`THREAD_MAX`] of the TOC, without the current
    /// task's own entry once it is recorded (it is drawn as the current task).
    fn thread(&self) -> &[TocEntry] {
        let mut end = self.toc.len();
        if self.task_turn.is_some() && self.toc.last().map(|e| e.turn) == self.task_turn {
            end = end.saturating_sub(1);
        }
        &self.toc[end.saturating_sub(THREAD_MAX)..end]
    }

    fn status_line(&self) -> StatusLine {
        let mut details = Vec::new();
        let mut problem: Option<String> = None;
        match &self.host {
            HostStatus::Unknown => details.push("Connecting to the Waymark host…".to_owned()),
            HostStatus::Connected { version, llm } => {
                details.push(format!("Host {version} connected"));
                details.push(format!("Model {} at {}", llm.model, llm.base_url));
            }
            HostStatus::Missing { message, .. } => {
                details.push(message.clone());
                problem = Some("Host not reachable".into());
            }
            HostStatus::Outdated { message, .. } => {
                details.push(message.clone());
                problem = Some("Update the host".into());
            }
        }
        for line in self.llm.lines() {
            if line.kind != "ready" && problem.is_none() {
                problem = Some("Model problem".into());
            }
            details.push(line.text);
        }
        for e in [&self.storage_error, &self.panel_error].into_iter().flatten() {
            details.push(e.clone());
            problem.get_or_insert_with(|| "Problem".into());
        }
        // Waymark works again after a crash: the notice says so, the dot stays as it is.
        if let Some(crash) = &self.crash {
            details.push(crash.text.clone());
        }
        let task = self.task.as_ref().filter(|t| t.running);
        let (dot, text) = if let Some(p) = problem {
            (Dot::Problem, p)
        } else if let Some(t) = task {
            let c = &t.controls;
            if c.card.is_some() || (c.waiting && (c.paused || c.taken_over)) {
                (Dot::NeedsYou, "Needs you".to_owned())
            } else {
                (Dot::Working, format!("Working · step {}", t.step.max(1)))
            }
        } else if matches!(self.host, HostStatus::Unknown) {
            (Dot::Working, "Connecting…".to_owned())
        } else {
            (Dot::Ready, "Ready".to_owned())
        };
        StatusLine { dot, text, details }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::panel::{HostUnreachable, TaskView, host_missing};

    #[test]
    fn the_dot_says_problem_before_work_and_needs_you_for_a_card() {
        let mut state = PanelState::default();
        assert_eq!(state.view().status.dot, Dot::Working, "connecting");
        state.host = HostStatus::Connected {
            version: "0.1.0".into(),
            llm: waymark_protocol::LlmStatus {
                provider: "openai".into(),
                base_url: "http://x".into(),
                model: "m".into(),
                has_key: false,
                max_tokens: None,
            },
        };
        assert_eq!(state.view().status.dot, Dot::Ready);
        assert!(state.view().status.details[1].contains("Model m"));
        state.task = Some(TaskView::started("t"));
        assert_eq!(state.view().status.text, "Working · step 1");
        if let Some(t) = state.task.as_mut() {
            t.controls.paused = true;
            t.controls.waiting = true;
        }
        assert_eq!(state.view().status.dot, Dot::NeedsYou);
        state.host = host_missing(HostUnreachable::NotInstalled, "not found");
        assert_eq!(state.view().status.dot, Dot::Problem);
    }

    #[test]
    fn a_crash_notice_is_a_detail_with_its_report_and_waymark_is_ready_again() {
        let crash = crate::crash::Crash { message: "unreachable".into(), location: None };
        let mut state = PanelState {
            host: HostStatus::Connected {
                version: "0.1.0".into(),
                llm: waymark_protocol::LlmStatus {
                    provider: "openai".into(),
                    base_url: "http://x".into(),
                    model: "m".into(),
                    has_key: true,
                    max_tokens: None,
                },
            },
            crash: Some(crash.notice(None, None, "0.1.0")),
            ..PanelState::default()
        };
        let status = state.view().status;
        assert_eq!(status.dot, Dot::Ready, "the next task can run");
        assert!(status.details.iter().any(|d| d.starts_with("Waymark crashed and restarted")));
        let json = serde_json::to_value(state.view()).expect("view");
        assert!(json["crash"]["report"].as_str().is_some_and(|r| r.contains("Error: unreachable")));
        let dismissed = state.receive(Ok(crate::panel::PanelRequest::DismissCrash));
        assert_eq!(dismissed.request, Some(crate::panel::PanelRequest::DismissCrash));
        state.crash = None;
        assert!(serde_json::to_value(state.view()).expect("view")["crash"].is_null());
    }

    #[test]
    fn the_view_sends_the_guide_s_view_once_and_not_the_stored_progress() {
        let state = PanelState::default();
        let json = serde_json::to_string(&state.view()).expect("view");
        assert_eq!(json.matches("\"guide\":").count(), 1, "one key, one type: {json}");
        let value: serde_json::Value = serde_json::from_str(&json).expect("json");
        assert_eq!(value["guide"]["number"], 1, "the guide's view: {}", value["guide"]);
    }

    #[test]
    fn the_thread_lists_the_last_tasks_without_the_current_one() {
        let entry = |turn: u32| TocEntry { turn, line: format!("task {turn}"), success: true };
        let mut state = PanelState { toc: (1..=40).map(entry).collect(), ..PanelState::default() };
        assert_eq!(state.view().thread.len(), THREAD_MAX);
        assert_eq!(state.view().thread.last().map(|e| e.turn), Some(40));
        let mut done = TaskView::started("t");
        done.running = false;
        state.task = Some(done);
        assert_eq!(state.view().thread.last().map(|e| e.turn), Some(40), "not recorded yet");
        state.task_turn = Some(40);
        assert_eq!(state.view().thread.last().map(|e| e.turn), Some(39));
    }
}
