//! Routines' alarms wake the worker: `sw.js` forwards `chrome.alarms.onAlarm` to [`sw_alarm`]
//! (the names are the core's, `waymark_core::app::alarm_name`; the bindings are in `chrome`).

use wasm_bindgen::prelude::*;

/// An alarm fired (forwarded by `sw.js`).
#[wasm_bindgen]
pub fn sw_alarm(name: String) {
    if let Some(id) = waymark_core::app::routine_of_alarm(&name) {
        crate::worker::routine_alarm(id.to_owned());
    }
}
