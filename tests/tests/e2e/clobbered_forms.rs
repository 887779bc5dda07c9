//! Forms whose controls shadow the form's own properties (`<input name="action">`,
//! `name="method"`, `name="elements"`) and a named image shadowing `document.forms`, as real
//! sites have them: Waymark reads what the form really does and sends, and its content script
//! does not crash. (web-sys's `form.action()` handed the shadowing input corrupted the
//! content script's memory — the soak found it on a WordPress page — and a shadowed
//! `form.elements` read as no fields at all, hiding what the form sends from the outbound
//! check.)

use crate::common;
use common::{Setup, TASK_TIMEOUT, Waymark, find_ref, message_text, role_reply};
use serde_json::json;
use std::path::Path;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

fn a_form_whose_controls_shadow_its_properties_is_read_and_submitted_as_it_is(extension: &Path) {
    let llm = ScriptedLlm::start(|req| {
        if let Some(r) = role_reply(req) {
            return r;
        }
        let page = message_text(&req.body, 1);
        match (find_ref(&page, "textbox", "Name"), find_ref(&page, "button", "Save")) {
            (Some(name), Some(save)) => ScriptedReply::tool_calls([
                ("type", json!({"ref": name, "text": "Ada"})),
                ("click", json!({"ref": save})),
            ]),
            _ => ScriptedReply::tool_call("done", json!({"answer": "Saved.", "success": true})),
        }
    })
    .expect("llm");
    let site = FixtureServer::builder(paths::fixtures_dir().join("site")).start().expect("site");
    let wm =
        Waymark::launch(extension, Setup { llm: &llm, install_host: true, site }).expect("launch");
    let panel = wm.panel().expect("panel");
    panel.wait_text("host-status", "t.includes('connected')").expect("host");
    let page = wm.open("/clobbered/profile.html").expect("page");
    page.wait_for("document.readyState === 'complete'", TASK_TIMEOUT).expect("loaded");
    panel.send("Fill the name field with Ada and press Save").expect("send");
    let answer = panel.answer().unwrap_or_else(|e| {
        panic!(
            "no answer ({:?}; page console: {:?}): {e:#}",
            panel.steps(),
            page.console_messages()
        )
    });
    assert_eq!(answer, "Saved.");
    let posted = wm.site.wait_posts("/clobbered/save", 1, TASK_TIMEOUT).expect("the form was sent");
    for part in ["action=save_profile", "method=profile", "elements=all", "name=Ada"] {
        assert!(posted[0].contains(part), "{part} in {}", posted[0]);
    }
    let crashed = page.console_messages().into_iter().find(|m| m.contains("RuntimeError"));
    assert!(crashed.is_none(), "the content script crashed: {crashed:?}");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![e2e!(
        extension,
        a_form_whose_controls_shadow_its_properties_is_read_and_submitted_as_it_is
    )]
}
