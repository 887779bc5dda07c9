//! Teach by showing on the fake shop: the user's own steps (as the content script reports
//! them, each with the page read right before it) become a workflow with inputs, which replays
//! with other values and no model call; what it may change is what the demonstration changed.

use super::shop::{PLACE, REVIEW};
use super::*;
use crate::agent::Page;
use crate::safety::{Effect, EffectKind};
use crate::workflow::{Demonstration, LoadCause, SkipReason};
use waymark_page::demonstration::{Demonstrated, DemonstratedAct};

/// What the content script reports for `act` on `[index]` of the shop as it is now; the
/// shop then does what the user's input did.
fn show(shop: &Shop, demo: &mut Demonstration, index: u32, act: DemonstratedAct, to: Option<&str>) {
    let observation = block_on(shop.observe()).expect("observed");
    let target = Ref::top(index);
    let shown =
        Demonstrated { observation, target, act: act.clone(), destination: to.map(str::to_owned) };
    demo.add(&shown).expect("kept");
    let action = match act {
        DemonstratedAct::Click => Action::Click { ref_id: target },
        DemonstratedAct::Check => Action::Check { ref_id: target },
        DemonstratedAct::Uncheck => Action::Uncheck { ref_id: target },
        DemonstratedAct::Type { text } => Action::Type { ref_id: target, text, append: false },
        DemonstratedAct::TypeSecret => return,
        DemonstratedAct::Choose { option } => Action::SelectOption { ref_id: target, option },
        DemonstratedAct::Press { .. } => return,
    };
    let permit = crate::safety::NetworkPermit::reading(&Default::default());
    block_on(shop.act(&action, &permit)).expect("acted");
}

/// A request the network layer saw while recording, as it classified it.
fn wrote(kind: EffectKind, endpoint: &str) -> Effect {
    Effect {
        kind,
        quantity: 1,
        recipients: vec![],
        endpoint: endpoint.into(),
        values: Default::default(),
    }
}

fn typed(text: &str) -> DemonstratedAct {
    DemonstratedAct::Type { text: text.into() }
}

/// The user fills the shop's form and places the order; `ordered`: the order request was
/// seen (it is the network layer that tells, not the button's words).
fn demonstrated(ordered: bool) -> Workflow {
    let shop = Shop::new(Variant::default());
    let mut demo = Demonstration::start(7, "https://shop.example/order", 1.0);
    show(&shop, &mut demo, 1, typed("Ada"), None);
    // A correction in the same field is one step.
    show(&shop, &mut demo, 1, typed("Ada Lovelace"), None);
    show(&shop, &mut demo, 2, typed("2026-03-14"), None);
    show(&shop, &mut demo, 3, DemonstratedAct::Choose { option: "Express".into() }, None);
    show(&shop, &mut demo, 4, DemonstratedAct::Check, None);
    show(&shop, &mut demo, 5, DemonstratedAct::Click, Some(REVIEW));
    // Continue posted the form to /review (nothing in it says what it does).
    demo.request(&wrote(EffectKind::Unknown, "review"));
    show(&shop, &mut demo, 1, DemonstratedAct::Click, Some(PLACE));
    if ordered {
        demo.request(&wrote(EffectKind::Order, "place"));
    }
    demo.request(&wrote(EffectKind::Telemetry, "collect"));
    assert_eq!(
        shop.placed.borrow().as_deref(),
        Some("Ada Lovelace on 2026-03-14 by Express, gift wrapped")
    );
    demo.finish("shown1".into(), 9.0).expect("a workflow")
}

#[test]
fn shown_steps_become_a_workflow_with_inputs_named_after_their_fields() {
    let w = demonstrated(true);
    let intents: Vec<&str> = w.steps.iter().map(|s| s.intent.as_str()).collect();
    assert_eq!(w.steps.len(), 6, "{intents:#?}");
    let names: Vec<&str> = w.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["full_name", "delivery_date", "shipping"]);
    assert_eq!(w.param("full_name").and_then(|p| p.default.as_deref()), Some("Ada Lovelace"));
    assert_eq!(w.param("shipping").and_then(|p| p.default.as_deref()), Some("Express"));
    assert!(
        matches!(&w.steps[0].action, StepAction::Type { text, .. } if text.as_str() == "{{full_name}}")
    );
    assert!(matches!(w.steps[3].action, StepAction::Check));
    let place = &w.steps[5];
    assert_eq!(place.target.as_ref().map(|t| t.name.as_str()), Some("Place order"));
    assert_eq!(place.destination.as_ref().map(|d| d.to_string()), Some(PLACE.to_owned()));
    assert_eq!(w.name, "Shown on shop.example");
    // Telemetry is never a write to grant.
    let shown: Vec<EffectKind> = w.shown_writes.iter().map(|s| s.effect).collect();
    assert_eq!(shown, [EffectKind::Unknown, EffectKind::Order]);
    validate(&w).expect("a valid workflow");
}

#[test]
fn a_shown_workflow_replays_other_values_with_no_model_call_and_no_card() {
    let w = demonstrated(true);
    let model = Model::default();
    let user = User::default();
    let shop = Shop::new(Variant::default());
    let (outcome, _, _) = run_task(
        &shop,
        &model,
        &user,
        spec(&w, &[("full_name", "Grace Hopper"), ("shipping", "Standard")]),
    );
    assert!(outcome.success, "{outcome:?}");
    assert_eq!(model.calls(), 0, "no model call");
    assert_eq!(
        shop.placed.borrow().as_deref(),
        Some("Grace Hopper on 2026-03-14 by Standard, gift wrapped")
    );
    // The demonstration placed one order: its run may place one, without asking.
    assert!(user.cards.borrow().is_empty(), "{:?}", user.cards.borrow());
}

#[test]
fn a_write_the_demonstration_did_not_make_is_asked_before_it_is_made() {
    // Same clicks, but no order request was seen while recording: the button's words
    // ("Place order") grant nothing.
    let w = demonstrated(false);
    assert_eq!(w.shown_writes.len(), 1, "{:?}", w.shown_writes);
    asks_once_about(&w, "Place order");
}

#[test]
fn a_password_is_the_users_own_step_and_typed_urls_become_steps() {
    let shop = Shop::new(Variant::default());
    let mut demo = Demonstration::start(7, "https://shop.example/start", 1.0);
    demo.navigated("https://shop.example/order").expect("a web page");
    show(&shop, &mut demo, 1, DemonstratedAct::TypeSecret, None);
    // An element the page read does not list is not a step (and is counted).
    let observation = block_on(shop.observe()).expect("observed");
    let lost = Demonstrated {
        observation,
        target: Ref::top(99),
        act: DemonstratedAct::Click,
        destination: None,
    };
    assert_eq!(demo.add(&lost), Err(SkipReason::NotLocated));
    assert_eq!(demo.navigated("chrome://settings"), Err(SkipReason::NotWeb));
    assert_eq!(demo.skipped, 2);
    let w = demo.finish("shown2".into(), 2.0).expect("a workflow");
    assert!(
        matches!(&w.steps[0].action, StepAction::Navigate { url } if url.as_str() == "https://shop.example/order")
    );
    assert_eq!(w.steps[0].page.to_string(), "https://shop.example/start");
    let to = w.steps[0].destination.as_ref().map(ToString::to_string);
    assert_eq!(to.as_deref(), Some("https://shop.example/order"));
    // The password is the user's own step at each run: no input, no value anywhere.
    assert!(matches!(w.steps[1].action, StepAction::YouType), "{:?}", w.steps[1]);
    assert!(w.params.is_empty(), "{:?}", w.params);
    assert!(w.steps[1].intent.starts_with("You type your password into textbox “Full name”"));
}

#[test]
fn nothing_shown_is_no_workflow() {
    let demo = Demonstration::start(7, "https://shop.example/order", 1.0);
    assert_eq!(demo.finish("x".into(), 1.0), Err(RecordError::NoSteps));
}

#[test]
fn only_loads_the_user_started_are_steps() {
    let q = |qs: &[&str]| qs.iter().map(|q| (*q).to_owned()).collect::<Vec<_>>();
    assert_eq!(LoadCause::of("typed", &q(&["from_address_bar"])), LoadCause::User);
    assert_eq!(LoadCause::of("auto_bookmark", &[]), LoadCause::User);
    assert_eq!(
        LoadCause::of("typed", &q(&["from_address_bar", "server_redirect"])),
        LoadCause::User
    );
    assert_eq!(LoadCause::of("link", &[]), LoadCause::Page);
    assert_eq!(LoadCause::of("form_submit", &[]), LoadCause::Page);
    assert_eq!(LoadCause::of("reload", &[]), LoadCause::Page);
    assert_eq!(LoadCause::of("typed", &q(&["forward_back"])), LoadCause::Page);
    assert_eq!(LoadCause::of("typed", &q(&["client_redirect"])), LoadCause::Page);
    let mut demo = Demonstration::start(1, "https://a.example/", 0.0);
    demo.committed("https://a.example/next", LoadCause::Page).expect("moved");
    assert!(demo.steps.is_empty());
    demo.committed("https://b.example/", LoadCause::User).expect("a step");
    assert_eq!(demo.steps[0].page.to_string(), "https://a.example/next");
    assert_eq!(demo.at, "https://b.example/");
}

/// The user typed a password (never read) into the name field, then went on as usual.
fn with_password() -> Workflow {
    let shop = Shop::new(Variant::default());
    let mut demo = Demonstration::start(7, "https://shop.example/order", 1.0);
    show(&shop, &mut demo, 1, DemonstratedAct::TypeSecret, None);
    *shop.name.borrow_mut() = "Ada Lovelace".into();
    show(&shop, &mut demo, 2, typed("2026-03-14"), None);
    show(&shop, &mut demo, 5, DemonstratedAct::Click, Some(REVIEW));
    demo.request(&wrote(EffectKind::Unknown, "review"));
    demo.finish("shown3".into(), 3.0).expect("a workflow")
}

#[test]
fn a_run_hands_the_users_own_step_to_them_and_goes_on_when_they_continue() {
    let w = with_password();
    let model = Model::default();
    let user = User::default();
    let shop = Shop::new(Variant::default());
    let (outcome, journal, _) = run_task(&shop, &model, &user, spec(&w, &[]));
    assert!(outcome.success, "{outcome:?}");
    assert_eq!(model.calls(), 0);
    let cards = user.cards.borrow();
    assert_eq!(cards.len(), 1, "{cards:?}");
    assert_eq!(cards[0].kind, crate::agent::InterventionKind::TakeOver);
    assert!(
        cards[0].message.contains("type your password into textbox “Full name”"),
        "{}",
        cards[0].message
    );
    // Waymark typed nothing into that field; it did the other steps.
    let acts = shop.acts.borrow();
    assert!(
        !acts.iter().any(|a| matches!(a, Action::Type { ref_id, .. } if ref_id.index == 1)),
        "{acts:?}"
    );
    assert_eq!(shop.date.borrow().as_str(), "2026-03-14");
    assert!(journal.0.borrow().iter().any(|e| matches!(e, JournalEntry::HandedOver { index: 0 })));
}

#[test]
fn stop_at_the_users_own_step_ends_the_run_there() {
    let w = with_password();
    let user = User::answering(vec![Reply::stop()]);
    let shop = Shop::new(Variant::default());
    let (outcome, _, _) = run_task(&shop, &Model::default(), &user, spec(&w, &[]));
    assert!(!outcome.success, "{outcome:?}");
    assert!(outcome.answer.contains("Stopped by you"), "{}", outcome.answer);
    assert!(
        shop.acts.borrow().iter().all(|a| matches!(a, Action::Wait { .. })),
        "{:?}",
        shop.acts.borrow()
    );
}
