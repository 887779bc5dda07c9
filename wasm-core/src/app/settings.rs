//! The settings view and the first-run guide: the host's settings through `config.get` and
//! `config.set` (keys are sent once and never come back), the extension's own settings in the
//! store, the doctor's checks, the guide's steps and its model form.
//!
//! Why in the core: what is sent, what the user reads after each outcome and what is kept are
//! decisions, tested natively against a scripted host and an in-memory store.

use super::App;
use crate::panel::settings::validate;
use crate::panel::{AgentSettings, DoctorView, Guide, GuideAction, GuideModelForm, SettingsForm};
use crate::platform::{Host, Panels, Redraw, Store};
use waymark_protocol::{ConfigGet, ConfigSet, Doctor, ErrorCode};

/// Where the extension's own settings (allowed sites) are kept.
pub const AGENT_SETTINGS_KEY: &str = "settings:agent";

/// Where the first-run guide's progress is kept.
pub const GUIDE_KEY: &str = "panel:guide";

impl<S: Store + Clone> App<S> {
    /// Loads the extension's settings and the guide's progress (`earlier_tasks`: whether the
    /// user ran tasks before the guide existed, so it is not shown to them).
    pub async fn load_settings(&self) {
        self.state.borrow_mut().settings.roles = waymark_protocol::LlmRole::ALL.to_vec();
        if let Some(agent) = self.load::<AgentSettings>(AGENT_SETTINGS_KEY).await {
            self.state.borrow_mut().settings.agent = agent;
        }
        let stored = self.load::<Guide>(GUIDE_KEY).await;
        let earlier_tasks = stored.is_none()
            && self.sessions.stored_list().await.is_ok_and(|l| l.iter().any(|m| m.turns > 0));
        let guide = Guide::on_load(stored, earlier_tasks);
        self.state.borrow_mut().guide = guide;
        if stored.is_none() && guide.done {
            self.save(GUIDE_KEY, "the first-run guide's progress", &guide).await;
        }
    }

    /// Fetches the host's settings for the settings view.
    pub(super) async fn open_settings(&self, host: &impl Host) {
        let fetched = host.request(ConfigGet {}).await;
        let mut state = self.state.borrow_mut();
        state.settings.errors.clear();
        state.settings.notice = None;
        match fetched {
            Ok(settings) => {
                state.settings.show_host(settings);
                state.settings.host_error = None;
            }
            Err(e) => state.settings.host_error = Some(e.message),
        }
    }

    /// Validates and saves the form: host settings that changed go in one `config.set`, the
    /// extension's own to the store; the notice says which part failed.
    pub(super) async fn save_settings(
        &self,
        host: &impl Host,
        panels: &impl Panels,
        form: SettingsForm,
    ) {
        let current = self.state.borrow().settings.host.clone();
        let changes = match validate(&form, current.as_ref()) {
            Ok(c) => c,
            Err(errors) => {
                let mut state = self.state.borrow_mut();
                state.settings.errors = errors;
                state.settings.notice =
                    Some("Nothing was saved: correct the fields marked.".into());
                return;
            }
        };
        {
            let mut state = self.state.borrow_mut();
            state.settings.errors.clear();
            state.settings.notice = Some("Saving…".into());
            state.settings.agent = changes.agent.clone();
        }
        panels.show(Redraw::View);
        let stored = self.store_json(AGENT_SETTINGS_KEY, &changes.agent).await;
        let sent = if changes.host.is_empty() {
            None
        } else {
            Some(host.request(ConfigSet { settings: changes.host }).await)
        };
        let mut state = self.state.borrow_mut();
        let notice = match (sent, stored) {
            (Some(Err(e)), _) => {
                state.settings.host_error = Some(e.message.clone());
                format!("The host refused the change: {}", e.message)
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

    /// Runs the host's doctor checks (the view says they run meanwhile).
    pub(super) async fn check_setup(&self, host: &impl Host, panels: &impl Panels) {
        self.state.borrow_mut().settings.doctor =
            Some(DoctorView { running: true, ..DoctorView::default() });
        panels.show(Redraw::View);
        let view = match host.request(Doctor {}).await {
            Ok(report) => DoctorView { running: false, checks: report.checks, error: None },
            Err(e) => {
                let error = match e.code {
                    ErrorCode::HostUnavailable => format!(
                        "{} The checks run in the host: install it first (the command is above).",
                        e.message
                    ),
                    _ => e.message,
                };
                DoctorView { running: false, checks: Vec::new(), error: Some(error) }
            }
        };
        self.state.borrow_mut().settings.doctor = Some(view);
    }

    /// A guide button: next, back or skip; its progress is kept.
    pub(super) async fn guide(&self, action: GuideAction) {
        let guide = {
            let mut state = self.state.borrow_mut();
            state.guide.apply(action);
            state.guide
        };
        self.save(GUIDE_KEY, "the first-run guide's progress", &guide).await;
    }

    /// The sample task starts: the guide is done.
    pub(super) async fn finish_guide(&self) {
        let guide = {
            let mut state = self.state.borrow_mut();
            state.guide.finish();
            state.guide
        };
        self.save(GUIDE_KEY, "the first-run guide's progress", &guide).await;
    }

    /// Saves the guide's model as the host's default endpoint, then tests it with the doctor.
    pub(super) async fn guide_model(
        &self,
        host: &impl Host,
        panels: &impl Panels,
        form: GuideModelForm,
    ) {
        let settings = match form.settings() {
            Ok(s) => s,
            Err(e) => {
                self.state.borrow_mut().guide_error = Some(e.to_string());
                return;
            }
        };
        self.state.borrow_mut().guide_error = None;
        panels.show(Redraw::View);
        if let Err(e) = host.request(ConfigSet { settings }).await {
            self.state.borrow_mut().guide_error = Some(e.message);
            return;
        }
        host.refresh().await;
        self.check_setup(host, panels).await;
    }
}
