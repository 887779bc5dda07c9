//! Prompt caching through the built host against the scripted LLM server, in both wire
//! formats: where the cache breakpoints go on Anthropic's wire, the cached-token counts the
//! host reads back from each format's usage (streamed and not), and what they cost.

mod common;

use common::Host;
use serde_json::{Value, json};
use waymark_tests::llm_server::{CacheReport, ScriptedLlm, WireFormat};

/// The repeating part of every prompt: long enough to matter, the same in each call.
fn rules() -> String {
    "Rules of the game, the same in every call. ".repeat(60)
}

/// A step's request: the rules, then a user message whose first part (the task) repeats and
/// whose rest (the page) changes; the worker's break marks where the repeating part ends.
fn step(n: u32, stream: bool) -> Value {
    let task = "Task: compare the offers. Plan: 1. read 2. compare. ".repeat(20);
    let user = format!("{task}Page now: step {n} shows offer {n}.");
    json!({
        "stream": stream,
        "messages": [
            {"role": "system", "content": rules()},
            {"role": "user", "content": user, "cache_breaks": [task.len()]},
        ],
    })
}

fn host(llm: &ScriptedLlm, format: WireFormat, model: &str) -> Host {
    let b = Host::builder()
        .llm(&llm.base_url())
        .env("WAYMARK_LLM_MODEL", model)
        .env("WAYMARK_LLM_API_KEY", "test-key");
    match format {
        WireFormat::OpenAi => b.spawn(),
        WireFormat::Anthropic => b.env("WAYMARK_LLM_PROVIDER", "anthropic").spawn(),
    }
}

fn count(usage: &Value, key: &str) -> f64 {
    usage.get(key).and_then(Value::as_f64).unwrap_or(0.0)
}

#[test]
fn repeated_prefixes_are_read_from_the_cache_and_priced_as_such_in_both_formats() {
    // (format, model, input, output, cached read, cache write) in $/Mtok, from the host's table.
    for (format, model, pi, po, pr, pw) in [
        (WireFormat::OpenAi, "gpt-4.1", 2.00, 8.00, 0.50, 2.00),
        (WireFormat::Anthropic, "claude-sonnet-4-5", 3.00, 15.00, 0.30, 3.75),
    ] {
        let llm = ScriptedLlm::always_text("Offer 2 is cheaper.").expect("llm");
        llm.report_cache(CacheReport::Prefix);
        let mut h = host(&llm, format, model);
        let mut usages = Vec::new();
        for (id, stream) in [(1, true), (2, false), (3, true)] {
            h.request(id, "llm.complete", step(u32::try_from(id).unwrap_or(0), stream));
            let reply = h.reply(id);
            assert_eq!(reply["ok"], true, "{format:?}: {reply}");
            let data = &reply["data"];
            let usage = &data["usage"];
            let (input, cached, written, output) = (
                count(usage, "input_tokens"),
                count(usage, "cached_input_tokens"),
                count(usage, "cache_write_tokens"),
                count(usage, "output_tokens"),
            );
            assert!(usage.get("estimated").is_none(), "{format:?}: the server's counts: {usage}");
            assert!(cached + written <= input, "{format:?}: parts of the prompt: {usage}");
            let usd = data["cost"]["usd"].as_f64().expect("usd");
            let fresh = input - cached - written;
            let want = (fresh * pi + cached * pr + written * pw + output * po) / 1e6;
            assert!((usd - want).abs() < 1e-12, "{format:?} call {id}: {data}");
            usages.push((input, cached, written));
        }
        // The first call finds nothing cached; the later ones read the repeating prefix, which
        // on Anthropic's wire reaches the user message's break (past the system prompt).
        assert_eq!(usages[0].1, 0.0, "{format:?}: {usages:?}");
        let rules_tokens = (rules().len() / 4) as f64;
        for &(input, cached, _) in &usages[1..] {
            assert!(cached > rules_tokens && cached < input, "{format:?}: {usages:?}");
        }
        let requests = llm.requests();
        match format {
            WireFormat::Anthropic => {
                // The first call wrote the prefix up to the last break; the next ones read it.
                assert!(usages[0].2 > rules_tokens, "{usages:?}");
                assert_eq!(usages[1].2, 0.0, "{usages:?}");
                let body = &requests[0].body;
                let system = body["system"].as_array().expect("system blocks");
                assert_eq!(
                    system.last().map(|b| &b["cache_control"]),
                    Some(&json!({"type": "ephemeral"}))
                );
                let blocks = body["messages"][0]["content"].as_array().expect("user blocks");
                assert_eq!(blocks.len(), 2, "cut at the break: {blocks:?}");
                assert_eq!(blocks[0]["cache_control"], json!({"type": "ephemeral"}));
                assert!(blocks[1].get("cache_control").is_none());
            }
            WireFormat::OpenAi => {
                assert!(usages.iter().all(|u| u.2 == 0.0), "no writes on this wire: {usages:?}");
                let body = &requests[0].body;
                assert!(body["messages"][1]["content"].is_string(), "content unchanged: {body}");
                assert!(!requests[0].raw_body.contains("cache"), "no unknown fields: {body}");
            }
        }
    }
}
