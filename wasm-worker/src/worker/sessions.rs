//! The session side of the worker: records finished tasks, runs the background summary calls,
//! keeps the panel's session list, TOC, search and focused turn, and the lifecycle requests.
//! Decisions live in `waymark_core::session`; this module moves data between it, storage and the panel.

use super::env::BrowserEnv;
use super::{Worker, storage};
use std::rc::Rc;
use wasm_bindgen_futures::spawn_local;
use waymark_core::agent::{Env, Llm, TaskOutcome};
use waymark_core::panel::{SearchView, SessionView, session_list};
use waymark_core::session::{
    self, SearchIndex, Session, SessionMeta, Summary, TaskRecord, extractive_summary,
    parse_summary, summary_request, title_change, transcript_record,
};

/// Background summary calls running at once, at most.
pub(super) const MAX_SUMMARY_CALLS: usize = 5;

/// Search results shown.
const SEARCH_LIMIT: usize = 20;

/// Loads the current session and the list at worker start.
pub(super) async fn start(w: &Rc<Worker>) {
    let session = match storage::load_current().await {
        Some(s) => s,
        None => storage::new_session(),
    };
    tell_unreadable(w, &session);
    *w.session.borrow_mut() = session;
    let (metas, unreadable) = storage::list_metas_counted().await;
    *w.metas.borrow_mut() = metas;
    if let Some(notice) = session::unreadable_sessions_notice(unreadable) {
        let mut state = w.state.borrow_mut();
        // After the current session's own notice, if it has one: both are told.
        state.storage_error = Some(match state.storage_error.take() {
            Some(first) => format!("{first} {notice}"),
            None => notice,
        });
    }
    refresh(w);
}

/// The session context for the next task (earlier tasks' findings), `None` for the first task.
pub(super) fn context_for_next_task(w: &Rc<Worker>) -> Option<String> {
    let context = session::build_context(&w.session.borrow().records);
    (!context.is_empty()).then_some(context)
}

/// The earlier tasks the next task's notes fold, for its `recall` tool.
pub(super) fn recallable_for_next_task(w: &Rc<Worker>) -> Vec<TaskRecord> {
    session::recallable(&w.session.borrow().records)
}

/// Where the values of the next task's session context were read (its ledger's provenance).
pub(super) fn provenance_for_next_task(w: &Rc<Worker>) -> waymark_core::safety::Provenance {
    session::context_provenance(&w.session.borrow().records)
}

/// Records a finished task as the next turn (see [`store_turn`]) and runs its summary call
/// in the background (a workflow run, `ran`, makes no model call: it keeps its extractive
/// summary).
pub(super) async fn record_task(
    w: &Rc<Worker>,
    prompt: &str,
    outcome: &TaskOutcome,
    taint: &waymark_core::safety::TaintLedger,
    asked_by: Option<String>,
    ran: Option<session::RanWorkflow>,
) {
    if let Some(turn) = store_turn(w, prompt, outcome, taint, asked_by, ran).await {
        let w = w.clone();
        spawn_local(async move {
            summarise(&w, turn).await;
        });
    }
}

/// A stored turn waiting for its summary call.
pub(super) struct StoredTurn {
    /// The session it belongs to.
    pub session_id: String,
    /// The turn as stored (with the extractive summary).
    pub record: TaskRecord,
    request: waymark_core::protocol::LlmRequest,
}

/// Records a finished task as the next turn (with an extractive summary at once, so nothing
/// is ever missing; the secrets `taint` knows cut out first) and stores it; what its summary
/// call needs. A workflow run (`ran`) keeps its extractive summary: `None`, no call to make.
pub(super) async fn store_turn(
    w: &Rc<Worker>,
    prompt: &str,
    outcome: &TaskOutcome,
    taint: &waymark_core::safety::TaintLedger,
    asked_by: Option<String>,
    ran: Option<session::RanWorkflow>,
) -> Option<StoredTurn> {
    let mut record = TaskRecord::noted(0, prompt, outcome, BrowserEnv.now_ms(), taint);
    record.asked_by = asked_by;
    let summarise = ran.is_none();
    record.workflow = ran;
    let turn = w.session.borrow_mut().push(record);
    let snapshot = w.session.borrow().clone();
    save(w, &snapshot, turn).await;
    if !summarise {
        send_transcript(w, &snapshot, turn).await;
        return None;
    }
    let record = snapshot.turn(turn)?.clone();
    let request = summary_request(&snapshot, &record);
    Some(StoredTurn { session_id: snapshot.id.clone(), record, request })
}

/// Runs a stored turn's summary call (the model's summary, else an extractive one) and stores
/// it; the turn as summarised.
pub(super) async fn summarise(w: &Rc<Worker>, turn: StoredTurn) -> TaskRecord {
    let StoredTurn { session_id, mut record, request } = turn;
    let summary = {
        let _permit = w.summaries.acquire().await;
        let llm = super::status::MeteredLlm {
            host: w.host.clone(),
            worker: Rc::downgrade(w),
            for_task: false,
        };
        match llm.complete(request).await {
            Ok(completion) => parse_summary(&completion.text, &record).map(|s| (s, true)),
            Err(_) => None,
        }
    };
    let (summary, by_model) =
        summary.unwrap_or_else(|| (extractive_summary(&record.task, &record.answer), false));
    record.apply_summary(summary.clone(), by_model);
    apply_summary(w, &session_id, record.turn, summary, by_model).await;
    record
}

/// Stores a turn's summary and the title it implies, in whichever session it belongs to.
async fn apply_summary(w: &Rc<Worker>, id: &str, turn: u32, summary: Summary, by_model: bool) {
    let current = w.session.borrow().id == id;
    let mut session = if current {
        w.session.borrow().clone()
    } else {
        match storage::load_session(id).await {
            Some(s) => s,
            None => return,
        }
    };
    let proposed = summary.title.clone();
    let Some(record) = session.turn_mut(turn) else { return };
    record.apply_summary(summary, by_model);
    if let Some(title) = title_change(&session, proposed.as_deref()) {
        session.set_title(&title, turn, false);
    }
    if current && w.session.borrow().id == id {
        // Only the summarised turn and the header change; later turns stay as they are.
        let mut live = w.session.borrow_mut();
        if let (Some(dst), Some(src)) = (live.turn_mut(turn), session.turn(turn)) {
            *dst = src.clone();
        }
        live.title = session.title.clone();
        live.title_history = session.title_history.clone();
        session = live.clone();
    }
    save(w, &session, turn).await;
    send_transcript(w, &session, turn).await;
}

/// Offers the finished turn to the host's transcript capture (best effort: capture is opt-in
/// and a missing host must not disturb the session).
async fn send_transcript(w: &Rc<Worker>, session: &Session, turn: u32) {
    if let Some(record) = session.turn(turn)
        && let Err(e) = w.host.request(transcript_record(session, record)).await
    {
        tracing::warn!(code = %e.code, message = %e.message, "the turn's transcript was not sent");
    }
}

/// Writes one turn (and any turn whose write failed before); shows a storage error if it fails.
async fn save(w: &Rc<Worker>, session: &Session, turn: u32) {
    let mut turns: Vec<u32> =
        w.unsaved.borrow().iter().filter(|(id, _)| *id == session.id).map(|(_, t)| *t).collect();
    turns.push(turn);
    turns.sort_unstable();
    turns.dedup();
    let current = w.session.borrow().id == session.id;
    match storage::save_turns(session, &turns, current).await {
        Ok(()) => {
            w.unsaved.borrow_mut().retain(|(id, _)| *id != session.id);
            w.state.borrow_mut().storage_error = None;
        }
        Err(e) => {
            w.unsaved.borrow_mut().push((session.id.clone(), turn));
            w.state.borrow_mut().storage_error = Some(format!(
                "Could not save turn {turn} to browser storage ({e}). It is kept in memory and \
                 retried with the next change; nothing saved earlier was lost."
            ));
        }
    }
    remember(w, session);
    if let Some(index) = w.index.borrow_mut().as_mut() {
        if let Some(record) = session.turn(turn) {
            index.upsert(&session.id, record);
        }
        index.set_title(&session.id, &session.display_title());
    }
    refresh(w);
}

/// Updates the in-memory session list with `session`'s header.
fn remember(w: &Rc<Worker>, session: &Session) {
    let meta: SessionMeta = session.meta();
    let mut metas = w.metas.borrow_mut();
    match metas.iter_mut().find(|m| m.id == meta.id) {
        Some(m) => *m = meta,
        None => metas.push(meta),
    }
}

/// Rebuilds the panel's session parts from the worker's state and sends them.
pub(super) fn refresh(w: &Rc<Worker>) {
    {
        let session = w.session.borrow();
        let mut state = w.state.borrow_mut();
        state.turns = session.records.len() as u32;
        state.session = SessionView {
            id: session.id.clone(),
            title: session.display_title(),
            title_history: session.title_history.clone(),
            created_ms: session.created_ms,
            tasks: session.records.len() as u32,
        };
        state.toc = session::toc(&session);
        state.sessions = session_list(&w.metas.borrow(), &session.id);
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
        state.findings = recorded.and_then(waymark_core::panel::prompt::findings);
        state.task_turn = recorded.map(|r| r.turn);
    }
    super::status::follow_session(w);
    super::snapshot::save(w);
    w.broadcast();
}

fn task_running(w: &Rc<Worker>) -> bool {
    w.state.borrow().task.as_ref().is_some_and(|t| t.running)
}

/// Starts a new, empty session (the current one stays stored and listed).
pub(super) fn new_session(w: &Rc<Worker>) {
    if task_running(w) {
        return;
    }
    start_new(w);
}

/// Makes a new, empty session current, whatever the panel shows.
pub(super) fn start_new(w: &Rc<Worker>) {
    let fresh = storage::new_session();
    let id = fresh.id.clone();
    *w.session.borrow_mut() = fresh;
    // Remembered as current at once, so a worker restart does not bring the old one back.
    let saving = w.clone();
    spawn_local(async move {
        let saved = storage::set_current(&id).await;
        super::storage_result(&saving, "which session is current", saved);
    });
    let mut state = w.state.borrow_mut();
    state.task = None;
    state.task_turn = None;
    state.focus = None;
    state.export = None;
    drop(state);
    refresh(w);
}

/// Makes a stored session the current one.
pub(super) async fn continue_session(w: Rc<Worker>, id: String) -> bool {
    if task_running(&w) {
        return false;
    }
    if w.session.borrow().id != id {
        let Some(session) = storage::load_session(&id).await else { return false };
        switch_to(&w, session).await;
    }
    refresh(&w);
    true
}

/// A session by id: the current one, else the stored one.
pub(super) async fn find(w: &Rc<Worker>, id: &str) -> Option<Session> {
    if w.session.borrow().id == id {
        return Some(w.session.borrow().clone());
    }
    storage::load_session(id).await
}

/// Says so when part of the session could not be read (a read that fails is reported like a
/// write that fails; the turns stay in storage untouched).
fn tell_unreadable(w: &Rc<Worker>, session: &Session) {
    if let Some(notice) = session.unreadable_notice() {
        tracing::warn!(turns = ?session.unreadable, "stored turns could not be read");
        w.state.borrow_mut().storage_error = Some(notice);
    }
}

/// Makes `session` the current one, whatever the panel shows.
pub(super) async fn switch_to(w: &Rc<Worker>, session: Session) {
    if w.session.borrow().id != session.id {
        let saved = storage::set_current(&session.id).await;
        super::storage_result(w, "which session is current", saved);
        tell_unreadable(w, &session);
        *w.session.borrow_mut() = session;
        let mut state = w.state.borrow_mut();
        state.task = None;
        state.task_turn = None;
        state.focus = None;
        state.export = None;
    }
    refresh(w);
}

/// Renames a session (current or not); the user's title sticks.
pub(super) async fn rename(w: Rc<Worker>, id: String, title: String) {
    let current = w.session.borrow().id == id;
    let mut session = if current {
        w.session.borrow().clone()
    } else {
        match storage::load_session(&id).await {
            Some(s) => s,
            None => return,
        }
    };
    let turn = session.records.len() as u32;
    if !session.set_title(&title, turn, true) {
        return;
    }
    if current {
        *w.session.borrow_mut() = session.clone();
    }
    if let Err(e) = storage::save_meta(&session, current).await {
        w.state.borrow_mut().storage_error = Some(format!("Could not save the new title ({e})."));
    }
    remember(&w, &session);
    if let Some(index) = w.index.borrow_mut().as_mut() {
        index.set_title(&id, &session.display_title());
    }
    refresh(&w);
}

/// First step of a deletion: the panel asks the user to confirm.
pub(super) fn ask_delete(w: &Rc<Worker>, id: &str) {
    let item = w.state.borrow().sessions.iter().find(|s| s.id == id).cloned();
    w.state.borrow_mut().confirm_delete = item;
    w.broadcast();
}

/// Deletes a confirmed session; deleting the current one starts a new session.
pub(super) async fn delete(w: Rc<Worker>, id: String) {
    let confirmed = w.state.borrow().confirm_delete.as_ref().is_some_and(|c| c.id == id);
    w.state.borrow_mut().confirm_delete = None;
    let is_current = w.session.borrow().id == id;
    if !confirmed || (is_current && task_running(&w)) {
        w.broadcast();
        return;
    }
    let turns = w.metas.borrow().iter().find(|m| m.id == id).map_or(0, |m| m.turns);
    let turns = if is_current { w.session.borrow().records.len() as u32 } else { turns };
    if let Err(e) = storage::delete_session(&id, turns).await {
        w.state.borrow_mut().storage_error = Some(format!("Could not delete the session ({e})."));
        w.broadcast();
        return;
    }
    w.metas.borrow_mut().retain(|m| m.id != id);
    if let Some(index) = w.index.borrow_mut().as_mut() {
        index.remove_session(&id);
    }
    if let Some(search) = w.state.borrow_mut().search.as_mut() {
        search.hits.retain(|h| h.session_id != id);
    }
    if is_current {
        new_session(&w);
    } else {
        refresh(&w);
    }
}

/// Runs a search (building the index from storage on first use).
pub(super) async fn search(w: Rc<Worker>, query: String, current_only: bool) {
    if query.trim().is_empty() {
        w.state.borrow_mut().search = None;
        w.broadcast();
        return;
    }
    if w.index.borrow().is_none() {
        let mut index = SearchIndex::new();
        for s in storage::load_all().await {
            index.add_session(&s);
        }
        // The current session may hold turns whose write failed: index what is in memory.
        index.add_session(&w.session.borrow());
        *w.index.borrow_mut() = Some(index);
    }
    let only = current_only.then(|| w.session.borrow().id.clone());
    let hits = w
        .index
        .borrow()
        .as_ref()
        .map(|i| i.search(&query, only.as_deref(), SEARCH_LIMIT))
        .unwrap_or_default();
    w.state.borrow_mut().search = Some(SearchView { query, current_only, hits });
    w.broadcast();
}

/// Shows a turn with its neighbours, switching to its session first when needed.
pub(super) async fn jump(w: Rc<Worker>, session_id: Option<String>, turn: u32) {
    if let Some(id) = session_id
        && !continue_session(w.clone(), id).await
    {
        return;
    }
    let focus = w.session.borrow().turn_with_neighbours(turn);
    w.state.borrow_mut().focus = focus;
    w.broadcast();
}
