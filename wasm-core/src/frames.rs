//! Merging the observations of a tab's frames into one page for the model.
//!
//! Each frame's content script reads only its own document and leaves a placeholder
//! ([`Item::Frame`]) where an iframe sits. The service worker receives one observation per
//! frame (with Chrome's frame id, 0 = top) and nests each child where its parent's placeholder
//! names its URL, qualifying the child's refs with the frame id (`f5:3`). Chrome does not say
//! which iframe element a frame belongs to, so the URL is the link: placeholders are matched
//! in document order, first come first served; a frame no placeholder claims (its iframe was
//! hidden, or it navigated since) is appended at the end rather than lost.

use waymark_page::observation::{Frame, Item, Observation};

/// One frame's observation, as the service worker received it.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameObservation {
    /// Chrome's frame id (0 = the tab's top document).
    pub frame_id: u32,
    /// What its content script saw.
    pub observation: Observation,
}

/// Merges the frames of one tab; `None` when the top frame is missing (nothing to show).
pub fn merge(frames: Vec<FrameObservation>) -> Option<Observation> {
    let mut pool: Vec<FrameObservation> = Vec::with_capacity(frames.len());
    let mut top = None;
    for frame in frames {
        if frame.frame_id == 0 && top.is_none() {
            top = Some(frame.observation);
        } else {
            pool.push(frame);
        }
    }
    let mut top = top?;
    fill(&mut top.items, &mut pool, 0);
    while !pool.is_empty() {
        let orphan = pool.remove(0);
        let mut frame = attach(orphan, String::new());
        fill(&mut frame.items, &mut pool, 1);
        top.items.push(Item::Frame(frame));
    }
    drop_empty_placeholders(&mut top.items);
    Some(top)
}

/// Deep enough for real pages (ads nest a few levels), shallow enough to stop pathological
/// self-embedding pages.
const MAX_DEPTH: usize = 8;

fn fill(items: &mut [Item], pool: &mut Vec<FrameObservation>, depth: usize) {
    if depth >= MAX_DEPTH {
        return;
    }
    for item in items.iter_mut() {
        let Item::Frame(placeholder) = item else { continue };
        if placeholder.frame != 0 {
            continue;
        }
        let Some(at) = pool.iter().position(|f| same_url(&f.observation.url, &placeholder.src))
        else {
            continue;
        };
        let child = pool.remove(at);
        let zone = placeholder.zone;
        let mut frame = attach(child, std::mem::take(&mut placeholder.src));
        frame.zone = zone;
        fill(&mut frame.items, pool, depth + 1);
        *placeholder = frame;
    }
}

/// Turns a frame's observation into a nested frame, qualifying its refs.
fn attach(child: FrameObservation, src: String) -> Frame {
    let mut items = child.observation.items;
    qualify(&mut items, child.frame_id);
    Frame {
        src,
        frame: child.frame_id,
        url: child.observation.url,
        items,
        zone: Default::default(),
    }
}

fn qualify(items: &mut [Item], frame_id: u32) {
    for item in items {
        if let Item::Element(el) = item {
            el.ref_id.frame = frame_id;
        }
    }
}

fn drop_empty_placeholders(items: &mut Vec<Item>) {
    items.retain(|item| !matches!(item, Item::Frame(f) if f.frame == 0));
    for item in items {
        if let Item::Frame(frame) = item {
            drop_empty_placeholders(&mut frame.items);
        }
    }
}

/// URLs equal up to a trailing fragment (a frame's own URL drops nothing else).
fn same_url(a: &str, b: &str) -> bool {
    let strip = |u: &str| u.split('#').next().unwrap_or(u).to_owned();
    !a.is_empty() && strip(a) == strip(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use waymark_page::observation::{Element, Ref, Zone};

    fn button(index: u32, name: &str) -> Item {
        Item::Element(Element {
            ref_id: Ref::top(index),
            role: "button".into(),
            name: name.into(),
            ..Element::default()
        })
    }

    fn placeholder(src: &str) -> Item {
        Item::Frame(Frame { src: src.into(), ..Frame::default() })
    }

    fn frame(frame_id: u32, url: &str, items: Vec<Item>) -> FrameObservation {
        FrameObservation {
            frame_id,
            observation: Observation { url: url.into(), items, ..Observation::default() },
        }
    }

    #[test]
    fn children_nest_at_their_iframe_with_qualified_refs() {
        let merged = merge(vec![
            frame(7, "http://b/inner.html", vec![button(1, "Inner")]),
            frame(
                0,
                "http://a/",
                vec![button(1, "Top"), placeholder("http://b/outer.html"), button(2, "After")],
            ),
            frame(
                3,
                "http://b/outer.html",
                vec![placeholder("http://b/inner.html#x"), button(1, "Outer")],
            ),
        ])
        .expect("top frame");
        let text = merged.to_prompt("n");
        let body: Vec<&str> = text.lines().skip(2).collect();
        assert_eq!(
            body,
            [
                "[1] button Top",
                "[frame f3 http://b/outer.html]",
                "[frame f7 http://b/inner.html]",
                "[f7:1] button Inner",
                "[/frame f7]",
                "[f3:1] button Outer",
                "[/frame f3]",
                "[2] button After",
                "</page_content id=n>",
            ]
        );
        assert_eq!(
            merged.element(Ref { frame: 7, index: 1 }).map(|e| e.name.as_str()),
            Some("Inner")
        );
        assert!(merged.element(Ref { frame: 3, index: 2 }).is_none());
    }

    #[test]
    fn unclaimed_frames_are_appended_and_empty_placeholders_dropped() {
        let merged = merge(vec![
            frame(0, "http://a/", vec![placeholder("about:blank"), button(1, "Top")]),
            frame(4, "http://ads/x", vec![button(1, "Ad")]),
        ])
        .expect("top");
        assert_eq!(merged.items.len(), 2);
        assert!(matches!(&merged.items[1], Item::Frame(f) if f.frame == 4 && f.zone == Zone::In));
        assert_eq!(merged.elements().len(), 2);
    }

    #[test]
    fn no_top_frame_is_nothing() {
        assert!(merge(vec![frame(2, "http://b/", vec![])]).is_none());
    }

    #[test]
    fn two_iframes_with_the_same_url_get_one_frame_each() {
        let merged = merge(vec![
            frame(0, "http://a/", vec![placeholder("http://b/"), placeholder("http://b/")]),
            frame(5, "http://b/", vec![button(1, "One")]),
            frame(6, "http://b/", vec![button(1, "Two")]),
        ])
        .expect("top");
        let ids: Vec<u32> = merged
            .items
            .iter()
            .filter_map(|i| if let Item::Frame(f) = i { Some(f.frame) } else { None })
            .collect();
        assert_eq!(ids, [5, 6]);
    }
}
