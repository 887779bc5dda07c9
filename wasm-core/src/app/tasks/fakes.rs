//! The fakes of the task desk's tests (and of the desks built on it: external agents,
//! routines): a model that answers at once, a quiet page, a recorded timeline and signals, and
//! a platform that remembers what it was asked.

use super::*;
use crate::platform::memory::MemStore;
use crate::platform::scripted::{Clock, CountingPanels, ScriptedHost};
use crate::platform::{Alarms, TabError, Tabs};
use crate::safety::{ActionTarget, NetworkPermit};
use futures::executor::block_on;
use std::cell::{Cell, RefCell};
use waymark_page::PageError;
use waymark_page::action::{Action, ActionOutcome};
use waymark_page::observation::{Observation, Ref};
use waymark_protocol::{ErrorBody, ErrorCode, LlmCompletion, LlmRequest, LlmStatus, ToolCall};

/// The model: plans, validates, answers the navigator with `done`; summaries fail (the turn
/// keeps its extractive summary). Counts the navigator's calls.
#[derive(Default)]
pub(crate) struct Model {
    pub navigator_calls: Cell<u32>,
}

fn calls(name: &str, args: &str) -> Result<LlmCompletion, ErrorBody> {
    let call = ToolCall { id: "c0".into(), name: name.into(), arguments: args.into() };
    Ok(LlmCompletion { tool_calls: vec![call], ..LlmCompletion::default() })
}

/// The model of one test, shared by the task and its background calls.
#[derive(Clone, Default)]
pub(crate) struct ModelHandle(pub Rc<Model>);

impl Llm for ModelHandle {
    async fn complete(&self, request: LlmRequest) -> Result<LlmCompletion, ErrorBody> {
        match request.role.as_str() {
            "planner" => calls("plan", r#"{"steps":[{"phase":"reading","goal":"read it"}]}"#),
            "validator" => calls("verdict", r#"{"confirmed":true,"reason":"the page says so"}"#),
            "navigator" => {
                self.0.navigator_calls.set(self.0.navigator_calls.get() + 1);
                calls("done", r#"{"answer":"Found it.","success":true}"#)
            }
            _ => Err(ErrorBody::new(ErrorCode::LlmUnreachable, "no summaries here")),
        }
    }
}

/// A page with one heading; nothing to act on.
pub(crate) struct QuietPage;

impl Page for QuietPage {
    async fn observe(&self) -> Result<Observation, PageError> {
        Ok(Observation {
            url: "https://example.com/".into(),
            title: "Example".into(),
            engine: "fake".into(),
            ..Observation::default()
        })
    }
    async fn act(&self, _: &Action, _: &NetworkPermit) -> Result<ActionOutcome, PageError> {
        Ok(ActionOutcome::failed("nothing to act on"))
    }
    async fn describe(&self, _: Option<Ref>) -> Result<ActionTarget, PageError> {
        Ok(ActionTarget::default())
    }
}

/// The timeline's events.
#[derive(Default)]
pub(crate) struct Timeline(pub RefCell<Vec<TaskEvent>>);
impl TaskEvents for Timeline {
    fn emit(&self, event: TaskEvent) {
        self.0.borrow_mut().push(event);
    }
}

/// Every attention signal, in order.
#[derive(Default)]
pub(crate) struct SignalLog(pub RefCell<Vec<String>>);
impl Signals for SignalLog {
    fn badge(&self, text: &str) {
        self.0.borrow_mut().push(format!("badge {text:?}"));
    }
    fn notify(&self, title: &str, _message: &str) {
        self.0.borrow_mut().push(format!("notify {title}"));
    }
    fn clear_notification(&self) {
        self.0.borrow_mut().push("clear".into());
    }
    fn play_offscreen_sound(&self) {
        self.0.borrow_mut().push("offscreen sound".into());
    }
    fn stop_offscreen_sound(&self) {
        self.0.borrow_mut().push("stop sound".into());
    }
}

pub(crate) struct NoAlarms;
impl Alarms for NoAlarms {
    fn at(&self, _: &str, _: f64) {}
    fn clear(&self, _: &str) {}
    fn utc_offset_minutes(&self) -> i32 {
        0
    }
}

pub(crate) struct NoTabs;
impl Tabs for NoTabs {
    async fn target(&self) -> Option<(i32, String)> {
        None
    }
    async fn arm_recording(&self, _: i32, _: bool) -> Result<bool, TabError> {
        Err(TabError("no tabs here".into()))
    }
    fn watch_loads(&self, _: bool) {}
}

/// The platform of one test.
#[derive(Default)]
pub(crate) struct World {
    pub clock: Clock,
    pub host: ScriptedHost,
    pub panels: CountingPanels,
    pub model: ModelHandle,
    pub timeline: Timeline,
    pub signals: SignalLog,
    /// The tab the user looks at.
    pub user_tab: Option<i32>,
    /// The tabs pages were made for, and how many were released.
    pub pages: RefCell<Vec<i32>>,
    pub released: Cell<u32>,
    pub watched: Cell<u32>,
    /// The bridge: how each `bridge.open` ends (then a host that refuses it), the pauses
    /// between them, the progress sent, the summaries left for later.
    pub opens:
        RefCell<std::collections::VecDeque<Result<waymark_protocol::BridgeClosed, ErrorBody>>>,
    pub slept: RefCell<Vec<u32>>,
    pub progress: Rc<RefCell<Vec<waymark_protocol::BridgeProgress>>>,
    pub later: RefCell<Vec<StoredTurn>>,
    /// Background tabs: the pages opened (refused when `refuse_open`), the tabs closed, the
    /// notifications shown.
    pub opened: RefCell<Vec<String>>,
    pub refuse_open: Cell<bool>,
    pub closed: RefCell<Vec<i32>>,
    pub notified: RefCell<Vec<String>>,
}

impl Platform for World {
    type Env = Clock;
    type Host = ScriptedHost;
    type Panels = CountingPanels;
    type Alarms = NoAlarms;
    type Tabs = NoTabs;
    fn env(&self) -> &Clock {
        &self.clock
    }
    fn host(&self) -> &ScriptedHost {
        &self.host
    }
    fn panels(&self) -> &CountingPanels {
        &self.panels
    }
    fn alarms(&self) -> &NoAlarms {
        &NoAlarms
    }
    fn tabs(&self) -> &NoTabs {
        &NoTabs
    }
}

impl TaskPlatform for World {
    type Page = QuietPage;
    type Llm = ModelHandle;
    type Events = Timeline;
    type Signals = SignalLog;
    async fn user_tab(&self) -> Option<i32> {
        self.user_tab
    }
    fn task_page(&self, tab: i32, _spec: &TaskSpec) -> QuietPage {
        self.pages.borrow_mut().push(tab);
        QuietPage
    }
    fn release_page(&self, _page: &QuietPage) {
        self.released.set(self.released.get() + 1);
    }
    fn llm(&self, _for_task: bool) -> ModelHandle {
        self.model.clone()
    }
    fn events(&self) -> &Timeline {
        &self.timeline
    }
    fn signals(&self) -> &SignalLog {
        &self.signals
    }
    fn watch_controls(&self, _controls: &Rc<Controls>, _page: Option<&QuietPage>) {
        self.watched.set(self.watched.get() + 1);
    }
    async fn tab_url(&self, tab: i32) -> Option<String> {
        Some(format!("https://example.com/tab/{tab}?secret=1"))
    }
    fn version(&self) -> String {
        "9.9.9".into()
    }
    fn summarise_later(&self, turn: StoredTurn) {
        self.later.borrow_mut().push(turn);
    }
}

pub(crate) fn app<'a>(mem: &'a MemStore, world: &World) -> App<&'a MemStore> {
    let app = App::new(mem);
    let _done = block_on(app.start(&world.clock));
    let llm = LlmStatus {
        provider: "openai".into(),
        base_url: "http://127.0.0.1:1/v1".into(),
        model: "m".into(),
        has_key: true,
        max_tokens: None,
    };
    app.state.borrow_mut().host = HostStatus::Connected { version: "1".into(), llm };
    app
}
