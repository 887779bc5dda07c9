//! The tools offered to the model: every [`Action`] is reachable, rare ones folded into a
//! parameter of a related tool (double-click is `click` with `double`, history moves are
//! `navigate` with `history`, tabs are one `tab` tool…); which tool reaches which kind is the
//! action table's [`ActionSpec::tool`](super::table::ActionSpec::tool). Each tool's arguments
//! are one typed struct: calls are read into it ([`action_of_call`]) and, with the `schema`
//! feature (the service worker's build, never the content script's), its JSON Schema is derived
//! from it ([`Tool::parameters`]). Every tool definition is sent on every navigator call, so
//! the schemas are kept lean: no titles, descriptions, formats or defaults, only types.

use super::{Action, ScrollDirection};
use crate::collect::{CollectSpec, ColumnSpec};
use crate::observation::Ref;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

waymark_protocol::with_all! {
    /// One tool the navigator is offered.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum Tool {
        /// Click, double-click, drag, select words.
        Click,
        /// Type into or empty a field.
        Type,
        /// Press keys.
        PressKeys,
        /// Choose an option.
        SelectOption,
        /// Check or uncheck.
        Check,
        /// Hover.
        Hover,
        /// Scroll, or scroll something into view.
        Scroll,
        /// Upload a file.
        Upload,
        /// Load a URL, or move in the history.
        Navigate,
        /// Open, switch or close a tab.
        Tab,
        /// Wait for a text or for the page to settle.
        Wait,
        /// Read the page as markdown, or every record of a listing.
        Extract,
        /// Find elements and text.
        Find,
        /// A picture of the viewport.
        Screenshot,
        /// End the task.
        Done,
    }
}

impl Tool {
    /// Its name, as the model calls it.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Click => "click",
            Self::Type => "type",
            Self::PressKeys => "press_keys",
            Self::SelectOption => "select_option",
            Self::Check => "check",
            Self::Hover => "hover",
            Self::Scroll => "scroll",
            Self::Upload => "upload",
            Self::Navigate => "navigate",
            Self::Tab => "tab",
            Self::Wait => "wait",
            Self::Extract => "extract",
            Self::Find => "find",
            Self::Screenshot => "screenshot",
            Self::Done => "done",
        }
    }

    /// What it does, for the model: short, since it is paid on every step (what a ref is, the
    /// system prompt says once).
    pub const fn description(self) -> &'static str {
        match self {
            Self::Click => {
                "Click ref; double: double-click; to: drag onto that ref; select: select these words in ref."
            }
            Self::Type => {
                "Set a field's text (append adds; \"\" empties); a slider takes a number."
            }
            Self::PressKeys => "Press keys (\"Enter\", \"Control+a Tab\") on ref or the focus.",
            Self::SelectOption => "Choose an option by label or value.",
            Self::Check => "Check a box, radio or switch; checked=false unchecks.",
            Self::Hover => "Hover over ref.",
            Self::Scroll => "Scroll the page or ref; into_view shows ref or text.",
            Self::Upload => "Put a file the user named into a file input.",
            Self::Navigate => "Load url, or go back/forward/reload.",
            Self::Tab => "Open url in a new tab; switch or close tab (no id: this one).",
            Self::Wait => "Wait for text (gone: until gone) or the page to settle; seconds ≤15.",
            Self::Extract => {
                "Page/ref as markdown; columns [{name, example}]: table of records like ref's, all pages."
            }
            Self::Find => "Find elements and text on the whole page.",
            Self::Screenshot => "Screenshot the viewport.",
            Self::Done => "End the task: answer and success.",
        }
    }

    /// The tool named `name`, if one is offered.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|t| t.name() == name)
    }

    /// The action a call of this tool with `args` stands for.
    fn action(self, args: Map<String, Value>) -> Result<Action, CallError> {
        match self {
            Self::Click => read::<ClickArgs>(args)?.action(),
            Self::Type => Ok(read::<TypeArgs>(args)?.action()),
            Self::PressKeys => {
                let PressKeysArgs { keys, ref_id } = read(args)?;
                Ok(Action::PressKeys { keys, ref_id })
            }
            Self::SelectOption => {
                let SelectOptionArgs { ref_id, option } = read(args)?;
                Ok(Action::SelectOption { ref_id, option })
            }
            Self::Check => {
                let CheckArgs { ref_id, checked } = read(args)?;
                Ok(match checked {
                    Some(false) => Action::Uncheck { ref_id },
                    _ => Action::Check { ref_id },
                })
            }
            Self::Hover => Ok(Action::Hover { ref_id: read::<RefArgs>(args)?.ref_id }),
            Self::Scroll => Ok(read::<ScrollArgs>(args)?.action()),
            Self::Upload => {
                let UploadArgs { ref_id, file } = read(args)?;
                Ok(Action::Upload { ref_id, file })
            }
            Self::Navigate => read::<NavigateArgs>(args)?.action(),
            Self::Tab => read::<TabArgs>(args)?.action(),
            Self::Wait => {
                let WaitArgs { text, gone, seconds } = read(args)?;
                Ok(Action::Wait { text, seconds, gone: gone.unwrap_or(false) })
            }
            Self::Extract => Ok(read::<ExtractArgs>(args)?.action()),
            Self::Find => Ok(Action::Find { query: read::<FindArgs>(args)?.query }),
            Self::Screenshot => read::<NoArgs>(args).map(|NoArgs {}| Action::Screenshot),
            Self::Done => {
                let DoneArgs { answer, success } = read(args)?;
                Ok(Action::Done { answer, success })
            }
        }
    }
}

/// Why a call's arguments name no action.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// They do not fit the tool's (or the action's) arguments.
    #[error("{0}")]
    Arguments(#[from] serde_json::Error),
    /// This use of the tool needs an argument that was not given.
    #[error("`{tool}` with {with} needs `{field}`")]
    Missing {
        /// The tool.
        tool: &'static str,
        /// The argument that chose what it does.
        with: &'static str,
        /// The one missing.
        field: &'static str,
    },
}

/// The action a call names: an offered tool with its arguments, or an action's own name (the
/// legacy vocabulary, for scripts and models that learned it) with the action's own fields;
/// `Ok(None)` for a tool that does not exist (never guessed into a known one).
pub fn action_of_call(name: &str, args: Map<String, Value>) -> Result<Option<Action>, CallError> {
    if let Some(tool) = Tool::from_name(name) {
        return tool.action(args).map(Some);
    }
    let Some(kind) = super::table::ActionKind::from_name(name) else {
        return Ok(None);
    };
    let mut tagged = args;
    if kind == super::table::ActionKind::Collect {
        // The shape is learned from the page, never taken from the caller.
        tagged.remove("shape");
    }
    tagged.insert("action".into(), Value::String(name.to_owned()));
    Ok(Some(serde_json::from_value(Value::Object(tagged))?))
}

fn read<T: DeserializeOwned>(args: Map<String, Value>) -> Result<T, CallError> {
    Ok(serde_json::from_value(Value::Object(args))?)
}

// The argument structs. A ref is written "14", or "f2:14" in a frame (the system prompt says
// so once), and offered as a string; the parser also takes a bare number. Flags are optional
// (absent or null: false). Doc comments are for readers: the schema drops them.

/// `click`: `to` drags, `select` selects words, `double` double-clicks.
#[derive(Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
struct ClickArgs {
    #[serde(rename = "ref")]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    ref_id: Ref,
    double: Option<bool>,
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    to: Option<Ref>,
    select: Option<String>,
}

impl ClickArgs {
    fn action(self) -> Result<Action, CallError> {
        let Self { ref_id, double, to, select } = self;
        Ok(match (to, select) {
            (Some(to), _) => Action::Drag { ref_id, to },
            (None, Some(text)) => Action::SelectText { ref_id, text },
            (None, None) if double == Some(true) => Action::DoubleClick { ref_id },
            (None, None) => Action::Click { ref_id },
        })
    }
}

/// `type`: `""` without `append` empties the field.
#[derive(Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
struct TypeArgs {
    #[serde(rename = "ref")]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    ref_id: Ref,
    text: String,
    append: Option<bool>,
}

impl TypeArgs {
    fn action(self) -> Action {
        let Self { ref_id, text, append } = self;
        let append = append.unwrap_or(false);
        if text.is_empty() && !append {
            Action::Clear { ref_id }
        } else {
            Action::Type { ref_id, text, append }
        }
    }
}

#[derive(Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
struct PressKeysArgs {
    keys: String,
    #[serde(rename = "ref")]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    ref_id: Option<Ref>,
}

#[derive(Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
struct SelectOptionArgs {
    #[serde(rename = "ref")]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    ref_id: Ref,
    option: String,
}

/// `check`: `checked: false` unchecks.
#[derive(Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
struct CheckArgs {
    #[serde(rename = "ref")]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    ref_id: Ref,
    checked: Option<bool>,
}

#[derive(Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
struct RefArgs {
    #[serde(rename = "ref")]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    ref_id: Ref,
}

/// `scroll`: `into_view` brings `ref` or `text` into view; `text` means nothing otherwise.
#[derive(Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
struct ScrollArgs {
    direction: Option<ScrollWay>,
    #[serde(rename = "ref")]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    ref_id: Option<Ref>,
    text: Option<String>,
}

// Plain comments on the variants: documented variants would make the schema a `oneOf`.
#[derive(Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
enum ScrollWay {
    Down,
    Up,
    Top,
    Bottom,
    // `scroll_to`.
    IntoView,
}

impl ScrollArgs {
    fn action(self) -> Action {
        let Self { direction, ref_id, text } = self;
        let direction = match direction {
            None | Some(ScrollWay::Down) => ScrollDirection::Down,
            Some(ScrollWay::Up) => ScrollDirection::Up,
            Some(ScrollWay::Top) => ScrollDirection::Top,
            Some(ScrollWay::Bottom) => ScrollDirection::Bottom,
            Some(ScrollWay::IntoView) => return Action::ScrollTo { ref_id, text },
        };
        Action::Scroll { direction, ref_id }
    }
}

#[derive(Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
struct UploadArgs {
    #[serde(rename = "ref")]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    ref_id: Ref,
    file: String,
}

/// `navigate`: `history` moves in the history instead of loading `url`.
#[derive(Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
struct NavigateArgs {
    url: Option<String>,
    history: Option<History>,
}

#[derive(Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
enum History {
    Back,
    Forward,
    Reload,
}

impl NavigateArgs {
    fn action(self) -> Result<Action, CallError> {
        Ok(match (self.history, self.url) {
            (Some(History::Back), _) => Action::Back,
            (Some(History::Forward), _) => Action::Forward,
            (Some(History::Reload), _) => Action::Reload,
            (None, Some(url)) => Action::Navigate { url },
            (None, None) => {
                return Err(CallError::Missing {
                    tool: "navigate",
                    with: "no history",
                    field: "url",
                });
            }
        })
    }
}

/// `tab`: `do` says which tab action.
#[derive(Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
struct TabArgs {
    #[serde(rename = "do")]
    what: TabDo,
    url: Option<String>,
    tab: Option<i32>,
}

#[derive(Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
enum TabDo {
    Open,
    Switch,
    Close,
}

impl TabArgs {
    fn action(self) -> Result<Action, CallError> {
        let missing = |with, field| CallError::Missing { tool: "tab", with, field };
        Ok(match self.what {
            TabDo::Open => Action::OpenTab { url: self.url.ok_or(missing("do=open", "url"))? },
            TabDo::Switch => {
                Action::SwitchTab { tab: self.tab.ok_or(missing("do=switch", "tab"))? }
            }
            TabDo::Close => Action::CloseTab { tab: self.tab },
        })
    }
}

#[derive(Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
struct WaitArgs {
    text: Option<String>,
    gone: Option<bool>,
    seconds: Option<f64>,
}

/// `extract`: with `columns`, every record of a listing as a table (`collect`).
#[derive(Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
struct ExtractArgs {
    #[serde(rename = "ref")]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    ref_id: Option<Ref>,
    // Offered as a bare array: the description shows the shape of one column.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(schema_with = "bare_array"))]
    columns: Option<Vec<ColumnSpec>>,
    pages: Option<u32>,
    // The table's name: read when given, not offered (the task's words name it).
    #[cfg_attr(feature = "schema", schemars(skip))]
    name: Option<String>,
}

impl ExtractArgs {
    fn action(self) -> Action {
        let Self { ref_id, columns, pages, name } = self;
        match columns {
            // The shape is learned from the page, never taken from the caller.
            Some(columns) => Action::Collect(Box::new(CollectSpec {
                record: ref_id,
                columns,
                pages,
                name,
                shape: None,
            })),
            None => Action::Extract { ref_id },
        }
    }
}

#[derive(Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
struct FindArgs {
    query: String,
}

#[derive(Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
struct NoArgs {}

#[derive(Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
struct DoneArgs {
    answer: String,
    success: bool,
}

#[cfg(feature = "schema")]
mod schema {
    use super::*;
    use schemars::{JsonSchema, Schema, SchemaGenerator, generate::SchemaSettings, json_schema};

    impl Tool {
        /// The JSON Schema of its arguments, derived from their struct and made lean: an
        /// object of typed properties and the required ones, nothing else.
        pub fn parameters(self) -> Value {
            match self {
                Self::Click => lean::<ClickArgs>(),
                Self::Type => lean::<TypeArgs>(),
                Self::PressKeys => lean::<PressKeysArgs>(),
                Self::SelectOption => lean::<SelectOptionArgs>(),
                Self::Check => lean::<CheckArgs>(),
                Self::Hover => lean::<RefArgs>(),
                Self::Scroll => lean::<ScrollArgs>(),
                Self::Upload => lean::<UploadArgs>(),
                Self::Navigate => lean::<NavigateArgs>(),
                Self::Tab => lean::<TabArgs>(),
                Self::Wait => lean::<WaitArgs>(),
                Self::Extract => lean::<ExtractArgs>(),
                Self::Find => lean::<FindArgs>(),
                Self::Screenshot => lean::<NoArgs>(),
                Self::Done => lean::<DoneArgs>(),
            }
        }
    }

    pub(super) fn bare_array(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "array"})
    }

    /// `T`'s schema, inlined, without the meta-schema, and trimmed by [`trim`].
    fn lean<T: JsonSchema>() -> Value {
        let generator = SchemaSettings::draft2020_12()
            .with(|s| {
                s.inline_subschemas = true;
                s.meta_schema = None;
            })
            .into_generator();
        let mut schema = generator.into_root_schema_for::<T>().to_value();
        trim(&mut schema);
        let mut out = Map::new();
        out.insert("type".into(), "object".into());
        let properties = schema.get_mut("properties").map(Value::take);
        out.insert("properties".into(), properties.unwrap_or_else(|| Value::Object(Map::new())));
        if let Some(required) = schema.get_mut("required").map(Value::take)
            && required.as_array().is_some_and(|r| !r.is_empty())
        {
            out.insert("required".into(), required);
        }
        Value::Object(out)
    }

    /// Keeps what a model needs of a schema: types, properties, required ones, enums. An
    /// optional field is offered as its type (absent and null read the same), an enum as its
    /// values alone.
    fn trim(schema: &mut Value) {
        let Value::Object(map) = schema else { return };
        map.retain(|key, _| {
            matches!(key.as_str(), "type" | "properties" | "required" | "enum" | "items")
        });
        if let Some(Value::Array(types)) = map.get_mut("type") {
            types.retain(|t| t != "null");
            if let [one] = types.as_slice() {
                let one = one.clone();
                map.insert("type".into(), one);
            }
        }
        if let Some(Value::Array(values)) = map.get_mut("enum") {
            values.retain(|v| !v.is_null());
            map.remove("type");
        }
        if let Some(Value::Object(properties)) = map.get_mut("properties") {
            properties.values_mut().for_each(trim);
        }
        if let Some(items) = map.get_mut("items") {
            trim(items);
        }
    }
}

#[cfg(feature = "schema")]
use schema::bare_array;
