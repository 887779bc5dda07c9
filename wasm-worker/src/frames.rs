//! Which documents of a tab a content-script request goes to, and what each answer means.
//!
//! The worker reaches `content.js` through one port per document (`content_port.rs`) instead
//! of one `chrome.scripting.executeScript` per request: a persistent port costs the page a
//! fraction of an injection (BENCHMARKS.md, issue 28). What `executeScript` decided for us —
//! which frames exist, which cannot be scripted, which have no script yet — is decided here,
//! from `chrome.webNavigation`'s frame list and the port's own handshake.

use serde::Deserialize;
use std::collections::HashSet;

/// A frame as `chrome.webNavigation.getAllFrames` / `getFrame` list it (the fields used here).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebFrame {
    /// 0 for the top frame; given by `getAllFrames`, not by `getFrame` (the caller knows it).
    #[serde(default)]
    pub frame_id: u32,
    /// The document the frame holds now: a port is bound to it.
    #[serde(default)]
    pub document_id: String,
    /// Whether the document is shown.
    #[serde(default)]
    pub document_lifecycle: Lifecycle,
}

/// `documentLifecycle`: only an active document is the page the user sees.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lifecycle {
    /// Shown (and what `executeScript` with `allFrames` reaches).
    #[default]
    Active,
    /// Loaded ahead of a navigation that has not happened.
    Prerender,
    /// In the back/forward cache.
    Cached,
    /// Being torn down.
    PendingDeletion,
    /// A state a later Chrome adds: not read.
    #[serde(other)]
    Other,
}

/// The documents an all-frames request goes to: the active ones, top frame first, leaving out
/// those `content.js` could not be injected into before (an error page, another extension's
/// frame), as `executeScript` with `allFrames` leaves them out.
pub fn targets(frames: Vec<WebFrame>, unreachable: &Unreachable) -> Vec<WebFrame> {
    let mut out: Vec<WebFrame> = frames
        .into_iter()
        .filter(|f| f.document_lifecycle == Lifecycle::Active && !f.document_id.is_empty())
        .filter(|f| !unreachable.contains(&f.document_id))
        .collect();
    out.sort_by_key(|f| f.frame_id);
    out.dedup_by_key(|f| f.frame_id);
    out
}

/// How one document answered a request sent on its port.
#[derive(Debug)]
pub enum Answer<T> {
    /// The content script's reply.
    Replied(T),
    /// The port closed before the script greeted it: no `content.js` there (a new document),
    /// so the request was never read.
    Absent,
    /// The port closed after the greeting, before the reply: the document went away (navigated,
    /// removed, moved into the back/forward cache) while the request ran; it may have been read.
    Gone,
    /// No reply within the caller's bound.
    TimedOut,
}

/// What to do with an [`Answer`].
#[derive(Debug, PartialEq, Eq)]
pub enum Next {
    /// Use the reply.
    Reply,
    /// No answer from this document: the frame is left out (one frame: it is gone).
    NoAnswer,
    /// Inject `content.js` into the document, then send the request again (it was never read,
    /// so sending it again cannot do an action twice).
    Inject,
    /// The script is still absent after an injection that succeeded: give up.
    NotStarted,
}

impl<T> Answer<T> {
    /// The step after this answer; `injected` says whether `content.js` was injected for this
    /// request already (at most once).
    pub fn next(&self, injected: bool) -> Next {
        match self {
            Answer::Replied(_) => Next::Reply,
            Answer::Gone | Answer::TimedOut => Next::NoAnswer,
            Answer::Absent if injected => Next::NotStarted,
            Answer::Absent => Next::Inject,
        }
    }

    /// The reply, if there is one.
    pub fn into_reply(self) -> Option<T> {
        match self {
            Answer::Replied(reply) => Some(reply),
            Answer::Absent | Answer::Gone | Answer::TimedOut => None,
        }
    }
}

/// Documents `content.js` could not be injected into: not tried again on each observe. Keyed by
/// document, so a frame that loads a scriptable page later is tried again.
#[derive(Debug, Default)]
pub struct Unreachable(HashSet<String>);

/// Bound on remembered documents (they are never reused; the set is cleared when full).
const UNREACHABLE_CAP: usize = 512;

impl Unreachable {
    /// Whether `document` could not be scripted.
    pub fn contains(&self, document: &str) -> bool {
        self.0.contains(document)
    }

    /// Remembers that `document` could not be scripted.
    pub fn insert(&mut self, document: &str) {
        if self.0.len() >= UNREACHABLE_CAP {
            self.0.clear();
        }
        self.0.insert(document.to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(id: u32, doc: &str, lifecycle: Lifecycle) -> WebFrame {
        WebFrame { frame_id: id, document_id: doc.into(), document_lifecycle: lifecycle }
    }

    #[test]
    fn chrome_s_frame_list_is_read() {
        let json = r#"[{"documentId":"B6","documentLifecycle":"active","errorOccurred":false,
            "frameId":0,"frameType":"outermost_frame","parentFrameId":-1,"processId":7,
            "url":"http://127.0.0.1/x.html"},
            {"documentId":"C1","documentLifecycle":"pending_deletion","frameId":3},
            {"documentId":"C2","documentLifecycle":"prerender","frameId":4},
            {"documentId":"C3","documentLifecycle":"some_new_state","frameId":5}]"#;
        let frames: Vec<WebFrame> = serde_json::from_str(json).expect("frames");
        assert_eq!(frames[0], frame(0, "B6", Lifecycle::Active));
        assert_eq!(frames[1].document_lifecycle, Lifecycle::PendingDeletion);
        assert_eq!(frames[2].document_lifecycle, Lifecycle::Prerender);
        assert_eq!(frames[3].document_lifecycle, Lifecycle::Other);
        let one: WebFrame =
            serde_json::from_str(r#"{"documentId":"D","parentFrameId":-1}"#).expect("frame");
        assert_eq!(one, frame(0, "D", Lifecycle::Active));
    }

    #[test]
    fn only_active_reachable_documents_are_asked_top_first() {
        let mut unreachable = Unreachable::default();
        unreachable.insert("err");
        let frames = vec![
            frame(7, "sub", Lifecycle::Active),
            frame(3, "err", Lifecycle::Active),
            frame(0, "top", Lifecycle::Active),
            frame(9, "cached", Lifecycle::Cached),
            frame(8, "", Lifecycle::Active),
            frame(7, "sub-again", Lifecycle::Active),
        ];
        let ids: Vec<(u32, String)> = targets(frames, &unreachable)
            .into_iter()
            .map(|f| (f.frame_id, f.document_id))
            .collect();
        assert_eq!(ids, vec![(0, "top".to_owned()), (7, "sub".to_owned())]);
    }

    #[test]
    fn a_request_is_sent_again_only_where_it_was_never_read() {
        assert_eq!(Answer::Replied(1).next(false), Next::Reply);
        assert_eq!(Answer::Replied(1).into_reply(), Some(1));
        assert_eq!(Answer::<u8>::Gone.into_reply(), None);
        assert_eq!(Answer::<()>::Absent.next(false), Next::Inject);
        assert_eq!(Answer::<()>::Absent.next(true), Next::NotStarted);
        // A document that greeted the port may have read the request (an action): never again.
        assert_eq!(Answer::<()>::Gone.next(false), Next::NoAnswer);
        assert_eq!(Answer::<()>::TimedOut.next(false), Next::NoAnswer);
    }

    #[test]
    fn the_unreachable_set_stays_bounded() {
        let mut set = Unreachable::default();
        for i in 0..UNREACHABLE_CAP + 3 {
            set.insert(&format!("doc{i}"));
        }
        assert!(set.0.len() <= UNREACHABLE_CAP);
        assert!(set.contains(&format!("doc{}", UNREACHABLE_CAP + 2)));
    }
}
