//! The settings view and the prompt box's state: host settings through `config.get`/`config.set`
//! (keys are sent once and never come back), the extension's own settings and the prompt
//! history in `chrome.storage`, the doctor's checks, and attachments. Decisions live in
//! `waymark_core::panel::{settings, prompt}`.

use super::{Worker, storage};
use std::rc::Rc;
use waymark_core::panel::settings::validate;
use waymark_core::panel::{AgentSettings, DoctorView, SettingsForm};
use waymark_core::protocol::{ConfigGet, ConfigSet, Doctor, ErrorBody, ErrorCode, HostSettings};

const AGENT_SETTINGS_KEY: &str = "settings:agent";

/// Loads the extension's settings and the prompt history at worker start.
pub(super) async fn load(w: &Rc<Worker>) {
    w.app.state.borrow_mut().settings.roles = waymark_core::protocol::LlmRole::ALL.to_vec();
    let agent = storage::load_json::<AgentSettings>(AGENT_SETTINGS_KEY).await;
    if let Some(agent) = agent {
        w.app.state.borrow_mut().settings.agent = agent;
    }
}

fn parse_settings(reply: Result<HostSettings, ErrorBody>) -> Result<HostSettings, String> {
    reply.map_err(|e| e.message)
}

/// Fetches the host's settings for the settings view.
pub(super) async fn open(w: Rc<Worker>) {
    let fetched = parse_settings(w.host.request(ConfigGet {}).await);
    let mut state = w.app.state.borrow_mut();
    state.settings.errors.clear();
    state.settings.notice = None;
    match fetched {
        Ok(host) => {
            state.settings.show_host(host);
            state.settings.host_error = None;
        }
        Err(e) => state.settings.host_error = Some(e),
    }
    drop(state);
    w.broadcast();
}

/// Validates and saves the form: host settings that changed go in one `config.set`.
pub(super) async fn save(w: Rc<Worker>, form: SettingsForm) {
    let current = w.app.state.borrow().settings.host.clone();
    let changes = match validate(&form, current.as_ref()) {
        Ok(c) => c,
        Err(errors) => {
            let mut state = w.app.state.borrow_mut();
            state.settings.errors = errors;
            state.settings.notice = Some("Nothing was saved: correct the fields marked.".into());
            drop(state);
            w.broadcast();
            return;
        }
    };
    {
        let mut state = w.app.state.borrow_mut();
        state.settings.errors.clear();
        state.settings.notice = Some("Saving…".into());
        state.settings.agent = changes.agent.clone();
    }
    w.broadcast();
    let stored = storage::save_json(AGENT_SETTINGS_KEY, &changes.agent).await;
    let host = if changes.host.is_empty() {
        None
    } else {
        Some(parse_settings(w.host.request(ConfigSet { settings: changes.host }).await))
    };
    {
        let mut state = w.app.state.borrow_mut();
        let notice = match (host, stored) {
            (Some(Err(e)), _) => {
                state.settings.host_error = Some(e.clone());
                format!("The host refused the change: {e}")
            }
            (_, Err(e)) => format!("Could not store the allowed sites: {e}"),
            (Some(Ok(settings)), Ok(())) => {
                state.settings.show_host(settings);
                state.settings.host_error = None;
                "Saved.".to_owned()
            }
            (None, Ok(())) if current.is_none() => {
                "Saved the allowed sites; the models and files need the host (see above)."
                    .to_owned()
            }
            (None, Ok(())) => "Saved.".to_owned(),
        };
        state.settings.notice = Some(notice);
    }
    w.broadcast();
    // The status line shows the navigator's model: ask the host again.
    w.host.refresh().await;
}

/// Runs the host's doctor checks.
pub(super) async fn check_setup(w: Rc<Worker>) {
    w.app.state.borrow_mut().settings.doctor =
        Some(DoctorView { running: true, ..DoctorView::default() });
    w.broadcast();
    let reply = w.host.request(Doctor {}).await;
    let view = match reply.map_err(|e| match e.code {
        ErrorCode::HostUnavailable => {
            format!(
                "{} The checks run in the host: install it first (the command is above).",
                e.message
            )
        }
        _ => e.message,
    }) {
        Ok(report) => DoctorView { running: false, checks: report.checks, error: None },
        Err(e) => DoctorView { running: false, checks: Vec::new(), error: Some(e) },
    };
    w.app.state.borrow_mut().settings.doctor = Some(view);
    w.broadcast();
}
