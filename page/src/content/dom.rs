//! DOM → [`Observation`] for one frame: interactive elements with refs and the readable text
//! between them, in reading order.
//!
//! Written by hand (no crate walks a live DOM): visibility, roles and accessible names follow
//! the parts of HTML-AAM and accname that matter for acting on a page (see [`super::roles`]).
//! The walk is one pass over the flat tree (open shadow roots and slots included) with a few
//! DOM calls per element, because it runs on every step and its cost is per element.

use super::facts::{self, NodeFacts, StyleFacts};
use super::roles::{self, Described};
use super::widgets::Signals;
use crate::observation::{Frame, Item, Observation, Zone, clean, shorten};
use std::cell::RefCell;
use std::collections::HashSet;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlIFrameElement, Node, Window};

/// An element the model can name, and what it looked like when it got its ref.
pub(super) struct RefEntry {
    pub element: Element,
    pub fingerprint: String,
}

thread_local! {
    /// Refs of this frame's latest observation; replaced by the next one.
    pub(super) static REFS: RefCell<Vec<RefEntry>> = const { RefCell::new(Vec::new()) };
}

/// Deepest element nesting walked one by one. wasm has no stack guard: a page of thousands of
/// unclosed `<span>`s would overflow the stack and corrupt memory, so deeper content is read
/// as plain text.
const MAX_DEPTH: u32 = 192;

/// Longest text line kept; the rest is for `extract`.
const MAX_TEXT: usize = 500;

/// A canvas at least this wide and tall is worth a line saying it cannot be read.
const MIN_CANVAS_PX: f64 = 40.0;

/// Reads this frame's document and renews its refs.
pub fn observe(engine: String) -> Result<Observation, crate::error::ContentError> {
    let window = web_sys::window().ok_or_else(crate::error::ContentError::no_document)?;
    let document = window.document().ok_or_else(crate::error::ContentError::no_document)?;
    let started = now(&window);
    let frame = facts::frame();
    let viewport = frame.viewport;
    facts::init();
    super::affordance::start_walk();
    facts::ask_page_hooks();
    let mut walker = Walker::new(viewport.height);
    walker.page = crate::visibility::Glyphs {
        scroll_x: viewport.scroll_x,
        scroll_y: viewport.scroll_y,
        page_width: frame.page_width,
        page_height: viewport.page_height,
        ..Default::default()
    };
    if let Some(body) = document.body() {
        walker.backdrop = super::hidden::page_backdrop(&body);
        walker.body(&body);
    }
    walker.flush();
    let visited = walker.visited;
    let checks = std::mem::take(&mut walker.layers).checks();
    REFS.with(|r| *r.borrow_mut() = walker.refs);
    Ok(Observation {
        url: frame.url,
        title: document.title(),
        items: walker.items,
        engine,
        viewport,
        tabs: Vec::new(),
        elapsed_ms: now(&window) - started,
        visited,
        checks,
        screen: Default::default(),
    })
}

/// Milliseconds from the page's clock.
pub(super) fn now(window: &Window) -> f64 {
    window.performance().map(|p| p.now()).unwrap_or(0.0)
}

/// Where the blocks being read lie. `getBoundingClientRect` was the walk's largest single
/// cost when read for every block and element, so a box is read only when something inside
/// needs a place (text to flush, an element), outermost first, and never inside a block that
/// lies wholly above or below the viewport: what flows inside it lies there too.
enum Slot {
    /// Known.
    Known(Zone),
    /// Not read yet; `true` when the block is absolutely positioned or fixed, so it may lie
    /// elsewhere than its parent.
    Pending(Element, bool),
    /// Read: no box, so it lies where its parent does.
    Inherit,
}

struct Walker {
    viewport_height: f64,
    items: Vec<Item>,
    /// Raw text of the current block, cleaned on flush.
    text: String,
    /// Zone of the innermost block being read.
    zones: Vec<Slot>,
    /// Names of the widgets we are inside: their own text is not repeated as text.
    inside: Vec<String>,
    seen: HashSet<String>,
    refs: Vec<RefEntry>,
    visited: u32,
    /// Inside a label of a listed control: its text is the control's name, not repeated.
    mute: u32,
    /// Current element nesting.
    depth: u32,
    /// Effective opacity of the element being read (its own times its ancestors').
    opacity: f64,
    /// What is painted behind the element being read (see `hidden.rs`).
    backdrop: super::hidden::Backdrop,
    /// The frame's scroll offsets and scrollable size, for where text nodes' glyphs land.
    page: crate::visibility::Glyphs,
    /// Inside a same-document frame read inline: its glyphs are placed in its own viewport,
    /// not judged against this one.
    inline_frames: u32,
    /// Inside an editable region: its inline formatting is read as marks (`**bold**`) and its
    /// list items with their markers, as the model needs to see what a format did.
    editing: u32,
    /// Text in view the screen must confirm on a page that paints with layers (`screen.rs`).
    layers: super::screen::Layers,
}

impl Walker {
    fn new(viewport_height: f64) -> Self {
        Self {
            viewport_height,
            items: Vec::new(),
            text: String::new(),
            zones: vec![Slot::Known(Zone::In)],
            inside: Vec::new(),
            seen: HashSet::new(),
            refs: Vec::new(),
            visited: 0,
            mute: 0,
            depth: 0,
            opacity: 1.0,
            backdrop: None,
            page: crate::visibility::Glyphs::default(),
            inline_frames: 0,
            editing: 0,
            layers: super::screen::Layers::default(),
        }
    }

    /// Walks the rendered children: a shadow root's when there is one, a slot's assigned
    /// nodes, else the light DOM children.
    fn walk_children(&mut self, parent: &Element, facts: NodeFacts, pointer: bool) {
        if self.depth >= MAX_DEPTH {
            if self.mute == 0 {
                self.text.push_str(&parent.text_content().unwrap_or_default());
            }
            return;
        }
        self.depth += 1;
        self.walk_rendered(parent, facts, pointer);
        self.depth -= 1;
    }

    fn walk_rendered(&mut self, parent: &Element, facts: NodeFacts, pointer: bool) {
        if facts.shadow()
            && let Some(shadow) = parent.shadow_root()
        {
            return self.walk_list(shadow.first_child(), pointer);
        }
        match facts.tag() {
            "slot" => {
                if let Some(slot) = parent.dyn_ref::<web_sys::HtmlSlotElement>() {
                    let options = web_sys::AssignedNodesOptions::new();
                    options.set_flatten(true);
                    let assigned = slot.assigned_nodes_with_options(&options);
                    if assigned.length() > 0 {
                        for node in assigned.iter() {
                            self.node(node.unchecked_into(), pointer);
                        }
                        return;
                    }
                }
            }
            // A closed `<details>` shows only its summary.
            "details" if !parent.has_attribute("open") => {
                let mut child = parent.first_element_child();
                while let Some(el) = child {
                    child = el.next_element_sibling();
                    if el.local_name() == "summary" {
                        self.node(el.unchecked_into(), pointer);
                    }
                }
                return;
            }
            _ => {}
        }
        if facts.has_children() {
            let role = if facts.has_role() { super::facts::aria(parent, "role") } else { None };
            if super::order::is_list(facts.tag(), role.as_deref())
                && let Some(items) = super::order::reordered(parent)
            {
                for item in items {
                    self.node(item.unchecked_into(), pointer);
                }
                return;
            }
            self.walk_list(parent.first_child(), pointer);
        }
    }

    fn walk_list(&mut self, mut child: Option<Node>, pointer: bool) {
        while let Some(node) = child {
            child = node.next_sibling();
            self.node(node, pointer);
        }
    }

    fn node(&mut self, node: Node, pointer: bool) {
        let facts = facts::of_node(&node);
        if facts.is_text() && self.mute == 0 {
            if facts.is_blank() {
                self.text.push(' ');
            } else if let Some(t) = node.node_value()
                && !self.glyphs_hidden(&node, &t)
            {
                self.text.push_str(&t);
            }
        } else if facts.is_element() {
            self.element(&node.unchecked_into(), facts, pointer);
        }
    }

    /// Whether a text node's glyphs are drawn where no person can read them (scaled or zoomed
    /// to nothing, squashed onto each other, moved off the page: see
    /// [`crate::visibility::glyphs_hidden`]) or, in view, under something opaque (see
    /// [`crate::visibility::text_covered`]).
    fn glyphs_hidden(&mut self, node: &Node, text: &str) -> bool {
        if self.inline_frames > 0 {
            return false;
        }
        let [left, top, width, height] = facts::glyphs(node);
        let chars = text.chars().filter(|c| !c.is_whitespace()).count();
        let glyphs = crate::visibility::Glyphs { left, top, width, height, chars, ..self.page };
        match crate::visibility::glyphs_hidden(&glyphs) {
            Some(true) => true,
            None => false,
            // In view, something opaque may be drawn over them.
            // In view (the glyph box meets the viewport), something opaque may be drawn
            // over them.
            Some(false) if self.in_view(top, top + height) => {
                let hit = facts::hit_over_text(node);
                let covered = hit.is_some_and(|hit| crate::visibility::text_covered(&hit));
                if !covered {
                    self.layers.text_in_view(node.clone(), hit);
                }
                covered
            }
            Some(false) => false,
        }
    }

    /// Whether a box from `top` to `bottom` (viewport coordinates) meets the viewport.
    fn in_view(&self, top: f64, bottom: f64) -> bool {
        bottom > 0.0 && top < self.viewport_height
    }

    fn zone_of(&self, el: &Element) -> Option<Zone> {
        let rect = facts::rect(el);
        if rect.width == 0.0 && rect.height == 0.0 {
            return None;
        }
        Some(if rect.bottom <= 0.0 {
            Zone::Above
        } else if rect.top >= self.viewport_height {
            Zone::Below
        } else {
            Zone::In
        })
    }

    fn element(&mut self, el: &Element, facts: NodeFacts, parent_pointer: bool) {
        self.visited += 1;
        let tag = facts.tag();
        if facts::SKIPPED.contains(&tag) || facts.aria_hidden() || facts.inert() {
            return;
        }
        let facts::ElementStyle { style, paint, layered } =
            facts::of_element(el, !self.layers.layered());
        if style.display_none()
            || style.content_hidden()
            || (style.invisible() && !style.display_contents())
        {
            return;
        }
        // The paint is read for every element that renders (the same conditions).
        let Some(paint) = paint else { return };
        if tag == "input" && roles::input_type(el) == "hidden" {
            return;
        }
        let opacity = self.opacity * paint.opacity * super::hidden::filter_opacity(&paint);
        let backdrop = super::hidden::backdrop(&paint, self.backdrop);
        // A transparent native toggle over a styled box is what a person clicks (its box is
        // drawn by its label or neighbour); anything else invisible is left out.
        if super::hidden::invisible(el, &paint, opacity, backdrop)
            && !(tag == "input"
                && (super::usable::transparent_toggle(el).is_some()
                    || super::usable::auto_sized_box(el).is_some()
                    || super::usable::clipped_range_thumb(el).is_some()
                    || super::usable::combobox_stand_in(el).is_some()))
        {
            // A transparent box may hold a read-only combobox input that the visible box
            // around it draws (see `usable::combobox_stand_in`): it is judged on its own.
            // The "visually hidden" box a native control is wrapped in (React Aria's toggles
            // and ranges, PrimeReact's list fields): the control is judged on its own, through
            // the label, thumb or widget a person uses.
            if tag != "input" && facts.has_children() && super::usable::visually_hidden_box(el) {
                self.hidden_wrapped_controls(el, opacity, parent_pointer);
            } else if tag != "input"
                && facts.has_children()
                && let Ok(Some(input)) = el.query_selector("input[role=combobox][readonly]")
            {
                let outer = std::mem::replace(&mut self.opacity, opacity);
                self.node(input.unchecked_into(), parent_pointer);
                self.opacity = outer;
            }
            return;
        }
        self.layers.element(
            layered
                || !(paint.transform.is_empty()
                    && paint.filter.is_empty()
                    && paint.clip_path.is_empty()
                    && paint.mask.is_empty()
                    && paint.background_image.is_empty()),
        );
        let outer = std::mem::replace(&mut self.opacity, opacity);
        let outer_backdrop = std::mem::replace(&mut self.backdrop, backdrop);
        self.shown_element(el, facts, style, parent_pointer);
        self.opacity = outer;
        self.backdrop = outer_backdrop;
    }

    /// The native checkboxes, radios and ranges inside the "visually hidden" box `el`, walked
    /// at the box's opacity (each is listed only when the label or thumb standing for it is
    /// seen: `usable::hidden_in_walk`).
    fn hidden_wrapped_controls(&mut self, el: &Element, opacity: f64, parent_pointer: bool) {
        let Ok(found) = el.query_selector_all(WRAPPED_CONTROLS) else { return };
        let outer = std::mem::replace(&mut self.opacity, opacity);
        for i in 0..found.length() {
            if let Some(input) = found.item(i) {
                self.node(input, parent_pointer);
            }
        }
        self.opacity = outer;
    }

    /// An element that renders: its frame, its ref and its content.
    fn shown_element(
        &mut self,
        el: &Element,
        facts: NodeFacts,
        style: StyleFacts,
        parent_pointer: bool,
    ) {
        let tag = facts.tag();
        let pointer = style.pointer();
        if tag != "input" && style.positioned() && off_screen(el, style, self.page.scroll_y) {
            return;
        }
        if tag == "iframe" || tag == "frame" {
            return self.frame(el);
        }
        if tag == "canvas" {
            return self.canvas(el);
        }
        let mut role = roles::interactive_role_of(el, facts, pointer && !parent_pointer);
        // Inside a clickable row, an element with its own declared pointer (a star or delete
        // icon, one of two buttons) is a control of its own, not part of the row.
        let nested =
            role.is_none() && pointer && parent_pointer && super::affordance::declared_pointer(el);
        if nested {
            role = roles::interactive_role_of(el, facts, true);
        }
        // Drop zones, draggable cards, terminals, scrolling boxes; delegating roots dropped.
        let signals = Signals {
            listener: facts.listener(),
            own_pointer: (pointer && !parent_pointer) || nested,
            onclick: facts.onclick(),
            tabindex: facts.has_tabindex(),
            drop: facts.drop_target(),
            draggable: facts.draggable(),
            // Read again only where the cursor is a grab hand (rare): the parent's decides.
            grab: style.grab() && super::widgets::own_grab(el),
            scrolls_y: style.scrolls_y(),
        };
        role = super::widgets::refine(el, tag, role, signals, self.viewport_height);
        if let Some(role) = role
            && let Some(listed) = self.listed(el, facts, style, role)
        {
            return listed;
        }
        if tag == "label"
            && el.dyn_ref::<web_sys::HtmlLabelElement>().is_some_and(|l| l.control().is_some())
            && !super::usable::toggle_unrendered(el)
        {
            self.mute += 1;
            self.walk_children(el, facts, pointer);
            self.mute -= 1;
            return;
        }
        let heading = roles::heading_level(el, tag, facts.has_role());
        let block = heading.is_some() || facts::BLOCKS.contains(&tag);
        if tag == "td" || tag == "th" {
            if !self.text.trim().is_empty() {
                self.text.push_str(" | ");
            }
            return self.walk_children(el, facts, pointer);
        }
        if !block {
            // Tags outside the walk's table read as "": named by the element then.
            if self.editing > 0
                && let Some(mark) =
                    if tag.is_empty() { inline_mark(&el.local_name()) } else { inline_mark(tag) }
            {
                return self.marked(el, facts, pointer, mark);
            }
            return self.walk_children(el, facts, pointer);
        }
        self.flush();
        self.zones.push(Slot::Pending(el.clone(), style.positioned()));
        if self.editing > 0 && tag == "li" {
            self.text.push_str(&super::extract::list_marker(el));
        }
        self.walk_children(el, facts, pointer);
        self.flush_heading(heading);
        self.zones.pop();
    }

    /// Lists an interactive element and reads its content; `None` when it is not listed after
    /// all (a script-made clickable inside another control that only repeats its name: the
    /// tab's label, clicked through the tab anyway), so the caller reads it as content.
    fn listed(
        &mut self,
        el: &Element,
        facts: NodeFacts,
        style: StyleFacts,
        role: &'static str,
    ) -> Option<()> {
        let tag = facts.tag();
        let tag = if tag.is_empty() { el.local_name() } else { tag.to_owned() };
        // A field a person cannot see (1 px, faded, covered, out of reach) is a trap.
        if super::usable::is_field(el, &tag, facts.editable())
            && super::usable::hidden_in_walk(el, self.opacity)
        {
            return Some(());
        }
        let Described { mut info, fingerprint } =
            roles::describe(el, &tag, role, self.refs.len() as u32 + 1);
        if role == "clickable"
            && (self.inside.last().is_some_and(|row| *row == info.name)
                || super::affordance::wraps_control(el, &info.name))
        {
            return None;
        }
        self.flush();
        info.zone = match self.settled_zone() {
            Some(zone) if !style.positioned() => zone,
            _ => match self.zone_of(el) {
                Some(zone) => zone,
                None => self.zone(),
            },
        };
        let (name, zone) = (info.name.clone(), info.zone);
        self.refs.push(RefEntry { element: el.clone(), fingerprint });
        self.items.push(Item::Element(info));
        if matches!(tag.as_str(), "select" | "textarea" | "input") {
            return Some(());
        }
        self.inside.push(name);
        self.zones.push(Slot::Known(zone));
        let editor = u32::from(facts.editable());
        self.editing += editor;
        self.walk_children(el, facts, style.pointer());
        self.editing -= editor;
        self.flush();
        self.zones.pop();
        self.inside.pop();
        Some(())
    }

    /// Inline formatting inside an editor, read as its mark around the text (`**bold**`),
    /// the spaces after it kept outside; no mark around nothing (an icon's `<i>`).
    fn marked(&mut self, el: &Element, facts: NodeFacts, pointer: bool, mark: &str) {
        let start = self.text.len();
        self.text.push_str(mark);
        let opened = self.text.len();
        self.walk_children(el, facts, pointer);
        if self.text.get(start..opened) != Some(mark) {
            // A block inside flushed the line: the mark went with it.
            return;
        }
        let body = self.text.trim_end().len();
        if body <= opened {
            let spaces = self.text.split_off(opened);
            self.text.truncate(start);
            self.text.push_str(&spaces);
            return;
        }
        let spaces = self.text.split_off(body);
        self.text.push_str(mark);
        self.text.push_str(&spaces);
    }

    /// A document's body: when the whole document is the editor (a rich-text editor's frame,
    /// its body `contenteditable`), one textbox holding its text, as a person sees one box to
    /// write in; else its content.
    fn body(&mut self, body: &Element) {
        let facts = facts::of_node(body);
        if facts.editable() {
            self.element(body, facts, false);
        } else {
            self.walk_children(body, facts, false);
        }
    }

    /// An iframe: same-document ones (about:blank, srcdoc) are read inline, since no content
    /// script is injected there; others leave a placeholder for the frame merge.
    fn frame(&mut self, el: &Element) {
        self.flush();
        let zone = match self.zone_of(el) {
            Some(zone) => zone,
            None => self.zone(),
        };
        let Some(iframe) = el.dyn_ref::<HtmlIFrameElement>() else { return };
        let src = iframe.src();
        let inline = src.is_empty() || src.starts_with("about:") || el.has_attribute("srcdoc");
        if inline {
            if let Some(body) = iframe.content_document().and_then(|d| d.body()) {
                self.zones.push(Slot::Known(zone));
                self.inline_frames += 1;
                let outer =
                    std::mem::replace(&mut self.backdrop, super::hidden::page_backdrop(&body));
                self.body(&body);
                self.flush();
                self.backdrop = outer;
                self.inline_frames -= 1;
                self.zones.pop();
            }
            return;
        }
        self.items.push(Item::Frame(Frame { src, zone, ..Frame::default() }));
    }

    /// A canvas shows what its script draws, which no DOM walk can read: a line says so (and
    /// what the page calls it), so the model and the user learn it cannot be done here rather
    /// than meeting a blank. Small ones (sparklines, icons) are left out.
    fn canvas(&mut self, el: &Element) {
        let rect = facts::rect(el);
        if rect.width < MIN_CANVAS_PX || rect.height < MIN_CANVAS_PX {
            return;
        }
        self.flush();
        let name = roles::own_label(el);
        let name = if name.is_empty() { String::new() } else { format!(" “{name}”") };
        let text = format!(
            "(canvas{name}, {:.0}×{:.0} px: drawn by the page's script — Waymark cannot read it \
             or act inside it; a screenshot shows it)",
            rect.width, rect.height
        );
        let zone = match self.zone_of(el) {
            Some(zone) => zone,
            None => self.zone(),
        };
        if self.seen.insert(text.clone()) {
            self.items.push(Item::Text { text, heading: None, zone });
        }
    }

    /// Zone of the innermost block with a box, reading pending boxes outermost first (and
    /// not at all inside a block wholly above or below the viewport).
    fn zone(&mut self) -> Zone {
        let mut zone = Zone::In;
        for i in 0..self.zones.len() {
            match &self.zones[i] {
                Slot::Known(z) => zone = *z,
                Slot::Inherit => {}
                Slot::Pending(_, positioned) => {
                    if zone != Zone::In && !positioned {
                        self.zones[i] = Slot::Known(zone);
                        continue;
                    }
                    if let Slot::Pending(el, _) =
                        std::mem::replace(&mut self.zones[i], Slot::Inherit)
                        && let Some(z) = self.zone_of(&el)
                    {
                        self.zones[i] = Slot::Known(z);
                        zone = z;
                    }
                }
            }
        }
        zone
    }

    /// The zone when the current block lies wholly above or below the viewport.
    fn settled_zone(&mut self) -> Option<Zone> {
        Some(self.zone()).filter(|z| *z != Zone::In)
    }

    fn flush(&mut self) {
        self.flush_heading(None);
    }

    fn flush_heading(&mut self, heading: Option<u8>) {
        let pushed = self.push_text(heading);
        self.layers.flushed(pushed.as_deref());
    }

    /// The block's text as a text item; what it pushed.
    fn push_text(&mut self, heading: Option<u8>) -> Option<String> {
        if self.text.is_empty() {
            return None;
        }
        let text = clean(&self.text);
        self.text.clear();
        let text = text.trim_matches(|c: char| c == '|' || c == ' ');
        if text.is_empty() || self.inside.last().is_some_and(|name| name.contains(text)) {
            return None;
        }
        if let Some(crate::observation::Item::Element(el)) = self.items.last()
            && el.name == text
        {
            return None;
        }
        let text = shorten(text, MAX_TEXT);
        if !self.seen.insert(text.clone()) {
            let previous = match self.items.last() {
                Some(Item::Text { text, .. }) => Some(text.as_str()),
                _ => None,
            };
            if !crate::observation::rules::repeat_is_kept(&text, previous) {
                return None;
            }
        }
        let zone = self.zone();
        self.items.push(Item::Text { text: text.clone(), heading, zone });
        Some(text)
    }
}

/// The native controls a "visually hidden" box may wrap for the label or thumb drawn beside
/// it.
const WRAPPED_CONTROLS: &str = "input[type=checkbox],input[type=radio],input[type=range],\
     input[readonly][role=combobox],input[readonly][aria-haspopup=listbox]";

/// Content moved out of sight with CSS (`left: -9999px`, the 1px "visually hidden" clip);
/// `style` is the element's, which is absolutely positioned or fixed; `scroll_y` the frame's.
fn off_screen(el: &Element, style: StyleFacts, scroll_y: f64) -> bool {
    let rect = facts::rect(el);
    rect.right <= 0.0
        || rect.bottom + scroll_y <= 0.0
        || (rect.width <= 1.0 && rect.height <= 1.0 && style.overflow_hidden())
}

/// The markdown mark of an inline formatting element inside an editor.
fn inline_mark(tag: &str) -> Option<&'static str> {
    match tag {
        "strong" | "b" => Some("**"),
        "em" | "i" => Some("_"),
        "s" | "del" | "strike" => Some("~~"),
        _ => None,
    }
}

/// Whether `text` occurs in the frame's visible text (for bounded waits).
pub(super) fn has_text(text: &str) -> bool {
    let Some(body) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.body()) else {
        return false;
    };
    clean(&body.inner_text()).to_lowercase().contains(&clean(text).to_lowercase())
}
