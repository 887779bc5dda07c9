//! Finding the records around an example and reading every record of a page.

use super::{
    CellSource, CollectError, CollectSpec, ColumnPath, Dom, RecordShape, Signature, Step, cell,
};

/// Tags never taken as a record on their own: a cell repeats along its row, but the row is the
/// record.
const NEVER_RECORDS: &[&str] = &["td", "th", "body", "html"];

/// Learns the listing's shape from the example record: `anchor` is the element the model's
/// ref names (absent: the element showing the first column's example).
pub fn learn<D: Dom>(
    dom: &D,
    anchor: Option<D::Node>,
    spec: &CollectSpec,
) -> Result<RecordShape, CollectError> {
    let first = spec.columns.first().ok_or(CollectError::NoColumns)?;
    let anchor = match anchor {
        Some(a) => a,
        None => showing(dom, &cell(&first.example)).ok_or(CollectError::NoExample)?,
    };
    // The smallest element around the anchor that shows every column's example.
    let mut base = anchor;
    loop {
        let all = spec.columns.iter().all(|c| find_in(dom, &base, &c.example).is_some());
        if all {
            break;
        }
        match dom.parent(&base) {
            Some(p) if dom.tag(&p) != "html" => base = p,
            _ => {
                let missing = spec
                    .columns
                    .iter()
                    .find(|c| find_in(dom, &base, &c.example).is_none())
                    .unwrap_or(first);
                return Err(CollectError::ExampleNotFound {
                    column: missing.name.clone(),
                    example: missing.example.clone(),
                });
            }
        }
    }
    let record = repeated_level(dom, base);
    let container = dom.parent(&record).map(|p| dom.signature(&p)).unwrap_or_default();
    let mut columns = Vec::with_capacity(spec.columns.len());
    for c in &spec.columns {
        let (node, source) = find_in(dom, &record, &c.example).ok_or_else(|| {
            CollectError::ExampleNotFound { column: c.name.clone(), example: c.example.clone() }
        })?;
        columns.push(ColumnPath { steps: path(dom, &record, node), source });
    }
    Ok(RecordShape { record: dom.signature(&record), container, columns })
}

/// The lowest element from `base` up whose parent holds other elements of its shape: the
/// records are those siblings. `base` itself when nothing around it repeats.
fn repeated_level<D: Dom>(dom: &D, base: D::Node) -> D::Node {
    let mut cur = base.clone();
    loop {
        let Some(parent) = dom.parent(&cur) else { return base };
        let tag = dom.tag(&cur);
        if tag == "body" || tag == "html" {
            return base;
        }
        if !NEVER_RECORDS.contains(&tag.as_str()) {
            let sig = dom.signature(&cur);
            let same = dom.children(&parent).iter().filter(|c| dom.signature(c) == sig).count();
            if same >= 2 {
                return cur;
            }
        }
        cur = parent;
    }
}

/// The steps from `record` down to `node`.
fn path<D: Dom>(dom: &D, record: &D::Node, node: D::Node) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut cur = node;
    while cur != *record {
        let Some(parent) = dom.parent(&cur) else { break };
        let sig = dom.signature(&cur);
        let nth = dom
            .children(&parent)
            .iter()
            .filter(|c| dom.signature(c) == sig)
            .position(|c| *c == cur)
            .unwrap_or(0);
        steps.push(Step { sig, nth });
        cur = parent;
    }
    steps.reverse();
    steps
}

/// The first element of the document showing exactly `text` (the innermost one): down from
/// the body through the first child that contains it.
fn showing<D: Dom>(dom: &D, text: &str) -> Option<D::Node> {
    if text.is_empty() {
        return None;
    }
    let wanted = text.to_lowercase();
    let mut cur = dom.by_tag("body").into_iter().next()?;
    'down: loop {
        for child in dom.children(&cur) {
            if dom.shown(&child) && cell(&dom.text(&child)).to_lowercase().contains(&wanted) {
                cur = child;
                continue 'down;
            }
        }
        return (cell(&dom.text(&cur)).to_lowercase() == wanted).then_some(cur);
    }
}

/// The innermost element under (and including) `root` whose text satisfies `fits`.
fn innermost<D: Dom>(dom: &D, root: &D::Node, fits: &dyn Fn(&str) -> bool) -> Option<D::Node> {
    if !fits(&cell(&dom.text(root))) {
        return None;
    }
    let mut cur = root.clone();
    'down: loop {
        for child in dom.children(&cur) {
            if fits(&cell(&dom.text(&child))) {
                cur = child;
                continue 'down;
            }
        }
        return Some(cur);
    }
}

/// The element of `root` that shows `example`: its exact text, a link to it, or a text that
/// contains it.
fn find_in<D: Dom>(dom: &D, root: &D::Node, example: &str) -> Option<(D::Node, CellSource)> {
    let example = cell(example);
    if example.is_empty() {
        return None;
    }
    let wanted = example.to_lowercase();
    let looks_like_link = wanted.starts_with("http") || wanted.starts_with('/');
    let link = || link_to(dom, root, &example).map(|n| (n, CellSource::Link));
    if looks_like_link && let Some(found) = link() {
        return Some(found);
    }
    if let Some(n) = innermost(dom, root, &|t: &str| t.to_lowercase() == wanted) {
        return Some((n, CellSource::Text));
    }
    if let Some(found) = link() {
        return Some(found);
    }
    innermost(dom, root, &|t: &str| t.to_lowercase().contains(&wanted))
        .map(|n| (n, CellSource::Text))
}

/// The link under `root` (itself included) whose address is `url` (or ends with it).
fn link_to<D: Dom>(dom: &D, root: &D::Node, url: &str) -> Option<D::Node> {
    let mut stack = vec![root.clone()];
    while let Some(n) = stack.pop() {
        if dom.tag(&n) == "a" {
            let raw = dom.attr(&n, "href").unwrap_or_default();
            let full = dom.href(&n).unwrap_or_default();
            if !raw.is_empty() && (raw == url || full == url || full.ends_with(url)) {
                return Some(n);
            }
        }
        let mut kids = dom.children(&n);
        kids.reverse();
        stack.extend(kids);
    }
    None
}

/// Every record of the page, as `shape` finds them, and the items of their containers that
/// are no records (another shape, or without the columns).
pub fn read<D: Dom>(dom: &D, shape: &RecordShape) -> (Vec<D::Node>, Vec<Vec<String>>, u32) {
    let mut records = Vec::new();
    let mut rows = Vec::new();
    let mut skipped = 0u32;
    let mut containers: Vec<D::Node> = Vec::new();
    for candidate in dom.by_tag(&shape.record.tag) {
        let Some(parent) = dom.parent(&candidate) else { continue };
        if dom.signature(&candidate) != shape.record || dom.signature(&parent) != shape.container {
            continue;
        }
        if !containers.contains(&parent) {
            skipped += dom
                .children(&parent)
                .iter()
                .filter(|c| dom.shown(c) && dom.signature(c) != shape.record)
                .count() as u32;
            containers.push(parent);
        }
        if !dom.shown(&candidate) {
            continue;
        }
        let row: Vec<String> =
            shape.columns.iter().map(|c| value(dom, &candidate, c).unwrap_or_default()).collect();
        let found = row.iter().filter(|v| !v.is_empty()).count();
        // More than half of the columns, so an item of the same shape holding other things
        // (a promotion in a card) is not taken for a record.
        if found * 2 > row.len() {
            records.push(candidate);
            rows.push(row);
        } else {
            skipped += 1;
        }
    }
    (records, rows, skipped)
}

/// The value of one column in `record`.
fn value<D: Dom>(dom: &D, record: &D::Node, column: &ColumnPath) -> Option<String> {
    let node = follow(dom, record, &column.steps)?;
    let v = match column.source {
        CellSource::Text => cell(&dom.text(&node)),
        CellSource::Link => {
            let link = if dom.tag(&node) == "a" { Some(node) } else { first_link(dom, &node) };
            link.and_then(|l| dom.href(&l)).map(|h| cell(&h)).unwrap_or_default()
        }
    };
    Some(v)
}

/// The element at `steps` below `record`; when the record is laid out a little differently,
/// the first element below it with the last step's shape.
fn follow<D: Dom>(dom: &D, record: &D::Node, steps: &[Step]) -> Option<D::Node> {
    let mut cur = record.clone();
    for step in steps {
        let next =
            dom.children(&cur).into_iter().filter(|c| dom.signature(c) == step.sig).nth(step.nth);
        match next {
            Some(n) => cur = n,
            None => return steps.last().and_then(|last| first_of(dom, record, &last.sig)),
        }
    }
    Some(cur)
}

fn first_of<D: Dom>(dom: &D, root: &D::Node, sig: &Signature) -> Option<D::Node> {
    let mut stack = dom.children(root);
    stack.reverse();
    while let Some(n) = stack.pop() {
        if dom.signature(&n) == *sig {
            return Some(n);
        }
        let mut kids = dom.children(&n);
        kids.reverse();
        stack.extend(kids);
    }
    None
}

fn first_link<D: Dom>(dom: &D, root: &D::Node) -> Option<D::Node> {
    let mut stack = dom.children(root);
    stack.reverse();
    while let Some(n) = stack.pop() {
        if dom.tag(&n) == "a" {
            return Some(n);
        }
        let mut kids = dom.children(&n);
        kids.reverse();
        stack.extend(kids);
    }
    None
}
