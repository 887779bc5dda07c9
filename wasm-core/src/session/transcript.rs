//! The events of one finished turn for the host's opt-in transcript capture
//! (`transcript.record`): the user's task, every action, the answer and the summary, with the
//! session's metadata on its first turn. The host decides whether to keep them (capture may be
//! off) and redacts secrets before writing.

use super::{Session, TaskRecord};
use serde_json::{Value, json};
use waymark_protocol::{TranscriptEvent, TranscriptRecord};

/// The transcript request for turn `record` of `session` (sent once its summary is final).
pub fn transcript_record(session: &Session, record: &TaskRecord) -> TranscriptRecord {
    let task_id = Some(format!("{}-{}", session.id, record.turn));
    let mut events = Vec::with_capacity(record.actions.len() + 4);
    if record.turn == 1 {
        events.push(TranscriptEvent::SessionStart {
            title: Some(session.display_title()),
            meta: json!({"created_ms": session.created_ms}),
        });
    }
    events.push(TranscriptEvent::Turn {
        role: "user".into(),
        text: record.task.clone(),
        task_id: task_id.clone(),
    });
    for step in &record.actions {
        let params = serde_json::to_value(&step.action).unwrap_or(Value::Null);
        let name = params.get("action").and_then(Value::as_str).unwrap_or("action").to_owned();
        let output = match &step.outcome.error {
            None => step.description.clone(),
            Some(e) => format!("{} → failed: {e}", step.description),
        };
        events.push(TranscriptEvent::Tool { name, params, output, success: step.outcome.ok });
    }
    events.push(TranscriptEvent::Turn {
        role: "assistant".into(),
        text: record.answer.clone(),
        task_id,
    });
    let findings = serde_json::to_value(&record.structured_data).unwrap_or(Value::Null);
    events.push(TranscriptEvent::Summary { text: record.summary.clone(), findings });
    TranscriptRecord { session_id: session.id.clone(), events }
}
