//! Attention signals when the agent needs the user: badge, notification (the panel plays the
//! sound). Which ones fire is decided in [`crate::agent::attention`].

use super::chrome;
use crate::agent::{Intervention, InterventionSettings, attention};

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
    a.sound
}
