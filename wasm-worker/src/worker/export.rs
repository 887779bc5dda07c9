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
        let current = w.session.borrow();
        match format {
            ExportFormat::Json => {
                session::to_json(&current, now, values).map_err(|e| e.to_string())
            }
            ExportFormat::Md | ExportFormat::Jsonl => {
                Ok(session::to_markdown(&current, now, values))
            }
        }
    };
    let format = if format == ExportFormat::Jsonl { ExportFormat::Md } else { format };
    let view = match content {
        Err(message) => ExportView::Failed { message },
        Ok(content) => {
            let request =
                ExportWrite { name_hint: Some(session::export_name_hint(now)), format, content };
            match w.host.request(request).await {
                Ok(written) => {
                    let session = w.session.borrow();
                    let prompt = session::portable_prompt(&session, &written.path, format);
                    ExportView::Written { path: written.path, prompt }
                }
                Err(e) => ExportView::Failed { message: e.with_advice() },
            }
        }
    };
    w.state.borrow_mut().export = Some(view);
    w.broadcast();
}
