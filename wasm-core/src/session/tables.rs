//! Table findings in the markdown export: a GFM table whose every cell is inert (page text
//! cannot close the table, open a link or load an image).

use super::inert::inert;
use crate::protocol::Table;
use std::fmt::Write;

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
