//! The model's text as it streams in, for the live task view: which roles show it, a bounded
//! buffer of its tail, and a throttle so a fast stream does not flood the panel's port.

use waymark_protocol::LlmRole;

/// The panel shows at most this many characters of the streaming text (its tail): enough to
/// follow the model's reasoning, small enough that every state push stays cheap.
pub const LIVE_TEXT_MAX_CHARS: usize = 600;

/// At most one panel update per this many milliseconds of streamed deltas.
pub const LIVE_PUSH_INTERVAL_MS: f64 = 100.0;

/// Whether a role's streamed text is shown while it streams: the navigator and the planner
/// think aloud for the user; the validator and the summariser are bookkeeping.
pub fn shows_live_text(role: LlmRole) -> bool {
    matches!(role, LlmRole::Navigator | LlmRole::Planner)
}

/// Appends `delta` to `buf`, then drops characters from the front so that at most `max_chars`
/// remain (never splitting a character).
pub fn append_bounded(buf: &mut String, delta: &str, max_chars: usize) {
    buf.push_str(delta);
    let count = buf.chars().count();
    if count > max_chars {
        let cut = buf.char_indices().nth(count - max_chars).map_or(buf.len(), |(i, _)| i);
        buf.drain(..cut);
    }
}

/// What to do with the panel after a delta arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Push {
    /// Send the state now.
    Now,
    /// Send it after this many milliseconds (later deltas ride along).
    After(u32),
    /// A send is already scheduled; it will carry this delta too.
    Scheduled,
}

/// Limits panel updates caused by streamed deltas to one per [`LIVE_PUSH_INTERVAL_MS`], while
/// making sure the last delta is always shown (a trailing push is scheduled, never dropped).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PushThrottle {
    last_push_ms: Option<f64>,
    scheduled: bool,
}

impl PushThrottle {
    /// A delta arrived at `now_ms`: push now, schedule one push, or rely on the scheduled one.
    /// After [`Push::After`], call [`PushThrottle::fired`] when the push goes out.
    pub fn on_delta(&mut self, now_ms: f64) -> Push {
        if self.scheduled {
            return Push::Scheduled;
        }
        match self.last_push_ms {
            Some(last) if now_ms - last < LIVE_PUSH_INTERVAL_MS => {
                self.scheduled = true;
                Push::After((LIVE_PUSH_INTERVAL_MS - (now_ms - last)).ceil().max(1.0) as u32)
            }
            _ => {
                self.last_push_ms = Some(now_ms);
                Push::Now
            }
        }
    }

    /// The scheduled push went out at `now_ms`.
    pub fn fired(&mut self, now_ms: f64) {
        self.scheduled = false;
        self.last_push_ms = Some(now_ms);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_keeps_the_tail_without_splitting_characters() {
        let mut buf = String::new();
        append_bounded(&mut buf, "héllo ", 8);
        assert_eq!(buf, "héllo ");
        append_bounded(&mut buf, "wörld", 8);
        assert_eq!(buf, "lo wörld");
        assert_eq!(buf.chars().count(), 8);
        append_bounded(&mut buf, &"x".repeat(20), 8);
        assert_eq!(buf, "xxxxxxxx");
        let mut long = String::new();
        for _ in 0..100 {
            append_bounded(&mut long, "ünïcode ", LIVE_TEXT_MAX_CHARS);
        }
        assert_eq!(long.chars().count(), LIVE_TEXT_MAX_CHARS);
        assert!(long.ends_with("ünïcode "));
    }

    #[test]
    fn throttle_pushes_at_most_once_per_interval_and_never_drops_the_last_delta() {
        let mut t = PushThrottle::default();
        assert_eq!(t.on_delta(1000.0), Push::Now);
        // Deltas within the interval: one push scheduled for the end of it, the rest ride along.
        assert_eq!(t.on_delta(1030.0), Push::After(70));
        assert_eq!(t.on_delta(1060.0), Push::Scheduled);
        assert_eq!(t.on_delta(1099.0), Push::Scheduled);
        t.fired(1100.0);
        // Right after the scheduled push, the next delta waits again.
        assert_eq!(t.on_delta(1150.0), Push::After(50));
        t.fired(1200.0);
        // A slow stream pushes every delta at once.
        assert_eq!(t.on_delta(1300.0), Push::Now);
        assert_eq!(t.on_delta(1400.5), Push::Now);
        // A fast stream of 1000 deltas over one second makes about ten pushes, not a thousand.
        let mut t = PushThrottle::default();
        let mut pushes = 0;
        let mut due: Option<f64> = None;
        for i in 0..1000 {
            let now = i as f64;
            if due.is_some_and(|d| now >= d) {
                t.fired(now);
                pushes += 1;
                due = None;
            }
            match t.on_delta(now) {
                Push::Now => pushes += 1,
                Push::After(ms) => due = Some(now + f64::from(ms)),
                Push::Scheduled => {}
            }
        }
        assert!((10..=11).contains(&pushes), "{pushes} pushes");
        assert!(due.is_some(), "the last deltas still have a push coming");
    }

    #[test]
    fn navigator_and_planner_stream_to_the_panel() {
        assert!(shows_live_text(LlmRole::Navigator));
        assert!(shows_live_text(LlmRole::Planner));
        assert!(!shows_live_text(LlmRole::Validator));
        assert!(!shows_live_text(LlmRole::Summariser));
    }

    #[test]
    fn task_view_shows_streamed_text_until_the_task_ends() {
        use crate::agent::TaskEvent;
        use crate::panel::TaskView;
        use crate::record::TaskOutcome;
        let mut view = TaskView::started("read the page");
        view.stream_text("Looking at ");
        view.stream_text("the heading");
        assert_eq!(view.live_text, "Looking at the heading");
        view.apply(&TaskEvent::StepStarted { step: 1 });
        assert_eq!(view.live_text, "Looking at the heading", "a new step keeps the words");
        view.apply(&TaskEvent::Noted { text: "sent again on a new host process".into() });
        assert_eq!(view.live_text, "", "a call sent again streams its words again");
        view.stream_text("Looking again");
        assert_eq!(view.live_text, "Looking again");
        let outcome = TaskOutcome {
            answer: "done".into(),
            success: true,
            error: None,
            steps: vec![],
            step_count: 1,
            elapsed_ms: 5.0,
            ending: Default::default(),
        };
        view.apply(&TaskEvent::Finished(outcome));
        assert_eq!(view.live_text, "");
        view.stream_text("late delta");
        assert_eq!(view.live_text, "", "a finished task shows no streaming text");
    }
}
