//! `collect`: every record of a repeated list or table, read from the DOM without the model.
//!
//! The model names the records once — a ref inside one example record and, for each column,
//! that record's text (or link) for it. [`learn`] finds the repeated structure around the
//! example (same-shape siblings: table rows, cards, list items) and how each column sits in
//! it ([`RecordShape`]); [`read`] applies the shape to any page of the listing, skipping items
//! of another shape between records (ads, banners) and items where the columns are not found;
//! [`find_pager`] finds how the listing goes on ("Next", the next page number, "Load more",
//! or more content below for infinite scroll).
//!
//! Written over the small [`Dom`] trait so the logic is tested natively on plain trees; the
//! content script implements it on the live DOM (`content::collect`).

mod find;
mod pager;

pub use find::{learn, read};
pub use pager::{Pager, PagerKind, find_pager};

use crate::observation::Ref;
use serde::{Deserialize, Serialize};

/// Most pages one `collect` reads when the model sets no budget.
pub const DEFAULT_PAGES: u32 = 10;

/// The most pages one `collect` may read, whatever the model asks.
pub const MAX_PAGES: u32 = 50;

/// Most rows one `collect` keeps (a finding, not a crawl).
pub const MAX_ROWS: usize = 5000;

/// Longest cell kept, in characters.
pub const MAX_CELL_CHARS: usize = 2000;

/// The model's request: which records and which columns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CollectSpec {
    /// A ref inside one example record (its link, its title); absent: the record holding the
    /// first column's example text.
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub record: Option<Ref>,
    /// The columns, in order.
    pub columns: Vec<ColumnSpec>,
    /// Most pages to read (the page budget); [`DEFAULT_PAGES`] when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<u32>,
    /// The table's name for the findings (`products`); the task's words when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The shape learned on the first page: later pages are read with it, not with refs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<RecordShape>,
}

impl CollectSpec {
    /// The page budget, bounded.
    pub fn page_budget(&self) -> u32 {
        self.pages.unwrap_or(DEFAULT_PAGES).clamp(1, MAX_PAGES)
    }

    /// The column names, in order.
    pub fn column_names(&self) -> Vec<String> {
        self.columns.iter().map(|c| c.name.clone()).collect()
    }
}

/// One column: its name and the example record's value for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ColumnSpec {
    /// Column name (`price`).
    pub name: String,
    /// The example record's text for it (`$24.99`), or the URL of a link in it.
    pub example: String,
}

/// An element's shape: its tag and its classes (sorted), what repeated records share.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Signature {
    /// Lower-case tag name.
    pub tag: String,
    /// Class names, sorted, deduplicated.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub classes: Vec<String>,
}

/// One step down from an element: the `nth` child (0-based) among its children of `sig`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Step {
    /// The child's shape.
    pub sig: Signature,
    /// Its position among the siblings of that shape.
    pub nth: usize,
}

/// What a cell is read from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum CellSource {
    /// The element's text.
    #[default]
    Text,
    /// The address of the link (absolute).
    Link,
}

/// Where one column sits inside a record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ColumnPath {
    /// Steps from the record down to the element.
    pub steps: Vec<Step>,
    /// Text or link.
    #[serde(default)]
    pub source: CellSource,
}

/// How the records of a listing are found and read on any of its pages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RecordShape {
    /// The records' own shape.
    pub record: Signature,
    /// The shape of the element holding them.
    pub container: Signature,
    /// Where each column sits, in the spec's order.
    pub columns: Vec<ColumnPath>,
}

/// Why the records could not be found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CollectError {
    /// The example record holds no text or link for a column.
    #[error(
        "column “{column}”: the example record shows no “{example}”; give that record's own text for it"
    )]
    ExampleNotFound {
        /// Column name.
        column: String,
        /// The example given.
        example: String,
    },
    /// No column was given.
    #[error("collect needs at least one column (a name and the example record's text for it)")]
    NoColumns,
    /// Nothing on the page to start from.
    #[error("no example record: give the ref of an element inside one record")]
    NoExample,
}

/// One page's records, as read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CollectedPage {
    /// Where they were read.
    pub url: String,
    /// The rows, each one value per column.
    pub rows: Vec<Vec<String>>,
    /// Items of the records' container skipped because they are of another shape, or lack
    /// the columns (ads, banners between records).
    #[serde(default)]
    pub skipped: u32,
    /// The shape used (the learned one on the first page).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<RecordShape>,
    /// How the listing goes on, if it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pager: Option<Pager>,
}

/// What a `collect` action brought back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Collected {
    /// One page, as the content script read it.
    Page(CollectedPage),
    /// Every page's rows together, as the agent keeps them with the step.
    Table(waymark_protocol::Table),
}

/// The DOM as `collect` needs it.
pub trait Dom {
    /// An element handle.
    type Node: Clone + PartialEq;
    /// Its parent element.
    fn parent(&self, n: &Self::Node) -> Option<Self::Node>;
    /// Its element children, in order.
    fn children(&self, n: &Self::Node) -> Vec<Self::Node>;
    /// Lower-case tag name.
    fn tag(&self, n: &Self::Node) -> String;
    /// Its class names.
    fn classes(&self, n: &Self::Node) -> Vec<String>;
    /// Its text, as a person reads it (whitespace collapsed).
    fn text(&self, n: &Self::Node) -> String;
    /// An attribute.
    fn attr(&self, n: &Self::Node, name: &str) -> Option<String>;
    /// The absolute address a link goes to.
    fn href(&self, n: &Self::Node) -> Option<String>;
    /// Whether a person can see it (hidden templates are no records).
    fn shown(&self, n: &Self::Node) -> bool;
    /// Every element of `tag` in document order.
    fn by_tag(&self, tag: &str) -> Vec<Self::Node>;
    /// Whether the document goes on below the viewport (infinite scroll may load more there).
    fn more_below(&self) -> bool;

    /// The element's shape.
    fn signature(&self, n: &Self::Node) -> Signature {
        let mut classes: Vec<String> =
            self.classes(n).into_iter().filter(|c| !c.is_empty()).collect();
        classes.sort();
        classes.dedup();
        Signature { tag: self.tag(n), classes }
    }
}

/// `text` with whitespace collapsed and invisible characters gone, at most
/// [`MAX_CELL_CHARS`] characters.
pub fn cell(text: &str) -> String {
    crate::observation::shorten(&crate::observation::clean(text), MAX_CELL_CHARS)
}

#[cfg(test)]
mod tests;
