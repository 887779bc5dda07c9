use super::*;
use crate::safety::SiteScope;
use base64::Engine;

const ORDER: &str = "https://shop.example/api/place-order";

/// What a card showed: a held request as `webRequest` reported it.
fn card(url: &str, method: &str, body: Option<RequestBody>) -> BlockedRequest {
    BlockedRequest { url: url.into(), method: method.into(), kind: "xmlhttprequest".into(), body }
}

fn json(text: &str) -> Option<RequestBody> {
    Some(RequestBody::Raw { bytes: text.as_bytes().to_vec() })
}

fn form(pairs: &[(&str, &str)]) -> Option<RequestBody> {
    let mut fields: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (n, v) in pairs {
        fields.entry((*n).to_owned()).or_default().push((*v).to_owned());
    }
    Some(RequestBody::Form { fields })
}

/// A request as CDP pauses it.
fn paused(url: &str, method: &str, headers: &[(&str, &str)], body: Option<&str>) -> PausedRequest {
    PausedRequest {
        request_id: "interception-1".into(),
        request: PausedHttp {
            url: url.into(),
            method: method.into(),
            headers: headers.iter().map(|(n, v)| ((*n).to_owned(), (*v).to_owned())).collect(),
            post_data: body.map(str::to_owned),
            has_post_data: body.is_some(),
            post_data_entries: Vec::new(),
        },
        resource_type: CdpResourceType::Fetch,
    }
}

const JSON: (&str, &str) = ("Content-Type", "application/json");
const FORM: (&str, &str) = ("content-type", "application/x-www-form-urlencoded");

/// A read-only task on shop.example whose held `approved` request the user released.
fn pinning(approved: &BlockedRequest) -> Pinning {
    let scope = SiteScope::starting_at("https://shop.example/checkout");
    Pinning::new(&NetworkPermit::reading(&scope).pinning(approved)).expect("pins")
}

fn held(v: PinVerdict) -> BlockedRequest {
    match v {
        PinVerdict::Fail(b) => *b,
        PinVerdict::Continue => panic!("expected the request to be failed"),
    }
}

#[test]
fn a_permit_without_pins_needs_no_debugger() {
    let scope = SiteScope::starting_at("https://shop.example/");
    assert!(Pinning::new(&NetworkPermit::reading(&scope)).is_none());
    assert!(Pinning::new(&NetworkPermit::within(&scope, |_| true)).is_none());
}

#[test]
fn the_approved_order_goes_once_and_a_changed_quantity_is_held_with_what_it_carries() {
    let approved = card(ORDER, "POST", json(r#"{"item":"blue teapot","qty":1}"#));
    let mut pin = pinning(&approved);
    let twelve = paused(ORDER, "POST", &[JSON], Some(r#"{"item":"blue teapot","qty":12}"#));
    let again = held(pin.judge(&twelve));
    assert_eq!(again.method, "POST");
    assert_eq!(again.url, ORDER);
    let shown = body::describe_fields(&body::fields(&again.url, again.body.as_ref()));
    assert!(shown.contains("qty: 12"), "the new card shows what it would send: {shown}");
    let one = paused(ORDER, "POST", &[JSON], Some(r#"{"item":"blue teapot","qty":1}"#));
    assert_eq!(pin.judge(&one), PinVerdict::Continue);
    // Exactly that request, once: the same order a second time is held again.
    assert!(matches!(pin.judge(&one), PinVerdict::Fail(_)));
}

#[test]
fn json_keys_in_another_order_are_the_same_body_but_types_and_arrays_count() {
    let approved = card(ORDER, "POST", json(r#"{"item":"blue teapot","qty":1,"opts":[1,2]}"#));
    let swapped =
        paused(ORDER, "POST", &[JSON], Some(r#"{"opts":[1,2], "qty":1,"item":"blue teapot"}"#));
    assert_eq!(pinning(&approved).judge(&swapped), PinVerdict::Continue);
    let text_qty =
        paused(ORDER, "POST", &[JSON], Some(r#"{"item":"blue teapot","qty":"1","opts":[1,2]}"#));
    assert!(matches!(pinning(&approved).judge(&text_qty), PinVerdict::Fail(_)));
    let reordered =
        paused(ORDER, "POST", &[JSON], Some(r#"{"item":"blue teapot","qty":1,"opts":[2,1]}"#));
    assert!(matches!(pinning(&approved).judge(&reordered), PinVerdict::Fail(_)));
}

#[test]
fn a_url_encoded_body_is_compared_as_the_fields_the_card_showed() {
    // webRequest parsed the form for the card; CDP gives the encoded text.
    let approved = card(ORDER, "POST", form(&[("item", "blue teapot"), ("qty", "1")]));
    let same = paused(ORDER, "POST", &[FORM], Some("qty=1&item=blue+teapot"));
    assert_eq!(pinning(&approved).judge(&same), PinVerdict::Continue);
    let more = paused(ORDER, "POST", &[FORM], Some("qty=1&item=blue+teapot&qty=11"));
    assert!(matches!(pinning(&approved).judge(&more), PinVerdict::Fail(_)));
}

#[test]
fn a_multipart_body_is_compared_by_fields_and_file_names() {
    let approved = card(ORDER, "POST", form(&[("note", "gift “wrap”"), ("receipt", "r.pdf")]));
    let body = |note: &str| {
        format!(
            "------b7\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\n{note}\r\n\
             ------b7\r\nContent-Disposition: form-data; name=\"receipt\"; filename=\"r.pdf\"\r\n\
             Content-Type: application/pdf\r\n\r\n%PDF-1.4 \u{0}\u{1}\r\n------b7--\r\n"
        )
    };
    let kind = ("Content-Type", "multipart/form-data; boundary=----b7");
    let same = paused(ORDER, "POST", &[kind], Some(&body("gift “wrap”")));
    assert_eq!(pinning(&approved).judge(&same), PinVerdict::Continue);
    let changed = held(pinning(&approved).judge(&paused(ORDER, "POST", &[kind], Some(&body("x")))));
    assert_eq!(
        changed.body,
        form(&[("note", "x"), ("receipt", "r.pdf")]),
        "decoded as the browser shows a form"
    );
    // The exact bytes (postDataEntries) win over the text.
    let mut exact = paused(ORDER, "POST", &[kind], Some("garbled"));
    let engine = base64::engine::general_purpose::STANDARD;
    exact.request.post_data_entries =
        vec![PostDataEntry { bytes: Some(engine.encode(body("gift “wrap”"))) }];
    assert_eq!(pinning(&approved).judge(&exact), PinVerdict::Continue);
}

#[test]
fn a_card_that_showed_no_body_pins_no_fields() {
    let approved = card(ORDER, "POST", None);
    let empty = paused(ORDER, "POST", &[JSON], None);
    assert_eq!(pinning(&approved).judge(&empty), PinVerdict::Continue);
    let carrying = paused(ORDER, "POST", &[JSON], Some(r#"{"qty":12}"#));
    let again = held(pinning(&approved).judge(&carrying));
    assert!(again.body.is_some(), "the new card shows what the request carries");
}

#[test]
fn a_method_override_header_is_the_method_other_headers_are_not_pinned() {
    let approved = card(ORDER, "POST", json(r#"{"qty":1}"#));
    let body = Some(r#"{"qty":1}"#);
    let override_ = paused(ORDER, "POST", &[JSON, ("X-HTTP-Method-Override", "delete")], body);
    let again = held(pinning(&approved).judge(&override_));
    assert_eq!(again.method, "DELETE", "the card says what the server will do");
    let headers = [JSON, ("X-Requested-With", "XMLHttpRequest"), ("Accept", "*/*")];
    assert_eq!(
        pinning(&approved).judge(&paused(ORDER, "POST", &headers, body)),
        PinVerdict::Continue
    );
    // Approving the override pins it in turn.
    let scope = SiteScope::starting_at("https://shop.example/checkout");
    let permit = NetworkPermit::reading(&scope).pinning(&approved).pinning(&again);
    let mut both = Pinning::new(&permit).expect("pins");
    assert_eq!(both.judge(&override_), PinVerdict::Continue);
}

#[test]
fn another_write_is_held_reads_go_and_the_budget_still_counts() {
    let approved = card(ORDER, "POST", json(r#"{"qty":1}"#));
    let mut pin = pinning(&approved);
    let second = paused("https://shop.example/api/add-warranty", "POST", &[JSON], Some("{}"));
    let again = held(pin.judge(&second));
    assert_eq!(again.url, "https://shop.example/api/add-warranty");
    let read = paused("https://shop.example/api/cart?x=1", "GET", &[], None);
    assert_eq!(pin.judge(&read), PinVerdict::Continue);
    let mut beacon = paused("https://shop.example/track", "GET", &[], None);
    beacon.resource_type = CdpResourceType::Ping;
    assert!(matches!(pin.judge(&beacon), PinVerdict::Fail(_)));
    // The address is released exactly: another query is another request; a fragment is not.
    let query = paused(&format!("{ORDER}?qty=12"), "POST", &[JSON], Some(r#"{"qty":1}"#));
    assert!(matches!(pin.judge(&query), PinVerdict::Fail(_)));
    // Where the task's own words grant writes, a write goes as it did on the first run.
    let scope = SiteScope::starting_at("https://shop.example/checkout");
    let writing = NetworkPermit::within(&scope, |_| true).pinning(&approved);
    let mut granted = Pinning::new(&writing).expect("pins");
    assert_eq!(granted.judge(&second), PinVerdict::Continue);
    // …but not to the pinned address with another body.
    let twelve = paused(ORDER, "POST", &[JSON], Some(r#"{"qty":12}"#));
    assert!(matches!(granted.judge(&twelve), PinVerdict::Fail(_)));
}

#[test]
fn a_failed_request_at_the_pinned_address_is_put_to_the_user() {
    let scope = SiteScope::starting_at("https://shop.example/checkout");
    let approved = card(ORDER, "POST", json(r#"{"qty":1}"#));
    let permit = NetworkPermit::reading(&scope).pinning(&approved);
    assert!(!permit.holds_write_to(ORDER), "the rules let the pinned address go");
    assert!(permit.pins(ORDER) && permit.pins(&format!("{ORDER}#x")));
    assert!(!permit.pins("https://shop.example/api/other"));
}

#[test]
fn cdp_parameters_are_read_as_chrome_sends_them() {
    let raw = r#"{"requestId":"interception-job-7.0","frameId":"F1","resourceType":"Fetch",
        "request":{"url":"https://shop.example/api/place-order","method":"POST",
        "headers":{"Content-Type":"application/json"},"postData":"{\"qty\":1}",
        "hasPostData":true,"postDataEntries":[{"bytes":"eyJxdHkiOjF9"}],
        "initialPriority":"High","referrerPolicy":"strict-origin-when-cross-origin"}}"#;
    let p: PausedRequest = serde_json::from_str(raw).expect("parses");
    assert_eq!(p.request_id, "interception-job-7.0");
    let sent = as_sent(&p);
    assert_eq!(sent.kind, "xmlhttprequest");
    assert_eq!(sent.body, json(r#"{"qty":1}"#));
    let unknown: PausedRequest = serde_json::from_str(
        r#"{"requestId":"1","resourceType":"SignedExchange","request":{"url":"https://a.example/","method":"GET"}}"#,
    )
    .expect("parses");
    assert_eq!(unknown.resource_type, CdpResourceType::Other);
}

#[test]
fn the_fallback_says_why_in_one_line() {
    let said = not_pinned("Another debugger is already attached to the tab with id: 7.\nx");
    assert!(said.starts_with("NOTE: Waymark could not hold the approved request"), "{said}");
    assert!(said.contains("Another debugger is already attached") && !said.contains('\n'));
}
