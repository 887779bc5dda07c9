//! Attention signals when the agent needs the user: badge, notification and sound (played by
//! the side panel when one is open, else by an offscreen document). Which ones fire is decided
//! in [`waymark_core::agent::attention`].

use super::chrome;
use waymark_core::agent::{Intervention, InterventionSettings, attention};

const NOTIFICATION_ID: &str = "waymark-intervention";

/// Signals that `card` opened (`Some`) or that no card is open any more (`None`); returns
/// whether the panel should play the sound.
pub(super) fn signal(settings: &InterventionSettings, card: Option<&Intervention>) -> bool {
    let a = attention(settings, card);
    if let Some(text) = &a.badge {
        chrome::set_badge(text);
    }
    match &a.notification {
        Some((title, message)) => chrome::notify(NOTIFICATION_ID, title, message),
        None if card.is_none() => chrome::clear_notification(NOTIFICATION_ID),
        None => {}
    }
    if card.is_none() {
        chrome::close_offscreen_sound();
    }
    a.sound
}

/// Plays the attention sound where the user hears it: an open side panel plays it itself
/// (returns `true`: count the panel's chime up); with no panel open, e.g. the user works in
/// another tab with the panel closed, an offscreen document plays it.
pub(super) fn play_sound(panel_open: bool) -> bool {
    if !panel_open {
        chrome::play_offscreen_sound();
    }
    panel_open
}
