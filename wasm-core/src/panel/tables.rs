//! Table findings as the panel shows them: the worker builds every cell (links only for web
//! URLs), the panel only draws; long tables show their first rows and say how many more the
//! CSV holds.

use crate::safety::origin_of;
use serde::{Deserialize, Serialize};
use waymark_protocol::Table;

/// Rows drawn in the panel per table; the CSV and the exports hold every row.
pub const PANEL_ROWS: usize = 100;

/// One table finding in the panel.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TableView {
    /// Its position among the turn's tables (what "Save CSV" names).
    pub index: usize,
    /// `products: 87 rows × 4 columns (…) from 3 pages; last page reached`.
    pub caption: String,
    /// Column headers.
    pub columns: Vec<String>,
    /// The first [`PANEL_ROWS`] rows, a cell per column.
    pub rows: Vec<Vec<CellView>>,
    /// Rows not drawn.
    pub more: usize,
}

/// One cell.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CellView {
    /// Its text.
    pub text: String,
    /// The text as a link to open in a new tab, when it is an http(s) URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
}

/// The panel's view of each table.
pub fn table_views(tables: &[Table]) -> Vec<TableView> {
    tables
        .iter()
        .enumerate()
        .map(|(index, table)| TableView {
            index,
            caption: format!("{}; {}", table.summary_line(), table.end.words()),
            columns: table.columns.clone(),
            rows: table
                .rows
                .iter()
                .take(PANEL_ROWS)
                .map(|row| {
                    (0..table.columns.len())
                        .map(|i| cell(row.values.get(i).map_or("", String::as_str)))
                        .collect()
                })
                .collect(),
            more: table.rows.len().saturating_sub(PANEL_ROWS),
        })
        .collect()
}

fn cell(text: &str) -> CellView {
    let t = text.trim();
    let link = (origin_of(t).is_some() && !t.contains(char::is_whitespace)).then(|| t.to_owned());
    CellView { text: text.to_owned(), link }
}

#[cfg(test)]
mod tests {
    use super::*;
    use waymark_protocol::TableRow;

    #[test]
    fn cells_link_only_web_urls_and_long_tables_say_how_many_more() {
        let rows = (0..PANEL_ROWS + 7)
            .map(|i| TableRow {
                values: vec![
                    format!("item {i}"),
                    "javascript:alert(1)".into(),
                    "https://a.example/x".into(),
                ],
                source: "https://a.example/".into(),
            })
            .collect();
        let table = Table {
            name: "items".into(),
            columns: vec!["name".into(), "script".into(), "link".into()],
            rows,
            pages: 2,
            ..Table::default()
        };
        let views = table_views(&[table]);
        assert_eq!(views[0].rows.len(), PANEL_ROWS);
        assert_eq!(views[0].more, 7);
        assert_eq!(views[0].rows[0][1].link, None);
        assert_eq!(views[0].rows[0][2].link.as_deref(), Some("https://a.example/x"));
        assert!(
            views[0].caption.starts_with("items: 107 rows × 3 columns"),
            "{}",
            views[0].caption
        );
    }
}
