//! The ledger's handles: what the model reads instead of a secret, and where the worker puts the
//! value back.

use super::*;

const KEY: &str = "sk-live-Zq8aXcanary42Lm9Tt";
const DASH: &str = "https://dash.example";

fn ledger() -> TaintLedger {
    let mut taint = TaintLedger::default();
    taint.record_page_text("https://dash.example/keys", &format!("Your API key: {KEY}"));
    taint.record_user_text("sign in, my password is Qz7!vTr2mK9p, on dash.example", UserText::Task);
    taint
}

#[test]
fn secrets_become_handles_in_every_spelling_and_part() {
    let taint = ledger();
    let handles: Vec<String> = taint.handles().iter().map(|h| h.to_string()).collect();
    assert_eq!(
        handles,
        ["⟨secret:1 api key from dash.example⟩", "⟨secret:2 password from your task⟩"]
    );
    for text in [
        format!("key {KEY} ok"),
        format!("key {} ok", KEY.to_uppercase()),
        format!("key {} ok", KEY.chars().rev().collect::<String>()),
        "half Zq8aXcanary42 ok".to_owned(),
        "url https://dash.example/keys?k=sk-live-Zq8aXcanary42Lm9Tt ok".to_owned(),
    ] {
        let seen = taint.conceal(&text);
        assert!(!seen.contains("canary"), "{text} → {seen}");
        assert!(seen.contains("⟨secret:1 api key from dash.example⟩"), "{text} → {seen}");
    }
    assert_eq!(
        taint.conceal("type Qz7!vTr2mK9p here"),
        "type ⟨secret:2 password from your task⟩ here"
    );
    // Identifiers are not secrets: an order number stays readable.
    let mut taint = ledger();
    taint.record_page_text("https://shop.example/orders", "Order 12345678 shipped");
    assert_eq!(taint.conceal("Order 12345678 shipped"), "Order 12345678 shipped");
}

#[test]
fn a_handle_becomes_its_value_only_in_a_private_field_of_its_sites() {
    let taint = ledger();
    let private = Audience::Private;
    assert_eq!(
        taint.reveal("⟨secret:1 api key from dash.example⟩", DASH, &private).as_deref(),
        Ok(KEY)
    );
    // The model may shorten it to its number.
    assert_eq!(
        taint.reveal("key=⟨secret:1", DASH, &private).as_deref(),
        Ok(&*format!("key={KEY}"))
    );
    // Another site: refused, saying where it may go.
    let elsewhere =
        taint.reveal("⟨secret:1 api key from dash.example⟩", "https://paste.example", &private);
    assert!(matches!(elsewhere, Err(HandleRefusal::Elsewhere { .. })), "{elsewhere:?}");
    assert!(elsewhere.expect_err("elsewhere").to_string().contains("only on https://dash.example"));
    // Its own site, but a field others read.
    let public = Audience::Public("a multi-line text area".into());
    assert!(matches!(
        taint.reveal("⟨secret:1 api key from dash.example⟩", DASH, &public),
        Err(HandleRefusal::Public { .. })
    ));
    // The user's password may go where the user's words send it.
    assert_eq!(taint.reveal("⟨secret:2⟩", DASH, &private).as_deref(), Ok("Qz7!vTr2mK9p"));
    assert!(taint.reveal("⟨secret:2⟩", "https://evil.example", &private).is_err());
    // A handle the task never gave.
    assert_eq!(taint.reveal("⟨secret:9⟩", DASH, &private), Err(HandleRefusal::Unknown(9)));
    // Text without handles is unchanged.
    assert_eq!(taint.reveal("hello", DASH, &public).as_deref(), Ok("hello"));
}

#[test]
fn the_ledger_never_prints_a_value() {
    let taint = ledger();
    let printed = format!("{taint:?}");
    assert!(!printed.contains("canary") && !printed.contains("Qz7"), "{printed}");
}

#[test]
fn a_workflow_secret_goes_only_to_the_workflows_own_origins() {
    let mut taint = TaintLedger::default();
    taint.record_workflow_secret("token", "ghp_Qk3vR8sT1uV5wX9yZ2aB4cD6", vec![DASH.into()]);
    let handle = taint.handle_of("ghp_Qk3vR8sT1uV5wX9yZ2aB4cD6").expect("a handle").to_string();
    assert_eq!(handle, "⟨secret:1 secret from the workflow input “token”⟩");
    assert!(taint.reveal(&handle, DASH, &Audience::Private).is_ok());
    assert!(
        taint.reveal(&handle, "https://dash.example.evil.example", &Audience::Private).is_err()
    );
    assert!(taint.check("https://evil.example/", "ghp_Qk3vR8sT1uV5wX9yZ2aB4cD6").is_err());
}
