//! Teach by showing, behind the panel: when a recording may start, what it keeps across a
//! restart of the worker, what the tab's loads, steps and requests add to it, and what the
//! user gets when they stop (the editor with the draft, or why there is none).
//!
//! Why in the core: those are decisions and sentences, tested natively against an in-memory
//! store; the worker arms the tab's content script and follows Chrome's events.

use super::WorkflowDesk;
use super::workflows::set_error;
use crate::locate::UrlPattern;
use crate::panel::PanelState;
use crate::panel::recording::view;
use crate::panel::workflows::DraftSource;
use crate::platform::Env;
use crate::platform::{Store, TabError, load_value, save_value};
use crate::safety::Effect;
use crate::workflow::{Demonstration, LoadCause};
use std::cell::{Cell, RefCell};
use waymark_page::demonstration::{DEMONSTRATED, Demonstrated, DemonstratedMessage};

/// Where a recording in progress is kept (a restart of the worker goes on with it).
pub const RECORDING_KEY: &str = "recording";

/// The recording in progress, if any.
pub struct RecordingDesk<S> {
    store: S,
    demo: RefCell<Option<Demonstration>>,
    /// The page the tab shows reports the user's steps (not yet while a new one loads).
    ready: Cell<bool>,
}

impl<S: Store + Clone> RecordingDesk<S> {
    /// No recording; [`RecordingDesk::load`] finds one a stopped worker left.
    pub fn new(store: S) -> Self {
        Self { store, demo: RefCell::new(None), ready: Cell::new(false) }
    }

    /// The tab being recorded, if any.
    pub fn tab(&self) -> Option<i32> {
        self.demo.borrow().as_ref().map(|d| d.tab)
    }

    /// The step a content script reported from `frame` of `tab`, if it is one of the
    /// recording's: only the recorded tab's top frame records (a frame inside the page, or
    /// another tab, never adds a step), and only a step message that reads.
    pub fn step_from(
        &self,
        tab: i32,
        frame: i32,
        msg: &DemonstratedMessage,
    ) -> Option<Demonstrated> {
        if !self.follows(tab, frame) || msg.waymark != DEMONSTRATED {
            return None;
        }
        match serde_json::from_str(&msg.step) {
            Ok(step) => Some(step),
            Err(e) => {
                tracing::warn!(error = %e, "an unreadable recorded step");
                None
            }
        }
    }

    /// Whether a load in `frame` of `tab` is the recording's: the recorded tab's top frame.
    pub fn follows(&self, tab: i32, frame: i32) -> bool {
        frame == 0 && self.tab() == Some(tab)
    }

    /// Draws the recording part of the panel.
    pub fn refresh(&self, state: &RefCell<PanelState>) {
        let shown = self.demo.borrow().as_ref().map(|demo| view(demo, self.ready.get()));
        state.borrow_mut().workflows.recording = shown;
    }

    /// Keeps the recording in the store after each change (a refused write is logged: the
    /// recording goes on in memory).
    async fn persist(&self) {
        let demo = self.demo.borrow().clone();
        if let Err(e) = save_value(&self.store, RECORDING_KEY, &demo).await {
            tracing::warn!(error = %e, "the recording could not be stored");
        }
    }

    /// Starts recording `target` (the tab the user looks at, and its address) unless a
    /// recording or a task runs (`busy`); the tab to arm, or `None` (the panel says why).
    pub async fn begin(
        &self,
        state: &RefCell<PanelState>,
        env: &impl Env,
        busy: bool,
        target: Option<(i32, String)>,
    ) -> Option<i32> {
        if self.tab().is_some() {
            return None;
        }
        if busy {
            set_error(
                state,
                "A task is running: wait for it to end, or stop it, then record.".into(),
            );
            return None;
        }
        let Some((tab, url)) = target else {
            set_error(state, "There is no tab to record: open the page you want to show.".into());
            return None;
        };
        if UrlPattern::of_page(&url).is_none() {
            set_error(
                state,
                "Waymark can record only on web pages: open the page where you want to start, \
                 then press Record."
                    .into(),
            );
            return None;
        }
        *self.demo.borrow_mut() = Some(Demonstration::start(tab, &url, env.now_ms()));
        self.persist().await;
        Some(tab)
    }

    /// The tab's content script took the recording (or could not: then there is none, and
    /// the panel says why); whether it records.
    pub async fn armed(&self, state: &RefCell<PanelState>, armed: Result<bool, TabError>) -> bool {
        match armed.and_then(taken) {
            Ok(()) => {
                self.ready.set(true);
                let mut shown = state.borrow_mut();
                shown.workflows.error = None;
                shown.workflows.notice = None;
                drop(shown);
                self.refresh(state);
                true
            }
            Err(e) => {
                *self.demo.borrow_mut() = None;
                self.persist().await;
                set_error(state, format!("Waymark cannot record on this page ({e})."));
                self.refresh(state);
                false
            }
        }
    }

    /// Goes on with a recording a stopped worker left; its tab (to arm again).
    pub async fn load(&self, state: &RefCell<PanelState>) -> Option<i32> {
        let demo: Option<Demonstration> =
            load_value::<Option<Demonstration>>(&self.store, RECORDING_KEY).await.flatten();
        let tab = demo.as_ref().map(|d| d.tab);
        *self.demo.borrow_mut() = demo;
        self.refresh(state);
        tab
    }

    /// A new page of the recorded tab reports the user's steps again.
    pub fn rearmed(&self, state: &RefCell<PanelState>, tab: i32, armed: Result<bool, TabError>) {
        if let Err(e) = armed.and_then(taken) {
            tracing::warn!(error = %e, "the recorded tab could not be armed again");
            return;
        }
        // Still the same recording (not stopped meanwhile).
        if self.tab() == Some(tab) {
            self.ready.set(true);
            self.refresh(state);
        }
    }

    /// A page load of the recorded tab's top frame began (`cause`: what started it).
    pub async fn committed(&self, state: &RefCell<PanelState>, url: &str, cause: LoadCause) {
        self.ready.set(false);
        if let Some(demo) = self.demo.borrow_mut().as_mut()
            && let Err(e) = demo.committed(url, cause)
        {
            tracing::debug!(error = %e, "a load was not recorded");
        }
        self.persist().await;
        self.refresh(state);
    }

    /// A step the user did in the recorded tab's top frame.
    pub async fn step(&self, state: &RefCell<PanelState>, shown: &Demonstrated) {
        if let Some(demo) = self.demo.borrow_mut().as_mut()
            && let Err(e) = demo.add(shown)
        {
            tracing::debug!(error = %e, "a step was not recorded");
        }
        self.persist().await;
        self.refresh(state);
    }

    /// A state-changing request of the recorded tab: what the demonstration wrote.
    pub async fn request(&self, effect: &Effect) {
        if let Some(demo) = self.demo.borrow_mut().as_mut() {
            demo.request(effect);
        }
        self.persist().await;
    }

    /// Ends the recording; `keep`: the editor opens with the draft (or says why there is
    /// none). The tab to disarm.
    pub async fn end(
        &self,
        state: &RefCell<PanelState>,
        env: &impl Env,
        workflows: &WorkflowDesk<S>,
        keep: bool,
    ) -> Option<i32> {
        let demo = self.demo.borrow_mut().take()?;
        self.ready.set(false);
        self.persist().await;
        self.refresh(state);
        let tab = demo.tab;
        if !keep {
            return Some(tab);
        }
        let skipped = demo.skipped;
        match demo.finish(super::new_id(env), env.now_ms()) {
            Ok(draft) => {
                workflows.open_editor(state, draft, DraftSource::Shown);
                if skipped > 0 {
                    state.borrow_mut().workflows.notice = Some(format!(
                        "{} of what you did could not be recorded (see the steps).",
                        crate::text::counted(skipped, "step")
                    ));
                }
            }
            Err(e) => set_error(state, format!("Nothing was recorded: {e}.")),
        }
        Some(tab)
    }
}

/// Whether the page took a recording it was asked to start: it answers whether it reports
/// steps now, and "no" is a refusal to show.
fn taken(recording: bool) -> Result<(), TabError> {
    if recording { Ok(()) } else { Err(TabError("the page did not take the recording".into())) }
}

#[cfg(test)]
mod tests;
