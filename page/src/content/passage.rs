//! Rich text in the page: selecting a quoted passage inside an editor (or a field) the way a
//! person drags over it, reading an editor's text with its formatting, and checking that a
//! formatting command (Ctrl+B, a toolbar's Bold) changed what it was meant to. What is decided
//! about the text is in [`crate::action::richtext`]; this module reads and writes the DOM.

use crate::act_error::{ActError, SelectionError};
use crate::action::ActionOutcome;
use crate::action::richtext::{Marks, Piece, Span, judge_format, locate, markdown};
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, HtmlInputElement, HtmlTextAreaElement, Node};

/// Frames an editor gets to take a selection or apply a command (most do it at once or on the
/// next `selectionchange`; some on the next animation frame).
const READ_BACK_TRIES: u32 = 8;

/// Elements that start a new line of text inside an editor.
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "li",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
    "pre",
    "tr",
    "td",
    "th",
    "dd",
    "dt",
    "ul",
    "ol",
    "section",
    "article",
    "figcaption",
];

/// The editable region `el` names: itself when it is one, else the first editable region
/// inside it (a wrapper the page labelled), else the region it is inside.
pub(super) fn editor_of(el: &Element) -> Option<HtmlElement> {
    let html = html_of(el)?;
    if html.is_content_editable() {
        return Some(editing_root(html));
    }
    el.query_selector("[contenteditable]:not([contenteditable=false])")
        .ok()
        .flatten()
        .and_then(|e| html_of(&e))
        .filter(HtmlElement::is_content_editable)
}

/// `el` as an HTML element, also when it belongs to another frame's window (the editable body
/// of a same-origin editor frame, read inline), where a `dyn_ref` (an `instanceof` this
/// window's `HTMLElement`) says no.
fn html_of(el: &Element) -> Option<HtmlElement> {
    let html = el.namespace_uri().as_deref() == Some("http://www.w3.org/1999/xhtml");
    html.then(|| el.clone().unchecked_into())
}

/// The outermost editable element around `el` (the editor's root, not a paragraph in it).
fn editing_root(mut el: HtmlElement) -> HtmlElement {
    while let Some(parent) = el.parent_element().and_then(|p| html_of(&p)) {
        if !parent.is_content_editable() {
            break;
        }
        el = parent;
    }
    el
}

/// The text nodes of `root` in document order, as [`Piece`]s.
fn text_nodes(root: &Element) -> (Vec<Piece>, Vec<Node>) {
    let (mut pieces, mut nodes) = (Vec::new(), Vec::new());
    let Some(document) = root.owner_document() else { return (pieces, nodes) };
    let Ok(walker) = document.create_tree_walker_with_what_to_show(root, 4) else {
        return (pieces, nodes);
    };
    let mut last_block: Option<Element> = None;
    while let Ok(Some(node)) = walker.next_node() {
        let text = node.node_value().unwrap_or_default();
        let block = block_of(&node, root);
        let breaks_before = last_block.as_ref() != Some(&block) || after_break(&node);
        last_block = Some(block);
        pieces.push(Piece { text, breaks_before });
        nodes.push(node);
    }
    (pieces, nodes)
}

/// The nearest block element around a text node, inside `root` (or `root`).
fn block_of(node: &Node, root: &Element) -> Element {
    let mut el = node.parent_element();
    while let Some(e) = el {
        if &e == root || BLOCKS.contains(&e.local_name().as_str()) {
            return e;
        }
        el = e.parent_element();
    }
    root.clone()
}

/// Whether a `<br>` comes just before the text node (a line break inside one block).
fn after_break(node: &Node) -> bool {
    node.previous_sibling()
        .and_then(|s| s.dyn_into::<Element>().ok())
        .is_some_and(|e| e.local_name() == "br")
}

/// The marks of a text node from its elements up to the editor's root.
fn marks_of(node: &Node, root: &Element) -> Marks {
    let mut marks = Marks::default();
    let mut el = node.parent_element();
    while let Some(e) = el {
        if &e == root {
            break;
        }
        let tag = e.local_name();
        marks.add_element(&tag, &e.get_attribute("style").unwrap_or_default());
        if tag == "a"
            && marks.link.is_none()
            && let Some(a) = e.dyn_ref::<web_sys::HtmlAnchorElement>()
        {
            marks.link = Some(a.href());
        }
        el = e.parent_element();
    }
    marks
}

/// The prefix of a block as markdown: `# ` for a heading, `- ` or `1. ` for a list item.
fn block_prefix(block: &Element) -> String {
    let tag = block.local_name();
    match tag.as_str() {
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
            let level = tag.get(1..).and_then(|l| l.parse::<usize>().ok()).unwrap_or(1);
            format!("{} ", "#".repeat(level))
        }
        "li" => super::extract::list_marker(block),
        "blockquote" => "> ".to_owned(),
        _ => String::new(),
    }
}

/// The editor's text with its formatting, one block a line: what a formatting command is
/// judged by, and what `extract` and the outcome show.
pub(super) fn formatted(root: &Element) -> String {
    let (pieces, nodes) = text_nodes(root);
    let mut lines: Vec<String> = Vec::new();
    let mut runs: Vec<(String, Marks)> = Vec::new();
    let mut prefix = String::new();
    let flush = |lines: &mut Vec<String>, runs: &mut Vec<(String, Marks)>, prefix: &str| {
        let text = crate::observation::clean(&markdown(runs));
        runs.clear();
        if !text.is_empty() {
            lines.push(format!("{prefix}{text}"));
        }
    };
    for (piece, node) in pieces.iter().zip(&nodes) {
        if piece.breaks_before {
            flush(&mut lines, &mut runs, &prefix);
            prefix = block_prefix(&block_of(node, root));
        }
        runs.push((piece.text.clone(), marks_of(node, root)));
    }
    flush(&mut lines, &mut runs, &prefix);
    lines.join("\n")
}

/// The current selection's text with its formatting, when it lies inside `root`.
fn selected_formatted(root: &Element) -> Option<String> {
    let document = root.owner_document()?;
    let selection = document.get_selection().ok()??;
    if selection.is_collapsed() || selection.range_count() == 0 {
        return None;
    }
    let range = selection.get_range_at(0).ok()?;
    let (pieces, nodes) = text_nodes(root);
    let mut runs = Vec::new();
    for (piece, node) in pieces.iter().zip(&nodes) {
        if !range.intersects_node(node).unwrap_or(false) {
            continue;
        }
        let units: Vec<u16> = piece.text.encode_utf16().collect();
        let from =
            if &range.start_container().ok()? == node { range.start_offset().ok()? } else { 0 };
        let to = if &range.end_container().ok()? == node {
            range.end_offset().ok()?
        } else {
            units.len() as u32
        };
        let part = units.get(from as usize..(to as usize).min(units.len())).unwrap_or_default();
        runs.push((String::from_utf16_lossy(part), marks_of(node, root)));
    }
    Some(crate::observation::clean(&markdown(&runs)))
}

/// The editor holding a selection that covers some text, if any (what a formatting command
/// applies to).
pub(super) fn editor_with_selection() -> Option<HtmlElement> {
    let document = web_sys::window()?.document()?;
    let selection = document.get_selection().ok()??;
    if selection.is_collapsed() {
        return None;
    }
    let anchor = selection.anchor_node()?;
    let el = match anchor.dyn_ref::<Element>() {
        Some(el) => el.clone(),
        None => anchor.parent_element()?,
    };
    let html = html_of(&el)?;
    html.is_content_editable().then(|| editing_root(html))
}

/// Selects `text` inside the editor or field `el`, then reads the selection back.
pub(super) async fn select_text(el: &Element, text: &str) -> Result<ActionOutcome, ActError> {
    if let Some(field) = el.dyn_ref::<HtmlInputElement>() {
        return select_in_field(el, &field.value(), text, |s, e| field.set_selection_range(s, e));
    }
    if let Some(area) = el.dyn_ref::<HtmlTextAreaElement>() {
        return select_in_field(el, &area.value(), text, |s, e| area.set_selection_range(s, e));
    }
    let Some(editor) = editor_of(el) else {
        return Err(SelectionError::NotEditable.into());
    };
    let (pieces, nodes) = text_nodes(&editor);
    let span = locate(&pieces, text).map_err(SelectionError::InEditor)?;
    crate::js::best_effort(editor.focus(), "focus the editor");
    set_selection(&editor, &nodes, span)?;
    let wanted = crate::observation::clean(text).to_lowercase();
    let mut got = String::new();
    for _ in 0..READ_BACK_TRIES {
        super::drag::sleep(16).await;
        got = current_selection_text(&editor);
        if got == wanted {
            let shown = selected_formatted(&editor).unwrap_or_else(|| text.to_owned());
            return Ok(ActionOutcome::with_text(format!("selected “{shown}”")));
        }
    }
    Err(SelectionError::NotKept(got).into())
}

/// The selection's text as a person reads it (lower case, whitespace collapsed).
fn current_selection_text(editor: &HtmlElement) -> String {
    let selection = editor.owner_document().and_then(|d| d.get_selection().ok().flatten());
    let text = selection.map(|s| String::from(s.to_string())).unwrap_or_default();
    crate::observation::clean(&text).to_lowercase()
}

fn set_selection(editor: &HtmlElement, nodes: &[Node], span: Span) -> Result<(), ActError> {
    let (Some(start), Some(end)) = (nodes.get(span.start.piece), nodes.get(span.end.piece)) else {
        return Err(SelectionError::EditorChanged.into());
    };
    let document = editor.owner_document().ok_or(ActError::NoDocument)?;
    let selection = document.get_selection().ok().flatten().ok_or(SelectionError::NoSelection)?;
    selection
        .set_base_and_extent(start, span.start.offset, end, span.end.offset)
        .map_err(|e| SelectionError::Failed(crate::js::js_message(&e)).into())
}

/// Selects `text` in a field's value (offsets in UTF-16 units, as the field counts them).
fn select_in_field(
    el: &Element,
    value: &str,
    text: &str,
    select: impl Fn(u32, u32) -> Result<(), wasm_bindgen::JsValue>,
) -> Result<ActionOutcome, ActError> {
    let pieces = [Piece { text: value.to_owned(), breaks_before: true }];
    let span = locate(&pieces, text).map_err(SelectionError::InField)?;
    if let Some(html) = el.dyn_ref::<HtmlElement>() {
        crate::js::best_effort(html.focus(), "focus the field");
    }
    select(span.start.offset, span.end.offset)
        .map_err(|e| SelectionError::FieldRefused(crate::js::js_message(&e)))?;
    let units: Vec<u16> = value.encode_utf16().collect();
    let part = units.get(span.start.offset as usize..span.end.offset as usize).unwrap_or_default();
    Ok(ActionOutcome::with_text(format!("selected “{}”", String::from_utf16_lossy(part))))
}

/// A formatting command about to run on the selection in `editor`: its text before.
pub(super) struct FormatWatch {
    editor: HtmlElement,
    before: String,
}

impl FormatWatch {
    /// Watches the editor holding the selection, when there is one.
    pub fn start() -> Option<Self> {
        let editor = editor_with_selection()?;
        let before = formatted(&editor);
        Some(Self { editor, before })
    }

    /// After the command: what it changed, or that it changed nothing (an error: a command
    /// that did nothing is never reported as done).
    pub async fn judge(self, mut outcome: ActionOutcome) -> ActionOutcome {
        if !outcome.ok {
            return outcome;
        }
        let mut after = formatted(&self.editor);
        for _ in 0..READ_BACK_TRIES {
            if after != self.before || !self.editor.is_connected() {
                break;
            }
            super::drag::sleep(16).await;
            after = formatted(&self.editor);
        }
        if !self.editor.is_connected() {
            return outcome;
        }
        let selected = selected_formatted(&self.editor).unwrap_or_default();
        match judge_format(&self.before, &after, &selected) {
            Ok(note) => {
                outcome.value_changed = true;
                outcome.text = Some(note);
                outcome
            }
            Err(nothing) => ActError::from(nothing).into(),
        }
    }
}
