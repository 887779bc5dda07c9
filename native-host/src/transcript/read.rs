//! Reading captured transcripts back: for the `sessions` and `export` commands and the MCP
//! server. Unparsable lines (a crash mid-write on a file system without atomic appends) are
//! skipped, never fatal.

use std::path::Path;

use serde::Serialize;
use serde_json::{Value, json};

use super::{TranscriptError, check_session_id, session_path};

/// One session as listed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionSummary {
    /// Session id (file stem).
    pub id: String,
    /// Title from the `session_start` event, when given.
    pub title: Option<String>,
    /// Number of events.
    pub events: usize,
    /// Timestamp of the first event.
    pub started: Option<String>,
    /// Timestamp of the last event.
    pub last: Option<String>,
    /// Whether a `session_end` was recorded.
    pub ended: bool,
    /// File size in bytes.
    pub bytes: u64,
}

/// One line of a session's table of contents.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TocEntry {
    /// Index to pass to `get_turn`.
    pub index: usize,
    /// Event kind.
    pub kind: String,
    /// Up to 100 characters describing it.
    pub preview: String,
}

/// A search hit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    /// Session id.
    pub session_id: String,
    /// Event index in that session.
    pub index: usize,
    /// Event kind.
    pub kind: String,
    /// Text around the match.
    pub excerpt: String,
}

/// Every event of a session, in order.
pub fn read_session(dir: &Path, id: &str) -> Result<Vec<Value>, TranscriptError> {
    let path = session_path(dir, id)?;
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(TranscriptError::NotFound(id.to_owned()));
        }
        Err(source) => return Err(TranscriptError::Io { path, source }),
    };
    Ok(text.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()).collect())
}

/// Every session in `dir`, most recently active first.
pub fn list_sessions(dir: &Path) -> Result<Vec<SessionSummary>, TranscriptError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(TranscriptError::Io { path: dir.to_path_buf(), source }),
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(id) = name.strip_suffix(".jsonl") else { continue };
        if check_session_id(id).is_err() {
            continue;
        }
        let Ok(events) = read_session(dir, id) else { continue };
        let title = events
            .iter()
            .filter(|e| e["kind"] == "session_start")
            .find_map(|e| e["title"].as_str().map(str::to_owned));
        out.push(SessionSummary {
            id: id.to_owned(),
            title,
            events: events.len(),
            started: events.first().and_then(|e| e["ts"].as_str()).map(str::to_owned),
            last: events.last().and_then(|e| e["ts"].as_str()).map(str::to_owned),
            ended: events.iter().any(|e| e["kind"] == "session_end"),
            bytes: entry.metadata().map(|m| m.len()).unwrap_or(0),
        });
    }
    out.sort_by(|a, b| b.last.cmp(&a.last).then_with(|| a.id.cmp(&b.id)));
    Ok(out)
}

/// Deletes a session's transcript.
pub fn delete_session(dir: &Path, id: &str) -> Result<(), TranscriptError> {
    let path = session_path(dir, id)?;
    std::fs::remove_file(&path).map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            TranscriptError::NotFound(id.to_owned())
        } else {
            TranscriptError::Io { path: path.clone(), source }
        }
    })
}

/// The main text of an event, for previews, search and markdown.
pub fn event_text(e: &Value) -> String {
    let s = |k: &str| e[k].as_str().unwrap_or_default().to_owned();
    match e["kind"].as_str().unwrap_or_default() {
        "session_start" => e["title"].as_str().map_or_else(|| e["meta"].to_string(), str::to_owned),
        "turn" => format!("{}: {}", s("role"), s("text")),
        "tool" => {
            let ok = if e["success"].as_bool().unwrap_or(false) { "ok" } else { "failed" };
            format!("{}({}) {ok}: {}", s("name"), e["params"], s("output"))
        }
        "summary" => {
            if e["findings"].is_null() {
                s("text")
            } else {
                format!("{} {}", s("text"), e["findings"])
            }
        }
        "session_end" => e["meta"].to_string(),
        _ => e.to_string(),
    }
}

fn preview(text: &str, max: usize) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= max {
        return one_line;
    }
    let mut p: String = one_line.chars().take(max.saturating_sub(1)).collect();
    p.push('…');
    p
}

/// A table of contents: one short line per event.
pub fn toc(events: &[Value]) -> Vec<TocEntry> {
    events
        .iter()
        .enumerate()
        .map(|(index, e)| TocEntry {
            index,
            kind: e["kind"].as_str().unwrap_or("unknown").to_owned(),
            preview: preview(&event_text(e), 100),
        })
        .collect()
}

/// Case-insensitive substring search over every session; at most `limit` hits.
pub fn search(dir: &Path, query: &str, limit: usize) -> Result<Vec<Hit>, TranscriptError> {
    let needle = query.to_lowercase();
    let mut hits = Vec::new();
    if needle.trim().is_empty() {
        return Ok(hits);
    }
    for s in list_sessions(dir)? {
        for (index, e) in read_session(dir, &s.id)?.iter().enumerate() {
            let text = event_text(e);
            let lower = text.to_lowercase();
            if let Some(pos) = lower.find(&needle) {
                // Byte offsets of the lowercase copy may not match the original; excerpt from
                // the lowercase copy's char position instead.
                let char_pos = lower.get(..pos).map_or(0, |before| before.chars().count());
                let start = char_pos.saturating_sub(40);
                let excerpt: String =
                    text.chars().skip(start).take(needle.chars().count() + 80).collect();
                hits.push(Hit {
                    session_id: s.id.clone(),
                    index,
                    kind: e["kind"].as_str().unwrap_or("unknown").to_owned(),
                    excerpt: preview(&excerpt, 160),
                });
                if hits.len() >= limit {
                    return Ok(hits);
                }
            }
        }
    }
    Ok(hits)
}

/// The session as one JSON document.
pub fn to_json(id: &str, events: &[Value]) -> Value {
    json!({"session_id": id, "events": events})
}

/// The session as markdown, ready to paste into another agent.
pub fn to_markdown(id: &str, events: &[Value]) -> String {
    let title = events
        .iter()
        .find_map(|e| e["title"].as_str())
        .map_or_else(|| format!("Waymark session {id}"), str::to_owned);
    let mut md = format!("# {title}\n\nSession `{id}`, {} events.\n\n", events.len());
    for e in events {
        let ts = e["ts"].as_str().unwrap_or_default();
        let s = |k: &str| e[k].as_str().unwrap_or_default().to_owned();
        match e["kind"].as_str().unwrap_or_default() {
            "turn" => md.push_str(&format!("## {} ({ts})\n\n{}\n\n", s("role"), s("text"))),
            "tool" => {
                let ok = if e["success"].as_bool().unwrap_or(false) { "ok" } else { "failed" };
                md.push_str(&format!(
                    "- tool `{}` {} → {ok}: {}\n\n",
                    s("name"),
                    e["params"],
                    preview(&s("output"), 300)
                ));
            }
            "summary" => {
                md.push_str(&format!("## Summary\n\n{}\n\n", s("text")));
                if let Some(map) = e["findings"].as_object() {
                    for (k, v) in map {
                        let v = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
                        md.push_str(&format!("- **{k}**: {v}\n"));
                    }
                    md.push('\n');
                }
            }
            "session_start" => md.push_str(&format!("_Session started {ts}_\n\n")),
            "session_end" => md.push_str(&format!("_Session ended {ts}_\n\n")),
            _ => {}
        }
    }
    md
}
