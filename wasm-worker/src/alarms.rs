//! Routines' alarms: one per routine, named `routine:{id}`. Chrome wakes the worker for them
//! (`sw.js` forwards `onAlarm` to [`sw_alarm`]); the bindings are in `chrome`.

use wasm_bindgen::prelude::*;

pub use crate::chrome::{alarm_at, alarm_clear, utc_offset_minutes};

/// The alarm's name of routine `id`.
pub fn name_of(id: &str) -> String {
    format!("routine:{id}")
}

/// An alarm fired (forwarded by `sw.js`).
#[wasm_bindgen]
pub fn sw_alarm(name: String) {
    if let Some(id) = name.strip_prefix("routine:") {
        crate::worker::routine_alarm(id.to_owned());
    }
}
