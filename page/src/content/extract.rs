//! The readable text of the page or of one element as markdown (tables kept as tables), and
//! finding the element that shows a text.

use crate::observation::{clean, shorten};
use wasm_bindgen::JsCast;
use web_sys::{Element, Node};

/// Longest extract returned to the model at once.
const MAX_CHARS: usize = 20_000;

/// Markdown of `root`, or of the whole body.
pub(super) fn markdown(root: Option<&Element>) -> String {
    let body: Option<Element> = match root {
        Some(el) => Some(el.clone()),
        None => web_sys::window().and_then(|w| w.document()).and_then(|d| d.body()).map(Into::into),
    };
    let Some(body) = body else { return String::new() };
    // What the page itself paints behind its text (the element's own ancestors' opacity is
    // not known from here: 1).
    let page_body = web_sys::window().and_then(|w| w.document()).and_then(|d| d.body());
    let backdrop = match page_body {
        Some(page_body) => super::hidden::page_backdrop(&page_body),
        None => Some([255.0, 255.0, 255.0, 1.0]),
    };
    let mut out =
        Markdown { text: String::new(), line: String::new(), depth: 0, opacity: 1.0, backdrop };
    out.children(&body);
    out.block();
    let text = out.text.trim().to_owned();
    if text.chars().count() > MAX_CHARS {
        return format!(
            "{}\n(truncated: extract a smaller element for the rest)",
            shorten(&text, MAX_CHARS)
        );
    }
    text
}

struct Markdown {
    text: String,
    line: String,
    /// Nesting, bounded like the observation walker's (wasm has no stack guard).
    depth: u32,
    /// The ancestors' opacity and what their text sits on: the walk's own rules for text a
    /// person cannot see (`hidden::invisible`) apply here too, so `extract` never carries
    /// what the observation leaves out as hidden.
    opacity: f64,
    backdrop: super::hidden::Backdrop,
}

impl Markdown {
    fn block(&mut self) {
        let line = clean(&self.line);
        self.line.clear();
        if !line.is_empty() {
            self.text.push_str(&line);
            self.text.push('\n');
        }
    }

    fn children(&mut self, el: &Element) {
        if self.depth >= 192 {
            self.line.push_str(&el.text_content().unwrap_or_default());
            return;
        }
        self.depth += 1;
        self.children_inner(el);
        self.depth -= 1;
    }

    fn children_inner(&mut self, el: &Element) {
        let first = match el.shadow_root() {
            Some(shadow) => shadow.first_child(),
            None => el.first_child(),
        };
        let mut child = first;
        while let Some(node) = child {
            child = node.next_sibling();
            match node.node_type() {
                Node::TEXT_NODE => self.line.push_str(&node.node_value().unwrap_or_default()),
                Node::ELEMENT_NODE => self.element(node.unchecked_ref()),
                _ => {}
            }
        }
    }

    fn element(&mut self, el: &Element) {
        let tag = el.local_name();
        if matches!(tag.as_str(), "script" | "style" | "noscript" | "template" | "svg" | "head") {
            return;
        }
        if el.get_attribute("aria-hidden").as_deref() == Some("true") || !visible(el) {
            return;
        }
        let paint = super::facts::paint_of(el);
        let opacity = self.opacity * paint.opacity * super::hidden::filter_opacity(&paint);
        let backdrop = super::hidden::backdrop(&paint, self.backdrop);
        if super::hidden::invisible(el, &paint, opacity, backdrop) {
            return;
        }
        let outer = (std::mem::replace(&mut self.opacity, opacity), self.backdrop);
        self.backdrop = backdrop;
        self.shown_element(el, &tag);
        (self.opacity, self.backdrop) = outer;
    }

    fn shown_element(&mut self, el: &Element, tag: &str) {
        if let Some(editor) = el.dyn_ref::<web_sys::HtmlElement>().filter(|h| {
            h.is_content_editable()
                && !h.parent_element().is_some_and(|p| {
                    p.dyn_ref::<web_sys::HtmlElement>().is_some_and(|p| p.is_content_editable())
                })
        }) {
            // An editor: its text with the formatting it holds, one block a line.
            self.block();
            for line in super::passage::formatted(editor).lines() {
                self.line.push_str(line);
                self.block();
            }
            return;
        }
        let mark = match tag {
            "strong" | "b" => Some("**"),
            "em" | "i" => Some("_"),
            "s" | "del" | "strike" => Some("~~"),
            _ => None,
        };
        if let Some(mark) = mark {
            return self.marked(el, mark);
        }
        match tag {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                self.block();
                let level = usize::from(tag.as_bytes()[1] - b'0');
                self.line.push_str(&"#".repeat(level));
                self.line.push(' ');
                self.children(el);
                self.block();
            }
            "li" => {
                self.block();
                self.line.push_str(&list_marker(el));
                self.children(el);
                self.block();
            }
            "table" => {
                self.block();
                self.table(el);
            }
            "a" => {
                let href = el.get_attribute("href").unwrap_or_default();
                let text = clean(&el.text_content().unwrap_or_default());
                if href.starts_with("http") && !text.is_empty() {
                    self.line.push_str(&format!(" [{text}]({href}) "));
                } else {
                    self.children(el);
                }
            }
            "br" => self.block(),
            "input" | "textarea" | "select" => self.field(el, tag),
            "button" => {}
            "img" => {
                if let Some(alt) =
                    el.get_attribute("alt").map(|a| clean(&a)).filter(|a| !a.is_empty())
                {
                    self.line.push_str(&format!(" [image: {alt}] "));
                }
            }
            "p" | "div" | "section" | "article" | "main" | "header" | "footer" | "nav" | "ul"
            | "ol" | "dl" | "dt" | "dd" | "blockquote" | "pre" | "form" | "fieldset" | "figure"
            | "figcaption" | "aside" | "tr" | "details" | "summary" | "label" => {
                self.block();
                self.children(el);
                self.block();
            }
            _ => self.children(el),
        }
    }

    /// Inline formatting around an element's text (`**bold**`), its spaces kept outside; a
    /// mark around blocks (a bold paragraph) is left out rather than split over lines.
    fn marked(&mut self, el: &Element, mark: &str) {
        let (start, lines) = (self.line.len(), self.text.len());
        self.children(el);
        if self.text.len() != lines {
            return;
        }
        let inner = self.line.split_off(start);
        let trimmed = inner.trim();
        if trimmed.is_empty() {
            self.line.push_str(&inner);
            return;
        }
        let lead = if inner.starts_with(char::is_whitespace) { " " } else { "" };
        let trail = if inner.ends_with(char::is_whitespace) { " " } else { "" };
        self.line.push_str(&format!("{lead}{mark}{trimmed}{mark}{trail}"));
    }

    /// A form field's current value (what the user or Waymark wrote there), never a secret's:
    /// `[Bio: text…]`.
    fn field(&mut self, el: &Element, tag: &str) {
        let attrs = super::facts::Attrs::of(el);
        let kind = attrs.get("type").unwrap_or_default().to_ascii_lowercase();
        if super::roles::sensitive(&attrs)
            || matches!(kind.as_str(), "hidden" | "button" | "submit" | "reset" | "image" | "file")
        {
            return;
        }
        let value = if let Some(select) = el.dyn_ref::<web_sys::HtmlSelectElement>() {
            let options = select.selected_options();
            (0..options.length())
                .filter_map(|i| options.item(i))
                .filter_map(|o| o.text_content())
                .map(|t| clean(&t))
                .collect::<Vec<_>>()
                .join(", ")
        } else if let Some(input) = el.dyn_ref::<web_sys::HtmlInputElement>() {
            if matches!(kind.as_str(), "checkbox" | "radio") {
                (if input.checked() { "checked" } else { "unchecked" }).to_owned()
            } else {
                input.value()
            }
        } else if let Some(area) = el.dyn_ref::<web_sys::HtmlTextAreaElement>() {
            area.value()
        } else {
            return;
        };
        let name = super::roles::accessible_name(el, tag);
        let value = value.replace(['\n', '\r'], " ");
        self.line.push_str(&format!(" [{name}: {value}] "));
    }

    fn table(&mut self, table: &Element) {
        let Ok(rows) = table.query_selector_all("tr") else { return };
        let mut widest = 0;
        let mut lines = Vec::new();
        for i in 0..rows.length() {
            let Some(row) = rows.item(i).and_then(|r| r.dyn_into::<Element>().ok()) else {
                continue;
            };
            if !visible(&row) {
                continue;
            }
            let cells = row.children();
            let mut texts = Vec::new();
            for j in 0..cells.length() {
                if let Some(cell) = cells.item(j) {
                    texts.push(clean(&cell.text_content().unwrap_or_default()).replace('|', "\\|"));
                }
            }
            widest = widest.max(texts.len());
            lines.push(texts);
        }
        for (i, cells) in lines.iter().enumerate() {
            let mut cells = cells.clone();
            cells.resize(widest, String::new());
            self.text.push_str(&format!("| {} |\n", cells.join(" | ")));
            if i == 0 {
                self.text.push_str(&format!("|{}\n", " --- |".repeat(widest)));
            }
        }
    }
}

/// `- ` for an item of a bulleted list, `3. ` for the third of a numbered one.
pub(super) fn list_marker(li: &Element) -> String {
    if li.parent_element().is_none_or(|p| p.local_name() != "ol") {
        return "- ".to_owned();
    }
    let mut n = 1;
    let mut sibling = li.previous_element_sibling();
    while let Some(s) = sibling {
        n += usize::from(s.local_name() == "li");
        sibling = s.previous_element_sibling();
    }
    format!("{n}. ")
}

fn visible(el: &Element) -> bool {
    let Some(window) = web_sys::window() else { return true };
    match window.get_computed_style(el) {
        Ok(Some(style)) => {
            style.get_property_value("display").unwrap_or_default() != "none"
                && style.get_property_value("visibility").unwrap_or_default() != "hidden"
        }
        _ => true,
    }
}

/// The innermost visible element whose text contains `text` (case-insensitive).
pub(super) fn element_with_text(text: &str) -> Option<Element> {
    let document = web_sys::window()?.document()?;
    let body = document.body()?;
    let wanted = clean(text).to_lowercase();
    let walker = document.create_tree_walker_with_what_to_show(&body, 4).ok()?;
    while let Ok(Some(node)) = walker.next_node() {
        let value = node.node_value().unwrap_or_default();
        if clean(&value).to_lowercase().contains(&wanted) {
            let parent = node.parent_element()?;
            if visible(&parent) && parent.get_bounding_client_rect().height() > 0.0 {
                return Some(parent);
            }
        }
    }
    None
}
