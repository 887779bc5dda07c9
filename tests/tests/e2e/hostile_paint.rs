//! Hostile pages, issue 26 item 7: text whose words are not on the screen although the CSS
//! that hides text everywhere else says nothing against it. Each variant below reached the
//! model on the commit before its fix (`WAYMARK_EXTENSION_DIR=<that build> cargo test -p
//! waymark-tests --test e2e -- hostile_paint` lists it as REACHED THE MODEL); the twins beside them
//! are drawn and must still be read.
//!
//! Covered here: text drawn as bullets (`-webkit-text-security`), set on the text's own
//! element, inherited from an ancestor, or by a class rule of the page. Pass-through overlays
//! (`pointer-events: none`), colour filters, blend modes, background images, image masks, clip
//! paths and covered text below the fold need the pixels: `hostile_pixels.rs`.

use crate::common;
use common::{Setup, TASK_TIMEOUT, Waymark, role_reply};
use serde_json::json;
use std::path::Path;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

/// Hidden paragraphs (their `{X}` becomes a line naming the variant); none may reach the model.
const HIDDEN: &[(&str, &str)] = &[
    ("bullets-own", r#"<p style="-webkit-text-security: disc">{X}</p>"#),
    ("bullets-inherited", r#"<div style="-webkit-text-security: circle"><p>{X}</p></div>"#),
    ("bullets-span", r#"<p><span style="-webkit-text-security: square">{X}</span></p>"#),
    ("bullets-class", r#"<p class="masked">{X}</p>"#),
];

/// Drawn look-alikes: they must reach the model.
const SHOWN: &[(&str, &str)] = &[
    ("bullets-none", r#"<p style="-webkit-text-security: none">{X}</p>"#),
    (
        "bullets-undone",
        r#"<div style="-webkit-text-security: disc"><p style="-webkit-text-security: none">{X}</p></div>"#,
    ),
    ("password-beside", r#"<p>{X} <input type="password" value="hunter2" aria-label="Pin"></p>"#),
];

fn page() -> String {
    let mut body = String::from(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Kettle \
         reviews</title><style>.masked { -webkit-text-security: disc }</style></head><body \
         style=\"font: 16px sans-serif; background: #fff; color: #111; margin: 8px\"><h1>Kettle \
         reviews</h1>",
    );
    for (name, html) in HIDDEN.iter().chain(SHOWN) {
        body.push_str(&html.replace("{X}", &format!("Review note via={name} boils fast.")));
    }
    body.push_str("</body></html>");
    body
}

fn text_drawn_as_bullets_never_reaches_the_model(ext: &Path) {
    let llm = ScriptedLlm::start(|req| {
        role_reply(req).unwrap_or_else(|| ScriptedReply::tool_call("done", json!({"answer": "x"})))
    })
    .expect("scripted LLM");
    let site = FixtureServer::builder(paths::fixtures_dir().join("hostile")).start().expect("site");
    site.add_page("/paint.html", page());
    let port = site.addr().port();
    let wm = Waymark::launch(ext, Setup { llm: &llm, install_host: false, site }).expect("launch");
    let sw = wm.attach_worker().expect("worker");
    sw.wait_for("typeof globalThis.waymarkPageRequest === 'function'", TASK_TIMEOUT).expect("hook");
    let url = format!("http://shop.localhost:{port}/paint.html");
    let tab_page = wm.browser.new_page(&url).expect("tab");
    tab_page.wait_for("document.readyState === 'complete'", TASK_TIMEOUT).expect("loaded");
    let tab = sw
        .eval(&format!(
            "chrome.tabs.query({{}}).then((tabs) => tabs.find((t) => t.url === {}).id)",
            serde_json::to_string(&url).expect("json")
        ))
        .expect("tab id");
    let reply = sw
        .eval_timeout(
            &format!("waymarkPageRequest({tab}, {})", json!({"op": "observe", "budget": 100_000})),
            TASK_TIMEOUT,
        )
        .expect("observe");
    let prompt = reply["prompt"].as_str().unwrap_or_default().to_owned();
    let seen = |name: &str| prompt.contains(&format!("via={name} "));
    let leaked: Vec<&str> = HIDDEN.iter().map(|(n, _)| *n).filter(|n| seen(n)).collect();
    let lost: Vec<&str> = SHOWN.iter().map(|(n, _)| *n).filter(|n| !seen(n)).collect();
    eprintln!("\n| hidden variant | result |\n|---|---|");
    for (name, _) in HIDDEN {
        let verdict = if leaked.contains(name) { "REACHED THE MODEL" } else { "dropped" };
        eprintln!("| {name} | {verdict} |");
    }
    assert!(
        leaked.is_empty() && lost.is_empty(),
        "hidden text that reached the model: {leaked:?}; drawn text that did not: {lost:?}\n{prompt}"
    );
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![e2e!(test_hooks, text_drawn_as_bullets_never_reaches_the_model)]
}
