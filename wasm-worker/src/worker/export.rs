//! Export of the session through the host, as markdown or JSON.

use super::Worker;
use super::env::BrowserEnv;
use std::rc::Rc;
use waymark_core::agent::Env;
use waymark_core::panel::ExportView;
use waymark_core::protocol::{ExportFormat, ExportWrite, TrackedValues};
use waymark_core::session;

/// Writes the current session in `format` (tracked values redacted unless `values` includes
/// them) and shows where it went.
pub(super) async fn export(w: Rc<Worker>, format: ExportFormat, values: TrackedValues) {
    let now = BrowserEnv.now_ms();
    let content = {
        let current = w.app.sessions.current();
        match format {
            ExportFormat::Json => {
                session::to_json(&current, now, values).map_err(|e| e.to_string())
            }
            // A session is no table: its CSVs are written one table at a time.
            ExportFormat::Md | ExportFormat::Jsonl | ExportFormat::Csv => {
                Ok(session::to_markdown(&current, now, values))
            }
        }
    };
    let format = if format == ExportFormat::Json { format } else { ExportFormat::Md };
    let hint = session::export_name_hint(now);
    write(w, format, content.map(|c| (hint, c))).await;
}

/// Writes table `index` of turn `turn` as CSV and shows where it went.
pub(super) async fn export_table(w: Rc<Worker>, turn: u32, index: usize, values: TrackedValues) {
    let now = BrowserEnv.now_ms();
    let content = session::table_csv(&w.app.sessions.current(), turn, index, now, values)
        .ok_or_else(|| format!("turn {turn} has no table {}", index + 1));
    write(w, ExportFormat::Csv, content).await;
}

/// Asks the host to write `content` (name hint, text) and shows the result.
async fn write(w: Rc<Worker>, format: ExportFormat, content: Result<(String, String), String>) {
    let view = match content {
        Err(message) => ExportView::Failed { message },
        Ok((hint, content)) => {
            let request = ExportWrite { name_hint: Some(hint), format, content };
            match w.host.request(request).await {
                Ok(written) => {
                    let session = w.app.sessions.current();
                    let prompt = session::portable_prompt(&session, &written.path, format);
                    ExportView::Written { path: written.path, prompt }
                }
                Err(e) => ExportView::Failed { message: e.with_advice() },
            }
        }
    };
    w.app.state.borrow_mut().export = Some(view);
    w.broadcast();
}
