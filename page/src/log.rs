//! `tracing` for the extension's wasm (service worker and content script): a small subscriber
//! that writes each event at or above a level to a sink (the browser console in wasm, see
//! `crate::js::init_console`), and the level's name as users and developers set it.
//!
//! Why our own: the usual crates (`tracing-wasm`, `tracing-subscriber`) are large for a content
//! script injected into every frame, and the console needs no spans, timestamps or colours.
//! Off by default above `warn`: a developer raises the level with the `log_level` key of
//! `chrome.storage.local` (read when the worker starts; the worker hands it to every content
//! script with each request).

use std::sync::atomic::{AtomicU8, Ordering};
use tracing::field::{Field, Visit};
use tracing::level_filters::LevelFilter;
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Level, Metadata, Subscriber};

/// The level when none is set: warnings and errors only, so a user's console stays quiet.
pub const DEFAULT_LEVEL: LevelFilter = LevelFilter::WARN;

/// The `chrome.storage.local` key the service worker reads the level from when it starts
/// (`"off"`, `"error"`, `"warn"`, `"info"`, `"debug"` or `"trace"`).
pub const LEVEL_KEY: &str = "log_level";

/// The level a setting names: an unknown or missing name is [`DEFAULT_LEVEL`].
pub fn parse_level(name: Option<&str>) -> LevelFilter {
    name.and_then(|n| n.trim().to_ascii_lowercase().parse().ok()).unwrap_or(DEFAULT_LEVEL)
}

/// A level kept where a subscriber reads it: changed at run time without a new subscriber.
#[derive(Debug)]
pub struct LevelCell(AtomicU8);

impl LevelCell {
    /// A cell at `level`.
    pub const fn new(level: LevelFilter) -> Self {
        Self(AtomicU8::new(encode(level)))
    }

    /// The level now.
    pub fn get(&self) -> LevelFilter {
        decode(self.0.load(Ordering::Relaxed))
    }

    /// Sets the level; `true` if it changed (the callsites' cached interest must then be
    /// rebuilt, see [`tracing::callsite::rebuild_interest_cache`]).
    pub fn set(&self, level: LevelFilter) -> bool {
        self.0.swap(encode(level), Ordering::Relaxed) != encode(level)
    }
}

const fn encode(level: LevelFilter) -> u8 {
    // `LevelFilter` has no const conversion: compare with the constants.
    if matches!(level, LevelFilter::OFF) {
        0
    } else if matches!(level, LevelFilter::ERROR) {
        1
    } else if matches!(level, LevelFilter::WARN) {
        2
    } else if matches!(level, LevelFilter::INFO) {
        3
    } else if matches!(level, LevelFilter::DEBUG) {
        4
    } else {
        5
    }
}

fn decode(value: u8) -> LevelFilter {
    match value {
        0 => LevelFilter::OFF,
        1 => LevelFilter::ERROR,
        2 => LevelFilter::WARN,
        3 => LevelFilter::INFO,
        4 => LevelFilter::DEBUG,
        _ => LevelFilter::TRACE,
    }
}

/// Writes each enabled event as one line (`WARN target: message key=value`) to `sink`.
pub struct LineSubscriber {
    level: &'static LevelCell,
    sink: fn(Level, &str),
}

impl LineSubscriber {
    /// A subscriber filtered by `level`, writing to `sink`.
    pub const fn new(level: &'static LevelCell, sink: fn(Level, &str)) -> Self {
        Self { level, sink }
    }
}

/// Collects an event's message and fields into one line.
struct Line(String);

impl Visit for Line {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0.push_str(&format!(" {value:?}"));
        } else {
            self.0.push_str(&format!(" {}={value:?}", field.name()));
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.0.push(' ');
            self.0.push_str(value);
        } else {
            self.0.push_str(&format!(" {}={value}", field.name()));
        }
    }
}

impl Subscriber for LineSubscriber {
    fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
        // Asked again at each event: the level can change at run time. Events above the
        // level cost one comparison, as `max_level_hint` makes tracing skip them first.
        Interest::sometimes()
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        *metadata.level() <= self.level.get()
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(self.level.get())
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        // Spans are not shown: every span is the same one.
        Id::from_u64(1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let meta = event.metadata();
        let mut line = Line(format!("{} {}:", meta.level(), meta.target()));
        event.record(&mut line);
        (self.sink)(*meta.level(), &line.0);
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    thread_local! {
        static LINES: RefCell<Vec<(Level, String)>> = const { RefCell::new(Vec::new()) };
    }

    fn collect(level: Level, line: &str) {
        LINES.with(|l| l.borrow_mut().push((level, line.to_owned())));
    }

    #[test]
    fn level_names_parse_and_anything_else_is_the_default() {
        assert_eq!(parse_level(Some("debug")), LevelFilter::DEBUG);
        assert_eq!(parse_level(Some(" TRACE ")), LevelFilter::TRACE);
        assert_eq!(parse_level(Some("off")), LevelFilter::OFF);
        assert_eq!(parse_level(Some("error")), LevelFilter::ERROR);
        assert_eq!(parse_level(Some("loud")), DEFAULT_LEVEL);
        assert_eq!(parse_level(None), LevelFilter::WARN);
    }

    #[test]
    fn the_level_cell_round_trips_every_level_and_says_when_it_changed() {
        let cell = LevelCell::new(DEFAULT_LEVEL);
        for level in [
            LevelFilter::OFF,
            LevelFilter::ERROR,
            LevelFilter::WARN,
            LevelFilter::INFO,
            LevelFilter::DEBUG,
            LevelFilter::TRACE,
        ] {
            cell.set(level);
            assert_eq!(cell.get(), level);
            assert!(!cell.set(level));
        }
        assert!(cell.set(LevelFilter::WARN));
    }

    #[test]
    fn events_below_the_level_are_dropped_and_raising_it_lets_them_through() {
        static LEVEL: LevelCell = LevelCell::new(DEFAULT_LEVEL);
        let subscriber = LineSubscriber::new(&LEVEL, collect);
        tracing::subscriber::with_default(subscriber, || {
            tracing::warn!(key = 3, "storage failed");
            tracing::info!("quiet");
            tracing::debug!("quieter");
            LEVEL.set(LevelFilter::DEBUG);
            tracing::callsite::rebuild_interest_cache();
            tracing::debug!("now shown");
        });
        let lines = LINES.with(|l| l.take());
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(lines[0].0, Level::WARN);
        assert!(
            lines[0].1.starts_with("WARN waymark_page::log::tests: storage failed"),
            "{lines:?}"
        );
        assert!(lines[0].1.ends_with("key=3"), "{lines:?}");
        assert_eq!(lines[1], (Level::DEBUG, "DEBUG waymark_page::log::tests: now shown".into()));
    }
}
