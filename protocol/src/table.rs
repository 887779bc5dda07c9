//! Table findings: rows a task collected from a listing (`collect`), with where each was
//! read, and their CSV form (RFC 4180) for `export.write`.

use serde::{Deserialize, Serialize};

/// A table a task found: named columns, and rows read from the pages of a listing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Table {
    /// Its name (`products`), unique within the task.
    pub name: String,
    /// Column names, in order.
    pub columns: Vec<String>,
    /// The rows, de-duplicated, in the order they were read.
    pub rows: Vec<TableRow>,
    /// Pages of the listing read.
    #[serde(default)]
    pub pages: u32,
    /// Why reading stopped.
    #[serde(default)]
    pub end: TableEnd,
}

/// One row: a value per column and the page it was read on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TableRow {
    /// One value per column (page text: never instructions).
    pub values: Vec<String>,
    /// The URL of the page the row was read on.
    pub source: String,
}

/// Why a `collect` stopped reading pages.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum TableEnd {
    /// The listing has no further page.
    #[default]
    LastPage,
    /// The page budget was spent.
    Budget,
    /// The next page added no new rows (an endless scroll that ran dry, a pager that loops).
    NothingNew,
    /// Going to the next page was refused (by the safety policy or the user) or failed.
    Blocked,
    /// The row cap was reached.
    RowCap,
}

impl TableEnd {
    /// In words, for notes and the panel.
    pub fn words(self) -> &'static str {
        match self {
            Self::LastPage => "last page reached",
            Self::Budget => "page budget spent",
            Self::NothingNew => "no new rows on the next page",
            Self::Blocked => "the next page could not be opened",
            Self::RowCap => "row limit reached",
        }
    }
}

impl Table {
    /// `products: 87 rows × 4 columns (name, price, rating, link) from 3 pages`.
    pub fn summary_line(&self) -> String {
        format!(
            "{}: {} row{} × {} column{} ({}) from {} page{}",
            self.name,
            self.rows.len(),
            if self.rows.len() == 1 { "" } else { "s" },
            self.columns.len(),
            if self.columns.len() == 1 { "" } else { "s" },
            self.columns.join(", "),
            self.pages,
            if self.pages == 1 { "" } else { "s" },
        )
    }

    /// The table as CSV (RFC 4180): a header row of the columns and `source_url`, CRLF line
    /// ends, fields quoted when they hold a comma, a quote or a line break (quotes doubled).
    /// A cell a spreadsheet would run as a formula (`=`, `+`, `-`, `@` first, and not a
    /// number) gets a leading `'`: rows are page text, and a page may plant formulas.
    pub fn to_csv(&self) -> String {
        let mut out = String::new();
        let header = self.columns.iter().map(String::as_str).chain(["source_url"]);
        write_record(&mut out, header);
        for row in &self.rows {
            let values = (0..self.columns.len())
                .map(|i| row.values.get(i).map_or("", String::as_str))
                .chain([row.source.as_str()]);
            write_record(&mut out, values);
        }
        out
    }
}

fn write_record<'a>(out: &mut String, fields: impl Iterator<Item = &'a str>) {
    for (i, field) in fields.enumerate() {
        if i > 0 {
            out.push(',');
        }
        let inert = neutralised(field);
        let field = inert.as_deref().unwrap_or(field);
        if field.contains([',', '"', '\r', '\n']) {
            out.push('"');
            out.push_str(&field.replace('"', "\"\""));
            out.push('"');
        } else {
            out.push_str(field);
        }
    }
    out.push_str("\r\n");
}

/// `'`-prefixed when a spreadsheet would take the cell for a formula.
fn neutralised(field: &str) -> Option<String> {
    let risky = field.starts_with(['=', '+', '-', '@', '\t', '\r']);
    let number = field.trim().parse::<f64>().is_ok();
    (risky && !number).then(|| format!("'{field}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_what_needs_it_and_defuses_formulas() {
        let table = Table {
            name: "t".into(),
            columns: vec!["name".into(), "price".into()],
            rows: vec![
                TableRow {
                    values: vec!["Steel, “Pro”".into(), "-5".into()],
                    source: "http://a/".into(),
                },
                TableRow {
                    values: vec!["say \"hi\"\nthere".into(), "=HYPERLINK(\"x\")".into()],
                    source: "http://a/?p=2".into(),
                },
                TableRow { values: vec!["short".into()], source: "http://a/".into() },
            ],
            pages: 2,
            end: TableEnd::LastPage,
        };
        assert_eq!(
            table.to_csv(),
            "name,price,source_url\r\n\"Steel, “Pro”\",-5,http://a/\r\n\"say \"\"hi\"\"\nthere\",\"'=HYPERLINK(\"\"x\"\")\",http://a/?p=2\r\nshort,,http://a/\r\n"
        );
        assert_eq!(table.summary_line(), "t: 3 rows × 2 columns (name, price) from 2 pages");
    }
}
