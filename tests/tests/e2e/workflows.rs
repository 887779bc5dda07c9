//! Workflows end to end in real Chromium with the real extension, host and scripted model: a
//! six-step task on the fixture shop (a form with a select and a checkbox, then a second page)
//! is saved as a workflow and replayed with no model call and the same result, with other
//! values (from the run form and from a "run NAME …" prompt); a renamed button and a moved
//! checkbox cost exactly one model call each; a removed target stops the run saying where and
//! why; a card denied mid-replay stops it cleanly; a malformed or future-version import stores
//! nothing; a save refused by full storage loses nothing; an external agent runs a workflow by
//! name through MCP (`run_workflow`) while the card waits for the panel.

use crate::common;
use crate::mcp_support;
use common::{
    Panel, Setup, TASK_TIMEOUT, Waymark, extension_with_quota, find_ref, message_text, role_reply,
};
use mcp_support::{Client, switched_on};
use serde_json::{Value, json};
use std::path::Path;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{RecordedRequest, ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

/// The user's words fill in the form and leave the order itself to a card (a task that said
/// "order a teapot" would grant the purchase on the shop and place it without one).
const TASK: &str = "Fill in the teapot form for Ada Lovelace, delivered 2026-03-14, with Express \
                    shipping and gift wrap";
const NAME: &str = "Order a teapot";

fn site() -> FixtureServer {
    FixtureServer::builder(paths::fixtures_dir().join("site")).start().expect("fixture server")
}

fn original_order_page() -> String {
    std::fs::read_to_string(paths::fixtures_dir().join("site/wf/order.html")).expect("order page")
}

/// The model a user would hope for on the shop, and for healing: fills the order form, goes
/// on, places the order, answers; asked to repair one step, it picks that step's element on
/// the current page (or says it is not there).
fn model(req: &RecordedRequest) -> ScriptedReply {
    if let Some(r) = role_reply(req) {
        return r;
    }
    let text = message_text(&req.body, 1);
    if text.contains("Repair one step") {
        let pick = if text.contains("one `check` tool") {
            find_ref(&text, "checkbox", "Gift wrap").map(|r| ("check", r))
        } else {
            find_ref(&text, "button", "Next").map(|r| ("click", r))
        };
        return match pick {
            Some((tool, r)) => ScriptedReply::tool_call(tool, json!({"ref": r})),
            None => ScriptedReply::tool_call(
                "done",
                json!({"answer": "This page has no button that goes on to the review.", "success": false}),
            ),
        };
    }
    if let Some(place) = find_ref(&text, "button", "Place order") {
        return ScriptedReply::tool_call("click", json!({"ref": place}));
    }
    if let (Some(name), Some(date), Some(shipping), Some(gift), Some(go)) = (
        find_ref(&text, "textbox", "Full name"),
        find_ref(&text, "textbox", "Delivery date"),
        find_ref(&text, "combobox", "Shipping"),
        find_ref(&text, "checkbox", "Gift wrap"),
        find_ref(&text, "button", "Continue"),
    ) {
        return ScriptedReply::tool_calls([
            ("type", json!({"ref": name, "text": "Ada Lovelace"})),
            ("type", json!({"ref": date, "text": "2026-03-14"})),
            ("select_option", json!({"ref": shipping, "option": "Express"})),
            ("check", json!({"ref": gift})),
            ("click", json!({"ref": go})),
        ]);
    }
    ScriptedReply::tool_call("done", json!({"answer": "The teapot is ordered.", "success": true}))
}

fn wait_answer(panel: &Panel, expect: &str) -> String {
    let predicate = format!("t.includes({})", serde_json::to_string(expect).expect("json"));
    panel.wait_text("answer", &predicate).unwrap_or_else(|e| {
        let shown = panel.text("answer").unwrap_or_default();
        panic!("waiting for an answer with {expect:?} (shown: {shown:?}): {e:#}")
    })
}

/// The orders the shop received (the bodies POSTed to /wf/place), oldest first.
fn orders(site: &FixtureServer) -> Vec<String> {
    site.posts("/wf/place")
}

/// The orders, once the shop received `n`.
fn wait_orders(site: &FixtureServer, n: usize) -> Vec<String> {
    site.wait_posts("/wf/place", n, TASK_TIMEOUT).expect("the orders")
}

/// The task done once with the model; the order it placed.
fn record(wm: &Waymark, panel: &Panel) -> String {
    let _tab = wm.open("/wf/order.html").expect("open the shop");
    panel.send(TASK).expect("send");
    panel.approve_card().expect("the order's card");
    wait_answer(panel, "The teapot is ordered.");
    let placed = wait_orders(&wm.site, 1);
    assert_eq!(placed.len(), 1, "one order");
    placed[0].clone()
}

/// Saves the finished task as a workflow named [`NAME`] through the editor.
fn save_as_workflow(panel: &Panel) {
    panel.click("#save-workflow");
    panel.wait_js("!document.getElementById('workflow-editor').hidden && !document.getElementById('workflows').hidden",
    );
    let steps = panel
        .page
        .eval("[...document.querySelectorAll('#workflow-steps .step-intent')].map((i) => i.value)")
        .expect("steps");
    let steps: Vec<String> = serde_json::from_value(steps).expect("step list");
    assert_eq!(steps.len(), 6, "six steps, never refs: {steps:?}");
    assert!(steps.iter().all(|s| !s.contains('[')), "{steps:?}");
    assert_eq!(steps[0], "Type “{{full_name}}” into textbox “Full name” under “Your order”");
    panel.set_value("#workflow-name", NAME);
    panel.click("#workflow-save");
    panel.wait_text("workflows-notice", &format!("t.includes('Saved “{NAME}”')")).expect("saved");
    panel.wait_js("document.getElementById('workflow-editor').hidden");
}

/// Runs [`NAME`] from the panel's list with `values` (field label → value).
fn run_from_list(panel: &Panel, values: &[(&str, &str)]) {
    if panel.page.eval("document.getElementById('workflows').hidden").ok() == Some(json!(true)) {
        panel.click("#workflows-open");
    }
    panel.click("#workflow-list li button[data-action=run]");
    for (name, value) in values {
        panel.set_value(&format!("#workflow-list li .run-form input[name={name}]"), value);
    }
    panel.click("#workflow-list li .run-form button[type=submit]");
}

fn calls(llm: &ScriptedLlm) -> usize {
    llm.request_count()
}

fn a_recorded_task_replays_without_the_model_and_heals_changed_steps_with_one_call_each(
    extension: &Path,
) {
    let llm = ScriptedLlm::start(model).expect("scripted LLM");
    let wm = Waymark::launch(extension, Setup { llm: &llm, install_host: true, site: site() })
        .expect("launch");
    let panel = wm.panel().expect("panel");
    panel.wait_text("host-status", "t.includes('connected')").expect("host connects");
    let recorded = record(&wm, &panel);
    assert_eq!(recorded, "name=Ada+Lovelace&date=2026-03-14&shipping=Express&gift=on");
    save_as_workflow(&panel);

    // The list with a run form open is readable by everyone.
    panel.click("#workflow-list li button[data-action=run]");
    panel.shoot_accessible("workflows-list", None);
    panel.click("#workflow-list li button[data-action=run]");
    panel.click("#workflows-close");

    // Replayed from the list with its defaults: no model call, the same order.
    let before = calls(&llm);
    let _tab = wm.open("/wf/order.html").expect("the shop again");
    run_from_list(&panel, &[]);
    let card = panel.approve_card().expect("the order's card is asked again");
    assert!(card.contains("Place order"), "{card}");
    let answer = wait_answer(&panel, "Ran the workflow");
    assert!(answer.contains("no model call"), "{answer}");
    assert_eq!(wait_orders(&wm.site, 2)[1], recorded, "the same result");
    assert_eq!(calls(&llm), before, "no model call while every step resolves");

    // Other values, from the run form and from a prompt.
    let _tab = wm.open("/wf/order.html").expect("the shop again");
    run_from_list(&panel, &[("full_name", "Grace Hopper"), ("shipping", "Standard")]);
    panel.approve_card().expect("card");
    wait_answer(&panel, "Ran the workflow");
    assert_eq!(
        wait_orders(&wm.site, 3)[2],
        "name=Grace+Hopper&date=2026-03-14&shipping=Standard&gift=on"
    );
    let _tab = wm.open("/wf/order.html").expect("the shop again");
    panel
        .send(&format!("run {NAME} full_name=Alan Turing, delivery_date=2026-05-01"))
        .expect("send");
    panel.approve_card().expect("card");
    wait_answer(&panel, "Ran the workflow");
    assert_eq!(
        wait_orders(&wm.site, 4)[3],
        "name=Alan+Turing&date=2026-05-01&shipping=Express&gift=on"
    );
    assert_eq!(calls(&llm), before, "still no model call (and no summary call for a run)");
    // A run is a task of the session and says it ran from a workflow.
    let toc = panel
        .page
        .eval("[...document.querySelectorAll('#toc li')].map((li) => li.textContent)")
        .expect("toc");
    assert!(toc.to_string().contains(&format!("Run the workflow “{NAME}”")), "{toc}");

    // The page changes: Continue is renamed, the gift-wrap box moves to another section.
    let changed = original_order_page()
        .replace(">Continue</button>", ">Next</button>")
        .replace("<!-- gift -->\n    <h2>Extras</h2>\n    <label>", "<label>")
        .replace("<!-- /gift -->", "<h2>Extras</h2>");
    assert!(changed.contains(">Next<") && changed.matches("Extras").count() == 1, "{changed}");
    wm.site.add_page("/wf/order.html", changed.clone());
    let _tab = wm.open("/wf/order.html").expect("the changed shop");
    let before = calls(&llm);
    run_from_list(&panel, &[]);
    panel.approve_card().expect("card");
    let answer = wait_answer(&panel, "Ran the workflow");
    assert!(answer.contains("2 steps were healed"), "{answer}");
    assert_eq!(wait_orders(&wm.site, 5)[4], recorded, "the result is right");
    let heal_calls = &llm.requests()[before..];
    assert_eq!(heal_calls.len(), 2, "exactly one model call per changed step");
    assert!(heal_calls.iter().all(|r| message_text(&r.body, 1).contains("Repair one step")));
    // The healed steps are shown; accepted, the next run needs no model.
    let heals = panel
        .wait_text("heal-list", "t.includes('Step 4') && t.includes('Step 5')")
        .expect("heals shown");
    assert!(heals.contains("button “Next”"), "{heals}");
    panel.shoot_accessible("workflows-heals", None);
    panel.click("#heals-accept");
    panel.wait_js("document.getElementById('heals').hidden");
    let _tab = wm.open("/wf/order.html").expect("the changed shop again");
    let before = calls(&llm);
    run_from_list(&panel, &[]);
    panel.approve_card().expect("card");
    let answer = wait_answer(&panel, "Ran the workflow");
    assert!(answer.contains("no model call"), "{answer}");
    assert_eq!(calls(&llm), before);
    assert_eq!(wait_orders(&wm.site, 6).len(), 6);

    // Continue is gone: one healing call, then the run stops at that step saying why.
    wm.site.add_page(
        "/wf/order.html",
        changed.replace("<button id=\"continue\" type=\"submit\">Next</button>", ""),
    );
    let _tab = wm.open("/wf/order.html").expect("the broken shop");
    let before = calls(&llm);
    run_from_list(&panel, &[]);
    let answer = wait_answer(&panel, "Stopped at step 5 of 6");
    assert!(
        answer.contains("no button that goes on") && answer.contains("Done before it (4 actions)"),
        "{answer}"
    );
    assert_eq!(calls(&llm), before + 1);
    assert_eq!(orders(&wm.site).len(), 6, "nothing was ordered");

    // A card denied mid-replay stops the run cleanly.
    wm.site.add_page("/wf/order.html", changed);
    let _tab = wm.open("/wf/order.html").expect("the shop");
    run_from_list(&panel, &[]);
    panel.wait_js("!document.getElementById('intervention').hidden && document.getElementById('intervention').dataset.kind === 'confirm'",
    );
    panel.click("#intervention-deny");
    let answer = wait_answer(&panel, "Stopped at step 6 of 6");
    assert!(answer.contains("you did not approve it"), "{answer}");
    let heading = panel.text("task-progress").expect("progress");
    assert!(heading.starts_with("Refused after"), "{heading}");
    assert_eq!(orders(&wm.site).len(), 6, "nothing was ordered");
    llm.assert_no_script_panics().expect("script ok");
}

/// Fills `chrome.storage.local` until it refuses even a few bytes.
const FILL_STORAGE: &str = "(async () => { let i = 0; \
    for (const size of [1 << 20, 1 << 16, 1 << 12, 1 << 8, 1 << 4, 1]) { \
      const chunk = 'x'.repeat(size); \
      try { for (;;) { await chrome.storage.local.set({ ['filler:' + i]: chunk }); i++; } } \
      catch (e) { globalThis.__quotaError = String(e && e.message || e); } } \
    return i; })()";

/// Everything stored but the fillers, as one JSON text.
const STORED: &str = "chrome.storage.local.get(null).then((all) => JSON.stringify(Object.fromEntries(\
    Object.entries(all).filter(([k]) => !k.startsWith('filler:') && k !== 'panel_snapshot').sort())))";

fn bad_imports_and_a_full_storage_on_save_change_nothing_and_lose_nothing(built: &Path) {
    let copy = tempfile::tempdir().expect("temp dir");
    let extension = extension_with_quota(built, copy.path());
    let llm = ScriptedLlm::start(model).expect("scripted LLM");
    let wm = Waymark::launch(&extension, Setup { llm: &llm, install_host: true, site: site() })
        .expect("launch");
    let panel = wm.panel().expect("panel");
    panel.wait_text("host-status", "t.includes('connected')").expect("host connects");
    record(&wm, &panel);
    let sw = wm.attach_worker().expect("worker");

    // The draft is open; storage fills up; Save is refused and nothing is lost.
    panel.click("#save-workflow");
    panel.wait_js("!document.getElementById('workflow-editor').hidden");
    panel.set_value("#workflow-name", NAME);
    panel.set_value("#workflow-steps li:nth-child(5) .step-intent", "Go on to the review");
    sw.wait_for("chrome.storage.local.get(null).then((all) => Object.keys(all).some((k) => k.includes(':turn:')))", TASK_TIMEOUT)
        .expect("the task's turn is stored");
    let fillers = sw.eval_timeout(FILL_STORAGE, TASK_TIMEOUT).expect("fill storage");
    assert!(fillers.as_u64().is_some_and(|n| n > 9), "{fillers}");
    let stored_before = sw.eval(STORED).expect("stored");
    panel.click("#workflow-save");
    let error =
        panel.wait_text("workflows-error", "t.includes('Could not save')").expect("error shown");
    assert!(error.contains("quota") && error.contains("Your draft is still open"), "{error}");
    assert_eq!(
        panel.page.eval("[document.getElementById('workflow-editor').hidden, document.getElementById('workflow-name').value, document.querySelector('#workflow-steps li:nth-child(5) .step-intent').value]").expect("editor"),
        json!([false, NAME, "Go on to the review"]),
        "the draft and the user's edits are still there"
    );
    panel.shoot_accessible("workflows-editor", None);
    assert_eq!(sw.eval(STORED).expect("stored"), stored_before, "nothing stored changed");

    // Imports that are not workflows, or from a newer Waymark, are refused and store nothing.
    panel.click("#workflow-import-box summary");
    for (file, expect) in [
        ("{\"schema_version\": 1, \"name\": ", "not JSON"),
        ("{\"name\": \"x\", \"steps\": []}", "not a Waymark workflow"),
        ("{\"schema_version\": 9, \"id\": \"x\", \"name\": \"From the future\"}", "newer Waymark"),
        (
            "{\"schema_version\": 1, \"id\": \"x\", \"name\": \"Bad\", \"task\": \"t\", \"steps\": [{\"intent\": \"go\", \"page\": \"https://shop.example/\", \"action\": {\"do\": \"navigate\", \"url\": \"javascript:alert(1)\"}}]}",
            "only http and https",
        ),
    ] {
        panel.set_value("#workflow-import-json", file);
        panel.click("#workflow-import");
        let shown = panel
            .wait_text(
                "workflows-error",
                &format!("t.includes({})", serde_json::to_string(expect).expect("json")),
            )
            .expect("import refused");
        assert!(shown.contains("Nothing was stored"), "{shown}");
        assert_eq!(sw.eval(STORED).expect("stored"), stored_before, "{expect}: nothing stored");
    }
    assert_eq!(
        panel.page.eval("document.querySelectorAll('#workflow-list li').length").expect("list"),
        json!(0)
    );

    // Space freed: the same draft saves; its export imports again as a copy.
    sw.eval_timeout(
        "chrome.storage.local.get(null).then((all) => chrome.storage.local.remove(Object.keys(all).filter((k) => k.startsWith('filler:')))).then(() => true)",
        TASK_TIMEOUT,
    )
    .expect("free space");
    panel.click("#workflow-save");
    panel.wait_text("workflows-notice", &format!("t.includes('Saved “{NAME}”')")).expect("saved");
    panel.click("#workflow-list li button[data-action=export]");
    let json = panel
        .page
        .wait_for("(() => { const t = document.getElementById('workflow-export-json'); return !document.getElementById('workflow-export').hidden && t.value; })()", TASK_TIMEOUT)
        .expect("exported");
    let json = json.as_str().unwrap_or_default().to_owned();
    assert!(
        json.contains("\"schema_version\": 1") && json.contains("Go on to the review"),
        "{json}"
    );
    let status = panel.text("workflow-export-status").expect("status");
    assert!(status.contains(&wm.export_dir.display().to_string()), "{status}");
    panel.set_value("#workflow-import-json", &json);
    panel.click("#workflow-import");
    panel
        .wait_text("workflows-notice", &format!("t.includes('Imported “{NAME} (2)”')"))
        .expect("imported");
    panel.wait_js("document.querySelectorAll('#workflow-list li').length === 2");
    llm.assert_no_script_panics().expect("script ok");
}

fn an_external_agent_runs_a_saved_workflow_by_name_and_its_card_waits_for_the_panel(
    extension: &Path,
) {
    let llm = ScriptedLlm::start(model).expect("scripted LLM");
    let wm = Waymark::launch(extension, Setup { llm: &llm, install_host: true, site: site() })
        .expect("launch");
    let panel = wm.panel().expect("panel");
    panel.wait_text("host-status", "t.includes('connected')").expect("host connects");
    record(&wm, &panel);
    save_as_workflow(&panel);
    panel.click("#workflows-close");
    switched_on(&wm, &panel);
    let claude = Client::spawn(&wm, "claude-code");

    // An unknown name lists the saved workflows; an unknown input names the known ones.
    let (err, text) = claude.tool("run_workflow", json!({"name": "Order a kettle"}));
    assert!(err && text.contains(&format!("“{NAME}”")), "{text}");
    let (err, text) = claude.tool("run_workflow", json!({"name": NAME, "inputs": {"nobody": "x"}}));
    assert!(
        err && text.contains("no input named “nobody”") && text.contains("full_name"),
        "{text}"
    );

    // The run is the user's own task: shown in the panel, its card answered there.
    let _tab = wm.open("/wf/order.html").expect("the shop");
    let before = calls(&llm);
    let run = claude.start(
        "run_workflow",
        json!({"name": "order a TEAPOT", "inputs": {"full_name": "Ada Byron"}}),
    );
    let card = panel.approve_card().expect("the order's card waits for the panel");
    assert!(card.contains("Place order"), "{card}");
    let (err, text) = claude.finish(run);
    assert!(!err && text.contains("Ran the workflow") && text.contains("no model call"), "{text}");
    assert_eq!(
        wait_orders(&wm.site, 2)[1],
        "name=Ada+Byron&date=2026-03-14&shipping=Express&gift=on"
    );
    assert_eq!(calls(&llm), before, "no model call");

    // Denied at the card: an error for the agent, nothing ordered.
    let _tab = wm.open("/wf/order.html").expect("the shop");
    let run = claude.start("run_workflow", json!({"name": NAME}));
    panel.wait_js("!document.getElementById('intervention').hidden && document.getElementById('intervention').dataset.kind === 'confirm'",
    );
    panel.click("#intervention-deny");
    let (err, text) = claude.finish(run);
    assert!(err && text.contains("you did not approve it"), "{text}");
    assert_eq!(orders(&wm.site).len(), 2, "nothing was ordered");
    // The agent's own calls go on afterwards.
    let (err, snap) = claude.tool("browser_snapshot", json!({}));
    assert!(!err, "{snap}");
    llm.assert_no_script_panics().expect("script ok");
}

/// An imported workflow shows what it does (issue 26): a file whose every step its author
/// labelled "Close the welcome banner" asks on its first run about each step that changes
/// something, naming what the step does; once a run went through, it asks only what the
/// policy asks (the order).
fn an_imported_workflow_asks_about_every_step_it_does_on_its_first_run(extension: &Path) {
    let llm = ScriptedLlm::start(model).expect("scripted LLM");
    let wm = Waymark::launch(extension, Setup { llm: &llm, install_host: true, site: site() })
        .expect("launch");
    let panel = wm.panel().expect("panel");
    panel.wait_text("host-status", "t.includes('connected')").expect("host connects");
    record(&wm, &panel);
    save_as_workflow(&panel);
    panel.click("#workflow-list li button[data-action=export]");
    let exported = panel
        .page
        .wait_for("(() => { const t = document.getElementById('workflow-export-json'); return !document.getElementById('workflow-export').hidden && t.value; })()", TASK_TIMEOUT)
        .expect("exported");
    let mut file: Value =
        serde_json::from_str(exported.as_str().unwrap_or_default()).expect("workflow json");
    file["name"] = json!("Imported teapot");
    for step in file["steps"].as_array_mut().expect("steps") {
        step["intent"] = json!("Close the welcome banner");
    }
    panel.click("#workflow-import-box summary");
    panel.set_value("#workflow-import-json", &file.to_string());
    panel.click("#workflow-import");
    panel
        .wait_text("workflows-notice", "t.includes('Imported “Imported teapot”')")
        .expect("imported");
    let details = panel
        .page
        .eval("[...document.querySelectorAll('#workflow-list li')].map((l) => l.textContent)")
        .expect("list");
    assert!(details.to_string().contains("Imported teapot"), "{details}");

    // First run: five review cards (typing, typing, choosing, ticking, clicking), then the
    // order's own card.
    run_from_list(&panel, &[]);
    let cards: Vec<String> =
        (0..6).map(|_| panel.approve_card().expect("a card for each step")).collect();
    for card in &cards[..5] {
        assert!(
            card.contains("imported workflow")
                && card.contains("called it “Close the welcome banner”"),
            "{card}"
        );
    }
    assert!(cards[0].contains("Type “{{full_name}}” into textbox “Full name”"), "{}", cards[0]);
    assert!(cards[4].contains("Click button “Continue”"), "{}", cards[4]);
    assert!(cards[5].contains("Place order"), "{}", cards[5]);
    wait_answer(&panel, "Ran the workflow");
    assert_eq!(wait_orders(&wm.site, 2).len(), 2);

    // Reviewed: the next run asks only about the order.
    run_from_list(&panel, &[]);
    let card = panel.approve_card().expect("the order's card");
    assert!(card.contains("Place order") && !card.contains("imported workflow"), "{card}");
    assert_eq!(wait_orders(&wm.site, 3).len(), 3);
    llm.assert_no_script_panics().expect("script ok");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(
            extension,
            a_recorded_task_replays_without_the_model_and_heals_changed_steps_with_one_call_each
        ),
        e2e!(extension, bad_imports_and_a_full_storage_on_save_change_nothing_and_lose_nothing),
        e2e!(
            extension,
            an_external_agent_runs_a_saved_workflow_by_name_and_its_card_waits_for_the_panel
        ),
        e2e!(extension, an_imported_workflow_asks_about_every_step_it_does_on_its_first_run),
    ]
}
