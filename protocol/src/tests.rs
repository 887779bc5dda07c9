use super::*;
use serde_json::json;

#[test]
fn request_round_trips_with_flat_type_tag() {
    let req = Request::new(7, Hello { extension_version: "0.1.0".into() });
    let text = serde_json::to_string(&req).expect("serialise");
    assert_eq!(text, r#"{"v":1,"id":7,"type":"hello","extension_version":"0.1.0"}"#);
    let back: Request = serde_json::from_str(&text).expect("parse");
    assert_eq!(back, req);
}

#[test]
fn llm_request_parses_with_defaults() {
    let req: Request = serde_json::from_value(json!({
        "v": 1, "id": 2, "type": "llm.complete",
        "messages": [{"role": "user", "content": "hi"}]
    }))
    .expect("parse");
    let RequestBody::LlmComplete(body) = req.body else { panic!("wrong type") };
    assert_eq!(body.role, LlmRole::Navigator);
    assert!(!body.stream);
    assert!(body.tools.is_empty());
}

#[test]
fn unknown_request_type_is_an_error() {
    let err = serde_json::from_value::<Request>(json!({"v":1,"id":1,"type":"nope"}));
    assert!(err.is_err());
}

#[test]
fn host_frames_are_told_apart_by_shape() {
    let ok: HostFrame<ExportWritten> =
        serde_json::from_str(r#"{"v":1,"id":3,"ok":true,"data":{"path":"/a","bytes":1}}"#)
            .expect("ok");
    let written = ExportWritten { path: "/a".into(), bytes: 1 };
    assert_eq!(ok, HostFrame::Reply(ReplyFrame::ok(3, written)));

    let err: HostFrame<ExportWritten> = serde_json::from_str(
        r#"{"v":1,"id":3,"ok":false,"error":{"code":"llm_auth","message":"bad key"}}"#,
    )
    .expect("err");
    assert_eq!(err, HostFrame::Reply(ReplyFrame::err(3, ErrorCode::LlmAuth, "bad key")));

    let ev: HostFrame<ExportWritten> =
        serde_json::from_str(r#"{"v":1,"id":3,"event":"llm.delta","text":"he"}"#).expect("event");
    assert_eq!(
        ev,
        HostFrame::Event(EventFrame {
            v: 1,
            id: 3,
            event: HostEvent::LlmDelta { text: "he".into() }
        })
    );
}

#[test]
fn replies_serialise_to_the_documented_envelope() {
    let frame = ReplyFrame::<HelloData>::err(9, ErrorCode::BadJson, "x");
    let text = serde_json::to_string(&frame).expect("ser");
    assert_eq!(text, r#"{"v":1,"id":9,"ok":false,"error":{"code":"bad_json","message":"x"}}"#);
    let cancelled = ReplyFrame::ok(4, LlmCancelled { cancelled: true });
    let text = serde_json::to_string(&cancelled).expect("ser");
    assert_eq!(text, r#"{"v":1,"id":4,"ok":true,"data":{"cancelled":true}}"#);
    let hinted =
        ReplyFrame::<Echo>::error(5, ErrorBody::new(ErrorCode::LlmAuth, "no").with_hint("set it"));
    let text = serde_json::to_string(&hinted).expect("ser");
    assert_eq!(
        text,
        r#"{"v":1,"id":5,"ok":false,"error":{"code":"llm_auth","message":"no","hint":"set it"}}"#
    );
}

#[test]
fn unknown_error_codes_from_newer_hosts_decode_as_other() {
    let body: ErrorBody =
        serde_json::from_str(r#"{"code":"from_the_future","message":"m"}"#).expect("parse");
    assert_eq!(body.code, ErrorCode::Other);
}

#[test]
fn error_code_strings_match_serde() {
    for code in [ErrorCode::BadJson, ErrorCode::LlmModelNotFound, ErrorCode::ReplyTooLarge] {
        assert_eq!(serde_json::to_value(code).expect("ser"), json!(code.as_str()));
    }
}

#[test]
fn images_are_optional_and_omitted_when_empty() {
    let m: ChatMessage =
        serde_json::from_value(json!({"role": "user", "content": "x"})).expect("p");
    assert!(m.images.is_empty());
    assert_eq!(serde_json::to_value(&m).expect("ser"), json!({"role": "user", "content": "x"}));
    let m = m.with_image(ImageInput { media_type: "image/png".into(), data: "AAAA".into() });
    let v = serde_json::to_value(&m).expect("ser");
    assert_eq!(v["images"][0]["media_type"], "image/png");
}

#[test]
fn new_request_types_parse() {
    for (text, kind) in [
        (r#"{"v":1,"id":1,"type":"config.get"}"#, "config.get"),
        (
            r#"{"v":1,"id":1,"type":"config.set","values":{"llm.model":"m","llm.api_key":null}}"#,
            "config.set",
        ),
        (r#"{"v":1,"id":1,"type":"file.read","path":"/tmp/a"}"#, "file.read"),
        (
            r#"{"v":1,"id":1,"type":"transcript.record","session_id":"s1","events":[
                {"kind":"turn","role":"user","text":"hi"},
                {"kind":"tool","name":"click","params":{"ref":3},"output":"ok","success":true}]}"#,
            "transcript.record",
        ),
    ] {
        let r: Request = serde_json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(r.body.request_type().as_str(), kind);
    }
}

#[test]
fn new_error_codes_round_trip_and_hello_problems_default() {
    for code in [
        ErrorCode::FileRefused,
        ErrorCode::FileTooLarge,
        ErrorCode::FileFailed,
        ErrorCode::ConfigInvalid,
        ErrorCode::TranscriptFailed,
    ] {
        let v = serde_json::to_value(code).expect("ser");
        assert_eq!(v, json!(code.as_str()));
        assert_eq!(serde_json::from_value::<ErrorCode>(v).expect("de"), code);
    }
    let hello: HelloData = serde_json::from_value(json!({
        "host_version": "0", "protocol": 1, "capabilities": [],
        "llm": {"provider": "openai", "base_url": "", "model": "", "has_key": false}
    }))
    .expect("old hosts omit problems");
    assert!(hello.problems.is_empty());
}

#[test]
fn a_reply_is_read_as_its_request_type_says_and_says_why_not() {
    let text = r#"{"v":1,"id":2,"ok":true,"data":{"path":"/x"}}"#;
    let err = serde_json::from_str::<ReplyFrame<ExportWritten>>(text).expect_err("no bytes");
    assert!(err.to_string().contains("bytes"), "{err}");
    let text = r#"{"v":1,"id":2,"ok":true}"#;
    assert!(serde_json::from_str::<ReplyFrame<ExportWritten>>(text).is_err(), "ok needs data");
    let text = r#"{"v":1,"id":2,"ok":false}"#;
    assert!(serde_json::from_str::<ReplyFrame<ExportWritten>>(text).is_err(), "needs error");
    let text = r#"{"v":1,"id":2,"ok":false,"error":{"code":"cancelled","message":"m"}}"#;
    let frame: ReplyFrame<ExportWritten> = serde_json::from_str(text).expect("error reply");
    assert_eq!(frame.error_body().map(|e| e.code), Some(ErrorCode::Cancelled));
}

#[test]
fn request_types_are_one_list_with_their_wire_names() {
    for kind in RequestType::ALL {
        let wire = serde_json::to_value(kind).expect("ser");
        assert_eq!(wire, json!(kind.as_str()));
        assert_eq!(serde_json::from_value::<RequestType>(wire).expect("de"), *kind);
    }
    let newer: RequestType = serde_json::from_value(json!("tabs.list")).expect("unknown");
    assert_eq!(newer, RequestType::Unknown);
    assert_eq!(<LlmRequest as HostRequest>::TYPE, RequestType::LlmComplete);
    let body: RequestBody = Doctor {}.into();
    assert_eq!(body.request_type(), RequestType::Doctor);
    let text = serde_json::to_string(&Request::new(3, ConfigGet {})).expect("ser");
    assert_eq!(text, r#"{"v":1,"id":3,"type":"config.get"}"#);
}

#[test]
fn retry_events_carry_the_failure_code() {
    let ev: EventFrame = serde_json::from_str(
        r#"{"v":1,"id":3,"event":"llm.retry","attempt":2,"delay_ms":5,"code":"llm_rate_limited","reason":"r"}"#,
    )
    .expect("retry");
    let HostEvent::LlmRetry { code, .. } = ev.event else { panic!("not a retry") };
    assert_eq!(code, ErrorCode::LlmRateLimited);
}

#[test]
fn a_bridge_answer_keeps_its_image_through_the_envelope() {
    let answer = BridgeAnswer {
        call: 3,
        result: BridgeResult::Ok(BridgeOutput {
            text: "Screenshot".into(),
            tabs: None,
            image: Some(BridgeImage { mime: "image/jpeg".into(), data: "AAAA".into() }),
            task: None,
            table: None,
        }),
    };
    let text = serde_json::to_string(&Request::new(5, answer.clone())).expect("serialise");
    let back: Request = serde_json::from_str(&text).expect("parse");
    assert_eq!(back.body, RequestBody::BridgeAnswer(answer), "{text}");
}

#[test]
fn a_task_report_and_progress_cross_the_envelope() {
    let report = BridgeTaskReport {
        status: BridgeTaskStatus::Denied,
        answer: "not sent".into(),
        summary: String::new(),
        findings: [("price".to_owned(), "12 EUR".to_owned())].into(),
        session: "s1".into(),
        turn: 2,
        steps: 3,
    };
    let answer = BridgeAnswer {
        call: 4,
        result: BridgeResult::Ok(BridgeOutput { task: Some(report), ..BridgeOutput::default() }),
    };
    let text = serde_json::to_string(&Request::new(6, answer.clone())).expect("serialise");
    assert!(text.contains(r#""status":"denied""#), "{text}");
    let back: Request = serde_json::from_str(&text).expect("parse");
    assert_eq!(back.body, RequestBody::BridgeAnswer(answer));
    let progress =
        BridgeProgress {
            call: 4, step: 1, message: "Click “Send”".into(), awaiting_user: false
        };
    let text = serde_json::to_string(&Request::new(7, progress.clone())).expect("serialise");
    assert!(text.contains(r#""type":"bridge.progress""#), "{text}");
    let back: Request = serde_json::from_str(&text).expect("parse");
    assert_eq!(back.body, RequestBody::BridgeProgress(progress));
    // A run_task without a session reads as before.
    let call: BridgeCall =
        serde_json::from_str(r#"{"tool":"run_task","prompt":"find it"}"#).expect("call");
    assert_eq!(call, BridgeCall::RunTask { prompt: "find it".into(), session: None });
}

/// One call of each kind (an exhaustive match: a new row of the bridge's table does not
/// compile without one).
fn bridge_example(tool: BridgeTool) -> BridgeCall {
    let r = || "1".to_owned();
    match tool {
        BridgeTool::Ping => BridgeCall::Ping,
        BridgeTool::ListTabs => BridgeCall::ListTabs,
        BridgeTool::OpenTab => BridgeCall::OpenTab { url: None },
        BridgeTool::SelectTab => BridgeCall::SelectTab { tab: 2 },
        BridgeTool::CloseTab => BridgeCall::CloseTab { tab: None },
        BridgeTool::Navigate => BridgeCall::Navigate { url: "https://a.example/".into() },
        BridgeTool::Back => BridgeCall::Back,
        BridgeTool::Snapshot => BridgeCall::Snapshot,
        BridgeTool::Click => BridgeCall::Click { ref_id: r(), double: false },
        BridgeTool::Type => BridgeCall::Type { ref_id: r(), text: "a".into(), submit: false },
        BridgeTool::SelectText => BridgeCall::SelectText { ref_id: r(), text: "a".into() },
        BridgeTool::Select => BridgeCall::Select { ref_id: r(), values: vec!["a".into()] },
        BridgeTool::PressKey => BridgeCall::PressKey { key: "Enter".into() },
        BridgeTool::Scroll => BridgeCall::Scroll { direction: ScrollWay::Up, ref_id: None },
        BridgeTool::Hover => BridgeCall::Hover { ref_id: r() },
        BridgeTool::Drag => BridgeCall::Drag { ref_id: r(), to: "2".into() },
        BridgeTool::Upload => BridgeCall::Upload { ref_id: r(), file: "a.txt".into() },
        BridgeTool::Extract => BridgeCall::Extract { ref_id: None },
        BridgeTool::Collect => {
            BridgeCall::Collect { ref_id: None, columns: vec![], pages: None, name: None }
        }
        BridgeTool::Screenshot => BridgeCall::Screenshot,
        BridgeTool::WaitFor => BridgeCall::WaitFor { text: None, seconds: None, gone: false },
        BridgeTool::Resize => BridgeCall::Resize { width: 800, height: 600 },
        BridgeTool::NetworkRequests => BridgeCall::NetworkRequests { include_static: false },
        BridgeTool::ConsoleMessages => BridgeCall::ConsoleMessages { level: None },
        BridgeTool::HandleDialog => BridgeCall::HandleDialog { accept: true, prompt_text: None },
        BridgeTool::RunTask => BridgeCall::RunTask { prompt: "a".into(), session: None },
        BridgeTool::RunWorkflow => {
            BridgeCall::RunWorkflow { name: "a".into(), values: Default::default() }
        }
    }
}

/// Each row of the bridge's table names its call's serde tag, and no two rows share a name.
#[test]
fn bridge_tool_names_are_the_serde_tags() {
    let mut names = std::collections::BTreeSet::new();
    for &tool in BridgeTool::ALL {
        let call = bridge_example(tool);
        assert_eq!(call.tool(), tool);
        let json = serde_json::to_value(&call).expect("json");
        assert_eq!(json["tool"], json!(tool.name()), "{tool:?}");
        assert_eq!(serde_json::from_value::<BridgeCall>(json).expect("back"), call);
        assert!(names.insert(tool.name()), "{tool:?}");
    }
    assert_eq!(BridgeTool::Ping.mcp_tool(), None, "the doctor's, not an agent's");
}
