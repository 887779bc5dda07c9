//! Hostile pages, issue 26 item 7, the part CSS cannot tell: text in the DOM that every style
//! rule calls visible, kept off the screen by paint (a pass-through overlay, a pseudo-element
//! on top, a colour or SVG filter, a blend, a background image of the text's colour, an image
//! mask, a clip path, covered text below the fold). The worker captures the tab and the pixel
//! judge (`waymark_page::observation::screen`) drops text that shows no ink.
//!
//! Each hostile variant gets a page of its own (the screen check is asked for per page, so one
//! variant's paint cannot switch it on for another). Every variant reached the model on main
//! before this check (`WAYMARK_EXTENSION_DIR=<that build> cargo test -p waymark-tests --test e2e --
//! hostile_pixels` prints it as REACHED THE MODEL); the twins are drawn and must be read.

use crate::common;
use common::{Setup, TASK_TIMEOUT, Waymark, role_reply};
use serde_json::{Value, json};
use std::path::Path;
use waymark_tests::chromium::Page;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

/// A data-URI SVG for `url()` in a `style` attribute (`#` escaped, quoted as `&quot;`).
fn svg(body: &str) -> String {
    format!(
        "url(&quot;data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' width='100' \
         height='100'>{}</svg>&quot;)",
        body.replace('#', "%23")
    )
}

/// Hidden variants: `{X}` becomes a line naming the variant. In view unless noted.
fn hidden() -> Vec<(&'static str, String)> {
    let solid = svg("<rect width='100%' height='100%' fill='#2f7d5b'/>");
    let clear = svg("<rect width='100%' height='100%' fill='black' fill-opacity='0'/>");
    vec![
        (
            "overlay-pass-through",
            r#"<div style="position:relative"><p>{X}</p><div style="position:absolute; inset:0; background:#fff; pointer-events:none"></div></div>"#.into(),
        ),
        (
            "overlay-striped",
            r#"<div style="position:relative"><p>{X}</p><span style="position:absolute; left:0; top:0; width:100%; height:100%; pointer-events:none; background:repeating-linear-gradient(90deg, #fff 0 3px, #fcfcfc 3px 6px)"></span></div>"#.into(),
        ),
        ("pseudo-cover", r#"<div class="veil"><p>{X}</p></div>"#.into()),
        (
            "outline-cover",
            r#"<p style="margin:0">{X}</p><div style="height:2px; outline:20px solid #fff"></div>"#.into(),
        ),
        (
            "filter-contrast",
            r#"<p style="background:#35a; color:#fff; filter:contrast(0)">{X}</p>"#.into(),
        ),
        (
            "filter-brightness-parent",
            r#"<div style="background:#123; filter:brightness(0)"><p style="color:#ffd">{X}</p></div>"#.into(),
        ),
        (
            "filter-svg-matrix",
            r##"<svg width="0" height="0" style="position:absolute"><filter id="flat"><feColorMatrix type="matrix" values="0 0 0 0 1  0 0 0 0 1  0 0 0 0 1  0 0 0 0 1"/></filter></svg><p style="filter:url(#flat)">{X}</p>"##.into(),
        ),
        (
            "blend-screen",
            r#"<div style="background:#fff"><p style="color:#4a4a4a; mix-blend-mode:screen">{X}</p></div>"#.into(),
        ),
        (
            "background-blend-multiply",
            r#"<p style="color:#000; background-color:#000; background-image:linear-gradient(#fff, #fff); background-blend-mode:multiply">{X}</p>"#.into(),
        ),
        (
            "image-same-colour",
            format!(r#"<p style="color:#2f7d5b; background-image:{solid}">{{X}}</p>"#),
        ),
        ("mask-clear-image", format!(r#"<p style="-webkit-mask-image:{clear}; mask-image:{clear}">{{X}}</p>"#)),
        (
            "mask-one-pixel",
            r#"<p style="-webkit-mask-image:linear-gradient(#000, #000); -webkit-mask-size:1px 1px; -webkit-mask-repeat:no-repeat">{X}</p>"#.into(),
        ),
        ("clip-path-path", r#"<p style="clip-path:path('M0 0 L2 0 L2 2 Z')">{X}</p>"#.into()),
        (
            "clip-path-top-row",
            r#"<p style="clip-path:polygon(0 0, 100% 0, 100% 1px, 0 1px)">{X}</p>"#.into(),
        ),
    ]
}

/// Drawn look-alikes on a page that paints with layers (so the screen is asked): all read.
fn shown() -> Vec<(&'static str, String)> {
    let photo =
        svg("<filter id='n'><feTurbulence baseFrequency='0.9' numOctaves='3'/></filter><rect \
         width='100%' height='100%' fill='#643'/><rect width='100%' height='100%' \
         filter='url(#n)' opacity='0.9'/>");
    vec![
        ("light-grey", r#"<p style="color:#b4b4b4">{X}</p>"#.into()),
        (
            "over-photo",
            format!(r#"<p style="color:#fff; font-weight:bold; background:{photo}">{{X}}</p>"#),
        ),
        ("emoji", r#"<p>🫖☕🍵 {X}</p>"#.into()),
        ("thin", r#"<p style="font-weight:100; font-family:serif; color:#555">{X}</p>"#.into()),
        ("small", r#"<p style="font-size:10px">{X}</p>"#.into()),
        (
            "badge-pass-through",
            r#"<div style="position:relative; height:2.5em"><span style="position:absolute; top:4px; left:0; pointer-events:none; background:#fe3; padding:2px">{X}</span></div>"#.into(),
        ),
        ("blend-difference", r#"<p style="color:#0cf; mix-blend-mode:difference">{X}</p>"#.into()),
        ("filtered-grey", r#"<p style="filter:grayscale(1) blur(0.3px); color:#a33">{X}</p>"#.into()),
        ("rotated", r#"<p style="transform:rotate(-2deg)">{X}</p>"#.into()),
        (
            "blend-clipped-text",
            r#"<div style="background:#000"><p style="background-color:#fff; background-image:linear-gradient(#fff, #fff); background-blend-mode:difference; -webkit-background-clip:text; background-clip:text; color:transparent">{X}</p></div>"#.into(),
        ),
        (
            "gradient-text",
            r#"<p style="background:linear-gradient(90deg, #c00, #00c); -webkit-background-clip:text; background-clip:text; color:transparent; font-weight:bold">{X}</p>"#.into(),
        ),
    ]
}

fn page(title: &str, parts: &[(&str, String)], top_margin: u32) -> String {
    let mut body = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>\
         <style>.veil {{ position: relative }} .veil::after {{ content: ''; position: \
         absolute; inset: 0; background: #fff }}</style></head><body style=\"font: 16px \
         sans-serif; background: #fff; color: #111; margin: 8px\"><h1>{title}</h1><div \
         style=\"margin-top:{top_margin}px\">"
    );
    for (name, html) in parts {
        body.push_str(&html.replace("{X}", &format!("Review note via={name} boils fast.")));
    }
    body.push_str("</div><p style=\"height:1600px\">End of reviews.</p></body></html>");
    body
}

struct Bench {
    wm: Waymark,
    sw: Page,
    port: u16,
    _llm: ScriptedLlm,
}

impl Bench {
    fn start(ext: &Path, pages: Vec<(String, String)>) -> Self {
        let llm = ScriptedLlm::start(|req| {
            role_reply(req)
                .unwrap_or_else(|| ScriptedReply::tool_call("done", json!({"answer": "x"})))
        })
        .expect("scripted LLM");
        let site =
            FixtureServer::builder(paths::fixtures_dir().join("hostile")).start().expect("site");
        for (path, html) in pages {
            site.add_page(&path, html);
        }
        let port = site.addr().port();
        let wm =
            Waymark::launch(ext, Setup { llm: &llm, install_host: false, site }).expect("launch");
        let sw = wm.attach_worker().expect("worker");
        sw.wait_for("typeof globalThis.waymarkPageRequest === 'function'", TASK_TIMEOUT)
            .expect("hook");
        Self { wm, sw, port, _llm: llm }
    }

    /// Opens `path` in a new tab (the active one) and returns its tab id.
    fn open(&self, path: &str) -> (Page, i64) {
        let url = format!("http://shop.localhost:{}{path}", self.port);
        let tab_page = self.wm.browser.new_page(&url).expect("tab");
        tab_page.wait_for("document.readyState === 'complete'", TASK_TIMEOUT).expect("loaded");
        let tab = self
            .sw
            .eval(&format!(
                "chrome.tabs.query({{}}).then((tabs) => tabs.find((t) => t.url === {}).id)",
                serde_json::to_string(&url).expect("json")
            ))
            .expect("tab id");
        (tab_page, tab.as_i64().expect("a tab id"))
    }

    fn activate(&self, tab: i64) {
        self.sw
            .eval(&format!("chrome.tabs.update({tab}, {{active: true}}).then(() => true)"))
            .expect("activate");
    }

    /// The prompt and the observation's screen verdict.
    fn observe(&self, tab: i64) -> (String, Value) {
        let reply = self
            .sw
            .eval_timeout(
                &format!(
                    "waymarkPageRequest({tab}, {})",
                    json!({"op": "observe", "budget": 100_000})
                ),
                TASK_TIMEOUT,
            )
            .expect("observe");
        let prompt = reply["prompt"].as_str().unwrap_or_default().to_owned();
        (prompt, reply["observation"]["screen"].clone())
    }
}

fn seen(prompt: &str, name: &str) -> bool {
    prompt.contains(&format!("via={name} "))
}

fn text_kept_off_the_screen_by_paint_never_reaches_the_model(extension: &Path) {
    let mut pages: Vec<(String, String)> = hidden()
        .into_iter()
        .map(|(name, html)| (format!("/{name}.html"), page("Kettle reviews", &[(name, html)], 0)))
        .collect();
    pages.push(("/twins.html".into(), page("Kettle reviews", &shown(), 0)));
    let bench = Bench::start(extension, pages);
    let mut leaked = Vec::new();
    eprintln!("\n| hidden variant | result | screen |\n|---|---|---|");
    for (name, _) in hidden() {
        let (tab_page, tab) = bench.open(&format!("/{name}.html"));
        let (prompt, screen) = bench.observe(tab);
        assert!(prompt.contains("Kettle reviews"), "the page was read: {prompt}");
        let verdict = if seen(&prompt, name) { "REACHED THE MODEL" } else { "dropped" };
        eprintln!("| {name} | {verdict} | {screen} |");
        if seen(&prompt, name) {
            leaked.push(name);
        }
        bench.wm.browser.close_target(tab_page.target_id()).expect("close");
    }
    let (_twins_page, tab) = bench.open("/twins.html");
    let (prompt, screen) = bench.observe(tab);
    let lost: Vec<&str> = shown().iter().map(|(n, _)| *n).filter(|n| !seen(&prompt, n)).collect();
    assert!(leaked.is_empty(), "hidden text that reached the model: {leaked:?}");
    assert!(lost.is_empty(), "drawn text that did not: {lost:?}\n{prompt}");
    assert_eq!(screen, json!({"confirmed": {"dropped": 0}}), "the twins were judged by pixels");
}

fn covered_text_below_the_fold_is_judged_once_scrolled_in(extension: &Path) {
    let (name, html) = hidden().swap_remove(0);
    let below = page("Kettle reviews", &[("below-fold", html.clone())], 2000);
    let plain = page("Kettle reviews", &[("below-fold-plain", html.replace(
        r#"<div style="position:absolute; inset:0; background:#fff; pointer-events:none"></div>"#,
        "",
    ))], 2000);
    assert_eq!(name, "overlay-pass-through");
    let bench =
        Bench::start(extension, vec![("/below.html".into(), below), ("/plain.html".into(), plain)]);
    for (path, name, hidden) in
        [("/below.html", "below-fold", true), ("/plain.html", "below-fold-plain", false)]
    {
        let (tab_page, tab) = bench.open(path);
        let (before, _) = bench.observe(tab);
        // Out of view the screen cannot tell: the style rules decide until it is scrolled in.
        assert!(seen(&before, name), "{before}");
        tab_page.eval("window.scrollTo(0, 1900); window.scrollY").expect("scroll");
        let (after, screen) = bench.observe(tab);
        eprintln!(
            "| {name}, scrolled into view | {} |",
            if seen(&after, name) { "REACHED THE MODEL" } else { "dropped" }
        );
        assert_eq!(seen(&after, name), !hidden, "{after}");
        assert!(screen.get("confirmed").is_some(), "judged by pixels: {screen}");
        bench.wm.browser.close_target(tab_page.target_id()).expect("close");
    }
}

fn a_tab_in_the_background_falls_back_to_the_style_rules_and_says_so(extension: &Path) {
    let (name, html) = hidden().swap_remove(2);
    assert_eq!(name, "pseudo-cover");
    let pages = vec![
        ("/veiled.html".into(), page("Kettle reviews", &[(name, html)], 0)),
        ("/other.html".into(), page("Other", &[], 0)),
    ];
    let bench = Bench::start(extension, pages);
    let (_veiled, tab) = bench.open("/veiled.html");
    let (_other, _) = bench.open("/other.html");
    let active = bench.sw.eval(&format!("chrome.tabs.get({tab}).then((t) => t.active)"));
    assert_eq!(active.expect("tab"), json!(false), "the veiled tab is in the background");
    let (prompt, screen) = bench.observe(tab);
    assert!(screen.get("unavailable").is_some(), "{screen}\n{prompt}");
    assert!(seen(&prompt, name), "the style rules keep it: {prompt}");
    assert!(prompt.contains("not checked against the screen"), "{prompt}");
    bench.activate(tab);
    let (prompt, screen) = bench.observe(tab);
    assert_eq!(screen, json!({"confirmed": {"dropped": 1}}), "{prompt}");
    assert!(!seen(&prompt, name), "{prompt}");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(test_hooks, text_kept_off_the_screen_by_paint_never_reaches_the_model),
        e2e!(test_hooks, covered_text_below_the_fold_is_judged_once_scrolled_in),
        e2e!(test_hooks, a_tab_in_the_background_falls_back_to_the_style_rules_and_says_so),
    ]
}
