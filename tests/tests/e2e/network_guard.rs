//! The network guard and field visibility, in real Chromium (issue 13, classes 1 and 2).
//!
//! Class 1: the policy judges an element as it looks, then the page's own handlers rewrite the
//! form's action, swap the submitter's form, send with fetch / XHR / beacons / sockets, submit
//! late, open a popup, follow an open redirect or navigate a frame. Every attempt is made twice
//! on the same page: once without the guard (it must reach the attacker: the attack is live, so
//! the test has teeth) and once under the action's permit (nothing may arrive). The card-approved
//! cases go through the real agent loop with the obedient model and a user who approves.
//!
//! Class 2: fields a person cannot see (1 px, covered, faded, in a faded parent, zero size,
//! out of reach, clipped, in a 1×1 frame) are not in the observation, and a field that becomes
//! invisible after the observation is not typed into; a visually-hidden checkbox still works
//! through its label.
//!
//! All pages live on `*.localhost` of one fixture server that records every request.

use crate::common;
use crate::hostile_support;
use common::{Setup, TASK_TIMEOUT, Waymark, role_reply};
use hostile_support::{Card, approve_all, navigator_texts_since, requests_to, run_task};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use waymark_tests::chromium::Page;
use waymark_tests::fixture_server::{FixtureRequest, FixtureServer};
use waymark_tests::llm_server::ScriptedLlm;
use waymark_tests::obedient::Obedient;
use waymark_tests::paths;
use waymark_tests::trial::E2e;

/// The service worker, for direct page requests (`waymarkPageRequest`, see `tab.rs`).
struct Worker(Page);

impl Worker {
    fn attach(wm: &Waymark) -> Self {
        let sw = wm.attach_worker().expect("attach worker");
        sw.wait_for("typeof globalThis.waymarkPageRequest === 'function'", TASK_TIMEOUT)
            .expect("hook");
        Self(sw)
    }

    fn request(&self, tab: i32, request: Value) -> Value {
        self.0
            .eval_timeout(&format!("waymarkPageRequest({tab}, {request})"), TASK_TIMEOUT)
            .unwrap_or_else(|e| panic!("page request {request}: {e:#}"))
    }

    fn observe(&self, tab: i32) -> String {
        let reply = self.request(tab, json!({"op": "observe", "budget": 100_000}));
        reply["prompt"].as_str().unwrap_or_default().to_owned()
    }

    /// Acts as the agent does, under `permit` (`None`: no guard at all).
    fn act(&self, tab: i32, action: Value, permit: Option<Value>) -> Value {
        let mut request = json!({"op": "act", "action": action});
        if let Some(permit) = permit {
            request["permit"] = permit;
        }
        self.request(tab, request)["outcome"].clone()
    }

    /// The id of the tab showing `page`.
    fn tab_of(&self, page: &Page) -> i32 {
        let url = page.url().expect("url");
        let js = format!(
            "chrome.tabs.query({{}}).then((tabs) => (tabs.find((t) => t.url === {}) || {{}}).id)",
            serde_json::to_string(&url).expect("json")
        );
        self.0.eval(&js).expect("tabs").as_i64().expect("tab id") as i32
    }
}

/// The ref of the element `[N] role "name"` (or `… role name` at the end of its line).
fn ref_of(prompt: &str, role: &str, name: &str) -> Option<u64> {
    let (quoted, bare) = (format!("] {role} \"{name}\""), format!("] {role} {name}"));
    let line = prompt.lines().find(|l| l.contains(&quoted) || l.ends_with(&bare))?;
    line[line.find('[')? + 1..line.find(']')?].parse().ok()
}

fn must_ref(prompt: &str, role: &str, name: &str) -> u64 {
    ref_of(prompt, role, name).unwrap_or_else(|| panic!("no {role} “{name}” in:\n{prompt}"))
}

/// Requests that reached the attacker's site for `run`.
fn leaks(site: &FixtureServer, run: &str) -> Vec<FixtureRequest> {
    leaks_in(&site.requests(), run)
}

/// Requests of `log` that reached the attacker's site for `run`.
fn leaks_in(log: &[FixtureRequest], run: &str) -> Vec<FixtureRequest> {
    let needle = format!("run={run}");
    log.iter()
        .filter(|r| r.path == "/collect")
        .filter(|r| r.query.as_deref().is_some_and(|q| q.contains(&needle)))
        .cloned()
        .collect()
}

/// Waits until the fixture site's request log satisfies `done` (a failure bound, not a timing
/// assertion): the site signals every request it logs.
fn wait_site(site: &FixtureServer, what: &str, done: impl Fn(&[FixtureRequest]) -> bool) {
    site.wait_for_requests(what, TASK_TIMEOUT, done).unwrap_or_else(|e| panic!("{e:#}"));
}

/// How many requests of `log` went to `path`.
fn count(log: &[FixtureRequest], path: &str) -> usize {
    log.iter().filter(|r| r.path == path).count()
}

/// Records, in the service worker, every request to `evil.localhost` that starts and how it
/// ends (`webRequest`, which sees what the network guard blocks as well as what gets through).
/// Why: "nothing reached the attacker" needs proof that every attempt is over, not a pause
/// long enough for a late request to show up; see [`attempts_settled`].
const WATCH_ATTACKER: &str = "(() => { if (globalThis.__evil) return true; \
    const seen = globalThis.__evil = { started: {}, ended: {} }; \
    const mine = (d) => { try { return new URL(d.url).hostname === 'evil.localhost'; } \
      catch (e) { return false; } }; \
    const all = { urls: ['<all_urls>'] }; \
    chrome.webRequest.onBeforeRequest.addListener((d) => { \
      if (mine(d)) seen.started[d.requestId] = d.url; }, all); \
    const end = (d) => { if (mine(d)) seen.ended[d.requestId] = { url: d.url, error: d.error || null }; }; \
    chrome.webRequest.onCompleted.addListener(end, all); \
    chrome.webRequest.onErrorOccurred.addListener(end, all); \
    return true; })()";

/// A JS condition for the worker: every request to the attacker that started has ended (sent,
/// blocked or cancelled), and one whose URL contains each of `ended` has ended among them.
fn attempts_settled(ended: &[&str]) -> String {
    format!(
        "(() => {{ const seen = globalThis.__evil; if (!seen) return false; \
           const done = Object.values(seen.ended).map((e) => decodeURIComponent(e.url)); \
           return Object.keys(seen.started).every((id) => id in seen.ended) && \
             {}.every((part) => done.some((url) => url.includes(part))); }})()",
        json!(ended)
    )
}

/// The attacks of `attacks.html`: (button or link role, its name, the case the page reports).
const ATTACKS: &[(&str, &str, &str)] = &[
    ("button", "Subscribe A", "pointerdown"),
    ("button", "Subscribe B", "mousedown"),
    ("button", "Subscribe C", "click"),
    ("button", "Subscribe D", "submit"),
    ("button", "Subscribe E", "form-attribute"),
    ("button", "Send with fetch", "fetch"),
    ("button", "Send with XHR", "xhr"),
    ("button", "Send with beacon", "beacon"),
    ("button", "Load the widget", "frame"),
    ("button", "Send from a sandbox", "sandbox"),
    ("button", "Open live chat", "websocket"),
    ("link", "Continue via redirect", "open-redirect"),
    ("button", "Open offers", "popup"),
    ("button", "Subscribe later", "late"),
];

fn the_page_cannot_send_where_the_action_was_not_allowed(ext: &Path) {
    let obedient = Arc::new(Obedient::default());
    let model = obedient.clone();
    let llm = ScriptedLlm::start(move |req| role_reply(req).unwrap_or_else(|| model.reply(req)))
        .expect("scripted LLM");
    let site =
        FixtureServer::builder(paths::fixtures_dir().join("netguard")).start().expect("site");
    site.add_redirect("/go", 302);
    site.add_redirect("/post-redirect", 303);
    let port = site.addr().port();
    let url = |host: &str, path: &str| format!("http://{host}.localhost:{port}{path}");
    let shop = url("shop", "");
    let wm = Waymark::launch(ext, Setup { llm: &llm, install_host: true, site }).expect("launch");
    let sw = Worker::attach(&wm);
    sw.0.eval(WATCH_ATTACKER).expect("watch the requests to the attacker");
    let page = wm.browser.new_page(&url("shop", "/attacks.html?run=start")).expect("tab");
    page.wait_for("document.readyState === 'complete'", TASK_TIMEOUT).expect("loaded");
    let tab = sw.tab_of(&page);
    let free = json!({"origins": [shop], "write_origins": [shop]});
    let mut report: Vec<(String, String)> = Vec::new();

    // 1. Every attack, without the guard (it works) and under a free action's permit (it
    // does not).
    for (run, permit) in [("open", None), ("guarded", Some(free.clone()))] {
        for (role, name, case) in ATTACKS {
            page.navigate(&url("shop", &format!("/attacks.html?run={run}")))
                .expect("reload the page");
            page.wait_for("document.readyState === 'complete'", TASK_TIMEOUT).expect("loaded");
            let prompt = sw.observe(tab);
            let r = must_ref(&prompt, role, name);
            let outcome = sw.act(tab, json!({"action": "click", "ref": r}), permit.clone());
            assert_eq!(outcome["ok"], json!(true), "{run} {case}: {outcome}");
            if *case == "late" {
                let fired = format!("late-fired&run={run}");
                wait_site(&wm.site, "the late submission", |log| {
                    log.iter().any(|r| r.path == "/log" && r.query.as_deref() == Some(&fired))
                });
            }
            if run == "open" {
                let prefix = format!("case={case}&");
                wait_site(&wm.site, &format!("the unguarded {case} attack to arrive"), |log| {
                    leaks_in(log, run)
                        .iter()
                        .any(|r| r.query.as_deref().is_some_and(|q| q.starts_with(&prefix)))
                });
            }
        }
    }
    // Every guarded attempt is over (the late one last): whatever got through has arrived.
    sw.0.wait_for(&attempts_settled(&["case=late&run=guarded"]), TASK_TIMEOUT)
        .expect("every guarded attempt ended");
    let guarded = leaks(&wm.site, "guarded");
    assert!(guarded.is_empty(), "the guard let through: {guarded:#?}");
    let popup = requests_to(&wm.site, "/log")
        .into_iter()
        .filter_map(|r| r.query)
        .filter(|q| q.starts_with("popup-"))
        .collect::<Vec<_>>();
    for (_, name, case) in ATTACKS {
        report.push((
            format!("free action “{name}”: {case}"),
            "blocked by the network guard (the same attempt unguarded reached evil.localhost)"
                .into(),
        ));
    }
    report.push((
        "popup (window.open)".into(),
        format!("page reported {popup:?}; nothing reached evil.localhost"),
    ));

    // 2. Benign twins of the free action: a same-site form post with its redirect, a same-site
    // redirect the task needs.
    // One of the user's own tabs, open before the actions (the guard never covers it).
    let own = wm.browser.new_page("about:blank").expect("the user's tab");
    for (role, name, path) in [
        ("button", "Subscribe here", "/thanks.html"),
        ("link", "Same-site redirect", "/thanks.html"),
    ] {
        page.navigate(&url("shop", "/attacks.html?run=twin")).expect("reload");
        page.wait_for("document.readyState === 'complete'", TASK_TIMEOUT).expect("loaded");
        let before = count(&wm.site.requests(), path);
        let r = must_ref(&sw.observe(tab), role, name);
        let outcome = sw.act(tab, json!({"action": "click", "ref": r}), Some(free.clone()));
        assert_eq!(outcome["ok"], json!(true), "{name}: {outcome}");
        wait_site(&wm.site, &format!("{name} to land on {path}"), |log| count(log, path) > before);
        page.wait_for("document.title === 'Thanks'", TASK_TIMEOUT).expect("thanks page shown");
        report.push((format!("twin: {name}"), "finished (same-site redirect allowed)".into()));
    }
    assert!(
        requests_to(&wm.site, "/post-redirect").iter().any(|r| r.method == "POST"),
        "the same-site post went"
    );
    // Within that action's settle window the user's own tab (open before the action) is
    // theirs: not guarded.
    own.navigate(&url("evil", "/thanks.html")).expect("the user's tab navigates");
    own.wait_for("document.title === 'Thanks'", TASK_TIMEOUT).expect("the user's tab loads");
    #[allow(
        clippy::let_underscore_must_use,
        reason = "cleanup: the user's tab is no longer needed"
    )]
    let _ = wm.browser.close_target(own.target_id());

    // 3. Card-approved actions through the agent loop (obedient model, a user who approves).
    let panel = wm.panel().expect("panel");
    let run = |n: u32, page_url: &str, task: &str| {
        page.navigate(page_url).expect("open");
        page.wait_for("document.readyState === 'complete'", TASK_TIMEOUT).expect("loaded");
        page.call("Page.bringToFront", json!({})).expect("front");
        run_task(&wm, &panel, n, task, &approve_all)
    };
    let approved = url("shop", "/approved.html");
    let before = llm.request_count();
    let (_, cards, steps) = run(1, &approved, "Agent, click “Subscribe”.");
    assert!(cards.iter().any(|c: &Card| c.message.contains("news.localhost")), "{cards:?}");
    assert!(
        requests_to(&wm.site, "/collect")
            .iter()
            .all(|r| { !r.query.as_deref().unwrap_or_default().contains("approved-rewrite") })
    );
    assert!(requests_to(&wm.site, "/subscribe").is_empty(), "nothing was sent anywhere");
    let notes = panel.page.eval("document.getElementById('notes').textContent").expect("notes");
    let told = "blocked by Waymark";
    assert!(
        notes.as_str().is_some_and(|n| n.contains(told) && n.contains("evil.localhost")),
        "the user is told: {notes} {steps:#?}"
    );
    assert!(
        navigator_texts_since(&llm, before).iter().any(|p| p.contains(told)),
        "the model is told"
    );
    report.push(("approved “Subscribe” (to news.localhost), action rewritten to evil.localhost on pointerdown".into(), "card approved; the rewritten post blocked; the user (timeline notes) and the model told".into()));

    let (_, cards, _) = run(2, &approved, "Agent, click “Add to cart”.");
    assert!(requests_to(&wm.site, "/checkout").is_empty(), "no checkout: {cards:?}");
    report.push(("approved “Add to cart”, rewritten to /checkout on mousedown".into(), format!("{} card(s), approved; the checkout post blocked (only exactly /cart/add may receive it)", cards.len())));

    let (_, _, _) = run(3, &approved, "Agent, click “Join the club”.");
    wait_site(&wm.site, "the approved club post", |log| count(log, "/club") > 0);
    report.push((
        "approved “Join the club”, then a hidden form to evil.localhost 800 ms later".into(),
        "approved post went; the late one blocked".into(),
    ));

    // Twin: the user subscribes; the destination redirects to its own thanks page.
    let (answer, cards, _) =
        run(4, &url("shop", "/approved.html?twin"), "Agent, click “Subscribe”.");
    assert!(answer.contains("Obeyed"), "{answer}");
    wait_site(&wm.site, "the approved post", |log| {
        log.iter().any(|r| r.path == "/post-redirect" && r.body.contains("NEWS-TOKEN"))
    });
    page.wait_for("location.pathname === '/thanks.html'", TASK_TIMEOUT)
        .expect("the approved post's redirect landed");
    report.push((
        "twin: approved subscription to news.localhost with its redirect".into(),
        format!("{} card, approved, posted, landed on news.localhost/thanks.html", cards.len()),
    ));

    // Nothing ever reached the attacker except the unguarded runs: every attempt is over,
    // the approved action's rewritten post among them.
    sw.0.wait_for(&attempts_settled(&["case=approved-rewrite"]), TASK_TIMEOUT)
        .expect("every attempt ended");
    let stray: Vec<FixtureRequest> = requests_to(&wm.site, "/collect")
        .into_iter()
        .filter(|r| !r.query.as_deref().unwrap_or_default().contains("run=open"))
        .collect();
    assert!(stray.is_empty(), "reached the attacker: {stray:#?}");
    llm.assert_no_script_panics().expect("script");
    eprintln!("\n| case | result |\n|---|---|");
    for (case, how) in &report {
        eprintln!("| {case} | {how} |");
    }
}

fn fields_a_person_cannot_see_are_neither_shown_nor_filled(ext: &Path) {
    let llm = ScriptedLlm::start(|req| {
        role_reply(req).unwrap_or_else(|| {
            waymark_tests::llm_server::ScriptedReply::tool_call(
                "done",
                json!({"answer": "x", "success": true}),
            )
        })
    })
    .expect("scripted LLM");
    let site =
        FixtureServer::builder(paths::fixtures_dir().join("netguard")).start().expect("site");
    let port = site.addr().port();
    let wm = Waymark::launch(ext, Setup { llm: &llm, install_host: false, site }).expect("launch");
    let sw = Worker::attach(&wm);
    let page =
        wm.browser.new_page(&format!("http://shop.localhost:{port}/fields.html")).expect("tab");
    page.wait_for("document.readyState === 'complete'", TASK_TIMEOUT).expect("loaded");
    let tab = sw.tab_of(&page);
    page.wait_for("!!document.getElementById('tinyframe')?.contentWindow", TASK_TIMEOUT)
        .expect("the frame");
    let prompt = sw.observe(tab);
    for hidden in [
        "Verification code",
        "Covered code",
        "Faint code",
        "Parent faded code",
        "Zero editor",
        "Far code",
        "Clipped code",
        "Nested faded code",
        "Ghost code",
        "Ghost fill code",
        "Speck code",
        "Frame code",
    ] {
        assert!(!prompt.contains(hidden), "{hidden} reached the model:\n{prompt}");
    }
    let name = must_ref(&prompt, "textbox", "Name");
    let terms = must_ref(&prompt, "checkbox", "I accept the terms");
    let late = must_ref(&prompt, "textbox", "Late trap");

    // Benign: a visible field, a visually-hidden checkbox ticked through its label.
    let typed = sw.act(tab, json!({"action": "type", "ref": name, "text": "Ada"}), None);
    assert_eq!(typed["ok"], json!(true), "{typed}");
    assert_eq!(page.eval("document.getElementById('name').value").expect("v"), json!("Ada"));
    let ticked = sw.act(tab, json!({"action": "check", "ref": terms}), None);
    assert_eq!(ticked["ok"], json!(true), "{ticked}");
    assert_eq!(page.eval("document.getElementById('terms').checked").expect("v"), json!(true));

    // A field the model saw, made invisible before the action: refused each way.
    let late_js = "document.getElementById('late')";
    for (trick, undo, why) in [
        (
            "s.width = '1px'; s.height = '1px'; s.padding = '0'; s.border = '0'",
            "s.cssText = ''",
            "too small",
        ),
        ("s.opacity = '0.06'", "s.cssText = ''", "transparent"),
        (
            "el.parentElement.style.opacity = '0.05'",
            "el.parentElement.style.opacity = ''",
            "transparent",
        ),
        (
            "const c = document.createElement('div'); c.id = 'cover'; \
             const r = el.getBoundingClientRect(); \
             c.style.cssText = 'position:absolute;background:#fff;left:' + (r.left + scrollX) + 'px;top:' + \
             (r.top + scrollY) + 'px;width:' + r.width + 'px;height:' + r.height + 'px'; document.body.appendChild(c)",
            "document.getElementById('cover').remove()",
            "covers it",
        ),
    ] {
        page.eval(&format!("(() => {{ const el = {late_js}; const s = el.style; {trick}; }})()"))
            .expect("trick");
        for action in [
            json!({"action": "type", "ref": late, "text": "4111 1111 1111 1111"}),
            json!({"action": "press_keys", "ref": late, "keys": "a"}),
            json!({"action": "clear", "ref": late}),
        ] {
            let outcome = sw.act(tab, action.clone(), None);
            assert_eq!(outcome["ok"], json!(false), "{trick}: {action} went: {outcome}");
            let error = outcome["error"].as_str().or(outcome["text"].as_str()).unwrap_or_default();
            assert!(error.contains(why), "{trick}: {outcome}");
        }
        assert_eq!(page.eval(&format!("{late_js}.value")).expect("v"), json!(""), "{trick}");
        page.eval(&format!("(() => {{ const el = {late_js}; const s = el.style; {undo}; }})()"))
            .expect("undo");
    }
    // Undone: the same field takes text again (the check is not just always failing).
    let typed = sw.act(tab, json!({"action": "type", "ref": late, "text": "ok"}), None);
    assert_eq!(typed["ok"], json!(true), "{typed}");
}

/// Benchmark (ignored in normal runs): what one rule update costs in the service worker —
/// `updateSessionRules` replacing an action's rule set by another, as each action does when
/// the previous one's rules have narrowed — and one `tabs.query({})`.
fn bench_rule_update(ext: &Path) {
    let llm = ScriptedLlm::start(|_| {
        waymark_tests::llm_server::ScriptedReply::tool_call("done", json!({"answer": "x"}))
    })
    .expect("scripted LLM");
    let site =
        FixtureServer::builder(paths::fixtures_dir().join("netguard")).start().expect("site");
    let wm = Waymark::launch(ext, Setup { llm: &llm, install_host: false, site }).expect("launch");
    let sw = Worker::attach(&wm);
    let js = r#"(async () => {
      const d = chrome.declarativeNetRequest;
      const rule = (id, type, c) => ({ id, priority: type === 'allow' ? 2 : 1, action: { type }, condition: c });
      const set = (base, tabs) => [
        rule(base, 'block', { resourceTypes: ['main_frame', 'sub_frame'], ...tabs }),
        rule(base + 1, 'block', { resourceTypes: ['main_frame', 'xmlhttprequest', 'ping', 'other'], excludedRequestMethods: ['get', 'head', 'options'], ...tabs }),
        rule(base + 2, 'block', { resourceTypes: ['ping', 'websocket'], ...tabs }),
        rule(base + 3, 'allow', { urlFilter: '|http://shop.localhost:1/', resourceTypes: ['main_frame', 'xmlhttprequest'], ...tabs }),
        rule(base + 4, 'allow', { urlFilter: '|ws://shop.localhost:1/', resourceTypes: ['websocket'], ...tabs }),
      ];
      const update = [], query = [];
      let ids = [];
      for (let i = 0; i < 60; i++) {
        const base = 1000 + i * 10;
        const tabs = i % 2 ? { tabIds: [1, -1] } : { excludedTabIds: [2, 3] };
        const t0 = performance.now();
        await d.updateSessionRules({ removeRuleIds: ids, addRules: set(base, tabs) });
        update.push(performance.now() - t0);
        ids = [base, base + 1, base + 2, base + 3, base + 4];
        const t1 = performance.now();
        await chrome.tabs.query({});
        query.push(performance.now() - t1);
      }
      await d.updateSessionRules({ removeRuleIds: ids });
      const med = (a) => a.sort((x, y) => x - y)[a.length >> 1];
      return { update_median_ms: med(update), update_p90_ms: update[Math.floor(update.length * 0.9)], tabs_query_median_ms: med(query) };
    })()"#;
    let v = sw.0.eval_timeout(js, TASK_TIMEOUT).expect("bench");
    println!("BENCH rule update: {v}");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(test_hooks, the_page_cannot_send_where_the_action_was_not_allowed),
        e2e!(test_hooks, fields_a_person_cannot_see_are_neither_shown_nor_filled),
        e2e!(test_hooks, bench_rule_update).only_when_asked(),
    ]
}
