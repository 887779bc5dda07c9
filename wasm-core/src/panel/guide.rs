//! The first-run guide: three steps (the host, a model, a sample task) shown when the panel
//! first opens, skippable at any step and never shown again once finished or skipped (the
//! worker stores [`Guide`] in `chrome.storage.local`).

use serde::{Deserialize, Serialize};
use waymark_protocol::{EndpointField, LlmRole, Setting, SettingKey};

use super::{HostStatus, LlmState, LlmStates};

/// The task the guide's last step runs on the page the user is looking at: it only reads.
pub const SAMPLE_PROMPT: &str =
    "Read this page and tell me its title and the main thing it offers, in two sentences.";

/// A step of the guide.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum GuideStep {
    /// Install the host (the command for this system).
    #[default]
    Host,
    /// Choose a model and test it.
    Model,
    /// Try a sample task on the current page.
    Sample,
}

/// Where the user is in the guide (stored).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Guide {
    /// The step on show.
    pub step: GuideStep,
    /// Finished or skipped: never shown again.
    pub done: bool,
}

/// What the user did in the guide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum GuideAction {
    /// Go to the next step.
    Next,
    /// Go back one step.
    Back,
    /// Close the guide for good.
    Skip,
}

/// Model presets of the guide's second step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ModelPreset {
    /// OpenAI's API (a key).
    Openai,
    /// Anthropic's API (a key).
    Anthropic,
    /// A local Ollama.
    Ollama,
    /// A local LM Studio server.
    LmStudio,
    /// Any other OpenAI-compatible endpoint.
    Custom,
}

/// The guide's model form as the user left it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct GuideModelForm {
    /// Which kind of model.
    pub preset: ModelPreset,
    /// A key (OpenAI, Anthropic, some custom endpoints); empty keeps the host's.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub api_key: String,
    /// Where the endpoint is; empty uses the preset's.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub base_url: String,
    /// The model; empty uses the preset's.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub model: String,
}

/// What the user must add to the guide's model form, or why a value cannot be set.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelFormError {
    /// No base URL (a custom endpoint has no preset one).
    #[error("Enter the endpoint's address (its base URL).")]
    NoAddress,
    /// No model name (some presets have none).
    #[error("Enter the model's name as the server lists it.")]
    NoModel,
    /// A hosted provider without its key.
    #[error("Paste your API key: the host keeps it, the browser never sees it again.")]
    NoKey,
    /// A value the setting refuses.
    #[error("{0}")]
    Setting(waymark_protocol::SettingError),
}

impl GuideModelForm {
    /// The host settings (the default endpoint, every role) this form sets, or what the user
    /// must add first.
    pub fn settings(&self) -> Result<Vec<Setting>, ModelFormError> {
        let (provider, base_url, model, needs_key) = match self.preset {
            ModelPreset::Openai => ("openai", "https://api.openai.com/v1", "gpt-4o-mini", true),
            ModelPreset::Anthropic => {
                ("anthropic", "https://api.anthropic.com/v1", "claude-3-5-haiku-latest", true)
            }
            ModelPreset::Ollama => ("openai", "http://127.0.0.1:11434/v1", "llama3.1", false),
            ModelPreset::LmStudio => ("openai", "http://127.0.0.1:1234/v1", "", false),
            ModelPreset::Custom => ("openai", "", "", false),
        };
        let pick = |given: &str, preset: &str| {
            let given = given.trim();
            if given.is_empty() { preset.to_owned() } else { given.to_owned() }
        };
        let base_url = pick(&self.base_url, base_url);
        let model = pick(&self.model, model);
        if base_url.is_empty() {
            return Err(ModelFormError::NoAddress);
        }
        if model.is_empty() {
            return Err(ModelFormError::NoModel);
        }
        let key = self.api_key.trim();
        if needs_key && key.is_empty() {
            return Err(ModelFormError::NoKey);
        }
        let field = |f: EndpointField, value: &str| {
            SettingKey::Endpoint(None, f).with_text(Some(value)).map_err(ModelFormError::Setting)
        };
        let mut out = vec![
            field(EndpointField::Provider, provider)?,
            field(EndpointField::BaseUrl, &base_url)?,
            field(EndpointField::Model, &model)?,
        ];
        if !key.is_empty() {
            out.push(field(EndpointField::ApiKey, key)?);
        }
        Ok(out)
    }
}

/// What the guide shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct GuideView {
    /// The step on show.
    pub step: GuideStep,
    /// Its number, 1 to 3.
    pub number: u32,
    /// The host answers (step 1 is done).
    pub host_ready: bool,
    /// A model answered (step 2 is done).
    pub model_ready: bool,
    /// What the model step says about the model now.
    pub model_line: String,
}

impl Guide {
    /// The guide when the worker starts: as stored; else, for a profile that ran tasks before
    /// the guide existed (a user updating Waymark), done — the guide is for a first open only.
    pub fn on_load(stored: Option<Guide>, earlier_tasks: bool) -> Guide {
        match stored {
            Some(guide) => guide,
            None if earlier_tasks => Guide { step: GuideStep::Sample, done: true },
            None => Guide::default(),
        }
    }

    /// Applies the user's action.
    pub fn apply(&mut self, action: GuideAction) {
        self.step = match (action, self.step) {
            (GuideAction::Skip, step) => {
                self.done = true;
                step
            }
            (GuideAction::Next, GuideStep::Host) => GuideStep::Model,
            (GuideAction::Next, GuideStep::Model | GuideStep::Sample) => GuideStep::Sample,
            (GuideAction::Back, GuideStep::Sample) => GuideStep::Model,
            (GuideAction::Back, GuideStep::Model | GuideStep::Host) => GuideStep::Host,
        };
    }

    /// The sample task started: the guide is finished.
    pub fn finish(&mut self) {
        self.done = true;
    }

    /// The guide's view, `None` once done.
    pub fn view(
        &self,
        host: &HostStatus,
        llm: &LlmStates,
        model_checked: Option<bool>,
    ) -> Option<GuideView> {
        if self.done {
            return None;
        }
        let host_ready = matches!(host, HostStatus::Connected { .. });
        let answered = LlmRole::ALL.iter().any(|r| matches!(llm.get(*r), LlmState::Ready { .. }));
        let model_ready = answered || model_checked == Some(true);
        let model_line = match (host, model_ready, model_checked) {
            (_, true, _) => match host {
                HostStatus::Connected { llm, .. } => format!("{} answers.", llm.model),
                _ => "The model answers.".into(),
            },
            (_, false, Some(false)) => {
                "The model did not answer: see the check below, correct and test again.".into()
            }
            (HostStatus::Connected { llm, .. }, false, None) => format!(
                "Now: {} at {} — not tested yet.",
                if llm.model.is_empty() { "no model" } else { &llm.model },
                llm.base_url
            ),
            _ => "Install the host first (step 1).".into(),
        };
        let number = match self.step {
            GuideStep::Host => 1,
            GuideStep::Model => 2,
            GuideStep::Sample => 3,
        };
        Some(GuideView { step: self.step, number, host_ready, model_ready, model_line })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guide_walks_three_steps_and_skipping_ends_it_for_good() {
        let mut g = Guide::default();
        let host = HostStatus::Unknown;
        let llm = LlmStates::default();
        assert_eq!(g.view(&host, &llm, None).expect("shown").number, 1);
        g.apply(GuideAction::Next);
        g.apply(GuideAction::Next);
        assert_eq!(g.step, GuideStep::Sample);
        g.apply(GuideAction::Back);
        assert_eq!(g.step, GuideStep::Model);
        g.apply(GuideAction::Skip);
        assert!(g.view(&host, &llm, None).is_none());
        let stored: Guide =
            serde_json::from_str(&serde_json::to_string(&g).expect("json")).expect("round trip");
        assert!(stored.done);
    }

    #[test]
    fn a_user_updating_waymark_is_not_shown_the_guide_but_a_new_one_is() {
        assert!(Guide::on_load(None, true).done);
        assert!(!Guide::on_load(None, false).done);
        let midway = Guide { step: GuideStep::Model, done: false };
        assert_eq!(Guide::on_load(Some(midway), true), midway, "the stored progress wins");
    }

    #[test]
    fn the_model_step_counts_a_passed_test_or_an_answer() {
        let g = Guide { step: GuideStep::Model, done: false };
        let llm = LlmStates::default();
        let v = g.view(&HostStatus::Unknown, &llm, Some(false)).expect("shown");
        assert!(!v.model_ready && v.model_line.contains("did not answer"));
        assert!(g.view(&HostStatus::Unknown, &llm, Some(true)).expect("shown").model_ready);
        let mut answered = LlmStates::default();
        answered.set(LlmRole::Navigator, LlmState::Ready { model: "m".into() });
        assert!(g.view(&HostStatus::Unknown, &answered, None).expect("shown").model_ready);
    }

    #[test]
    fn presets_fill_what_the_user_left_empty_and_keys_are_asked_for() {
        let form = |preset, key: &str| GuideModelForm {
            preset,
            api_key: key.into(),
            base_url: String::new(),
            model: String::new(),
        };
        let ollama = form(ModelPreset::Ollama, "").settings().expect("ok");
        let text: Vec<String> = ollama.iter().filter_map(waymark_protocol::Setting::text).collect();
        assert!(text.iter().any(|t| t.contains("11434")), "{text:?}");
        assert_eq!(ollama.len(), 3, "no key for a local server");
        assert!(
            form(ModelPreset::Openai, "")
                .settings()
                .expect_err("a key is needed")
                .to_string()
                .contains("API key")
        );
        assert_eq!(form(ModelPreset::Anthropic, "sk-x").settings().expect("ok").len(), 4);
        assert!(form(ModelPreset::Custom, "").settings().is_err(), "needs an address");
    }
}
