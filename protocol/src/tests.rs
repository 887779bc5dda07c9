use super::*;
use serde_json::json;

#[test]
fn request_round_trips_with_flat_type_tag() {
    let req = Request::new(7, RequestBody::Hello { extension_version: "0.1.0".into() });
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
    let ok: HostFrame =
        serde_json::from_str(r#"{"v":1,"id":3,"ok":true,"data":{"a":1}}"#).expect("ok");
    assert_eq!(ok, HostFrame::Reply(ReplyFrame::ok(3, json!({"a":1}))));

    let err: HostFrame = serde_json::from_str(
        r#"{"v":1,"id":3,"ok":false,"error":{"code":"llm_auth","message":"bad key"}}"#,
    )
    .expect("err");
    assert_eq!(err, HostFrame::Reply(ReplyFrame::err(3, ErrorCode::LlmAuth, "bad key")));

    let ev: HostFrame =
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
    let text = serde_json::to_string(&ReplyFrame::err(9, ErrorCode::BadJson, "x")).expect("ser");
    assert_eq!(text, r#"{"v":1,"id":9,"ok":false,"error":{"code":"bad_json","message":"x"}}"#);
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
        assert_eq!(r.body.type_name(), kind);
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
