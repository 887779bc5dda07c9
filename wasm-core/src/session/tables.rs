//! Table findings in the markdown export: a GFM table whose every cell is inert (page text
//! cannot close the table, open a link or load an image).

use super::inert::inert;
use std::fmt::Write;
use waymark_protocol::Table;

/// Appends `table` under a line naming it, its size and why reading stopped.
#[expect(clippy::let_underscore_must_use, reason = "writing to a String cannot fail")]
pub(super) fn markdown(out: &mut String, table: &Table) {
    let _ = writeln!(out, "Table {} ({}):\n", inert(&table.summary_line()), table.end.words());
    if table.columns.is_empty() {
        return;
    }
    let header: Vec<String> =
        table.columns.iter().map(|c| inert(c)).chain(["source".to_owned()]).collect();
    let _ = writeln!(out, "| {} |", header.join(" | "));
    let _ = writeln!(out, "|{}", " --- |".repeat(header.len()));
    for row in &table.rows {
        let cells: Vec<String> = (0..table.columns.len())
            .map(|i| row.values.get(i).map(|v| inert(v)).unwrap_or_default())
            .chain([inert(&row.source)])
            .collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use crate::session::{Session, TaskRecord, table_csv, to_markdown};
    use waymark_protocol::{Table, TableEnd, TableRow, TrackedValues};

    fn session_with_a_table() -> Session {
        let mut session = Session::new("s1".into(), 0.0);
        let mut record = crate::session::tests::record(1, "Collect the kettles", "12 kettles");
        record.tables.push(Table {
            name: "kettles".into(),
            columns: vec!["name".into(), "price".into(), "link".into()],
            rows: vec![
                TableRow {
                    values: vec![
                        "Blue | Kettle".into(),
                        "$10.99".into(),
                        "https://shop.example/k/1".into(),
                    ],
                    source: "https://shop.example/list?page=1".into(),
                },
                TableRow {
                    values: vec![
                        "Red Kettle, large".into(),
                        "$11.50".into(),
                        "https://shop.example/k/2".into(),
                    ],
                    source: "https://shop.example/list?page=2".into(),
                },
            ],
            pages: 2,
            end: TableEnd::LastPage,
        });
        session.push(record);
        session
    }

    #[test]
    fn a_table_is_exported_whole_in_markdown_and_as_csv() {
        let session = session_with_a_table();
        let md = to_markdown(&session, 0.0, TrackedValues::Redact);
        assert!(md.contains("Table kettles: 2 rows × 3 columns"), "{md}");
        assert!(md.contains("| name | price | link | source |"), "{md}");
        // Page text cannot break out of its cell.
        assert!(md.contains("| Blue \\| Kettle | $10.99 |"), "{md}");
        let (name, csv) =
            table_csv(&session, 1, 0, 0.0, TrackedValues::Redact).expect("table 1 of turn 1");
        assert!(name.starts_with("kettles-"), "{name}");
        assert_eq!(csv.lines().next(), Some("name,price,link,source_url"));
        assert!(csv.contains("\"Red Kettle, large\",$11.50,https://shop.example/k/2,"), "{csv}");
        assert_eq!(table_csv(&session, 1, 1, 0.0, TrackedValues::Redact), None);
        assert_eq!(table_csv(&session, 2, 0, 0.0, TrackedValues::Redact), None);
    }

    #[test]
    fn the_notes_carry_the_summary_and_the_row_count_not_the_rows() {
        let session = session_with_a_table();
        let notes = crate::session::build_context(&session.records);
        assert!(
            notes.contains("Table kettles: 2 rows × 3 columns (name, price, link) from 2 pages"),
            "{notes}"
        );
        assert!(!notes.contains("Red Kettle"), "{notes}");
        let stored: TaskRecord =
            serde_json::from_str(&serde_json::to_string(&session.records[0]).expect("ser"))
                .expect("a stored turn reads back with its table");
        assert_eq!(stored.tables, session.records[0].tables);
    }
}
