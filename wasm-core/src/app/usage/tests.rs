//! Metering against a scripted streaming model: what a call's usage, retries and streamed
//! words change in the panel, how the streamed words are paced, and the session's stored
//! usage (loaded as the session changes, saved after a task; a refused write is told).

use super::*;
use crate::panel::TaskView;
use crate::platform::memory::MemStore;
use crate::platform::scripted::Clock;
use futures::executor::block_on;
use std::cell::{Cell, RefCell};
use waymark_protocol::{ErrorCode, TokenUsage};

/// A model that sends `events` during its call, then answers `reply`.
struct Streaming {
    events: Vec<HostEvent>,
    reply: Result<LlmCompletion, ErrorBody>,
}

impl StreamingLlm for Streaming {
    async fn complete_streaming(
        &self,
        _request: LlmRequest,
        on_event: Rc<dyn Fn(HostEvent)>,
    ) -> Result<LlmCompletion, ErrorBody> {
        for event in &self.events {
            on_event(event.clone());
        }
        self.reply.clone()
    }
}

/// Callbacks waiting for their time, with their delay.
type Timers = RefCell<Vec<(u32, Box<dyn FnOnce()>)>>;

struct Inner {
    app: App<&'static MemStore>,
    /// The clock stands still (the words of one call arrive within the pace's interval).
    now: Cell<f64>,
    shown: Cell<u32>,
    timers: Timers,
}

#[derive(Clone)]
struct Link(Rc<Inner>);

impl MeterLink for Link {
    type Store = &'static MemStore;
    fn app(&self) -> &App<&'static MemStore> {
        &self.0.app
    }
    fn now_ms(&self) -> f64 {
        self.0.now.get()
    }
    fn show(&self) {
        self.0.shown.set(self.0.shown.get() + 1);
    }
    fn after(&self, ms: u32, then: Box<dyn FnOnce()>) {
        self.0.timers.borrow_mut().push((ms, then));
    }
}

fn link() -> (Link, &'static MemStore) {
    let mem: &'static MemStore = Box::leak(Box::default());
    let app = App::new(mem);
    let _done = block_on(app.start(&Clock::default()));
    let inner = Inner {
        app,
        now: Cell::new(1_700_000_000_000.0),
        shown: Cell::new(0),
        timers: RefCell::new(Vec::new()),
    };
    (Link(Rc::new(inner)), mem)
}

fn completion(input: u64, output: u64) -> LlmCompletion {
    LlmCompletion {
        model: "m1".into(),
        usage: Some(TokenUsage {
            input_tokens: input,
            output_tokens: output,
            ..Default::default()
        }),
        ..LlmCompletion::default()
    }
}

fn request(role: LlmRole) -> LlmRequest {
    LlmRequest { role, messages: vec![], tools: vec![], stream: true, max_tokens: None }
}

fn delta(text: &str) -> HostEvent {
    HostEvent::LlmDelta { text: text.into() }
}

#[test]
fn a_tasks_call_counts_for_the_task_and_the_session_a_background_one_for_the_session() {
    let (link, _) = link();
    link.0.app.state.borrow_mut().task = Some(TaskView::started("x"));
    let task =
        Meter::new(Streaming { events: vec![], reply: Ok(completion(10, 5)) }, link.clone(), true);
    assert!(block_on(task.complete(request(LlmRole::Navigator))).is_ok());
    let summary =
        Meter::new(Streaming { events: vec![], reply: Ok(completion(3, 2)) }, link.clone(), false);
    assert!(block_on(summary.complete(request(LlmRole::Summariser))).is_ok());
    let state = link.0.app.state.borrow();
    assert_eq!(state.session_usage.calls, 2);
    assert_eq!(state.session_usage.input_tokens, 13);
    let task = state.task.as_ref().expect("shown");
    assert_eq!((task.usage.calls, task.usage.output_tokens), (1, 5));
    assert_eq!(*state.llm.get(LlmRole::Navigator), LlmState::Ready { model: "m1".into() });
    assert_eq!(link.0.shown.get(), 2);
}

#[test]
fn a_failed_call_shows_the_roles_state_unless_it_says_nothing_about_the_model() {
    let (link, _) = link();
    let refused = ErrorBody::new(ErrorCode::LlmAuth, "invalid key");
    let meter = Meter::new(Streaming { events: vec![], reply: Err(refused) }, link.clone(), true);
    assert!(block_on(meter.complete(request(LlmRole::Navigator))).is_err());
    assert!(matches!(
        link.0.app.state.borrow().llm.get(LlmRole::Navigator),
        LlmState::KeyInvalid { .. }
    ));
    assert_eq!(link.0.shown.get(), 1);
    // A cancelled call says nothing about the model: nothing changes, nothing is redrawn.
    let cancelled = ErrorBody::new(ErrorCode::Cancelled, "stopped");
    let meter = Meter::new(Streaming { events: vec![], reply: Err(cancelled) }, link.clone(), true);
    assert!(block_on(meter.complete(request(LlmRole::Planner))).is_err());
    assert_eq!(*link.0.app.state.borrow().llm.get(LlmRole::Planner), LlmState::Unknown);
    assert_eq!(link.0.shown.get(), 1);
}

#[test]
fn a_rate_limit_retry_shows_the_countdown_and_starts_the_words_over() {
    let (link, _) = link();
    link.0.app.state.borrow_mut().task = Some(TaskView::started("x"));
    let retry = HostEvent::LlmRetry {
        attempt: 2,
        delay_ms: 4000,
        code: ErrorCode::LlmRateLimited,
        reason: "429".into(),
    };
    let events = vec![delta("half a thou"), retry];
    let meter = Meter::new(
        Streaming { events, reply: Err(ErrorBody::new(ErrorCode::Cancelled, "x")) },
        link.clone(),
        true,
    );
    let _done = block_on(meter.complete(request(LlmRole::Navigator)));
    let state = link.0.app.state.borrow();
    assert!(matches!(
        state.llm.get(LlmRole::Navigator),
        LlmState::RateLimited { retry_at_ms: Some(_), message } if message == "429"
    ));
    assert_eq!(state.task.as_ref().map(|t| t.live_text.as_str()), Some(""));
}

#[test]
fn streamed_words_reach_the_panel_at_a_bounded_pace_and_the_last_is_never_lost() {
    let (link, _) = link();
    link.0.app.state.borrow_mut().task = Some(TaskView::started("x"));
    let events = vec![delta("one "), delta("two "), delta("three")];
    let reply = Ok(completion(1, 1));
    let meter = Meter::new(Streaming { events, reply }, link.clone(), true);
    let _done = block_on(meter.complete(request(LlmRole::Navigator)));
    // The first went out at once; the other two wait for one scheduled push; the end of the
    // call redrew once more.
    assert_eq!(link.0.shown.get(), 2);
    let timers = std::mem::take(&mut *link.0.timers.borrow_mut());
    assert_eq!(timers.len(), 1);
    assert!(timers[0].0 > 0);
    link.0.now.set(link.0.now.get() + f64::from(timers[0].0));
    for (_, then) in timers {
        then();
    }
    assert_eq!(link.0.shown.get(), 3);
    // Paced from the scheduled push: a word right after it waits again.
    let meter = Meter::new(
        Streaming { events: vec![delta("four")], reply: Ok(completion(1, 1)) },
        link.clone(),
        true,
    );
    let _done = block_on(meter.complete(request(LlmRole::Navigator)));
    assert_eq!(link.0.timers.borrow().len(), 1);
    assert_eq!(link.0.app.state.borrow().task.as_ref().map(|t| t.live_text.as_str()), Some(""));
}

#[test]
fn background_calls_and_the_validator_stream_nothing_to_the_task() {
    let (link, _) = link();
    link.0.app.state.borrow_mut().task = Some(TaskView::started("x"));
    let meter = Meter::new(
        Streaming { events: vec![delta("secret words")], reply: Ok(completion(1, 1)) },
        link.clone(),
        false,
    );
    let _done = block_on(meter.complete(request(LlmRole::Navigator)));
    let meter = Meter::new(
        Streaming { events: vec![delta("verdict")], reply: Ok(completion(1, 1)) },
        link.clone(),
        true,
    );
    let _done = block_on(meter.complete(request(LlmRole::Validator)));
    assert_eq!(link.0.shown.get(), 2, "only the ends of the calls");
}

#[test]
fn the_usage_follows_the_session_and_adds_what_was_stored_to_what_came_since() {
    let (link, mem) = link();
    let app = &link.0.app;
    let id = app.follow_usage().expect("a first session");
    assert!(app.follow_usage().is_none(), "the same session");
    let stored = Usage { calls: 4, input_tokens: 400, ..Usage::default() };
    mem.map.borrow_mut().insert(usage_key(&id), serde_json::to_value(stored).expect("plain data"));
    app.state.borrow_mut().session_usage.calls = 1;
    assert!(block_on(app.load_usage(&id)));
    assert_eq!(app.state.borrow().session_usage.calls, 5);
    // A session changed while loading: the stale load is dropped.
    assert!(!block_on(app.load_usage("another")));
    // Nothing stored: nothing changes.
    mem.map.borrow_mut().clear();
    assert!(!block_on(app.load_usage(&id)));
}

#[test]
fn the_sessions_usage_is_saved_and_a_refused_write_is_told() {
    let (link, mem) = link();
    let app = &link.0.app;
    assert_eq!(block_on(app.save_session_usage()), Redraw::Nothing, "no session yet");
    let id = app.follow_usage().expect("a session");
    app.state.borrow_mut().session_usage.calls = 2;
    assert_eq!(block_on(app.save_session_usage()), Redraw::Nothing);
    assert!(mem.map.borrow().contains_key(&usage_key(&id)));
    mem.refuse_writes.set(true);
    assert_eq!(block_on(app.save_session_usage()), Redraw::View);
    assert_eq!(
        app.state.borrow().storage_error.as_deref(),
        Some(
            "Could not save the session's usage to browser storage (Resource::kQuotaBytes quota \
             exceeded)."
        )
    );
}
