//! Workflows in the extension's storage, next to the sessions: one key per workflow
//! (`workflow:{id}`) and a small index (`workflows`) the list is drawn from. Every change writes
//! the workflow and the index in one `set`, so a refused write (the quota) leaves both as they
//! were: nothing is lost, and the panel keeps the unsaved draft.

use super::Workflow;
use super::run::Heal;
use super::schema::{ImportError, import_json, validate};
use crate::platform::{Store, StoreError};
use serde::{Deserialize, Serialize};

/// The index's key.
pub const INDEX_KEY: &str = "workflows";

/// A workflow's key.
pub fn key(id: &str) -> String {
    format!("workflow:{id}")
}

/// One row of the workflow list.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkflowMeta {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its parameters' names, in order.
    #[serde(default)]
    pub params: Vec<String>,
    /// Number of steps.
    #[serde(default)]
    pub steps: u32,
    /// Last changed (ms since the epoch).
    #[serde(default)]
    pub updated_ms: f64,
}

impl WorkflowMeta {
    /// The row of `workflow`.
    pub fn of(workflow: &Workflow) -> Self {
        Self {
            id: workflow.id.clone(),
            name: workflow.name.clone(),
            params: workflow.params.iter().map(|p| p.name.clone()).collect(),
            steps: workflow.steps.len() as u32,
            updated_ms: workflow.updated_ms,
        }
    }
}

/// Why a change to the stored workflows was not made (nothing stored changed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WorkflowError {
    /// Storage refused (the quota, say) or could not be read.
    #[error("browser storage refused it ({0}); nothing was changed")]
    Store(#[from] StoreError),
    /// An imported file was refused.
    #[error("{0}")]
    Import(#[from] ImportError),
    /// No such workflow.
    #[error("there is no workflow with id “{0}”")]
    NotFound(String),
    /// A stored workflow that no longer reads (written by a newer Waymark, or damaged).
    #[error("the stored workflow “{0}” could not be read")]
    Unreadable(String),
    /// The user's edits are not usable.
    #[error("{}", .0.join("; "))]
    Invalid(Vec<String>),
    /// Healed steps for a workflow that changed since the run.
    #[error(
        "the workflow changed since that run (it was edited or healed); its healed steps were not applied"
    )]
    Stale,
}

/// The stored workflows in `S`.
pub struct WorkflowStore<S> {
    store: S,
}

impl<S: Store> WorkflowStore<S> {
    /// The workflows in `store`.
    pub fn new(store: S) -> Self {
        Self { store }
    }

    /// Every workflow's row, by name.
    pub async fn list(&self) -> Result<Vec<WorkflowMeta>, StoreError> {
        let got = self.store.get(&[INDEX_KEY.to_owned()]).await?;
        let mut list: Vec<WorkflowMeta> = match got.get(INDEX_KEY) {
            None => Vec::new(),
            Some(value) => serde_json::from_value(value.clone())
                .map_err(|e| StoreError(format!("the workflow list could not be read: {e}")))?,
        };
        list.sort_by(|a, b| {
            a.name.to_lowercase().cmp(&b.name.to_lowercase()).then(a.id.cmp(&b.id))
        });
        Ok(list)
    }

    /// One workflow.
    pub async fn load(&self, id: &str) -> Result<Workflow, WorkflowError> {
        let got = self.store.get(&[key(id)]).await?;
        let value = got.get(&key(id)).ok_or_else(|| WorkflowError::NotFound(id.to_owned()))?;
        serde_json::from_value(value.clone()).map_err(|_| WorkflowError::Unreadable(id.to_owned()))
    }

    /// Stores `workflow` (new or changed) after validating it; its name must not be another
    /// workflow's (a prompt names a workflow by it).
    pub async fn save(&self, workflow: &Workflow) -> Result<(), WorkflowError> {
        validate(workflow).map_err(WorkflowError::Invalid)?;
        let mut list = self.list().await?;
        if let Some(other) = list.iter().find(|m| {
            m.id != workflow.id && m.name.trim().eq_ignore_ascii_case(workflow.name.trim())
        }) {
            return Err(WorkflowError::Invalid(vec![format!(
                "another workflow is already called “{}”",
                other.name
            )]));
        }
        list.retain(|m| m.id != workflow.id);
        list.push(WorkflowMeta::of(workflow));
        let encode = |e: serde_json::Error| StoreError(format!("could not encode: {e}"));
        self.store
            .set(vec![
                (key(&workflow.id), serde_json::to_value(workflow).map_err(encode)?),
                (INDEX_KEY.to_owned(), serde_json::to_value(&list).map_err(encode)?),
            ])
            .await?;
        Ok(())
    }

    /// Removes a workflow: the index first (a failure after it leaves only an unlisted key).
    pub async fn delete(&self, id: &str) -> Result<(), WorkflowError> {
        let mut list = self.list().await?;
        if !list.iter().any(|m| m.id == id) {
            return Err(WorkflowError::NotFound(id.to_owned()));
        }
        list.retain(|m| m.id != id);
        let value = serde_json::to_value(&list).map_err(|e| StoreError(e.to_string()))?;
        self.store.set(vec![(INDEX_KEY.to_owned(), value)]).await?;
        if let Err(e) = self.store.remove(&[key(id)]).await {
            tracing::warn!(error = %e, "a deleted workflow's key stays (it is no longer listed)");
        }
        Ok(())
    }

    /// Imports a workflow file under a new id (never replacing one), with a free name.
    pub async fn import(
        &self,
        text: &str,
        id: String,
        now_ms: f64,
    ) -> Result<Workflow, WorkflowError> {
        let mut workflow = import_json(text)?;
        // Its author's, not the user's: the first run asks about every step (whatever the
        // file said about itself).
        workflow.imported = Some(super::Imported { at_ms: now_ms, reviewed: false });
        workflow.id = id;
        workflow.name = self.free_name(&workflow.name).await?;
        workflow.created_ms = now_ms;
        workflow.updated_ms = now_ms;
        self.save(&workflow).await?;
        Ok(workflow)
    }

    /// Records that an imported workflow's run went through every step with the user's
    /// approval: later runs are policed like the user's own workflows.
    pub async fn mark_reviewed(&self, id: &str) -> Result<(), WorkflowError> {
        let mut workflow = self.load(id).await?;
        let Some(imported) = workflow.imported.as_mut().filter(|i| !i.reviewed) else {
            return Ok(());
        };
        imported.reviewed = true;
        self.save(&workflow).await
    }

    /// A copy of a workflow under a new id, named "… (copy)".
    pub async fn duplicate(
        &self,
        id: &str,
        new_id: String,
        now_ms: f64,
    ) -> Result<Workflow, WorkflowError> {
        let mut copy = self.load(id).await?;
        copy.id = new_id;
        copy.name = self.free_name(&format!("{} (copy)", copy.name)).await?;
        copy.created_ms = now_ms;
        copy.updated_ms = now_ms;
        copy.revision = 0;
        self.save(&copy).await?;
        Ok(copy)
    }

    /// Gives a workflow a new name.
    pub async fn rename(
        &self,
        id: &str,
        name: &str,
        now_ms: f64,
    ) -> Result<Workflow, WorkflowError> {
        let mut workflow = self.load(id).await?;
        workflow.name = name.trim().to_owned();
        workflow.updated_ms = now_ms;
        workflow.revision += 1;
        self.save(&workflow).await?;
        Ok(workflow)
    }

    /// Writes healed steps the user accepted into the workflow they were healed from (refused
    /// when it changed since the run: the heal was made against another version).
    pub async fn accept_heals(
        &self,
        id: &str,
        heals: &[Heal],
        now_ms: f64,
    ) -> Result<Workflow, WorkflowError> {
        let mut workflow = self.load(id).await?;
        for heal in heals {
            let step = workflow.steps.get_mut(heal.index as usize);
            match step {
                Some(step) if heal.revision == workflow.revision && *step == heal.was => {
                    *step = heal.now.clone();
                }
                _ => return Err(WorkflowError::Stale),
            }
        }
        workflow.revision += 1;
        workflow.updated_ms = now_ms;
        self.save(&workflow).await?;
        Ok(workflow)
    }

    /// `name`, or `name (2)`, `name (3)`… when taken.
    async fn free_name(&self, name: &str) -> Result<String, StoreError> {
        let list = self.list().await?;
        let taken = |n: &str| list.iter().any(|m| m.name.trim().eq_ignore_ascii_case(n.trim()));
        let base: String = name.trim().chars().take(super::schema::MAX_NAME_CHARS - 5).collect();
        if !taken(&base) {
            return Ok(base);
        }
        Ok((2..).map(|i| format!("{base} ({i})")).find(|n| !taken(n)).unwrap_or(base))
    }
}
