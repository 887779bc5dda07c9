//! Every page action end to end in real Chromium on the widget zoo, through the agent's own
//! `TabPage` (service worker → content script of the ref's frame → page), checking what the
//! page's own scripts saw. See `perception_support` for why the hook instead of a scripted model.

use crate::perception_support;
use perception_support::{Zoo, must_ref, ok, text};
use serde_json::json;
use std::path::Path;
use waymark_tests::trial::E2e;

fn forms_are_typed_checked_selected_and_submitted_and_a_stale_ref_clicks_nothing(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");

    // Forms: type (replace, append), clear, check/uncheck, select by label and value, submit.
    let (page, tab) = zoo.open("/forms.html").expect("forms");
    let (obs, _) = zoo.observe(tab).expect("observe");
    let name = must_ref(&obs, "textbox", "Full name *");
    let out = zoo.act(tab, json!({"action": "type", "ref": name, "text": "Ada"})).expect("type");
    ok(&out);
    assert_eq!(out["value_changed"], json!(true));
    ok(&zoo
        .act(tab, json!({"action": "type", "ref": name, "text": " L.", "append": true}))
        .expect("append"));
    assert_eq!(text(&page, "document.getElementById('name').value"), "Ada L.");
    assert_eq!(
        text(&page, "window.__events.filter((e) => e.startsWith('name')).join()"),
        "name:input,name:change,name:input,name:change"
    );
    let news = must_ref(&obs, "checkbox", "Newsletter");
    ok(&zoo.act(tab, json!({"action": "uncheck", "ref": news})).expect("uncheck"));
    assert_eq!(text(&page, "String(document.getElementById('news').checked)"), "false");
    let again = zoo.act(tab, json!({"action": "uncheck", "ref": news})).expect("uncheck again");
    assert_eq!(again["text"], json!("already unchecked"));
    ok(&zoo
        .act(tab, json!({"action": "check", "ref": must_ref(&obs, "radio", "Pro")}))
        .expect("radio"));
    assert_eq!(text(&page, "document.querySelector('[name=plan]:checked').value"), "pro");
    let country = must_ref(&obs, "combobox", "Country");
    ok(&zoo
        .act(tab, json!({"action": "select_option", "ref": country, "option": "Germany"}))
        .expect("select"));
    assert_eq!(text(&page, "document.getElementById('country').value"), "de");
    ok(&zoo
        .act(tab, json!({"action": "select_option", "ref": country, "option": "fr"}))
        .expect("select by value"));
    assert_eq!(text(&page, "document.getElementById('country').value"), "fr");
    let missing = zoo
        .act(tab, json!({"action": "select_option", "ref": country, "option": "Mars"}))
        .expect("bad option");
    assert!(
        missing["error"].as_str().unwrap_or_default().contains("France | Spain | Germany"),
        "{missing}"
    );
    let menu = must_ref(&obs, "button", "Menu");
    ok(&zoo.act(tab, json!({"action": "click", "ref": menu})).expect("menu"));
    assert!(zoo.observe(tab).expect("observe").0.contains("] button \"Menu\" expanded"));
    let email = must_ref(&obs, "textbox", "Email address");
    ok(&zoo
        .act(tab, json!({"action": "type", "ref": email, "text": "x@y.z"}))
        .expect("type email"));
    ok(&zoo.act(tab, json!({"action": "clear", "ref": email})).expect("clear"));
    assert_eq!(text(&page, "document.getElementById('email').value"), "");
    let (obs, _) = zoo.observe(tab).expect("observe");
    ok(&zoo.act(tab, json!({"action": "press_keys", "keys": "Enter", "ref": must_ref(&obs, "textbox", "Full name *")})).expect("enter"));
    assert_eq!(text(&page, "document.getElementById('status').textContent"), "Submitted: Ada L.");
    let disabled = zoo.act(
        tab,
        json!({"action": "type", "ref": must_ref(&obs, "textbox", "Password"), "text": "x"}),
    );
    ok(&disabled.expect("typing into a password field is allowed"));

    // A stale ref fails with the fingerprint reason and clicks nothing.
    let (obs, _) = zoo.observe(tab).expect("observe");
    let save = must_ref(&obs, "button", "Save");
    page.eval("document.getElementById('submit').textContent = 'Delete account'").expect("mutate");
    let stale = zoo.act(tab, json!({"action": "click", "ref": save})).expect("stale click");
    assert!(stale["error"].as_str().unwrap_or_default().contains("fingerprint"), "{stale}");
    let unknown = zoo.act(tab, json!({"action": "click", "ref": 999})).expect("unknown ref");
    assert_eq!(unknown["ok"], json!(false));
}

fn a_react_controlled_input_takes_the_typed_text(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");

    // React-style controlled input: only the prototype setter + input event updates its state.
    let (page, tab) = zoo.open("/react.html").expect("react");
    let (obs, _) = zoo.observe(tab).expect("observe");
    ok(&zoo
        .act(
            tab,
            json!({"action": "type", "ref": must_ref(&obs, "textbox", "City"), "text": "Lisbon"}),
        )
        .expect("type"));
    assert_eq!(text(&page, "document.getElementById('state').textContent"), "State: Lisbon");
}

fn a_custom_dropdown_is_chosen_through_clicks(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");

    // Custom dropdown through clicks.
    let (page, tab) = zoo.open("/dropdown.html").expect("dropdown");
    let (obs, _) = zoo.observe(tab).expect("observe");
    ok(&zoo.act(tab, json!({"action": "select_option", "ref": must_ref(&obs, "combobox", "Fruit"), "option": "Banana"})).expect("custom select"));
    assert_eq!(text(&page, "document.getElementById('chosen').textContent"), "Chosen: Banana");
}

fn shadow_dom_widgets_are_typed_and_clicked(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");

    // Shadow DOM widgets.
    let (page, tab) = zoo.open("/shadow.html").expect("shadow");
    let (obs, _) = zoo.observe(tab).expect("observe");
    ok(&zoo.act(tab, json!({"action": "type", "ref": must_ref(&obs, "textbox", "Shadow query"), "text": "deep"})).expect("type"));
    ok(&zoo
        .act(tab, json!({"action": "click", "ref": must_ref(&obs, "button", "Shadow button")}))
        .expect("click"));
    assert_eq!(
        text(&page, "document.getElementById('out').textContent"),
        "Shadow: clicked with deep"
    );
}

fn refs_route_to_same_origin_and_cross_origin_frames(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");

    // Frames: refs route to the same-origin and the cross-origin frame.
    let url = format!("{}?other={}", zoo.site.url("/frames.html"), zoo.other_port());
    let (_page, tab) = zoo.open_url(&url).expect("frames");
    let (obs, _) = zoo.observe(tab).expect("observe");
    ok(&zoo
        .act(tab, json!({"action": "click", "ref": must_ref(&obs, "button", "Inner button")}))
        .expect("inner"));
    ok(&zoo.act(tab, json!({"action": "type", "ref": must_ref(&obs, "textbox", "Cross field"), "text": "far"})).expect("cross type"));
    ok(&zoo
        .act(tab, json!({"action": "click", "ref": must_ref(&obs, "button", "Cross button")}))
        .expect("cross click"));
    let (obs, _) = zoo.observe(tab).expect("observe");
    assert!(obs.contains("Inner clicked") && obs.contains("Cross clicked: far"), "{obs}");
}

fn a_contenteditable_editor_is_replaced_and_appended(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");

    // contenteditable editor: replace and append fire the editor's input events.
    let (page, tab) = zoo.open("/editor.html").expect("editor");
    let (obs, _) = zoo.observe(tab).expect("observe");
    let editor = must_ref(&obs, "textbox", "Editor");
    ok(&zoo.act(tab, json!({"action": "type", "ref": editor, "text": "Hello"})).expect("type"));
    ok(&zoo
        .act(tab, json!({"action": "type", "ref": editor, "text": " world", "append": true}))
        .expect("append"));
    assert_eq!(text(&page, "document.getElementById('mirror').textContent"), "Mirror: Hello world");
}

fn a_covered_button_is_refused_naming_the_cover_then_clicked(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");

    // A modal covering the button: the click is refused and names the cover; once closed, it works.
    let (page, tab) = zoo.open("/modal.html").expect("modal");
    let (obs, _) = zoo.observe(tab).expect("observe");
    let buy = must_ref(&obs, "button", "Buy now");
    let covered = zoo.act(tab, json!({"action": "click", "ref": buy})).expect("covered click");
    let reason = covered["error"].as_str().unwrap_or_default().to_owned();
    assert!(reason.contains("covers it") && reason.contains("id=overlay"), "{covered}");
    assert_eq!(text(&page, "document.getElementById('status').textContent"), "Not bought");
    ok(&zoo
        .act(tab, json!({"action": "click", "ref": must_ref(&obs, "button", "Accept cookies")}))
        .expect("accept"));
    ok(&zoo.act(tab, json!({"action": "click", "ref": buy})).expect("buy"));
    assert_eq!(text(&page, "document.getElementById('status').textContent"), "Bought");
}

fn an_upload_becomes_a_file_on_the_input(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");

    // Upload: bytes become a File on the input with input and change events.
    let (page, tab) = zoo.open("/upload.html").expect("upload");
    let (obs, _) = zoo.observe(tab).expect("observe");
    let file = must_ref(&obs, "file", "Attachment");
    let set = zoo
        .content(tab, 0, json!({"op": "set_file", "ref": file, "name": "notes.txt", "mime": "text/plain", "base64": "aGVsbG8gd2F5bWFyaw=="}))
        .expect("set file");
    ok(&set);
    page.wait_for(
        "document.getElementById('info').textContent.startsWith('File:')",
        perception_support::BOUND,
    )
    .expect("file read");
    assert_eq!(
        text(&page, "document.getElementById('info').textContent"),
        "File: notes.txt text/plain 13 hello waymark"
    );
    assert_eq!(text(&page, "window.__uploadEvents.join()"), "input,change");
    let model_upload = zoo
        .act(tab, json!({"action": "upload", "ref": file, "file": "notes.txt"}))
        .expect("upload");
    assert_eq!(model_upload["ok"], json!(false), "no host file access yet: {model_upload}");
}

fn hover_double_click_keys_scrolls_wait_extract_and_find_work_and_refs_hold(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");

    // Misc: hover, double click, switch, keys, scrolls, wait, extract, find.
    let (page, tab) = zoo.open("/misc.html").expect("misc");
    let (obs, _) = zoo.observe(tab).expect("observe");
    assert!(!obs.contains("Hidden entry"));
    ok(&zoo
        .act(tab, json!({"action": "hover", "ref": must_ref(&obs, "button", "Hover menu")}))
        .expect("hover"));
    let before = obs;
    let (obs, _) = zoo.observe(tab).expect("observe");
    assert!(obs.contains("] link Hidden entry"), "{obs}");
    // Refs hold their element: one inserted before it does not shift what a ref names.
    page.eval("document.body.prepend(Object.assign(document.createElement('button'), {textContent: 'Inserted'}))").expect("insert");
    let (_, outcome) = (
        before,
        zoo.act(tab, json!({"action": "hover", "ref": must_ref(&obs, "button", "Hover menu")}))
            .expect("hover again"),
    );
    ok(&outcome);
    let (obs, _) = zoo.observe(tab).expect("observe");
    ok(&zoo
        .act(tab, json!({"action": "double_click", "ref": must_ref(&obs, "button", "Double box")}))
        .expect("dblclick"));
    assert_eq!(text(&page, "document.getElementById('dbl').textContent"), "Double: 1");
    let switch = must_ref(&obs, "switch", "Dark mode");
    ok(&zoo.act(tab, json!({"action": "check", "ref": switch})).expect("switch on"));
    assert!(zoo.observe(tab).expect("observe").0.contains("] switch \"Dark mode\" checked"));
    let search = must_ref(&obs, "textbox", "Search");
    ok(&zoo
        .act(tab, json!({"action": "press_keys", "ref": search, "keys": "t e a Control+a Enter"}))
        .expect("keys"));
    assert_eq!(
        text(&page, "document.getElementById('keys').textContent"),
        "Keys: t e a Ctrl+a Enter"
    );
    assert_eq!(text(&page, "document.getElementById('searched').textContent"), "Searched: tea");
    ok(&zoo.act(tab, json!({"action": "press_keys", "keys": "Tab"})).expect("tab key"));
    assert_eq!(text(&page, "document.activeElement.id"), "later");
    let bad_keys =
        zoo.act(tab, json!({"action": "press_keys", "keys": "Hyper+x"})).expect("bad keys");
    assert_eq!(bad_keys["ok"], json!(false));

    ok(&zoo
        .act(tab, json!({"action": "click", "ref": must_ref(&obs, "button", "Load later")}))
        .expect("later"));
    ok(&zoo
        .act(tab, json!({"action": "wait", "text": "Loaded at last", "seconds": 10}))
        .expect("wait"));
    let timeout = zoo
        .act(tab, json!({"action": "wait", "text": "Never there", "seconds": 0.5}))
        .expect("wait bound");
    assert!(timeout["error"].as_str().unwrap_or_default().contains("did not appear"), "{timeout}");

    let scroller = must_ref(&obs, "clickable", "Scroller");
    ok(&zoo
        .act(tab, json!({"action": "scroll", "ref": scroller, "direction": "bottom"}))
        .expect("scroll element"));
    assert!(
        page.eval("document.getElementById('scroller').scrollTop > 100").expect("scrolltop")
            == json!(true)
    );
    let down = zoo.act(tab, json!({"action": "scroll"})).expect("scroll page");
    assert!(down["text"].as_str().unwrap_or_default().starts_with("scrolled to"), "{down}");
    ok(&zoo.act(tab, json!({"action": "scroll", "direction": "top"})).expect("scroll top"));
    let top =
        zoo.act(tab, json!({"action": "scroll", "direction": "up"})).expect("scroll up at top");
    assert!(top["error"].as_str().unwrap_or_default().contains("already at the top"), "{top}");
    ok(&zoo
        .act(tab, json!({"action": "scroll_to", "text": "Footer text far below"}))
        .expect("scroll to text"));
    assert!(page.eval("window.scrollY > 500").expect("scrolled") == json!(true));
    ok(&zoo
        .act(tab, json!({"action": "scroll_to", "ref": must_ref(&obs, "button", "Load later")}))
        .expect("scroll to ref"));
    assert!(page.eval("window.scrollY < 500").expect("scrolled back") == json!(true));

    let extract = zoo.act(tab, json!({"action": "extract"})).expect("extract");
    let md = extract["text"].as_str().unwrap_or_default();
    for part in [
        "# Misc widgets",
        "## Prices",
        "| Item | Price |",
        "| --- | --- |",
        "| Tea | 3 € |",
        "- First point",
    ] {
        assert!(md.contains(part), "missing {part:?} in:\n{md}");
    }
    let found = zoo.act(tab, json!({"action": "find", "query": "cake"})).expect("find");
    assert!(found["text"].as_str().unwrap_or_default().contains("Cake | 5 €"), "{found}");
}

fn a_long_list_reveals_more_items_as_it_scrolls(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");

    // A long list that renders as you scroll: scrolling reveals more items.
    let (page, tab) = zoo.open("/longlist.html").expect("long list");
    ok(&zoo.act(tab, json!({"action": "scroll", "direction": "bottom"})).expect("scroll"));
    page.wait_for("document.querySelectorAll('#list li').length > 20", perception_support::BOUND)
        .expect("more rendered");
    let (obs, _) = zoo.observe(tab).expect("observe");
    assert!(obs.contains("Result item 40\n"), "{obs}");
}

fn actions_work_through_the_wasm2js_build_under_a_strict_csp(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");

    // Strict CSP: actions through the wasm2js build.
    let (page, tab) = zoo.open("/strict.html").expect("strict");
    let (obs, _) = zoo.observe(tab).expect("observe");
    ok(&zoo.act(tab, json!({"action": "type", "ref": must_ref(&obs, "textbox", "Strict name"), "text": "Zed"})).expect("type"));
    ok(&zoo
        .act(tab, json!({"action": "click", "ref": must_ref(&obs, "button", "Strict save")}))
        .expect("click"));
    assert_eq!(text(&page, "document.getElementById('s').textContent"), "Strict saved: Zed");
}

fn navigation_and_tabs_report_what_changed(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (page, tab) = zoo.open("/nav-a.html").expect("nav a");
    let (obs, _) = zoo.observe(tab).expect("observe");
    let out = zoo
        .act(tab, json!({"action": "click", "ref": must_ref(&obs, "link", "Go to B")}))
        .expect("click link");
    assert_eq!(out["navigated"], json!(true), "{out}");
    assert!(zoo.observe(tab).expect("observe").0.contains("# Page B"));
    let back = zoo.act(tab, json!({"action": "back"})).expect("back");
    assert_eq!(back["navigated"], json!(true));
    assert!(zoo.observe(tab).expect("observe").0.contains("# Page A"));
    ok(&zoo.act(tab, json!({"action": "forward"})).expect("forward"));
    assert!(zoo.observe(tab).expect("observe").0.contains("# Page B"));
    ok(&zoo
        .act(tab, json!({"action": "navigate", "url": zoo.site.url("/nav-a.html")}))
        .expect("navigate"));
    assert!(zoo.observe(tab).expect("observe").0.contains("# Page A"));
    page.eval("window.__marker = 1").expect("marker");
    ok(&zoo.act(tab, json!({"action": "reload"})).expect("reload"));
    page.wait_for(
        "document.readyState === 'complete' && window.__marker === undefined",
        perception_support::BOUND,
    )
    .expect("reloaded");
    let refused =
        zoo.act(tab, json!({"action": "navigate", "url": "javascript:alert(1)"})).expect("bad url");
    assert_eq!(refused["ok"], json!(false));

    // SPA route change: the URL changes without a load and counts as navigated.
    let (_spa, tab) = zoo.open("/spa.html").expect("spa");
    let (obs, _) = zoo.observe(tab).expect("observe");
    let out = zoo
        .act(tab, json!({"action": "click", "ref": must_ref(&obs, "link", "About")}))
        .expect("route");
    assert_eq!(out["navigated"], json!(true), "{out}");
    let (obs, observation) = zoo.observe(tab).expect("observe");
    assert!(
        obs.contains("# Page: About")
            && observation["url"].as_str().unwrap_or_default().ends_with("/spa/about"),
        "{obs}"
    );

    // Tabs: a link opening a new tab, open/switch/close, the tabs line, screenshots.
    let (_misc, tab) = zoo.open("/misc.html").expect("misc");
    let (obs, _) = zoo.observe(tab).expect("observe");
    let (out, now) = zoo
        .act_tab(
            tab,
            json!({"action": "click", "ref": must_ref(&obs, "link", "Open B in new tab")}),
        )
        .expect("new tab link");
    let opened = out["opened_tab"].as_i64().expect("opened_tab") as i32;
    assert_eq!(now, opened, "the agent follows the new tab: {out}");
    let (out, now) = zoo
        .act_tab(tab, json!({"action": "open_tab", "url": zoo.site.url("/nav-a.html")}))
        .expect("open tab");
    assert_eq!(out["opened_tab"].as_i64(), Some(i64::from(now)));
    let (text, _) = zoo.observe(now).expect("observe new tab");
    assert!(text.contains("# Page A") && text.contains("\ntabs: "), "{text}");
    assert!(text.contains(&format!("{now}* \"Nav A\"")), "{text}");
    let (out, now) = zoo.act_tab(now, json!({"action": "switch_tab", "tab": tab})).expect("switch");
    ok(&out);
    assert_eq!(now, tab);
    let (out, _) =
        zoo.act_tab(tab, json!({"action": "close_tab", "tab": opened})).expect("close other");
    ok(&out);
    let (text, _) = zoo.observe(tab).expect("observe");
    assert!(!text.contains(&format!(" {opened} \"")), "closed tab gone: {text}");
    let shot = zoo.act(tab, json!({"action": "screenshot"})).expect("screenshot");
    assert!(
        shot["image"].as_str().unwrap_or_default().starts_with("data:image/jpeg;base64,"),
        "{}",
        shot.to_string().chars().take(300).collect::<String>()
    );
    let missing =
        zoo.act(tab, json!({"action": "switch_tab", "tab": 987654})).expect("no such tab");
    assert_eq!(missing["ok"], json!(false));
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(
            test_hooks,
            forms_are_typed_checked_selected_and_submitted_and_a_stale_ref_clicks_nothing
        ),
        e2e!(test_hooks, a_react_controlled_input_takes_the_typed_text),
        e2e!(test_hooks, a_custom_dropdown_is_chosen_through_clicks),
        e2e!(test_hooks, shadow_dom_widgets_are_typed_and_clicked),
        e2e!(test_hooks, refs_route_to_same_origin_and_cross_origin_frames),
        e2e!(test_hooks, a_contenteditable_editor_is_replaced_and_appended),
        e2e!(test_hooks, a_covered_button_is_refused_naming_the_cover_then_clicked),
        e2e!(test_hooks, an_upload_becomes_a_file_on_the_input),
        e2e!(test_hooks, hover_double_click_keys_scrolls_wait_extract_and_find_work_and_refs_hold),
        e2e!(test_hooks, a_long_list_reveals_more_items_as_it_scrolls),
        e2e!(test_hooks, actions_work_through_the_wasm2js_build_under_a_strict_csp),
        e2e!(test_hooks, navigation_and_tabs_report_what_changed),
    ]
}
