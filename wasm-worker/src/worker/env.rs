//! Time and randomness in the service worker.

use wasm_bindgen::prelude::*;
use waymark_core::platform::Env;

#[wasm_bindgen(module = "/js/env.js")]
extern "C" {
    /// `performance.now()`: monotonic, sub-millisecond.
    fn precise_now() -> f64;
    /// A promise that resolves on the next macrotask.
    pub(super) fn next_tick() -> js_sys::Promise;
}

/// [`Env`] backed by `Date.now()` and `Math.random()`.
pub(super) struct BrowserEnv;

impl Env for BrowserEnv {
    fn now_ms(&self) -> f64 {
        js_sys::Date::now()
    }

    fn random_u64(&self) -> u64 {
        let part = || (js_sys::Math::random() * 4_294_967_296.0) as u64;
        (part() << 32) | part()
    }

    fn precise_ms(&self) -> f64 {
        precise_now()
    }
}
