//! Replays of the recorded shop task: no model call while the page is the same, one call per
//! changed step, a clear stop when a step cannot be done, and the policy as in a live task.

use super::*;
use crate::agent::TaskContext;
use crate::record::Ending;

fn replay(
    variant: Variant,
    model: &Model,
    user: &User,
    values: &[(&str, &str)],
) -> (Shop, TaskOutcome, TaskContext) {
    let shop = Shop::new(variant);
    let (outcome, _, ctx) = run_task(&shop, model, user, spec(&recorded(), values));
    (shop, outcome, ctx)
}

#[test]
fn an_unchanged_page_replays_with_no_model_call_and_the_same_result() {
    let model = Model::default();
    let user = User::default();
    let (shop, outcome, ctx) = replay(Variant::default(), &model, &user, &[]);
    assert!(outcome.success, "{outcome:?}");
    assert_eq!(model.calls(), 0, "no model call");
    assert_eq!(
        shop.placed.borrow().as_deref(),
        Some("Ada Lovelace on 2026-03-14 by Express, gift wrapped")
    );
    assert_eq!(outcome.steps.len(), 6);
    assert!(outcome.answer.starts_with("Ran the workflow"), "{}", outcome.answer);
    assert!(ctx.replay.heals.is_empty());
    // The workflow was recorded from "Order a teapot …": the order is a write its words ask
    // for, on the site it was recorded on, so it needs no card — as in a live task.
    let cards = user.cards.borrow();
    assert!(cards.is_empty(), "{cards:?}");
}

/// The recorded workflow with other words for its task (what it was recorded from).
fn recorded_as(task: &str) -> Workflow {
    Workflow { task: crate::locate::Template::literal(task), ..recorded() }
}

#[test]
fn an_order_the_recorded_words_did_not_ask_for_is_asked_again() {
    let w = recorded_as("Fill in the teapot form for Ada Lovelace");
    asks_once_about(&w, "Place order");
}

#[test]
fn other_values_replay_with_those_values() {
    let model = Model::default();
    let values = [("full_name", "Grace Hopper"), ("shipping", "Standard")];
    let (shop, outcome, _) = replay(Variant::default(), &model, &User::default(), &values);
    assert!(outcome.success, "{outcome:?}");
    assert_eq!(model.calls(), 0);
    assert_eq!(
        shop.placed.borrow().as_deref(),
        Some("Grace Hopper on 2026-03-14 by Standard, gift wrapped")
    );
}

#[test]
fn a_renamed_button_and_a_moved_checkbox_cost_one_model_call_each() {
    // The model finds the gift-wrap checkbox (still [4]) and the renamed Continue ("Next", [5]).
    let model =
        Model::new(vec![tools(&[("check", r#"{"ref":4}"#)]), tools(&[("click", r#"{"ref":5}"#)])]);
    let variant = Variant { renamed: true, moved: true, ..Variant::default() };
    let (shop, outcome, ctx) = replay(variant, &model, &User::default(), &[]);
    assert!(outcome.success, "{outcome:?}");
    assert_eq!(model.calls(), 2, "one call per changed step");
    assert_eq!(
        shop.placed.borrow().as_deref(),
        Some("Ada Lovelace on 2026-03-14 by Express, gift wrapped")
    );
    let heals = &ctx.replay.heals;
    assert_eq!(heals.iter().map(|h| h.index).collect::<Vec<_>>(), [3, 4]);
    assert!(heals[0].why.contains("no longer under “Extras”"), "{}", heals[0].why);
    assert_eq!(heals[1].now.target.as_ref().map(|t| t.name.as_str()), Some("Next"));
    assert_eq!(heals[1].now.intent, "Click button “Next” under “Extras”");
    // Each healing prompt is about its one step, with the page as it is now.
    let seen = model.seen.borrow();
    let prompt: String =
        seen[1].messages.iter().map(|m| m.content.as_str()).collect::<Vec<_>>().join("\n");
    assert!(prompt.contains("Repair one step") && prompt.contains("step 5 of 6"), "{prompt}");
    assert!(prompt.contains("[5] button Next"), "the current page is shown: {prompt}");
    assert!(outcome.answer.contains("2 steps were healed"), "{}", outcome.answer);

    // Accepted, the healed steps replay the changed page without the model.
    let mem = MemStore::default();
    let store = WorkflowStore::new(&mem);
    block_on(store.save(&recorded())).expect("saved");
    let healed = block_on(store.accept_heals("wf1", heals, 1.0)).expect("accepted");
    assert!(matches!(block_on(store.accept_heals("wf1", heals, 2.0)), Err(WorkflowError::Stale)));
    let again = Model::default();
    let shop = Shop::new(variant);
    let (outcome, _, _) = run_task(&shop, &again, &User::default(), spec(&healed, &[]));
    assert!(outcome.success, "{outcome:?}");
    assert_eq!(again.calls(), 0);
}

#[test]
fn a_removed_target_stops_the_run_at_that_step_saying_what_was_done() {
    let model = Model::new(vec![tools(&[(
        "done",
        r#"{"answer":"There is no button to go on.","success":false}"#,
    )])]);
    let variant = Variant { removed: true, ..Variant::default() };
    let (shop, outcome, _) = replay(variant, &model, &User::default(), &[]);
    assert!(!outcome.success);
    assert_eq!(outcome.ending, Ending::Failed);
    assert_eq!(model.calls(), 1, "one healing call, no more");
    assert_eq!(*shop.placed.borrow(), None);
    let a = &outcome.answer;
    assert!(a.starts_with("Stopped at step 5 of 6"), "{a}");
    assert!(
        a.contains("there is no button “Continue”") && a.contains("There is no button to go on"),
        "{a}"
    );
    assert!(a.contains("Done before it (4 actions)"), "{a}");
}

#[test]
fn a_card_denied_mid_replay_stops_cleanly() {
    let user = User::answering(vec![Reply::default()]);
    let model = Model::default();
    let shop = Shop::new(Variant::default());
    let w = recorded_as("Fill in the teapot form for Ada Lovelace");
    let (outcome, _, _) = run_task(&shop, &model, &user, spec(&w, &[]));
    assert_eq!(outcome.ending, Ending::Refused);
    assert_eq!(*shop.placed.borrow(), None, "nothing was placed");
    assert!(outcome.answer.starts_with("Stopped at step 6 of 6"), "{}", outcome.answer);
    assert!(outcome.answer.contains("you did not approve it"), "{}", outcome.answer);
    assert_eq!(model.calls(), 0);
    // Stop on the card ends the run as stopped.
    let stopper = User::answering(vec![Reply::stop()]);
    let shop = Shop::new(Variant::default());
    let (outcome, _, _) = run_task(&shop, &Model::default(), &stopper, spec(&w, &[]));
    assert_eq!(outcome.ending, Ending::Stopped);
    assert_eq!(*shop.placed.borrow(), None);
}

#[test]
fn a_step_that_now_sends_elsewhere_always_asks() {
    let user = User::answering(vec![Reply::default()]);
    let variant = Variant { new_destination: true, ..Variant::default() };
    let (shop, outcome, _) = replay(variant, &Model::default(), &user, &[]);
    let cards = user.cards.borrow();
    assert_eq!(cards.len(), 1);
    assert!(cards[0].title.contains("sends somewhere new"), "{:?}", cards[0]);
    assert!(
        cards[0].message.contains("review-v2") && cards[0].message.contains(shop::REVIEW),
        "{}",
        cards[0].message
    );
    assert!(outcome.answer.contains("Stopped at step 5 of 6"), "{}", outcome.answer);
    assert_eq!(*shop.placed.borrow(), None);
}

#[test]
fn a_run_started_elsewhere_opens_the_start_page_first() {
    let shop = Shop::new(Variant::default());
    shop.elsewhere.set(true);
    let model = Model::default();
    let user = User::default();
    let (outcome, _, _) = run_task(&shop, &model, &user, spec(&recorded(), &[]));
    assert!(outcome.success, "{outcome:?}");
    assert_eq!(model.calls(), 0);
    assert!(
        matches!(&shop.acts.borrow()[0], waymark_page::action::Action::Navigate { url } if url == shop::ORDER)
    );
    // Another site than the one the task started on: a card, as for any navigation.
    assert!(user.cards.borrow()[0].message.contains("shop.example"), "{:?}", user.cards.borrow());
}

#[test]
fn a_run_resumed_after_a_restart_never_repeats_a_step() {
    let shop = Shop::new(Variant::default());
    let model = Model::default();
    // Stopped at the fourth gate: three steps done.
    let user = User { stop_at_gate: Some(4), ..User::default() };
    let (outcome, journal, _) = run_task(&shop, &model, &user, spec(&recorded(), &[]));
    assert_eq!(outcome.ending, Ending::Stopped);
    // The worker died before the end was written: the journal without its last entry.
    let mut entries = journal.0.borrow().clone();
    entries.retain(|e| !matches!(e, JournalEntry::Finished { .. }));
    let mut ctx = TaskContext::replay(&entries).expect("rebuilt");
    assert_eq!(ctx.replay.next, 3);
    let (events, env, again) = (Events::default(), Clock::default(), Entries::default());
    let user = User::default();
    let agent = Agent {
        llm: &model,
        page: &shop,
        env: &env,
        events: &events,
        operator: &user,
        journal: &again,
    };
    let outcome = block_on(agent.run(&mut ctx));
    assert!(outcome.success, "{outcome:?}");
    let typed = shop
        .acts
        .borrow()
        .iter()
        .filter(|a| matches!(a, waymark_page::action::Action::Type { .. }))
        .count();
    assert_eq!(typed, 2, "each field typed once");
    assert_eq!(model.calls(), 0);
}
