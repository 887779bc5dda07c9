//! Export of the session through the host.

use super::Worker;
use super::env::BrowserEnv;
use crate::agent::Env;
use crate::panel::ExportView;
use crate::protocol::{ExportFormat, ExportWrite, ExportWritten, RequestBody};
use crate::session;
use std::rc::Rc;

/// Writes the session as markdown and shows where it went.
pub(super) async fn export(w: Rc<Worker>) {
    let now = BrowserEnv.now_ms();
    let content = session::to_markdown(&w.session.borrow(), now);
    let body = RequestBody::ExportWrite(ExportWrite {
        name_hint: Some(session::export_name_hint(now)),
        format: ExportFormat::Md,
        content,
    });
    let view = match w.host.request(body).await {
        Ok(data) => match serde_json::from_value::<ExportWritten>(data) {
            Ok(written) => ExportView::Written { path: written.path },
            Err(e) => ExportView::Failed { message: format!("unexpected reply: {e}") },
        },
        Err(e) => ExportView::Failed { message: e.to_string() },
    };
    w.state.borrow_mut().export = Some(view);
    w.broadcast();
}
