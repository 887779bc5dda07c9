//! Which text in view the screen must confirm (see [`crate::observation::screen`]), as the walk
//! goes: the text nodes in view behind each text item, and whether the page paints with
//! layers at all. A page without any (no filter, blend mode, mask, clip path, transform,
//! background image, pass-through element, and every text in view on top where it is drawn)
//! asks for nothing and is never captured: the style rules see all it paints.

use crate::observation::screen::{LineBox, TextCheck};
use crate::visibility::TextHit;
use wasm_bindgen::prelude::*;
use web_sys::Node;

#[wasm_bindgen(module = "/js/screen.js")]
extern "C" {
    /// The line boxes of a text node's glyphs (`Range.getClientRects()`), at most
    /// `out.len() / 4`, as left, top, width, height; returns how many.
    fn line_boxes(node: &Node, out: &mut [f64]) -> u32;
}

/// Text items checked per observation: more than a screen holds.
const MAX_ITEMS: usize = 400;

/// Line boxes read per text node (a node longer than this many lines is judged by its first).
const MAX_LINES: usize = 12;

/// What the walk gathers for the screen check.
#[derive(Default)]
pub(super) struct Layers {
    /// Something on the page paints in a way the style rules do not model.
    layered: bool,
    /// Text nodes in view in the block being read.
    pending: Vec<Node>,
    /// Text items with their nodes in view.
    items: Vec<(String, Vec<Node>)>,
}

impl Layers {
    /// An element that renders; `layered` when it paints with an effect, an image or a layer
    /// (see the module doc).
    pub(super) fn element(&mut self, layered: bool) {
        self.layered |= layered;
    }

    /// Whether the page is already known to paint with layers (nothing the walk reads can
    /// change that any more).
    pub(super) fn layered(&self) -> bool {
        self.layered
    }

    /// A text node kept, in view; `hit` is what the hit test found over it. Text not on top
    /// where it is drawn (under a transparent layer, a pseudo-element, its own pass-through
    /// parent) is what the screen must settle.
    pub(super) fn text_in_view(&mut self, node: Node, hit: Option<TextHit>) {
        if hit.is_some_and(|h| !h.on_top) {
            self.layered = true;
        }
        self.pending.push(node);
    }

    /// The block's text became the item `text` (`None`: it was dropped, a duplicate or empty).
    pub(super) fn flushed(&mut self, text: Option<&str>) {
        let nodes = std::mem::take(&mut self.pending);
        if let Some(text) = text
            && !nodes.is_empty()
            && self.items.len() < MAX_ITEMS
        {
            self.items.push((text.to_owned(), nodes));
        }
    }

    /// The checks to send with the observation: none for a page that paints plainly.
    pub(super) fn checks(self) -> Vec<TextCheck> {
        if !self.layered {
            return Vec::new();
        }
        let mut out = [0.0; MAX_LINES * 4];
        let mut node_lines = |node: Node| -> Vec<LineBox> {
            let n = (line_boxes(&node, &mut out) as usize).min(MAX_LINES);
            out.chunks_exact(4)
                .take(n)
                .filter_map(|b| {
                    let [left, top, width, height] = [b[0], b[1], b[2], b[3]];
                    (width > 0.0 && height > 0.0).then_some(LineBox { left, top, width, height })
                })
                .collect()
        };
        self.items
            .into_iter()
            .map(|(text, nodes)| {
                let nodes: Vec<Vec<LineBox>> =
                    nodes.into_iter().map(&mut node_lines).filter(|l| !l.is_empty()).collect();
                TextCheck { text, nodes }
            })
            .filter(|c| !c.nodes.is_empty())
            .collect()
    }
}
