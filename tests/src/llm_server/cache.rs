//! Prompt-cache figures in the scripted server's usage, in each wire format's own fields
//! (OpenAI `usage.prompt_tokens_details.cached_tokens`; Anthropic `cache_read_input_tokens`
//! and `cache_creation_input_tokens`, with `input_tokens` then only the rest of the prompt).
//!
//! Why: the host's parsing of those fields, its pricing and the side panel's cost line are
//! tested end to end against the real wire formats; and with [`CacheReport::Prefix`] the
//! figures follow what the client really sent, so a test sees whether its prompts share a
//! prefix the way a provider's cache needs (on Anthropic's wire: whether the `cache_control`
//! breakpoints sit where the repeating prefix ends).

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::Value;

use super::{RecordedRequest, WireFormat};

/// What the scripted server reports about prompt caching; set with
/// [`super::ScriptedLlm::report_cache`].
///
/// Why: most tests want usage as servers without caching send it (the default); cache tests
/// either need a known figure or figures that depend on what was sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CacheReport {
    /// No cache fields in the usage: a server without prompt caching.
    #[default]
    Off,
    /// This many prompt tokens read from the cache on every call (at most the whole prompt),
    /// nothing written.
    Fixed(u64),
    /// Like a provider's cache (without its minimum sizes and 128-token steps), shared by all
    /// the calls the server answers, tokens counted as characters / 4 of the prompt
    /// (tools, system and messages): on the OpenAI wire the longest prefix shared with any
    /// earlier prompt is read; on Anthropic's, the longest prefix ending at a block boundary
    /// that an earlier request marked with `cache_control` is read, and the prompt up to this
    /// request's last marked block is written as far as it was not read.
    Prefix,
}

/// One call's cache figures, in (rough) tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct CacheCounts {
    /// The whole prompt.
    pub prompt: u64,
    /// Read from the cache.
    pub read: u64,
    /// Written to the cache (Anthropic only).
    pub written: u64,
}

/// The server's cache: what it reports, and what it has seen.
#[derive(Debug, Default)]
pub(super) struct PromptCache {
    /// The mode.
    pub report: CacheReport,
    /// OpenAI wire: every earlier prompt, linearised.
    seen: Vec<String>,
    /// Anthropic wire: hashes of the prefixes earlier requests marked.
    marked: HashSet<u64>,
}

impl PromptCache {
    /// The figures for `req` (and remembers its prompt); `None` when the mode is `Off`.
    pub fn counts(&mut self, req: &RecordedRequest) -> Option<CacheCounts> {
        let prompt = Prompt::of(req);
        let total = tokens(&prompt.text).max(1);
        match self.report {
            CacheReport::Off => None,
            CacheReport::Fixed(n) => {
                Some(CacheCounts { prompt: total, read: n.min(total), written: 0 })
            }
            CacheReport::Prefix if req.format == WireFormat::OpenAi => {
                let shared = self
                    .seen
                    .iter()
                    .map(|earlier| common_prefix(earlier, &prompt.text))
                    .max()
                    .unwrap_or(0);
                self.seen.push(prompt.text.clone());
                Some(CacheCounts {
                    prompt: total,
                    read: tokens(&prompt.text[..shared]),
                    written: 0,
                })
            }
            CacheReport::Prefix => {
                let read_to = prompt
                    .boundaries
                    .iter()
                    .copied()
                    .filter(|&at| self.marked.contains(&hash(&prompt.text[..at])))
                    .max()
                    .unwrap_or(0);
                let write_to = prompt.breakpoints.last().copied().unwrap_or(0).max(read_to);
                for &at in &prompt.breakpoints {
                    self.marked.insert(hash(&prompt.text[..at]));
                }
                let read = tokens(&prompt.text[..read_to]);
                let written = tokens(&prompt.text[..write_to]) - read;
                Some(CacheCounts { prompt: total, read, written })
            }
        }
    }
}

/// A request's prompt as one text, in the order a provider caches it (tools, system,
/// messages), with where its blocks end and which of those are marked `cache_control`.
struct Prompt {
    text: String,
    boundaries: Vec<usize>,
    breakpoints: Vec<usize>,
}

impl Prompt {
    fn of(req: &RecordedRequest) -> Prompt {
        let mut p = Prompt { text: String::new(), boundaries: Vec::new(), breakpoints: Vec::new() };
        let body = &req.body;
        for tool in body.get("tools").and_then(Value::as_array).into_iter().flatten() {
            p.block(tool);
        }
        match body.get("system") {
            Some(Value::String(s)) => p.push(s, false),
            Some(Value::Array(blocks)) => blocks.iter().for_each(|b| p.block(b)),
            _ => {}
        }
        for m in req.messages() {
            p.text.push_str(&format!(
                "\n<{}>\n",
                m.get("role").and_then(Value::as_str).unwrap_or("")
            ));
            match (req.format, m.get("content")) {
                (WireFormat::Anthropic, Some(Value::Array(blocks))) => {
                    for b in blocks {
                        match b.get("content") {
                            Some(Value::Array(inner))
                                if b.get("type").and_then(Value::as_str) == Some("tool_result") =>
                            {
                                p.text.push_str(
                                    b.get("tool_use_id").and_then(Value::as_str).unwrap_or(""),
                                );
                                inner.iter().for_each(|i| p.block(i));
                                let marked = b.get("cache_control").is_some();
                                p.push("", marked);
                            }
                            _ => p.block(b),
                        }
                    }
                }
                // The OpenAI wire marks nothing: each message whole, as sent.
                _ => p.push(&without_cache_control(m).to_string(), false),
            }
        }
        p
    }

    /// A content block (or tool definition): its text, or its JSON without the marker.
    fn block(&mut self, b: &Value) {
        let marked = b.get("cache_control").is_some();
        match (b.get("type").and_then(Value::as_str), b.get("text").and_then(Value::as_str)) {
            (Some("text"), Some(text)) => self.push(text, marked),
            _ => self.push(&without_cache_control(b).to_string(), marked),
        }
    }

    fn push(&mut self, s: &str, marked: bool) {
        self.text.push_str(s);
        self.boundaries.push(self.text.len());
        if marked {
            self.breakpoints.push(self.text.len());
        }
    }
}

fn without_cache_control(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(o) = v.as_object_mut() {
        o.remove("cache_control");
    }
    v
}

/// Byte length of the longest common prefix of `a` and `b`, on a char boundary of both.
fn common_prefix(a: &str, b: &str) -> usize {
    a.char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map_or_else(|| a.len().min(b.len()), |((i, _), _)| i)
}

/// Rough tokens: 4 characters each, as the server's other counts.
fn tokens(s: &str) -> u64 {
    (s.chars().count() / 4) as u64
}

fn hash(s: &str) -> u64 {
    let mut h = DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(format: WireFormat, body: Value) -> RecordedRequest {
        RecordedRequest {
            index: 0,
            format,
            method: "POST".into(),
            path: String::new(),
            headers: Vec::new(),
            body,
            raw_body: String::new(),
        }
    }

    #[test]
    fn openai_prompts_read_their_longest_prefix_shared_with_an_earlier_one() {
        let mut cache = PromptCache { report: CacheReport::Prefix, ..PromptCache::default() };
        let first = json!({"messages": [{"role": "system", "content": "x".repeat(400)},
                                        {"role": "user", "content": "page one"}]});
        let c = cache.counts(&request(WireFormat::OpenAi, first)).expect("counts");
        assert_eq!((c.read, c.written), (0, 0));
        let second = json!({"messages": [{"role": "system", "content": "x".repeat(400)},
                                         {"role": "user", "content": "page two"}]});
        let c = cache.counts(&request(WireFormat::OpenAi, second)).expect("counts");
        assert!(c.read >= 100 && c.read < c.prompt, "{c:?}");
    }

    #[test]
    fn anthropic_prompts_read_only_what_an_earlier_request_marked() {
        let mut cache = PromptCache { report: CacheReport::Prefix, ..PromptCache::default() };
        let body = |marked: bool, page: &str| {
            let mut system = json!({"type": "text", "text": "r".repeat(400)});
            if marked {
                system["cache_control"] = json!({"type": "ephemeral"});
            }
            json!({"system": [system], "messages": [{"role": "user", "content": [
                {"type": "text", "text": page}]}]})
        };
        // Unmarked: nothing is ever cached, however much repeats.
        for _ in 0..2 {
            let c =
                cache.counts(&request(WireFormat::Anthropic, body(false, "a"))).expect("counts");
            assert_eq!((c.read, c.written), (0, 0));
        }
        // Marked: the first call writes the system prompt, the next one reads it.
        let c = cache.counts(&request(WireFormat::Anthropic, body(true, "a"))).expect("counts");
        assert_eq!((c.read, c.written), (0, 100));
        let c = cache.counts(&request(WireFormat::Anthropic, body(true, "b"))).expect("counts");
        assert_eq!((c.read, c.written), (100, 0));
        assert!(c.prompt > c.read);
        let mut fixed =
            PromptCache { report: CacheReport::Fixed(1_000_000), ..PromptCache::default() };
        let c = fixed.counts(&request(WireFormat::Anthropic, body(true, "b"))).expect("counts");
        assert_eq!(c.read, c.prompt, "never more than the prompt");
        assert_eq!(PromptCache::default().counts(&request(WireFormat::OpenAi, json!({}))), None);
    }
}
