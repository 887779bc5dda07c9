//! The side panel's workflows: the list with each one's inputs (the run form), the editor of a
//! draft or a saved workflow, the healed steps of the last run for the user to accept or
//! reject, and the results of saving, importing and exporting. Built from the worker's
//! workflows each time; the panel draws it and sends back what the user did.

use crate::locate::Locator;
use crate::workflow::{Heal, Workflow, WorkflowEdit, WorkflowStep};
use serde::{Deserialize, Serialize};

/// Everything the panel shows about workflows.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct WorkflowsView {
    /// Every saved workflow, by name.
    #[serde(default)]
    pub list: Vec<WorkflowItem>,
    /// The workflow being reviewed before saving, or edited.
    #[serde(default)]
    pub editor: Option<WorkflowEditor>,
    /// Why the last save, import, run or change failed (until the next one succeeds).
    #[serde(default)]
    pub error: Option<String>,
    /// What the last one did ("Saved “Order a teapot”").
    #[serde(default)]
    pub notice: Option<String>,
    /// Steps the model healed in the last run, for the user to accept or reject.
    #[serde(default)]
    pub heals: Option<HealReview>,
    /// The last export: the file and its JSON (for the copy button).
    #[serde(default)]
    pub export: Option<WorkflowExport>,
    /// A deletion waiting for the user's confirmation.
    #[serde(default)]
    pub confirm_delete: Option<WorkflowItem>,
    /// The recording in progress (teach by showing).
    #[serde(default)]
    pub recording: Option<super::recording::RecordingView>,
}

/// One workflow in the list, with what its run form asks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct WorkflowItem {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its steps.
    pub steps: u32,
    /// Its inputs.
    pub params: Vec<ParamView>,
    /// Last changed (ms since the epoch).
    pub updated_ms: f64,
}

/// One input of a workflow.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ParamView {
    /// Its name (`{{name}}`).
    pub name: String,
    /// What it is called on the page it is typed into.
    pub label: String,
    /// Its default value (empty for a secret).
    pub default: String,
    /// A secret: asked for at each run, never stored (a password field in the form).
    pub secret: bool,
}

/// The editor: the form to send back, and what each step does.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct WorkflowEditor {
    /// What the editor is doing, in words ("Save task 3 as a workflow").
    pub heading: String,
    /// A draft (not saved yet), else a saved workflow.
    pub is_new: bool,
    /// The task turn it was recorded from, for a draft.
    pub turn: Option<u32>,
    /// The form as it stands.
    pub form: WorkflowEdit,
    /// Each input, as in the list.
    pub params: Vec<ParamView>,
    /// Each step: where it acts, in words (not editable).
    pub steps: Vec<String>,
    /// Why the last save was refused.
    pub problems: Vec<String>,
}

/// The healed steps of the last run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct HealReview {
    /// The workflow.
    pub workflow_id: String,
    /// Its name.
    pub workflow_name: String,
    /// Each healed step.
    pub steps: Vec<HealView>,
}

/// One healed step, as the user judges it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct HealView {
    /// The step (1-based).
    pub step: u32,
    /// Why the recorded step did not fit the page.
    pub why: String,
    /// The step as recorded.
    pub was: String,
    /// The step as the model found it.
    pub now: String,
}

/// An exported workflow.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct WorkflowExport {
    /// Which.
    pub name: String,
    /// The file the host wrote (`None`: the host could not write it; the JSON is still here).
    pub path: Option<String>,
    /// Why the file was not written.
    pub error: Option<String>,
    /// The file's content.
    pub json: String,
}

/// The list of `workflows`, by name.
pub fn list(workflows: &[Workflow]) -> Vec<WorkflowItem> {
    let mut items: Vec<WorkflowItem> = workflows
        .iter()
        .map(|w| WorkflowItem {
            id: w.id.clone(),
            name: w.name.clone(),
            steps: w.steps.len() as u32,
            params: params(w),
            updated_ms: w.updated_ms,
        })
        .collect();
    items.sort_by(|a, b| a.name.to_lowercase().cmp(&b.name.to_lowercase()).then(a.id.cmp(&b.id)));
    items
}

fn params(w: &Workflow) -> Vec<ParamView> {
    w.params
        .iter()
        .map(|p| ParamView {
            name: p.name.clone(),
            label: p.label.clone(),
            default: p.default.clone().unwrap_or_default(),
            secret: p.secret,
        })
        .collect()
}

/// The editor for `workflow` (a draft from turn `turn`, or a saved one).
pub fn editor(workflow: &Workflow, source: DraftSource) -> WorkflowEditor {
    let (heading, turn) = match source {
        DraftSource::Task(turn) => (format!("Save task {turn} as a workflow"), Some(turn)),
        DraftSource::Shown => ("Save what you showed as a workflow".to_owned(), None),
        DraftSource::Saved => (format!("Edit “{}”", workflow.name), None),
    };
    WorkflowEditor {
        heading,
        is_new: source != DraftSource::Saved,
        turn,
        form: workflow.edit_form(),
        params: params(workflow),
        steps: workflow.steps.iter().map(step_detail).collect(),
        problems: Vec::new(),
    }
}

/// Where the workflow in the editor comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DraftSource {
    /// A draft from the task of this turn.
    Task(u32),
    /// A draft from a recording of what the user showed.
    Shown,
    /// A saved workflow.
    Saved,
}

/// What a step does and where, from its action and locator (never its author's words, which
/// the editor shows as the step's editable label): `Click button “Save” under “Your order” at
/// https://…`.
fn step_detail(step: &WorkflowStep) -> String {
    format!("{} at {}", step.described(), step.page)
}

/// The review of `heals` made in a run of `workflow`.
pub fn heal_review(workflow_id: &str, workflow_name: &str, heals: &[Heal]) -> HealReview {
    let element =
        |s: &WorkflowStep| s.target.as_ref().map_or_else(|| step_detail(s), Locator::describe);
    HealReview {
        workflow_id: workflow_id.to_owned(),
        workflow_name: workflow_name.to_owned(),
        steps: heals
            .iter()
            .map(|h| HealView {
                step: h.index + 1,
                why: h.why.clone(),
                was: element(&h.was),
                now: element(&h.now),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locate::{Template, UrlPattern};
    use crate::workflow::{Param, SCHEMA_VERSION, StepAction};

    fn workflow(id: &str, name: &str) -> Workflow {
        let page = UrlPattern::of_page("https://shop.example/order").expect("page");
        let save = Locator {
            role: "button".into(),
            name: Template::literal("Save"),
            heading: Some(Template::literal("Your order")),
            near: None,
            nth: 0,
            of: 1,
            frames: vec![],
        };
        Workflow {
            schema_version: SCHEMA_VERSION,
            id: id.into(),
            name: name.into(),
            task: Template::literal("t"),
            params: vec![
                Param {
                    name: "who".into(),
                    label: "Name".into(),
                    default: Some("Ada".into()),
                    secret: false,
                },
                Param { name: "pin".into(), label: "PIN".into(), default: None, secret: true },
            ],
            steps: vec![WorkflowStep {
                intent: "Click Save".into(),
                page,
                action: StepAction::Click,
                target: Some(save),
                destination: None,
            }],
            created_ms: 0.0,
            updated_ms: 0.0,
            revision: 0,
            imported: None,
            shown_writes: Vec::new(),
        }
    }

    #[test]
    fn the_list_is_by_name_and_the_run_form_knows_secrets_and_defaults() {
        let items = list(&[workflow("2", "weekly report"), workflow("1", "Order a teapot")]);
        assert_eq!(
            items.iter().map(|i| i.name.as_str()).collect::<Vec<_>>(),
            ["Order a teapot", "weekly report"]
        );
        assert_eq!(items[0].params[0].default, "Ada");
        assert!(items[0].params[1].secret && items[0].params[1].default.is_empty());
        let editor = editor(
            &items.first().map(|_| workflow("1", "Order a teapot")).expect("one"),
            DraftSource::Task(3),
        );
        assert!(editor.is_new);
        assert_eq!(
            editor.steps,
            ["Click button “Save” under “Your order” at https://shop.example/order"]
        );
    }

    #[test]
    fn a_heal_review_shows_what_each_step_was_and_is_now() {
        let was = workflow("1", "w").steps[0].clone();
        let mut now = was.clone();
        if let Some(t) = now.target.as_mut() {
            t.name = Template::literal("Store");
        }
        let heal = Heal {
            index: 4,
            why: "there is no button “Save” on the page".into(),
            was,
            now,
            revision: 0,
        };
        let review = heal_review("1", "w", &[heal]);
        assert_eq!(review.steps[0].step, 5);
        assert_eq!(review.steps[0].was, "button “Save” under “Your order”");
        assert_eq!(review.steps[0].now, "button “Store” under “Your order”");
    }
}
