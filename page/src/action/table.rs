//! The action table: one row per kind of [`Action`], read by every place that needs to know
//! something about actions — its name (the serde tag, the legacy tool name), where it runs, which
//! offered [`Tool`] reaches it (and so its argument schema), which bridge call of external
//! agents does, whether it may navigate, how long the page must settle after it, and whether a
//! person should see it change something.
//!
//! Readers: the model's tool definitions and the reading of their calls ([`super::offered`]),
//! the tab adapter (where to run, settling, navigation), workflows (`StepAction::kind`), the
//! bridge for external agents and its MCP tools ([`BridgeTool`]), and the observation (the tool
//! names its summary lines suggest).
//!
//! Adding a variant to [`Action`] fails to compile until [`Action::kind`] names its
//! [`ActionKind`], and a new kind fails to compile until [`ActionKind::spec`] has its row.

use super::offered::Tool;
use super::{Action, SettleWindow};
use serde::{Deserialize, Serialize};
use waymark_protocol::BridgeTool;

/// Where an action is carried out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runs {
    /// In the content script of the frame its ref belongs to (the top frame without one).
    Page,
    /// In the service worker, from the frames' content scripts and the host (a file's bytes,
    /// every frame's observation, bounded probes).
    Worker,
    /// Through Chrome's tab APIs: loading, history, tabs, a capture of the tab.
    Tab,
    /// Nowhere: the agent loop ends the task with it.
    Agent,
}

/// What the table says about one kind of action.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ActionSpec {
    /// Its name: the serde tag, and the tool name models that learned it may still call.
    pub name: &'static str,
    /// Where it is carried out.
    pub runs: Runs,
    /// The offered tool that reaches it (rare kinds are folded into a related tool).
    pub tool: Tool,
    /// The bridge call of external agents (and so the MCP tool, [`BridgeTool::mcp_tool`])
    /// that becomes it; `None`: external agents do not have it (they read snapshots, answer
    /// their user themselves, or reach it by other means: a checkbox by a click).
    pub bridge: Option<BridgeTool>,
    /// How long the page must stay quiet after it before it is read again; `None`: it cannot
    /// start anything worth waiting for (see [`Action::settle_window`]).
    pub settle: Option<SettleWindow>,
    /// It commonly makes the page navigate or open a tab (a link, a submit button, Enter, a
    /// select that jumps): the tab adapter gives the page a moment before looking for it.
    pub may_navigate: bool,
    /// It is meant to change the page (a click, keys, a choice): when nothing changed once
    /// the page settled, the outcome says "no visible effect".
    pub expects_change: bool,
}

/// Quiet windows after an action: typing and reading aids settle on a short beat; clicks and
/// choices give the page a little longer to begin before "no visible effect" is concluded.
const SHORT: Option<SettleWindow> =
    Some(SettleWindow { after_change_ms: 40.0, without_change_ms: 40.0 });
const ACT: Option<SettleWindow> =
    Some(SettleWindow { after_change_ms: 40.0, without_change_ms: 80.0 });

waymark_protocol::with_all! {
    /// Which action, without its arguments: the key of the action table.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum ActionKind {
    /// [`Action::Click`].
    Click,
    /// [`Action::DoubleClick`].
    DoubleClick,
    /// [`Action::Hover`].
    Hover,
    /// [`Action::Type`].
    Type,
    /// [`Action::Clear`].
    Clear,
    /// [`Action::PressKeys`].
    PressKeys,
    /// [`Action::SelectText`].
    SelectText,
    /// [`Action::SelectOption`].
    SelectOption,
    /// [`Action::Check`].
    Check,
    /// [`Action::Uncheck`].
    Uncheck,
    /// [`Action::Drag`].
    Drag,
    /// [`Action::Scroll`].
    Scroll,
    /// [`Action::ScrollTo`].
    ScrollTo,
    /// [`Action::Upload`].
    Upload,
    /// [`Action::Navigate`].
    Navigate,
    /// [`Action::Back`].
    Back,
    /// [`Action::Forward`].
    Forward,
    /// [`Action::Reload`].
    Reload,
    /// [`Action::OpenTab`].
    OpenTab,
    /// [`Action::SwitchTab`].
    SwitchTab,
    /// [`Action::CloseTab`].
    CloseTab,
    /// [`Action::Wait`].
    Wait,
    /// [`Action::Extract`].
    Extract,
    /// [`Action::Find`].
    Find,
    /// [`Action::Collect`].
    Collect,
    /// [`Action::Screenshot`].
    Screenshot,
    /// [`Action::Done`].
    Done,
    }
}

impl ActionKind {
    /// This kind's row of the table.
    pub const fn spec(self) -> ActionSpec {
        /// A row with nothing to wait for after it.
        const fn row(name: &'static str, runs: Runs, tool: Tool, bridge: Bridge) -> ActionSpec {
            ActionSpec {
                name,
                runs,
                tool,
                bridge,
                settle: None,
                may_navigate: false,
                expects_change: false,
            }
        }
        /// A page action meant to change the page, which may navigate.
        const fn acts(name: &'static str, tool: Tool, bridge: Bridge) -> ActionSpec {
            ActionSpec {
                settle: ACT,
                may_navigate: true,
                expects_change: true,
                ..row(name, Runs::Page, tool, bridge)
            }
        }
        /// A page action that changes a field or the view without navigating.
        const fn edits(name: &'static str, tool: Tool, bridge: Bridge) -> ActionSpec {
            ActionSpec { settle: SHORT, ..row(name, Runs::Page, tool, bridge) }
        }
        type Bridge = Option<BridgeTool>;
        use BridgeTool as B;
        use Runs::{Agent, Page, Tab, Worker};
        match self {
            Self::Click => acts("click", Tool::Click, Some(B::Click)),
            Self::DoubleClick => acts("double_click", Tool::Click, Some(B::Click)),
            Self::Hover => edits("hover", Tool::Hover, Some(B::Hover)),
            Self::Type => edits("type", Tool::Type, Some(B::Type)),
            Self::Clear => edits("clear", Tool::Type, None),
            Self::PressKeys => acts("press_keys", Tool::PressKeys, Some(B::PressKey)),
            Self::SelectText => edits("select_text", Tool::Click, Some(B::SelectText)),
            Self::SelectOption => acts("select_option", Tool::SelectOption, Some(B::Select)),
            Self::Check => acts("check", Tool::Check, None),
            Self::Uncheck => acts("uncheck", Tool::Check, None),
            // Drops inside one page: a board's card, a list's row.
            Self::Drag => {
                ActionSpec { may_navigate: false, ..acts("drag", Tool::Click, Some(B::Drag)) }
            }
            Self::Scroll => edits("scroll", Tool::Scroll, Some(B::Scroll)),
            Self::ScrollTo => row("scroll_to", Page, Tool::Scroll, None),
            Self::Upload => {
                ActionSpec { settle: ACT, ..row("upload", Worker, Tool::Upload, Some(B::Upload)) }
            }
            Self::Navigate => row("navigate", Tab, Tool::Navigate, Some(B::Navigate)),
            Self::Back => row("back", Tab, Tool::Navigate, Some(B::Back)),
            Self::Forward => row("forward", Tab, Tool::Navigate, None),
            Self::Reload => row("reload", Tab, Tool::Navigate, None),
            Self::OpenTab => row("open_tab", Tab, Tool::Tab, Some(B::OpenTab)),
            Self::SwitchTab => row("switch_tab", Tab, Tool::Tab, Some(B::SelectTab)),
            Self::CloseTab => row("close_tab", Tab, Tool::Tab, Some(B::CloseTab)),
            Self::Wait => row("wait", Worker, Tool::Wait, Some(B::WaitFor)),
            Self::Extract => row("extract", Page, Tool::Extract, Some(B::Extract)),
            Self::Find => row("find", Worker, Tool::Find, None),
            // `browser_collect` runs the collector, which does this on each page it reads.
            Self::Collect => row("collect", Page, Tool::Extract, Some(B::Collect)),
            Self::Screenshot => row("screenshot", Tab, Tool::Screenshot, Some(B::Screenshot)),
            Self::Done => row("done", Agent, Tool::Done, None),
        }
    }

    /// Its name (the serde tag of its [`Action`]).
    pub const fn name(self) -> &'static str {
        self.spec().name
    }

    /// The kind named `name`, if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|k| k.name() == name)
    }
}

impl Action {
    /// Its kind: the key of its row in the action table.
    pub fn kind(&self) -> ActionKind {
        match self {
            Self::Click { .. } => ActionKind::Click,
            Self::DoubleClick { .. } => ActionKind::DoubleClick,
            Self::Hover { .. } => ActionKind::Hover,
            Self::Type { .. } => ActionKind::Type,
            Self::Clear { .. } => ActionKind::Clear,
            Self::PressKeys { .. } => ActionKind::PressKeys,
            Self::SelectText { .. } => ActionKind::SelectText,
            Self::SelectOption { .. } => ActionKind::SelectOption,
            Self::Check { .. } => ActionKind::Check,
            Self::Uncheck { .. } => ActionKind::Uncheck,
            Self::Drag { .. } => ActionKind::Drag,
            Self::Scroll { .. } => ActionKind::Scroll,
            Self::ScrollTo { .. } => ActionKind::ScrollTo,
            Self::Upload { .. } => ActionKind::Upload,
            Self::Navigate { .. } => ActionKind::Navigate,
            Self::Back => ActionKind::Back,
            Self::Forward => ActionKind::Forward,
            Self::Reload => ActionKind::Reload,
            Self::OpenTab { .. } => ActionKind::OpenTab,
            Self::SwitchTab { .. } => ActionKind::SwitchTab,
            Self::CloseTab { .. } => ActionKind::CloseTab,
            Self::Wait { .. } => ActionKind::Wait,
            Self::Extract { .. } => ActionKind::Extract,
            Self::Find { .. } => ActionKind::Find,
            Self::Collect(_) => ActionKind::Collect,
            Self::Screenshot => ActionKind::Screenshot,
            Self::Done { .. } => ActionKind::Done,
        }
    }

    /// Its row of the action table.
    pub fn spec(&self) -> ActionSpec {
        self.kind().spec()
    }
}
