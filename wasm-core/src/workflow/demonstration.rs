//! Teach by showing: a workflow recorded from what the user did themselves, not from a task
//! the model did. Each reported step ([`Demonstrated`]) becomes a [`WorkflowStep`] with the
//! same locator a task's step gets ([`Locator::capture`] on the frame as it was read right
//! before the step), typed URLs become navigation steps, and every value the user typed or
//! chose becomes a named input (a password field's value was never read: it becomes a
//! secret input, asked for at each run).
//!
//! What a demonstrated workflow may change when it runs is what the demonstration itself
//! changed: the writes its own requests made ([`ShownWrite`]), counted — never the words of
//! the elements it clicked, which the page chose.

use super::{
    Locator, Param, RecordError, SCHEMA_VERSION, StepAction, UrlPattern, Workflow, WorkflowStep,
};
use crate::locate::{Template, param_name_from, unique_param_name};
use crate::safety::{Count, Effect, EffectKind, Grant, WriteBudget, WriteKind};
use serde::{Deserialize, Serialize};
use waymark_page::demonstration::{Demonstrated, DemonstratedAct};

/// Longest recording, in steps: a demonstration is a short routine, not a session.
pub const MAX_DEMONSTRATED_STEPS: usize = 200;

/// A write the demonstration's own requests made, and how often: what a run of the workflow
/// may do without asking.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShownWrite {
    /// What the requests did.
    pub effect: EffectKind,
    /// How many such requests the demonstration made.
    pub count: u32,
    /// For messages: who they went to, as the requests named them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recipients: Vec<String>,
}

/// Why a reported step was not kept.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SkipReason {
    /// The step happened on something that is not a web page.
    #[error("it was not on a web page")]
    NotWeb,
    /// Its element is not one the observation lists.
    #[error("its element could not be found again in the page Waymark read")]
    NotLocated,
    /// The recording is full.
    #[error("the recording has reached {MAX_DEMONSTRATED_STEPS} steps")]
    Full,
}

/// A recording in progress: kept in storage after each step, so a restart of the worker does
/// not lose what was shown.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Demonstration {
    /// The tab being recorded.
    pub tab: i32,
    /// When recording started (ms since the epoch).
    pub started_ms: f64,
    /// The address the tab shows (where the next typed URL is typed from).
    #[serde(default)]
    pub at: String,
    /// The steps so far, values as typed (made inputs when the recording ends).
    pub steps: Vec<WorkflowStep>,
    /// The writes the demonstration's requests made.
    #[serde(default)]
    pub writes: Vec<ShownWrite>,
    /// Steps that could not be kept (said when the recording ends).
    #[serde(default)]
    pub skipped: u32,
}

impl Demonstration {
    /// A recording of tab `tab`, which shows `at`.
    pub fn start(tab: i32, at: &str, now_ms: f64) -> Self {
        Self { tab, started_ms: now_ms, at: at.to_owned(), ..Self::default() }
    }

    /// Adds one step the user did. A value typed again into the field just typed into
    /// replaces that step (a correction is one step).
    pub fn add(&mut self, shown: &Demonstrated) -> Result<(), SkipReason> {
        let result = self.step_of(shown).and_then(|step| self.push(step));
        if result.is_err() {
            self.skipped += 1;
        }
        result
    }

    fn step_of(&self, shown: &Demonstrated) -> Result<WorkflowStep, SkipReason> {
        let page = UrlPattern::of_page(&shown.observation.url).ok_or(SkipReason::NotWeb)?;
        let target =
            Locator::capture(&shown.observation, shown.target).ok_or(SkipReason::NotLocated)?;
        let action = match &shown.act {
            DemonstratedAct::Click => StepAction::Click,
            DemonstratedAct::Check => StepAction::Check,
            DemonstratedAct::Uncheck => StepAction::Uncheck,
            DemonstratedAct::Type { text } => {
                StepAction::Type { text: Template::literal(text.clone()), append: false }
            }
            DemonstratedAct::TypeSecret => StepAction::YouType,
            DemonstratedAct::Choose { option } => {
                StepAction::SelectOption { option: Template::literal(option.clone()) }
            }
            DemonstratedAct::Press { keys } => StepAction::PressKeys { keys: keys.clone() },
        };
        Ok(WorkflowStep {
            intent: String::new(),
            page,
            action,
            target: Some(target),
            destination: shown.destination.as_deref().and_then(UrlPattern::of_page),
        })
    }

    fn push(&mut self, step: WorkflowStep) -> Result<(), SkipReason> {
        let retyped = matches!(step.action, StepAction::Type { .. })
            && self.steps.last().is_some_and(|last| {
                matches!(last.action, StepAction::Type { .. }) && last.target == step.target
            });
        if retyped {
            self.steps.pop();
        }
        if self.steps.len() >= MAX_DEMONSTRATED_STEPS {
            return Err(SkipReason::Full);
        }
        self.steps.push(step);
        Ok(())
    }

    /// The user loaded `url` themselves (typed it, or picked a bookmark): a navigation step.
    /// Loads that a step caused (a link, a form) are not steps of their own.
    pub fn navigated(&mut self, url: &str) -> Result<(), SkipReason> {
        let (Some(page), Some(to)) = (UrlPattern::of_page(&self.at), UrlPattern::of_page(url))
        else {
            self.at = url.to_owned();
            self.skipped += 1;
            return Err(SkipReason::NotWeb);
        };
        self.at = url.to_owned();
        self.push(WorkflowStep {
            intent: String::new(),
            page,
            action: StepAction::Navigate { url: Template::literal(url) },
            target: None,
            // Where it goes, as a task's navigation records it: a run that would go elsewhere
            // asks first.
            destination: Some(to),
        })
    }

    /// The tab now shows `url` (a step's own navigation).
    pub fn moved(&mut self, url: &str) {
        self.at = url.to_owned();
    }

    /// The recorded tab committed a new page: a step when the user loaded it themselves.
    pub fn committed(&mut self, url: &str, cause: LoadCause) -> Result<(), SkipReason> {
        match cause {
            LoadCause::User => self.navigated(url),
            LoadCause::Page => {
                self.moved(url);
                Ok(())
            }
        }
    }

    /// A request the recorded tab sent while recording, as the network layer classified it.
    pub fn request(&mut self, effect: &Effect) {
        if effect.kind == EffectKind::Telemetry {
            return;
        }
        match self.writes.iter_mut().find(|w| w.effect == effect.kind) {
            Some(seen) => {
                seen.count = seen.count.saturating_add(1);
                for r in &effect.recipients {
                    if !seen.recipients.contains(r) {
                        seen.recipients.push(r.clone());
                    }
                }
            }
            None => self.writes.push(ShownWrite {
                effect: effect.kind,
                count: 1,
                recipients: effect.recipients.clone(),
            }),
        }
    }

    /// The draft workflow (the user names it and its inputs in the editor before saving).
    pub fn finish(mut self, id: String, now_ms: f64) -> Result<Workflow, RecordError> {
        if self.steps.is_empty() {
            return Err(RecordError::NoSteps);
        }
        let params = parameterise(&mut self.steps);
        for step in &mut self.steps {
            step.intent = WorkflowStep::describe_default(&step.action, step.target.as_ref());
        }
        let host = self
            .steps
            .first()
            .map(|s| s.page.origin().to_owned())
            .and_then(|origin| url::Url::parse(&origin).ok())
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or_default();
        Ok(Workflow {
            schema_version: SCHEMA_VERSION,
            id,
            name: format!("Shown on {host}"),
            task: Template::literal(format!("Steps shown on {host}")),
            params,
            steps: self.steps,
            created_ms: now_ms,
            updated_ms: now_ms,
            revision: 0,
            imported: None,
            shown_writes: self.writes,
        })
    }
}

/// Who started a top-level load, from Chrome's `webNavigation` transition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadCause {
    /// The user: an address typed or chosen in the address bar, a bookmark, a search.
    User,
    /// A recorded step (a link, a form), the page itself (a redirect, a script), history or
    /// a reload: not a step of its own.
    Page,
}

impl LoadCause {
    /// From `transitionType` and `transitionQualifiers` of `webNavigation.onCommitted`.
    pub fn of(transition: &str, qualifiers: &[String]) -> Self {
        let typed = matches!(
            transition,
            "typed" | "auto_bookmark" | "generated" | "keyword" | "keyword_generated"
        );
        let replayed = qualifiers.iter().any(|q| q == "forward_back" || q == "client_redirect");
        if typed && !replayed { Self::User } else { Self::Page }
    }
}

/// Every typed or chosen value becomes an input named after its field, with the value as its
/// default. Values typed into the same field share one. (A password is no input: its step is
/// the user's own, [`StepAction::YouType`].)
fn parameterise(steps: &mut [WorkflowStep]) -> Vec<Param> {
    let mut params: Vec<Param> = Vec::new();
    let mut by_field: Vec<(Option<Locator>, String)> = Vec::new();
    for step in steps.iter_mut() {
        let label = step.target.as_ref().map(|t| t.name.as_str().to_owned()).unwrap_or_default();
        let (value, fallback) = match &mut step.action {
            StepAction::Type { text, .. } => (text, "value"),
            StepAction::SelectOption { option } => (option, "choice"),
            _ => continue,
        };
        let known = by_field.iter().find(|(t, _)| *t == step.target).map(|(_, n)| n.clone());
        let name = match known {
            Some(name) => name,
            None => {
                let base = param_name_from(&label, fallback);
                let name = unique_param_name(&base, |n| params.iter().any(|p| p.name == n));
                params.push(Param {
                    name: name.clone(),
                    label: label.clone(),
                    default: Some(value.as_str().to_owned()),
                    secret: false,
                });
                by_field.push((step.target.clone(), name.clone()));
                name
            }
        };
        *value = Template(format!("{{{{{name}}}}}"));
    }
    params
}

/// What the writes a demonstration made allow a run: the same kinds, as many times.
pub fn grant_shown(budget: &mut WriteBudget, shown: &[ShownWrite]) {
    for write in shown {
        let Some(kind) = write_kind(write.effect) else { continue };
        budget.grants.insert(kind);
        if matches!(
            write.effect,
            EffectKind::Account | EffectKind::Integration | EffectKind::Billing
        ) {
            budget.topics.insert(write.effect);
        }
        budget.counted.push(Grant {
            kind,
            count: Count::Up(write.count),
            recipients: write.recipients.clone(),
        });
    }
}

/// The kind of write whose grant covers `effect` (none for telemetry, which is never judged).
fn write_kind(effect: EffectKind) -> Option<WriteKind> {
    use EffectKind as E;
    Some(match effect {
        E::Account | E::Integration | E::Billing | E::Settings => WriteKind::Change,
        E::Delete => WriteKind::Delete,
        E::Order => WriteKind::Purchase,
        E::Message => WriteKind::Message,
        E::Cart => WriteKind::Cart,
        E::Submit | E::Unknown => WriteKind::Submit,
        E::Lookup => WriteKind::Search,
        E::Telemetry => return None,
    })
}
