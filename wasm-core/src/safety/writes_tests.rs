use super::*;
use std::collections::BTreeMap;

fn json(text: &str) -> RequestBody {
    RequestBody::Raw { bytes: text.as_bytes().to_vec() }
}

fn form(pairs: &[(&str, &str)]) -> RequestBody {
    let mut fields: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (n, v) in pairs {
        fields.entry((*n).to_owned()).or_default().push((*v).to_owned());
    }
    RequestBody::Form { fields }
}

fn kind(method: &str, url: &str, body: Option<&RequestBody>) -> EffectKind {
    classify(method, url, body).kind
}

#[test]
fn requests_are_read_by_path_method_and_fields() {
    use EffectKind as E;
    let b = "https://shop.example";
    let cases: Vec<(&str, String, Option<RequestBody>, EffectKind)> = vec![
        ("POST", format!("{b}/api/cart"), Some(json(r#"{"sku":"TEA-1","qty":1}"#)), E::Cart),
        ("POST", format!("{b}/cart/add"), Some(form(&[("id", "3")])), E::Cart),
        ("DELETE", format!("{b}/api/cart/items/42"), None, E::Cart),
        ("DELETE", format!("{b}/api/messages/all"), None, E::Delete),
        ("POST", format!("{b}/api/orders"), Some(json(r#"{"item":"teapot"}"#)), E::Order),
        ("POST", format!("{b}/checkout"), None, E::Order),
        ("POST", format!("{b}/api/giftcards"), Some(json("count=5&amount=250")), E::Order),
        ("PUT", format!("{b}/api/plan"), Some(json(r#"{"plan":"team","seats":40}"#)), E::Billing),
        ("POST", format!("{b}/api/subscription"), Some(json(r#"{"plan":"p"}"#)), E::Billing),
        ("POST", format!("{b}/api/beta"), Some(json(r#"{"enrolled":true,"fee":15}"#)), E::Unknown),
        // A role in the fields of a plain project path is an account change.
        (
            "POST",
            format!("{b}/api/projects/7"),
            Some(json(r#"{"user":"eve","role":"owner"}"#)),
            E::Account,
        ),
        ("PATCH", format!("{b}/api/projects/7"), Some(json(r#"{"name":"Tea"}"#)), E::Unknown),
        ("PATCH", format!("{b}/api/settings/profile"), Some(json(r#"{"bio":"x"}"#)), E::Settings),
        // A checkout step's `name` field is no setting.
        ("POST", format!("{b}/review"), Some(form(&[("name", "Ada")])), E::Unknown),
        ("POST", format!("{b}/api/projects/7/members"), Some(json("{}")), E::Account),
        ("POST", format!("{b}/settings/webhooks"), Some(form(&[("url", "x")])), E::Integration),
        ("POST", format!("{b}/api/payouts/account"), None, E::Billing),
        ("POST", format!("{b}/api/threads/9/replies"), Some(json(r#"{"text":"hi"}"#)), E::Message),
        // A contact form's `message` field does not make it a message; its path says contact.
        (
            "POST",
            format!("{b}/contact"),
            Some(form(&[("name", "Ada"), ("message", "Hello")])),
            E::Submit,
        ),
        // The operation named in a field counts (`{"action":"delete"}`), camelCase too.
        ("POST", format!("{b}/api/do"), Some(json(r#"{"action":"deleteAccount"}"#)), E::Delete),
        ("POST", format!("{b}/api/x"), Some(json(r#"{"addToCart":true}"#)), E::Cart),
        // A CSRF token is no API key.
        ("POST", format!("{b}/api/cart"), Some(form(&[("csrf_token", "z")])), E::Cart),
        ("POST", format!("{b}/api/search"), Some(json(r#"{"q":"tea"}"#)), E::Lookup),
        ("POST", format!("{b}/collect"), Some(json(r#"{"events":[]}"#)), E::Telemetry),
        ("POST", format!("{b}/api/7f3e"), None, E::Unknown),
    ];
    for (method, url, body, want) in cases {
        assert_eq!(kind(method, &url, body.as_ref()), want, "{method} {url} {body:?}");
    }
}

#[test]
fn quantity_recipients_and_endpoints_are_read() {
    let e = classify(
        "POST",
        "https://shop.example/api/cart",
        Some(&json(r#"{"item":{"sku":"T","quantity":"3"}}"#)),
    );
    assert_eq!((e.kind, e.quantity), (EffectKind::Cart, 3));
    let e = classify("POST", "https://shop.example/api/cart?qty=1e9", None);
    assert_eq!(e.quantity, MAX_QUANTITY);
    let e = classify(
        "POST",
        "https://chat.example/api/channels/general/messages",
        Some(&json(r#"{"text":"hi"}"#)),
    );
    assert_eq!(e.kind, EffectKind::Message);
    assert_eq!(e.recipients, vec!["general".to_owned()]);
    let e =
        classify("POST", "https://m.example/api/send", Some(&json(r#"{"to":"Ann@M.example"}"#)));
    assert_eq!(e.recipients, vec!["ann@m.example".to_owned()]);
    let a = classify("POST", "https://shop.example/api/orders/8812/confirm", None);
    let b = classify("POST", "https://shop.example/api/orders/9917/confirm", None);
    assert_eq!(a.endpoint, b.endpoint);
    assert_eq!(a.endpoint, "api/orders/*/confirm");
}

#[test]
fn hostile_text_is_read_safely() {
    for url in ["https://x.example/“％ｆ”/%FF%FE/ｄｅｌｅｔｅ", "https://x.example/a/%E2%80%9C"]
    {
        let _ = classify("POST", url, Some(&json("{\"“\":\"：\"}")));
    }
    assert_eq!(words_of("addToCart"), ["add", "to", "cart"]);
    assert_eq!(words_of("Ünïcode_Straße"), ["ünïcode", "straße"]);
}

#[test]
fn a_reorder_is_a_list_arranged_only_when_it_carries_a_list_and_no_goods() {
    use EffectKind as E;
    let at = "https://plan.example/api/reorder";
    let list = json(r#"{"chores":"trash,dishes,laundry","done":"tickets"}"#);
    assert_eq!(kind("POST", at, Some(&list)), E::Settings);
    let array = json(r#"{"songs":["coda","intro"]}"#);
    assert_eq!(kind("POST", at, Some(&array)), E::Settings);
    // Buying again: no body, one entry, or goods alongside the list.
    assert_eq!(kind("POST", "https://shop.example/orders/77/reorder", None), E::Order);
    assert_eq!(kind("POST", at, Some(&json(r#"{"order":"77"}"#))), E::Order);
    let goods = json(r#"{"items":"tea,cups","qty":2}"#);
    assert_eq!(kind("POST", at, Some(&goods)), E::Order);
    // Another dangerous word still counts.
    let pay = json(r#"{"list":"a,b","payment":"card"}"#);
    assert_eq!(kind("POST", "https://shop.example/api/reorder/checkout", Some(&pay)), E::Order);
}
