//! The session lifecycle behind the side panel: which session is current, recording finished
//! tasks as turns with their summaries and titles, the session list, search, rename, delete,
//! and what the panel shows of all that.
//!
//! Why in the core: every one of these is a sequence of decisions around storage reads and
//! writes (retry a failed turn with the next write, never overwrite an unreadable turn, tell
//! the user when a read or a write fails); here they run natively against an in-memory store.
//! The worker only supplies the [`Store`], the model and the transcript sink, and redraws.

use crate::panel::{PanelState, SearchView, SessionView, session_list};
use crate::platform::{Env, Llm};
use crate::platform::{Host, Redraw, Store, StoreError};
use crate::record::TaskOutcome;
use crate::safety::{Provenance, TaintLedger};
use crate::session::{
    self, Limiter, RanWorkflow, SearchIndex, Session, SessionMeta, SessionStore, Summary,
    TaskRecord, extractive_summary, parse_summary, summary_request, title_change,
    transcript_record,
};
use std::cell::{Ref, RefCell};
use waymark_protocol::LlmRequest;

/// Background summary calls running at once, at most.
pub const MAX_SUMMARY_CALLS: usize = 5;

/// Search results shown.
const SEARCH_LIMIT: usize = 20;

/// A stored turn waiting for its summary call.
#[derive(Debug, Clone)]
pub struct StoredTurn {
    /// The session it belongs to.
    pub session_id: String,
    /// The turn as stored (with the extractive summary).
    pub record: TaskRecord,
    request: LlmRequest,
}

/// The sessions: the current one in memory, the rest in the store.
pub struct SessionDesk<S> {
    store: SessionStore<S>,
    session: RefCell<Session>,
    /// Headers of every stored session, for the session list.
    metas: RefCell<Vec<SessionMeta>>,
    /// Search index over every session, built on the first search.
    index: RefCell<Option<SearchIndex>>,
    /// Turns whose write failed, retried with the next write: `(session id, turn)`.
    unsaved: RefCell<Vec<(String, u32)>>,
    /// Bounds the background summary calls.
    summaries: Limiter,
}

fn fresh_session(env: &impl Env) -> Session {
    let id = super::new_id(env);
    Session::new(id, env.now_ms())
}

fn task_running(state: &RefCell<PanelState>) -> bool {
    state.borrow().task.as_ref().is_some_and(|t| t.running)
}

/// Adds `notice` after whatever storage trouble the panel already tells.
fn tell(state: &RefCell<PanelState>, notice: String) {
    let mut state = state.borrow_mut();
    state.storage_error = Some(match state.storage_error.take() {
        Some(first) if first != notice => format!("{first} {notice}"),
        _ => notice,
    });
}

fn read_failed(what: &str, e: &StoreError) -> String {
    format!(
        "Could not read {what} from browser storage ({e}). Nothing stored was changed; \
         try again, or restart the browser if it keeps failing."
    )
}

/// Says so when part of `session` could not be read (its turns stay in storage untouched).
fn tell_unreadable(state: &RefCell<PanelState>, session: &Session) {
    if let Some(notice) = session.unreadable_notice() {
        tracing::warn!(turns = ?session.unreadable, "stored turns could not be read");
        tell(state, notice);
    }
}

fn clear_task_view(state: &RefCell<PanelState>) {
    let mut state = state.borrow_mut();
    state.task = None;
    state.task_turn = None;
    state.focus = None;
    state.export = None;
}

impl<S: Store> SessionDesk<S> {
    /// The sessions in `store`; [`SessionDesk::start`] loads them.
    pub fn new(store: S) -> Self {
        Self {
            store: SessionStore::new(store),
            session: RefCell::new(Session::default()),
            metas: RefCell::new(Vec::new()),
            index: RefCell::new(None),
            unsaved: RefCell::new(Vec::new()),
            summaries: Limiter::new(MAX_SUMMARY_CALLS),
        }
    }

    /// The headers of every stored session.
    pub async fn stored_list(&self) -> Result<Vec<SessionMeta>, StoreError> {
        Ok(self.store.list().await?.metas)
    }

    /// The current session.
    pub fn current(&self) -> Ref<'_, Session> {
        self.session.borrow()
    }

    /// Loads the current session (a new one when storage names none) and the list.
    pub async fn start(&self, state: &RefCell<PanelState>, env: &impl Env) -> Redraw {
        let session = match self.store.load_current().await {
            Ok(Some(s)) => s,
            Ok(None) => fresh_session(env),
            Err(e) => {
                tell(state, read_failed("the current session", &e));
                fresh_session(env)
            }
        };
        tell_unreadable(state, &session);
        *self.session.borrow_mut() = session;
        match self.store.list().await {
            Ok(listed) => {
                *self.metas.borrow_mut() = listed.metas;
                if let Some(notice) = session::unreadable_sessions_notice(listed.unreadable) {
                    tell(state, notice);
                }
            }
            Err(e) => tell(state, read_failed("the list of sessions", &e)),
        }
        self.refresh(state);
        Redraw::Session
    }

    /// The session context for the next task (earlier tasks' findings), `None` for the first.
    pub fn context_for_next_task(&self) -> Option<String> {
        let context = session::build_context(&self.session.borrow().records);
        (!context.is_empty()).then_some(context)
    }

    /// The earlier tasks the next task's notes fold, for its `recall` tool.
    pub fn recallable_for_next_task(&self) -> Vec<TaskRecord> {
        session::recallable(&self.session.borrow().records)
    }

    /// Where the values of the next task's session context were read.
    pub fn provenance_for_next_task(&self) -> Provenance {
        session::context_provenance(&self.session.borrow().records)
    }

    /// Records a finished task as the next turn (with an extractive summary at once, so nothing
    /// is ever missing; the secrets `taint` knows cut out first) and stores it. Returns the
    /// turn waiting for its summary call, or `None` for a workflow run (`ran`), which keeps
    /// its extractive summary (its transcript goes at once).
    #[allow(clippy::too_many_arguments, reason = "the parts of one finished task")]
    pub async fn record(
        &self,
        state: &RefCell<PanelState>,
        host: &impl Host,
        env: &impl Env,
        prompt: &str,
        outcome: &TaskOutcome,
        taint: &TaintLedger,
        asked_by: Option<String>,
        ran: Option<RanWorkflow>,
    ) -> Option<StoredTurn> {
        let mut record = TaskRecord::noted(0, prompt, outcome, env.now_ms(), taint);
        record.asked_by = asked_by;
        let summarise = ran.is_none();
        record.workflow = ran;
        let turn = self.session.borrow_mut().push(record);
        let snapshot = self.session.borrow().clone();
        self.save(state, &snapshot, turn).await;
        if !summarise {
            send_transcript(host, &snapshot, turn).await;
            return None;
        }
        let record = snapshot.turn(turn)?.clone();
        let request = summary_request(&snapshot, &record);
        Some(StoredTurn { session_id: snapshot.id.clone(), record, request })
    }

    /// Runs a stored turn's summary call (the model's summary, else an extractive one), stores
    /// it with the title it implies, and sends the turn's transcript; the turn as summarised.
    pub async fn summarise(
        &self,
        state: &RefCell<PanelState>,
        llm: &impl Llm,
        host: &impl Host,
        turn: StoredTurn,
    ) -> TaskRecord {
        let StoredTurn { session_id, mut record, request } = turn;
        let summary = {
            let _permit = self.summaries.acquire().await;
            match llm.complete(request).await {
                Ok(completion) => parse_summary(&completion.text, &record).map(|s| (s, true)),
                Err(_) => None,
            }
        };
        let (summary, by_model) =
            summary.unwrap_or_else(|| (extractive_summary(&record.task, &record.answer), false));
        record.apply_summary(summary.clone(), by_model);
        self.apply_summary(state, host, &session_id, record.turn, summary, by_model).await;
        record
    }

    /// Stores a turn's summary and the title it implies, in whichever session it belongs to.
    async fn apply_summary(
        &self,
        state: &RefCell<PanelState>,
        host: &impl Host,
        id: &str,
        turn: u32,
        summary: Summary,
        by_model: bool,
    ) {
        let Some(mut session) = self.find(state, id).await else { return };
        let proposed = summary.title.clone();
        let Some(record) = session.turn_mut(turn) else { return };
        record.apply_summary(summary, by_model);
        if let Some(title) = title_change(&session, proposed.as_deref()) {
            session.set_title(&title, turn, false);
        }
        if self.session.borrow().id == id {
            // Only the summarised turn and the header change; later turns (recorded while
            // the call ran) stay as they are.
            let mut live = self.session.borrow_mut();
            if let (Some(dst), Some(src)) = (live.turn_mut(turn), session.turn(turn)) {
                *dst = src.clone();
            }
            live.title = session.title.clone();
            live.title_history = session.title_history.clone();
            session = live.clone();
        }
        self.save(state, &session, turn).await;
        send_transcript(host, &session, turn).await;
    }

    /// Writes one turn (and any turn of that session whose write failed before); a failure is
    /// told in the panel and the turn retried with the next write.
    async fn save(&self, state: &RefCell<PanelState>, session: &Session, turn: u32) {
        let mut turns: Vec<u32> = self
            .unsaved
            .borrow()
            .iter()
            .filter(|(id, _)| *id == session.id)
            .map(|(_, t)| *t)
            .collect();
        turns.push(turn);
        turns.sort_unstable();
        turns.dedup();
        let current = self.session.borrow().id == session.id;
        match self.store.save_turns(session, &turns, current).await {
            Ok(()) => {
                self.unsaved.borrow_mut().retain(|(id, _)| *id != session.id);
                state.borrow_mut().storage_error = None;
            }
            Err(e) => {
                self.unsaved.borrow_mut().push((session.id.clone(), turn));
                state.borrow_mut().storage_error = Some(format!(
                    "Could not save turn {turn} to browser storage ({e}). It is kept in memory \
                     and retried with the next change; nothing saved earlier was lost."
                ));
            }
        }
        self.remember(session);
        if let Some(index) = self.index.borrow_mut().as_mut() {
            if let Some(record) = session.turn(turn) {
                index.upsert(&session.id, record);
            }
            index.set_title(&session.id, &session.display_title());
        }
        self.refresh(state);
    }

    /// Updates the in-memory session list with `session`'s header.
    fn remember(&self, session: &Session) {
        let meta = session.meta();
        let mut metas = self.metas.borrow_mut();
        match metas.iter_mut().find(|m| m.id == meta.id) {
            Some(m) => *m = meta,
            None => metas.push(meta),
        }
    }

    /// Rebuilds the panel's session parts from the desk.
    pub fn refresh(&self, state: &RefCell<PanelState>) {
        let session = self.session.borrow();
        let mut state = state.borrow_mut();
        state.turns = session.records.len() as u32;
        state.session = SessionView {
            id: session.id.clone(),
            title: session.display_title(),
            title_history: session.title_history.clone(),
            created_ms: session.created_ms,
            tasks: session.records.len() as u32,
        };
        state.toc = session::toc(&session);
        state.sessions = session_list(&self.metas.borrow(), &session.id);
        if let Some(focus) = &state.focus {
            let n = focus.turn.turn;
            state.focus = session.turn_with_neighbours(n);
        }
        // The finished task's findings, once its turn is recorded (and again with the
        // model's summary).
        let recorded = match (&state.task, session.records.last()) {
            (Some(t), Some(r)) if !t.running && t.prompt == r.task => Some(r),
            _ => None,
        };
        state.findings = recorded.and_then(crate::panel::prompt::findings);
        state.task_turn = recorded.map(|r| r.turn);
    }

    /// Starts a new, empty session unless a task runs (the current one stays stored and
    /// listed).
    pub async fn new_session(&self, state: &RefCell<PanelState>, env: &impl Env) -> Redraw {
        if task_running(state) {
            return Redraw::Nothing;
        }
        self.start_new(state, env).await
    }

    /// Makes a new, empty session current, whatever the panel shows. It is remembered as
    /// current at once, so a worker restart does not bring the old one back.
    pub async fn start_new(&self, state: &RefCell<PanelState>, env: &impl Env) -> Redraw {
        let fresh = fresh_session(env);
        let id = fresh.id.clone();
        *self.session.borrow_mut() = fresh;
        clear_task_view(state);
        self.refresh(state);
        if let Err(e) = self.store.set_current(&id).await {
            self.tell_write_failed(state, "which session is current", &e);
        }
        Redraw::Session
    }

    fn tell_write_failed(&self, state: &RefCell<PanelState>, what: &str, e: &StoreError) {
        tracing::warn!(error = %e, "could not save {what}");
        state.borrow_mut().storage_error =
            Some(format!("Could not save {what} to browser storage ({e})."));
    }

    /// A session by id: the current one, else the stored one (a failed read is told).
    pub async fn find(&self, state: &RefCell<PanelState>, id: &str) -> Option<Session> {
        if self.session.borrow().id == id {
            return Some(self.session.borrow().clone());
        }
        match self.store.load(id).await {
            Ok(found) => found,
            Err(e) => {
                tell(state, read_failed("that session", &e));
                None
            }
        }
    }

    /// Makes a stored session the current one unless a task runs; whether it is current now.
    pub async fn continue_session(&self, state: &RefCell<PanelState>, id: &str) -> bool {
        if task_running(state) {
            return false;
        }
        if self.session.borrow().id != id {
            let Some(session) = self.find(state, id).await else { return false };
            self.switch(state, session).await;
        }
        self.refresh(state);
        true
    }

    /// Makes `session` the current one, whatever the panel shows.
    pub async fn switch_to(&self, state: &RefCell<PanelState>, session: Session) -> Redraw {
        self.switch(state, session).await;
        self.refresh(state);
        Redraw::Session
    }

    async fn switch(&self, state: &RefCell<PanelState>, session: Session) {
        if self.session.borrow().id != session.id {
            if let Err(e) = self.store.set_current(&session.id).await {
                self.tell_write_failed(state, "which session is current", &e);
            }
            tell_unreadable(state, &session);
            *self.session.borrow_mut() = session;
            clear_task_view(state);
        }
    }

    /// Renames a session (current or not); the user's title sticks.
    pub async fn rename(&self, state: &RefCell<PanelState>, id: &str, title: &str) -> Redraw {
        let Some(mut session) = self.find(state, id).await else { return Redraw::View };
        let turn = session.records.len() as u32;
        if !session.set_title(title, turn, true) {
            return Redraw::Nothing;
        }
        let current = self.session.borrow().id == id;
        if current {
            *self.session.borrow_mut() = session.clone();
        }
        if let Err(e) = self.store.save_meta(&session, current).await {
            state.borrow_mut().storage_error = Some(format!("Could not save the new title ({e})."));
        }
        self.remember(&session);
        if let Some(index) = self.index.borrow_mut().as_mut() {
            index.set_title(id, &session.display_title());
        }
        self.refresh(state);
        Redraw::Session
    }

    /// First step of a deletion: the panel asks the user to confirm.
    pub fn ask_delete(&self, state: &RefCell<PanelState>, id: &str) -> Redraw {
        let item = state.borrow().sessions.iter().find(|s| s.id == id).cloned();
        state.borrow_mut().confirm_delete = item;
        Redraw::View
    }

    /// The user kept the session.
    pub fn cancel_delete(&self, state: &RefCell<PanelState>) -> Redraw {
        state.borrow_mut().confirm_delete = None;
        Redraw::View
    }

    /// Deletes a confirmed session (never the current one while a task runs); deleting the
    /// current one starts a new session.
    pub async fn delete(&self, state: &RefCell<PanelState>, env: &impl Env, id: &str) -> Redraw {
        let confirmed = state.borrow().confirm_delete.as_ref().is_some_and(|c| c.id == id);
        state.borrow_mut().confirm_delete = None;
        let is_current = self.session.borrow().id == id;
        if !confirmed || (is_current && task_running(state)) {
            return Redraw::View;
        }
        let turns = if is_current {
            self.session.borrow().meta().turns
        } else {
            self.metas.borrow().iter().find(|m| m.id == id).map_or(0, |m| m.turns)
        };
        if let Err(e) = self.store.delete(id, turns).await {
            state.borrow_mut().storage_error =
                Some(format!("Could not delete the session ({e}). It is still stored."));
            return Redraw::View;
        }
        self.metas.borrow_mut().retain(|m| m.id != id);
        self.unsaved.borrow_mut().retain(|(s, _)| s != id);
        if let Some(index) = self.index.borrow_mut().as_mut() {
            index.remove_session(id);
        }
        if let Some(search) = state.borrow_mut().search.as_mut() {
            search.hits.retain(|h| h.session_id != id);
        }
        if is_current {
            return self.start_new(state, env).await;
        }
        self.refresh(state);
        Redraw::Session
    }

    /// Runs a search (building the index from storage on first use).
    pub async fn search(
        &self,
        state: &RefCell<PanelState>,
        query: String,
        current_only: bool,
    ) -> Redraw {
        if query.trim().is_empty() {
            state.borrow_mut().search = None;
            return Redraw::View;
        }
        let only = current_only.then(|| self.session.borrow().id.clone());
        let hits =
            self.index.borrow().as_ref().map(|i| i.search(&query, only.as_deref(), SEARCH_LIMIT));
        let hits = match hits {
            Some(hits) => hits,
            None => {
                let mut index = SearchIndex::new();
                let complete = match self.store.load_all().await {
                    Ok(sessions) => {
                        sessions.iter().for_each(|s| index.add_session(s));
                        true
                    }
                    Err(e) => {
                        tell(state, read_failed("the other sessions for the search", &e));
                        false
                    }
                };
                // The current session may hold turns whose write failed: what is in memory.
                index.add_session(&self.session.borrow());
                let hits = index.search(&query, only.as_deref(), SEARCH_LIMIT);
                // An index missing the stored sessions is not kept: the next search reads again.
                if complete {
                    *self.index.borrow_mut() = Some(index);
                }
                hits
            }
        };
        state.borrow_mut().search = Some(SearchView { query, current_only, hits });
        Redraw::View
    }

    /// Shows a turn with its neighbours, switching to its session first when needed.
    pub async fn jump(
        &self,
        state: &RefCell<PanelState>,
        session_id: Option<&str>,
        turn: u32,
    ) -> Redraw {
        if let Some(id) = session_id
            && !self.continue_session(state, id).await
        {
            return Redraw::View;
        }
        let focus = self.session.borrow().turn_with_neighbours(turn);
        state.borrow_mut().focus = focus;
        Redraw::Session
    }
}

/// Offers the finished turn to the host's transcript capture (best effort: capture is opt-in
/// and a missing host must not disturb the session).
async fn send_transcript(host: &impl Host, session: &Session, turn: u32) {
    if let Some(record) = session.turn(turn)
        && let Err(e) = host.request(transcript_record(session, record)).await
    {
        tracing::warn!(code = %e.code, message = %e.message, "the turn's transcript was not sent");
    }
}

#[cfg(test)]
mod tests;
