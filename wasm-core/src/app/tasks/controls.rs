//! The running task's controls as the panel shows them, and the attention signals (badge,
//! notification, sound) when a card opens or closes: which ones fire, and when the panel
//! chimes, is decided here; the platform only shows them.

use super::{App, TaskPlatform};
use crate::agent::{ControlState, Controls, Intervention, InterventionSettings, attention};
use crate::platform::Store;
use std::rc::Rc;

/// The browser's ways to get the user's attention.
pub trait Signals {
    /// Sets the toolbar badge's text (`""` clears it).
    fn badge(&self, text: &str);
    /// Shows Waymark's notification (replacing an earlier one).
    fn notify(&self, title: &str, message: &str);
    /// Clears Waymark's notification.
    fn clear_notification(&self);
    /// Plays the attention sound where no panel is open to play it.
    fn play_offscreen_sound(&self);
    /// Stops the offscreen sound's document.
    fn stop_offscreen_sound(&self);
}

/// Signals that `card` opened (`Some`) or that no card is open any more (`None`); whether the
/// sound should play.
pub fn signal(
    signals: &impl Signals,
    settings: &InterventionSettings,
    card: Option<&Intervention>,
) -> bool {
    let a = attention(settings, card);
    if let Some(text) = &a.badge {
        signals.badge(text);
    }
    match &a.notification {
        Some((title, message)) => signals.notify(title, message),
        None if card.is_none() => signals.clear_notification(),
        None => {}
    }
    if card.is_none() {
        signals.stop_offscreen_sound();
    }
    a.sound
}

/// Plays the attention sound where the user hears it: an open side panel plays it itself
/// (`true`: count the panel's chime up); with no panel open (the user works in another tab)
/// the offscreen document plays it.
pub fn play_sound(signals: &impl Signals, panel_open: bool) -> bool {
    if !panel_open {
        signals.play_offscreen_sound();
    }
    panel_open
}

/// Whether the user holds the page (paused, took over, the agent waits, or a card is open):
/// the network guard lets the page go meanwhile.
pub fn user_holds_page(controls: &ControlState) -> bool {
    controls.paused || controls.taken_over || controls.waiting || controls.card.is_some()
}

impl<S: Store + Clone> App<S> {
    /// Fresh controls for a task (or for external agents' cards), wired to the panel's view,
    /// the attention signals and `page`'s network guard; they are the running task's from now.
    pub fn attach_controls<P: TaskPlatform>(
        &self,
        p: &P,
        step_mode: bool,
        page: Option<&P::Page>,
    ) -> Rc<Controls> {
        let settings = self.state.borrow().interventions;
        let controls = Controls::new(settings, step_mode);
        p.watch_controls(&controls, page);
        *self.controls.borrow_mut() = Some(controls.clone());
        if let Some(task) = self.state.borrow_mut().task.as_mut() {
            task.controls = controls.snapshot();
        }
        controls
    }

    /// The running task's controls changed to `now`: the panel shows them, and a card that
    /// opened or closed signals the user (the panel chimes when it is open and the settings
    /// ask for sound). Whether the panel needs redrawing.
    pub fn controls_changed(
        &self,
        signals: &impl Signals,
        now: ControlState,
        panel_open: bool,
    ) -> bool {
        let settings = self.state.borrow().interventions;
        let mut state = self.state.borrow_mut();
        let Some(task) = state.task.as_mut() else { return false };
        let was_open = task.controls.card.is_some();
        match (&now.card, was_open) {
            (Some(card), false)
                if signal(signals, &settings, Some(card)) && play_sound(signals, panel_open) =>
            {
                task.chime += 1;
            }
            (None, true) => {
                signal(signals, &settings, None);
            }
            _ => {}
        }
        task.controls = now;
        true
    }
}
