//! Values across the JS boundary, shared by the content script and the worker's adapters: one
//! definition of how an error becomes a JS `Error` (with its kind as `name`, and back), how a
//! reply becomes a plain object, and how panics and `tracing` reach the console.

use crate::error::NamedError;
use crate::log::{LevelCell, LineSubscriber};
use serde::Serialize;
use tracing::Level;
use tracing::level_filters::LevelFilter;
use wasm_bindgen::{JsCast, JsValue};

/// Converts any displayable error into a JS `Error` with that message (name `Error`: no kind).
pub fn js_error(message: impl std::fmt::Display) -> JsValue {
    js_sys::Error::new(&message.to_string()).into()
}

/// A JS `Error` whose `name` is the error's kind and whose `message` is its text: the other
/// side reads the kind back with [`error_parts`], never from the words.
pub fn named_error<E: NamedError + ?Sized>(error: &E) -> JsValue {
    let js = js_sys::Error::new(&error.to_string());
    js.set_name(error.name());
    js.into()
}

/// The `name` and `message` of a thrown value: a JS `Error`'s own, or an empty name and the
/// value as text for anything else that was thrown.
pub fn error_parts(value: &JsValue) -> (String, String) {
    match value.dyn_ref::<js_sys::Error>() {
        Some(err) => (String::from(err.name()), String::from(err.message())),
        None => (String::new(), js_message(value)),
    }
}

/// The message of a JS exception or value, for error reports.
pub fn js_message(value: &JsValue) -> String {
    if let Some(err) = value.dyn_ref::<js_sys::Error>() {
        return String::from(err.message());
    }
    value.as_string().unwrap_or_else(|| format!("{value:?}"))
}

/// Why a value could not become a plain JS object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToJsError {
    /// Its shape has no plain-object form (a map whose keys are not strings, say): a bug in
    /// the value's type, reported instead of a panic. Holds the serialiser's words.
    #[error("{0}")]
    Unencodable(String),
}

/// Plain-object serialisation (maps as objects, u64 as numbers): what `chrome.runtime`
/// messaging and the JS glue expect.
pub fn to_js<T: Serialize>(value: &T) -> Result<JsValue, ToJsError> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| ToJsError::Unencodable(e.to_string()))
}

/// A DOM call whose failure changes nothing for the caller (a focus, a selection): logged at
/// `debug` with what it was for, never silently dropped.
pub fn best_effort<T>(result: Result<T, JsValue>, what: &str) {
    if let Err(e) = result {
        tracing::debug!(error = %js_message(&e), "{what} failed; going on without it");
    }
}

/// The console level of this wasm instance.
static LEVEL: LevelCell = LevelCell::new(crate::log::DEFAULT_LEVEL);
/// Who writes to the console (`waymark worker`, `waymark content script`).
static PREFIX: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

fn console_line(level: Level, line: &str) {
    let line =
        JsValue::from_str(&format!("[{}] {line}", PREFIX.get().copied().unwrap_or("waymark")));
    match level {
        Level::ERROR => web_sys::console::error_1(&line),
        Level::WARN => web_sys::console::warn_1(&line),
        Level::INFO => web_sys::console::info_1(&line),
        _ => web_sys::console::debug_1(&line),
    }
}

/// Sends panics (message and location, before the wasm aborts) and `tracing` events at or
/// above `level` to the console, as `prefix`. The first call installs both; later calls only
/// change the level.
pub fn init_console(prefix: &'static str, level: LevelFilter) {
    if PREFIX.set(prefix).is_ok() {
        std::panic::set_hook(Box::new(|info| {
            let who = PREFIX.get().copied().unwrap_or("waymark");
            web_sys::console::error_1(&format!("[{who}] {info}").into());
            tell_the_glue(info);
        }));
        if tracing::subscriber::set_global_default(LineSubscriber::new(&LEVEL, console_line))
            .is_err()
        {
            web_sys::console::warn_1(&"[waymark] another tracing subscriber was set first".into());
        }
    }
    if LEVEL.set(level) {
        tracing::callsite::rebuild_interest_cache();
    }
}

/// The global a glue script sets to learn of a panic before the wasm traps (the instance is
/// unusable after it): `(message, location)`. The service worker's glue starts a fresh
/// instance and hands both to it; where no glue set it, nothing is called.
pub const PANIC_GLOBAL: &str = "waymarkPanicked";

/// Calls [`PANIC_GLOBAL`] with the panic's message and `file:line:col`, if a glue set it.
fn tell_the_glue(info: &std::panic::PanicHookInfo<'_>) {
    let Ok(f) = js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str(PANIC_GLOBAL)) else {
        return;
    };
    let Some(f) = f.dyn_ref::<js_sys::Function>() else { return };
    let payload = info.payload();
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| info.to_string());
    let location = info.location().map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
    let location = location.map_or(JsValue::NULL, |l| JsValue::from_str(&l));
    // The wasm traps right after this hook: a glue that throws changes nothing of that.
    if let Err(e) = f.call2(&JsValue::UNDEFINED, &JsValue::from_str(&message), &location) {
        web_sys::console::error_1(&e);
    }
}

/// The console level of this wasm instance (the worker hands it to the content scripts).
pub fn console_level() -> LevelFilter {
    LEVEL.get()
}
