//! `llm.complete` through the built binary against the scripted LLM server on 127.0.0.1,
//! in both wire formats: streaming, tool calls, retries, every failure code, cancel.

mod common;

use std::time::Duration;

use common::{Host, err_code, err_message};
use serde_json::{Value, json};
use waymark_tests::llm_server::{LlmServerOptions, ScriptedLlm, ScriptedReply, WireFormat};

fn host_for(llm: &ScriptedLlm, format: WireFormat) -> Host {
    let b = Host::builder().llm(&llm.base_url()).env("WAYMARK_LLM_API_KEY", "test-key");
    match format {
        WireFormat::OpenAi => b.spawn(),
        WireFormat::Anthropic => b.env("WAYMARK_LLM_PROVIDER", "anthropic").spawn(),
    }
}

fn user(text: &str) -> Value {
    json!({"messages": [{"role": "system", "content": "rules"}, {"role": "user", "content": text}]})
}

fn with(mut req: Value, extra: Value) -> Value {
    if let (Some(o), Value::Object(e)) = (req.as_object_mut(), extra) {
        o.extend(e);
    }
    req
}

fn deltas(frames: &[Value]) -> String {
    frames.iter().filter(|f| f["event"] == "llm.delta").filter_map(|f| f["text"].as_str()).collect()
}

fn both(test: impl Fn(WireFormat)) {
    test(WireFormat::OpenAi);
    test(WireFormat::Anthropic);
}

#[test]
fn streamed_text_arrives_as_deltas_then_the_whole_completion() {
    both(|format| {
        let text = "Hello from the scripted model, in several words.";
        let llm = ScriptedLlm::always_text(text).expect("llm");
        let mut h = host_for(&llm, format);
        h.request(1, "llm.complete", with(user("hi"), json!({"stream": true})));
        let frames = h.until_reply(1);
        let reply = frames.last().expect("reply");
        assert_eq!(reply["ok"], true, "{format:?}: {reply}");
        assert!(frames.len() > 2, "{format:?}: expected several deltas: {frames:?}");
        assert_eq!(deltas(&frames), text, "{format:?}");
        assert_eq!(reply["data"]["text"], text);
        assert_eq!(reply["data"]["finish_reason"], "stop");
        assert!(reply["data"]["usage"].is_object(), "{format:?}: usage {reply}");

        let req = &llm.requests()[0];
        assert_eq!(req.format, format);
        assert_eq!(req.model(), Some("test-model"));
        assert!(req.is_stream());
        match format {
            WireFormat::OpenAi => {
                assert!(req.include_usage());
                assert_eq!(req.header("authorization"), Some("Bearer test-key"));
            }
            WireFormat::Anthropic => {
                assert_eq!(req.header("x-api-key"), Some("test-key"));
                assert!(req.header("anthropic-version").is_some());
                // Blocks, the last one ending the first cached prefix.
                assert_eq!(
                    req.body["system"],
                    json!([{"type": "text", "text": "rules", "cache_control": {"type": "ephemeral"}}])
                );
            }
        }
    });
}

#[test]
fn tool_calls_stream_and_non_stream() {
    both(|format| {
        let llm = ScriptedLlm::start(|_| {
            ScriptedReply::tool_calls([
                ("type_text", json!({"target": 3, "text": "Ada"})),
                ("click", json!({"target": 4})),
            ])
            .with_text("Filling in.")
        })
        .expect("llm");
        let mut h = host_for(&llm, format);
        let tools = json!({"tools": [
            {"name": "type_text", "description": "Type", "parameters": {"type": "object"}},
            {"name": "click", "description": "Click", "parameters": {"type": "object"}}
        ]});
        for (id, stream) in [(1, true), (2, false)] {
            h.request(
                id,
                "llm.complete",
                with(with(user("fill"), tools.clone()), json!({"stream": stream})),
            );
            let reply = h.reply(id);
            assert_eq!(reply["ok"], true, "{format:?} stream={stream}: {reply}");
            let d = &reply["data"];
            assert_eq!(d["text"], "Filling in.");
            assert_eq!(d["finish_reason"], "tool_calls", "{format:?} stream={stream}");
            let calls = d["tool_calls"].as_array().expect("calls");
            assert_eq!(calls.len(), 2, "{format:?} stream={stream}: {d}");
            assert_eq!(calls[0]["name"], "type_text");
            let args: Value =
                serde_json::from_str(calls[0]["arguments"].as_str().expect("args")).expect("json");
            assert_eq!(args, json!({"target": 3, "text": "Ada"}));
            assert!(!calls[0]["id"].as_str().unwrap_or_default().is_empty());
        }
        assert_eq!(llm.requests()[0].tool_names(), vec!["type_text", "click"]);
    });
}

#[test]
fn tool_results_are_sent_back_in_the_wire_format() {
    both(|format| {
        let llm = ScriptedLlm::always_text("done").expect("llm");
        let mut h = host_for(&llm, format);
        h.request(
            1,
            "llm.complete",
            json!({"messages": [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "click", "arguments": "{\"target\":1}"}]},
                {"role": "tool", "content": "clicked", "tool_call_id": "c1"}
            ]}),
        );
        assert_eq!(h.reply(1)["ok"], true);
        let results = llm.requests()[0].tool_results();
        assert_eq!(results, vec![("c1".to_owned(), "clicked".to_owned())], "{format:?}");
    });
}

#[test]
fn server_error_is_retried_with_an_event_then_succeeds() {
    both(|format| {
        let llm = ScriptedLlm::start(|r| match r.index {
            0 => ScriptedReply::error(500, "overloaded"),
            _ => ScriptedReply::text("ok now"),
        })
        .expect("llm");
        let mut h = host_for(&llm, format);
        h.request(1, "llm.complete", with(user("hi"), json!({"stream": true})));
        let frames = h.until_reply(1);
        let retry = frames.iter().find(|f| f["event"] == "llm.retry").expect("retry event");
        assert_eq!(retry["attempt"], 2);
        assert!(retry["reason"].as_str().unwrap_or_default().contains("500"), "{retry}");
        assert_eq!(frames.last().expect("reply")["data"]["text"], "ok now");
        assert_eq!(llm.request_count(), 2);
    });
}

#[test]
fn rate_limit_honours_retry_after() {
    both(|format| {
        let llm = ScriptedLlm::start(|r| match r.index {
            0 => ScriptedReply::rate_limited(1),
            _ => ScriptedReply::text("after the wait"),
        })
        .expect("llm");
        let mut h = host_for(&llm, format);
        h.request(1, "llm.complete", user("hi"));
        let frames = h.until_reply(1);
        let retry = frames.iter().find(|f| f["event"] == "llm.retry").expect("retry event");
        assert_eq!(retry["delay_ms"], 1000, "{format:?}: {retry}");
        assert_eq!(frames.last().expect("reply")["data"]["text"], "after the wait");
    });
}

#[test]
fn persistent_rate_limit_gives_up_after_three_retries() {
    let llm = ScriptedLlm::start(|_| ScriptedReply::rate_limited(0)).expect("llm");
    let mut h = host_for(&llm, WireFormat::OpenAi);
    h.request(1, "llm.complete", user("hi"));
    let frames = h.until_reply(1);
    assert_eq!(err_code(frames.last().expect("reply")), "llm_rate_limited");
    assert_eq!(frames.iter().filter(|f| f["event"] == "llm.retry").count(), 3);
    assert_eq!(llm.request_count(), 4);
}

#[test]
fn client_errors_are_not_retried_and_map_to_codes() {
    both(|format| {
        for (status, code, hint) in [
            (401, "llm_auth", "WAYMARK_LLM_API_KEY"),
            (403, "llm_auth", "WAYMARK_LLM_API_KEY"),
            (404, "llm_model_not_found", "WAYMARK_LLM_MODEL"),
            (400, "llm_http", "400"),
        ] {
            let llm = ScriptedLlm::start(move |_| ScriptedReply::error(status, "scripted refusal"))
                .expect("llm");
            let mut h = host_for(&llm, format);
            h.request(1, "llm.complete", with(user("hi"), json!({"stream": true})));
            let frames = h.until_reply(1);
            let reply = frames.last().expect("reply");
            assert_eq!(err_code(reply), code, "{format:?} {status}: {reply}");
            assert!(err_message(reply).contains(hint), "{reply}");
            assert!(err_message(reply).contains("scripted refusal"), "{reply}");
            assert!(!reply.to_string().contains("test-key"));
            assert_eq!(llm.request_count(), 1, "{status} must not be retried");
            assert!(frames.iter().all(|f| f["event"] != "llm.retry"));
        }
    });
}

#[test]
fn garbage_and_cut_streams_are_bad_responses() {
    both(|format| {
        for stream in [true, false] {
            let llm = ScriptedLlm::start(|_| ScriptedReply::garbage("<html>not an LLM</html>"))
                .expect("llm");
            let mut h = host_for(&llm, format);
            h.request(1, "llm.complete", with(user("hi"), json!({"stream": stream})));
            let reply = h.reply(1);
            assert_eq!(err_code(&reply), "llm_bad_response", "{format:?} stream={stream}: {reply}");
            assert_eq!(llm.request_count(), 1);

            let llm = ScriptedLlm::start(|_| ScriptedReply::CutStream).expect("llm");
            let mut h = host_for(&llm, format);
            h.request(2, "llm.complete", with(user("hi"), json!({"stream": stream})));
            let reply = h.reply(2);
            assert_eq!(err_code(&reply), "llm_bad_response", "{format:?} stream={stream}: {reply}");
        }
    });
}

#[test]
fn unreachable_endpoint_names_the_url_and_the_fix() {
    let mut h = Host::builder().llm("http://127.0.0.1:9/v1").spawn();
    h.request(1, "llm.complete", user("hi"));
    let frames = h.until_reply(1);
    let reply = frames.last().expect("reply");
    assert_eq!(err_code(reply), "llm_unreachable");
    let msg = err_message(reply);
    assert!(msg.contains("http://127.0.0.1:9/v1") && msg.contains("WAYMARK_LLM_BASE_URL"), "{msg}");
    assert_eq!(frames.iter().filter(|f| f["event"] == "llm.retry").count(), 3);
}

#[test]
fn stalled_stream_hits_the_idle_timeout() {
    both(|format| {
        let opts = LlmServerOptions { chunk_delay: Duration::from_millis(2500) };
        let llm =
            ScriptedLlm::start_with(opts, |_| ScriptedReply::text("slow slow slow")).expect("llm");
        let mut b = Host::builder().llm(&llm.base_url()).env("WAYMARK_LLM_IDLE_TIMEOUT_SECS", "1");
        if format == WireFormat::Anthropic {
            b = b.env("WAYMARK_LLM_PROVIDER", "anthropic");
        }
        let mut h = b.spawn();
        h.request(1, "llm.complete", with(user("hi"), json!({"stream": true})));
        let reply = h.reply(1);
        assert_eq!(err_code(&reply), "llm_unreachable", "{format:?}: {reply}");
        assert!(err_message(&reply).contains("1 s"), "{reply}");
    });
}

#[test]
fn a_slow_but_steady_stream_completes() {
    both(|format| {
        let opts = LlmServerOptions { chunk_delay: Duration::from_millis(300) };
        let llm =
            ScriptedLlm::start_with(opts, |_| ScriptedReply::text("one two three")).expect("llm");
        let mut h = host_for(&llm, format);
        h.request(1, "llm.complete", with(user("hi"), json!({"stream": true})));
        let frames = h.until_reply(1);
        assert_eq!(frames.last().expect("reply")["data"]["text"], "one two three", "{format:?}");
        assert_eq!(deltas(&frames), "one two three");
    });
}

#[test]
fn replies_carry_usage_cost_and_role() {
    both(|format| {
        let llm = ScriptedLlm::always_text("priced").expect("llm");
        let model = match format {
            WireFormat::OpenAi => "gpt-4o-mini",
            WireFormat::Anthropic => "claude-haiku-4-5",
        };
        let mut b = Host::builder()
            .llm(&llm.base_url())
            .env("WAYMARK_LLM_MODEL", model)
            .env("WAYMARK_LLM_API_KEY", "test-key");
        if format == WireFormat::Anthropic {
            b = b.env("WAYMARK_LLM_PROVIDER", "anthropic");
        }
        let mut h = b.spawn();
        for (id, stream) in [(1, true), (2, false)] {
            h.request(
                id,
                "llm.complete",
                with(user("hi"), json!({"stream": stream, "role": "summarizer"})),
            );
            let data = h.reply(id)["data"].clone();
            let usage = &data["usage"];
            let (i, o) = (
                usage["input_tokens"].as_f64().expect("input"),
                usage["output_tokens"].as_f64().expect("output"),
            );
            assert!(i > 0.0 && o > 0.0, "{format:?}: {data}");
            let cost = &data["cost"];
            let (pi, po) = match format {
                WireFormat::OpenAi => (0.15, 0.60),
                WireFormat::Anthropic => (1.0, 5.0),
            };
            assert_eq!(cost["input_usd_per_mtok"], pi, "{data}");
            assert_eq!(cost["output_usd_per_mtok"], po, "{data}");
            let usd = cost["usd"].as_f64().expect("usd");
            assert!((usd - (i * pi + o * po) / 1e6).abs() < 1e-12, "{data}");
            assert_eq!(data["role"], "summariser");
        }
    });
}

#[test]
fn screenshots_become_image_parts_in_both_formats() {
    both(|format| {
        let llm = ScriptedLlm::always_text("I see a form").expect("llm");
        let mut h = host_for(&llm, format);
        let image = json!({"media_type": "image/png", "data": "iVBORw0KGgo="});
        h.request(
            1,
            "llm.complete",
            json!({"messages": [
                {"role": "user", "content": "what is on screen?", "images": [image]},
            ]}),
        );
        assert_eq!(h.reply(1)["data"]["text"], "I see a form");
        let body = &llm.requests()[0].body;
        let parts = body["messages"][0]["content"].as_array().expect("content parts");
        match format {
            WireFormat::OpenAi => {
                assert_eq!(parts[0], json!({"type": "text", "text": "what is on screen?"}));
                assert_eq!(parts[1]["type"], "image_url");
                assert_eq!(parts[1]["image_url"]["url"], "data:image/png;base64,iVBORw0KGgo=");
            }
            WireFormat::Anthropic => {
                assert_eq!(parts[0]["type"], "image");
                assert_eq!(
                    parts[0]["source"],
                    json!({"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="})
                );
                assert_eq!(parts[1], json!({"type": "text", "text": "what is on screen?"}));
            }
        }
    });
}

#[test]
fn each_role_uses_its_own_endpoint_and_model() {
    let default = ScriptedLlm::always_text("from default").expect("llm");
    let planner = ScriptedLlm::always_text("from planner").expect("llm");
    let mut h = Host::builder()
        .llm(&default.base_url())
        .env("WAYMARK_LLM_PLANNER_BASE_URL", planner.base_url())
        .env("WAYMARK_LLM_PLANNER_PROVIDER", "anthropic")
        .env("WAYMARK_LLM_PLANNER_MODEL", "big-planner")
        .env("WAYMARK_LLM_PLANNER_API_KEY", "planner-key")
        .env("WAYMARK_LLM_SUMMARISER_MODEL", "small-summariser")
        .spawn();
    for (id, role, text) in [
        (1, "planner", "from planner"),
        (2, "summariser", "from default"),
        (3, "navigator", "from default"),
    ] {
        h.request(id, "llm.complete", with(user("hi"), json!({"role": role})));
        assert_eq!(h.reply(id)["data"]["text"], text, "{role}");
    }
    let p = &planner.requests()[0];
    assert_eq!((p.format, p.model()), (WireFormat::Anthropic, Some("big-planner")));
    assert_eq!(p.header("x-api-key"), Some("planner-key"));
    let d = default.requests();
    assert_eq!(d[0].model(), Some("small-summariser"));
    assert_eq!(d[1].model(), Some("test-model"));
    assert!(d.iter().all(|r| r.header("authorization").is_none()), "the planner key stays there");
}

#[test]
fn requests_run_concurrently_and_cancel_stops_one() {
    let llm = ScriptedLlm::start(|r| {
        if r.last_user_text().as_deref() == Some("slow") {
            ScriptedReply::text("late").delayed(10_000)
        } else {
            ScriptedReply::text("fast")
        }
    })
    .expect("llm");
    let mut h = host_for(&llm, WireFormat::OpenAi);
    h.request(1, "llm.complete", user("slow"));
    llm.wait_for_requests(1, Duration::from_secs(10)).expect("slow request arrived");
    h.request(2, "llm.complete", user("fast"));
    let first = h.reply(2);
    assert_eq!(first["data"]["text"], "fast", "the fast call overtakes the slow one");

    h.request(3, "llm.cancel", json!({"target": 1}));
    let frames = h.until_reply(3);
    let cancelled = frames.iter().find(|f| f["id"] == 1).expect("reply to the cancelled request");
    assert_eq!(err_code(cancelled), "cancelled");
    assert_eq!(frames.last().expect("cancel reply")["data"]["cancelled"], true);
    h.request(4, "echo", json!({"payload": "4"}));
    assert_eq!(h.next()["id"], 4, "nothing more for request 1");
}

#[test]
fn cancel_drops_the_upstream_request_while_the_endpoint_holds_the_reply() {
    both(|format| {
        let llm = ScriptedLlm::start(|_| ScriptedReply::text("late").delayed(20_000)).expect("llm");
        let mut h = host_for(&llm, format);
        h.request(1, "llm.complete", user("slow"));
        llm.wait_for_requests(1, Duration::from_secs(10)).expect("the call reached the endpoint");
        h.request(2, "llm.cancel", json!({"target": 1}));
        let frames = h.until_reply(2);
        let cancelled = frames.iter().find(|f| f["id"] == 1).expect("reply to the cancelled call");
        assert_eq!(err_code(cancelled), "cancelled", "{format:?}");
        // Far less than the 20 s the endpoint holds the reply: the host closed the connection.
        llm.wait_for_close(0, Duration::from_secs(10)).expect("the upstream request was dropped");
        assert_eq!(llm.request_count(), 1, "{format:?}: a cancelled call is not retried");
    });
}

#[test]
fn cancel_drops_a_stream_in_the_middle() {
    both(|format| {
        // Forty words 300 ms apart: the stream lasts longer than the wait for its close below.
        let options = LlmServerOptions { chunk_delay: Duration::from_millis(300) };
        let llm = ScriptedLlm::start_with(options, |_| ScriptedReply::text("word ".repeat(40)))
            .expect("llm");
        let mut h = host_for(&llm, format);
        h.request(1, "llm.complete", with(user("hi"), json!({"stream": true})));
        let first = h.next();
        assert_eq!((first["id"].as_u64(), first["event"].as_str()), (Some(1), Some("llm.delta")));
        h.request(2, "llm.cancel", json!({"target": 1}));
        let frames = h.until_reply(2);
        let cancelled = frames.iter().find(|f| f["id"] == 1 && f.get("ok").is_some());
        assert_eq!(err_code(cancelled.expect("reply to the cancelled call")), "cancelled");
        llm.wait_for_close(0, Duration::from_secs(10)).expect("the stream was dropped");
    });
}

#[test]
fn a_completed_call_is_not_counted_as_closed_early() {
    let llm = ScriptedLlm::always_text("whole answer").expect("llm");
    let mut h = host_for(&llm, WireFormat::OpenAi);
    h.request(1, "llm.complete", with(user("hi"), json!({"stream": true})));
    assert_eq!(h.until_reply(1).last().expect("reply")["ok"], true);
    h.request(2, "llm.complete", user("hi"));
    assert_eq!(h.reply(2)["ok"], true);
    assert!(llm.closed_early().is_empty(), "{:?}", llm.closed_early());
}

#[test]
fn concurrency_cap_holds_extra_calls_until_one_ends() {
    let config = tempfile::tempdir().expect("tempdir");
    std::fs::write(config.path().join("config.toml"), "[llm]\nmax_concurrent = 2\n").expect("w");
    let llm = ScriptedLlm::start(|_| ScriptedReply::text("late").delayed(20_000)).expect("llm");
    let mut h = Host::builder()
        .llm(&llm.base_url())
        .env("WAYMARK_CONFIG_DIR", config.path().to_string_lossy())
        .spawn();
    for id in 1..=3 {
        h.request(id, "llm.complete", user("slow"));
    }
    llm.wait_for_requests(2, Duration::from_secs(10)).expect("two calls start");
    // Give a (wrongly) uncapped third call ample time to show up.
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(llm.request_count(), 2, "the third call waits for a permit");
    h.request(9, "llm.cancel", json!({"target": 1}));
    h.until_reply(9);
    llm.wait_for_requests(3, Duration::from_secs(10)).expect("the third call starts once one ends");
}

#[test]
fn a_server_that_reports_no_usage_gets_counted_tokens_marked_estimated() {
    // llama.cpp's server streams no usage even when asked; the host counts with o200k.
    let text = "Both offers include free delivery.";
    let llm =
        ScriptedLlm::start(move |_| ScriptedReply::TextWithoutUsage(text.into())).expect("llm");
    let mut h = host_for(&llm, WireFormat::OpenAi);
    for (id, stream) in [(1, true), (2, false)] {
        let prompt = "Compare the two offers on this page and say which is cheaper.";
        h.request(id, "llm.complete", with(user(prompt), json!({"stream": stream})));
        let reply = h.reply(id);
        assert_eq!(reply["ok"], true, "{reply}");
        let usage = &reply["data"]["usage"];
        assert_eq!(usage["estimated"], true, "stream {stream}: {reply}");
        let input = usage["input_tokens"].as_u64().unwrap_or(0);
        assert!((15..40).contains(&input), "two short messages, counted: {usage}");
        assert!(usage["output_tokens"].as_u64().unwrap_or(0) >= 5, "{usage}");
    }
    // A server that does report usage is taken at its word, not re-counted.
    let reporting = ScriptedLlm::always_text(text).expect("llm");
    let mut h = host_for(&reporting, WireFormat::OpenAi);
    h.request(3, "llm.complete", with(user("hi"), json!({"stream": true})));
    let reply = h.reply(3);
    assert!(reply["data"]["usage"].get("estimated").is_none(), "{reply}");
}

#[test]
fn a_role_token_limit_set_in_the_settings_replaces_the_request_s_in_both_formats() {
    both(|format| {
        let llm = ScriptedLlm::always_text("ok").expect("llm");
        let mut h = host_for(&llm, format);
        let values = json!({"roles.validator.max_tokens": "300", "llm.max_tokens": "5000"});
        h.request(1, "config.set", json!({ "values": values }));
        let set = h.reply(1);
        assert_eq!(set["ok"], true, "{format:?}: {set}");
        assert_eq!(set["data"]["roles"]["validator"]["max_tokens"], 300);
        assert_eq!(set["data"]["roles"]["planner"]["max_tokens"], 5000, "the default's limit");
        h.request(2, "config.set", json!({"values": {"llm.max_tokens": null}}));
        assert_eq!(h.reply(2)["data"]["roles"]["planner"]["max_tokens"], Value::Null);
        for (id, role) in [(3, "validator"), (4, "navigator")] {
            let req = with(user("hi"), json!({"role": role, "max_tokens": 2048}));
            h.request(id, "llm.complete", req);
            assert_eq!(h.reply(id)["ok"], true, "{format:?} {role}");
        }
        let sent: Vec<Value> =
            llm.requests().iter().map(|r| r.body["max_tokens"].clone()).collect();
        assert_eq!(
            sent,
            [json!(300), json!(2048)],
            "{format:?}: the limit replaces only its role's"
        );
        h.request(5, "config.set", json!({"values": {"roles.validator.max_tokens": "9"}}));
        let refused = h.reply(5);
        assert_eq!(refused["ok"], false, "{format:?}: {refused}");
        assert!(err_message(&refused).contains("from 16 to 32768"), "{refused}");
    });
}
