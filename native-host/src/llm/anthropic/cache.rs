//! Prompt caching on Anthropic's wire: Anthropic caches a prompt prefix only where the request
//! marks one (`"cache_control": {"type": "ephemeral"}` on the block that ends it), and takes at
//! most [`MAX_BREAKPOINTS`] marks. The worker says where its repeating prefixes end
//! ([`ChatMessage::cache_breaks`], byte offsets); here each message's text is cut there into
//! text blocks, the blocks that end at a kept break are marked, and the tools plus the system
//! prompt always form the first cached prefix.
//!
//! Offsets are the worker's word, not trusted blindly: one outside the text, inside a UTF-8
//! sequence, or that would leave a block of only whitespace (which Anthropic refuses) is
//! dropped with a debug log, never a panic or a refused request.

use serde_json::{Value, json};
use waymark_protocol::{ChatMessage, ChatRole, LlmRequest};

/// Anthropic refuses a request with more `cache_control` breakpoints than this.
pub const MAX_BREAKPOINTS: usize = 4;

/// Where the blocks of one request end in a breakpoint.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Plan {
    /// Kept break offsets of each message (same index as `LlmRequest::messages`), ascending.
    pub breaks: Vec<Vec<usize>>,
    /// The last tool definition carries the first breakpoint (there is no system prompt to).
    pub mark_last_tool: bool,
    /// The last system block carries the first breakpoint.
    pub mark_system: bool,
}

/// Decides the request's breakpoints: the end of the system prompt (else of the tools), then
/// the latest of the worker's breaks, earliest ones dropped when there are too many. The
/// latest break is the longest prefix: the one most worth caching.
pub(super) fn plan(req: &LlmRequest) -> Plan {
    let mut breaks: Vec<Vec<usize>> =
        req.messages.iter().enumerate().map(|(i, m)| valid_breaks(i, m)).collect();
    let last_system = req
        .messages
        .iter()
        .rposition(|m| m.role == ChatRole::System && !m.content.trim().is_empty());
    let mark_system = last_system.is_some();
    let mark_last_tool = !mark_system && !req.tools.is_empty();
    // The end of the last system message is the system mark already.
    if let Some(i) = last_system {
        let end = req.messages[i].content.len();
        breaks[i].retain(|&at| at != end);
    }
    // In prefix order: the system messages (sent first, as `system`), then the conversation.
    let order = |system: bool| {
        req.messages
            .iter()
            .enumerate()
            .filter(move |(_, m)| (m.role == ChatRole::System) == system)
            .map(|(i, _)| i)
    };
    let marks: Vec<(usize, usize)> = order(true)
        .chain(order(false))
        .flat_map(|i| breaks[i].iter().map(move |&at| (i, at)))
        .collect();
    let budget = MAX_BREAKPOINTS - usize::from(mark_system || mark_last_tool);
    let dropped = marks.len().saturating_sub(budget);
    for &(i, at) in &marks[..dropped] {
        tracing::debug!(message = i, offset = at, "cache break dropped: over Anthropic's limit");
        breaks[i].retain(|&b| b != at);
    }
    Plan { breaks, mark_last_tool, mark_system }
}

/// The offsets of `m.cache_breaks` that can cut its text, ascending and distinct.
fn valid_breaks(index: usize, m: &ChatMessage) -> Vec<usize> {
    let text = m.content.as_str();
    let mut candidates: Vec<usize> = Vec::new();
    for &offset in &m.cache_breaks {
        let at = usize::try_from(offset).unwrap_or(usize::MAX);
        if at == 0 || at > text.len() || !text.is_char_boundary(at) {
            tracing::debug!(
                message = index,
                offset,
                len = text.len(),
                "cache break ignored: not a char boundary inside the text"
            );
            continue;
        }
        candidates.push(at);
    }
    candidates.sort_unstable();
    candidates.dedup();
    let mut kept: Vec<usize> = Vec::new();
    for at in candidates {
        let from = kept.last().copied().unwrap_or(0);
        // Both offsets were checked to be character boundaries above.
        if text.get(from..at).is_none_or(|block| block.trim().is_empty()) {
            tracing::debug!(message = index, offset = at, "cache break ignored: blank block");
        } else {
            kept.push(at);
        }
    }
    // What follows the last break must not be a blank block either.
    while let Some(&at) = kept.last() {
        let rest = text.get(at..).unwrap_or("");
        if rest.is_empty() || !rest.trim().is_empty() {
            break;
        }
        tracing::debug!(message = index, offset = at, "cache break ignored: blank rest");
        kept.pop();
    }
    kept
}

/// `text` cut at `breaks` (valid, ascending): each piece, and whether it ends at a break.
pub(super) fn pieces<'a>(text: &'a str, breaks: &[usize]) -> Vec<(&'a str, bool)> {
    let mut out = Vec::with_capacity(breaks.len() + 1);
    let mut from = 0;
    for &at in breaks {
        out.push((text.get(from..at).unwrap_or(""), true));
        from = at;
    }
    if from < text.len() || out.is_empty() {
        out.push((text.get(from..).unwrap_or(""), false));
    }
    out
}

/// `text` as text blocks cut at `breaks`, the ones ending at a break marked for caching.
pub(super) fn text_blocks(text: &str, breaks: &[usize]) -> Vec<Value> {
    pieces(text, breaks).into_iter().map(|(piece, cached)| text_block(piece, cached)).collect()
}

/// One text block, marked for caching when `cached`.
pub(super) fn text_block(text: &str, cached: bool) -> Value {
    let mut block = json!({"type": "text", "text": text});
    if cached {
        mark(&mut block);
    }
    block
}

/// Marks `block` (a content block or a tool definition) as the end of a cached prefix.
pub(super) fn mark(block: &mut Value) {
    if let Some(fields) = block.as_object_mut() {
        fields.insert("cache_control".into(), json!({"type": "ephemeral"}));
    }
}

#[cfg(test)]
mod tests;
