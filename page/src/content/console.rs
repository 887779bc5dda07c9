//! Reads the page's console as `page_hooks.js` recorded it in the page's world (one event
//! there and back, as the settle report does). The page can write anything there: the entries
//! are parsed as data, bounded again here, and never decide anything.

use crate::console::ConsoleEntry;

/// The frame's console entries, oldest first; none when the page's hooks are not there (a
/// page Waymark's hooks do not run in) or answered with something else than entries.
pub(super) fn entries() -> Vec<ConsoleEntry> {
    ConsoleEntry::parse_list(&super::page_world::ask("waymark-ask-console", "waymark-console"))
}
