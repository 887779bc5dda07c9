//! Attention signals when the agent needs the user, as Chrome shows them: badge,
//! notification and sound (played by the side panel when one is open, else by an offscreen
//! document). Which ones fire is decided in the core (`waymark_core::app::signal`).

use super::chrome;
use waymark_core::app::Signals;

const NOTIFICATION_ID: &str = "waymark-intervention";

/// Chrome's badge, notifications and offscreen sound.
pub(super) struct ChromeSignals;

impl Signals for ChromeSignals {
    fn badge(&self, text: &str) {
        chrome::set_badge(text);
    }
    fn notify(&self, title: &str, message: &str) {
        chrome::notify(NOTIFICATION_ID, title, message);
    }
    fn clear_notification(&self) {
        chrome::clear_notification(NOTIFICATION_ID);
    }
    fn play_offscreen_sound(&self) {
        chrome::play_offscreen_sound();
    }
    fn stop_offscreen_sound(&self) {
        chrome::close_offscreen_sound();
    }
}
