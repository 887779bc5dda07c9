//! Widgets from component libraries (issue 18), in real Chromium on widget-zoo pages that
//! behave like the libraries: a popup calendar, an ARIA combobox with slow suggestions, sliders
//! driven by keys and by the pointer, HTML5 and pointer-event drag and drop, an editor that
//! applies `beforeinput` to its own model, a virtualised list, a terminal that reads keys
//! through a 1×1 px transparent textarea, a canvas app; plus waiting for a text to go, labels
//! beside fields, and one `back` going back one page. Each assertion names what the model reads
//! or what the page (or the site) received.

use crate::perception_support;
use perception_support::{Zoo, must_ref, ok, ref_of, text};
use serde_json::{Value, json};
use std::path::Path;
use waymark_tests::trial::E2e;

fn failed_with(outcome: &Value, words: &str) {
    assert_eq!(outcome["ok"], json!(false), "{outcome}");
    let error = outcome["error"].as_str().unwrap_or_default();
    assert!(error.contains(words), "{words:?} not in {outcome}");
}

/// The body of the last request to `path` the zoo received.
fn received(zoo: &Zoo, path: &str) -> String {
    let found = zoo.site.requests().into_iter().rev().find(|r| r.path == path);
    found.map(|r| r.body).unwrap_or_else(|| panic!("nothing reached {path}"))
}

/// Waits (bounded) until the page's status line says something.
fn status(page: &waymark_tests::chromium::Page) -> String {
    page.wait_for(
        "document.getElementById('status').textContent !== ''",
        perception_support::BOUND,
    )
    .expect("a status line");
    text(page, "document.getElementById('status').textContent")
}

fn a_popup_calendar_picks_a_date(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (page, tab) = zoo.open("/datepicker.html").expect("page");
    let (obs, _) = zoo.observe(tab).expect("observe");
    let date = must_ref(&obs, "textbox", "Date");
    // The field takes no typing: the model is told to use its picker.
    let typed =
        zoo.act(tab, json!({"action": "type", "ref": date, "text": "14/03/2025"})).expect("type");
    failed_with(&typed, "read-only: the page sets it through a picker");
    ok(&zoo.act(tab, json!({"action": "click", "ref": date})).expect("open"));
    let (obs, _) = zoo.observe(tab).expect("observe the calendar");
    assert!(obs.contains("January 2025"), "{obs}");
    for _ in 0..2 {
        let next = must_ref(&obs, "button", "Next month");
        ok(&zoo.act(tab, json!({"action": "click", "ref": next})).expect("next month"));
    }
    let (obs, _) = zoo.observe(tab).expect("observe March");
    assert!(obs.contains("March 2025"), "{obs}");
    let day = must_ref(&obs, "button", "Friday, 14 March 2025");
    ok(&zoo.act(tab, json!({"action": "click", "ref": day})).expect("pick"));
    assert_eq!(text(&page, "document.getElementById('date').value"), "14 March 2025");
    let (obs, _) = zoo.observe(tab).expect("observe");
    ok(&zoo
        .act(tab, json!({"action": "click", "ref": must_ref(&obs, "button", "Book room")}))
        .expect("book"));
    assert_eq!(status(&page), "Booked Ada on 14 March 2025.");
    assert!(received(&zoo, "/api/book").contains("\"date\":\"2025-03-14\""));
}

fn a_debounced_search_shows_its_suggestions_in_the_next_observation(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (_page, tab) = zoo.open("/combobox.html").expect("page");
    let (obs, _) = zoo.observe(tab).expect("observe");
    let city = must_ref(&obs, "combobox", "Ship to");
    // Each keystroke restarts a 250 ms debounce; then a request, a slow answer awaited after
    // it, and the list. Settling follows all of it, so the very next observation (no `wait`)
    // has the suggestions, and the step did not pay a fixed quiet window for it.
    let typed = zoo.act(tab, json!({"action": "type", "ref": city, "text": "Lon"})).expect("type");
    ok(&typed);
    let (obs, _) = zoo.observe(tab).expect("observe the suggestions");
    for city in ["London", "Londonderry", "Long Beach"] {
        assert!(ref_of(&obs, "option", city).is_some(), "no option {city}:\n{obs}");
    }
    assert!(!obs.contains("Loading…"), "{obs}");
}

fn an_async_combobox_takes_typing_then_a_choice(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (page, tab) = zoo.open("/combobox.html").expect("page");
    let (obs, _) = zoo.observe(tab).expect("observe");
    let city = must_ref(&obs, "combobox", "Ship to");
    ok(&zoo.act(tab, json!({"action": "type", "ref": city, "text": "Lon"})).expect("type"));
    // The suggestions come from the site after a debounce and a slow answer: wait for the
    // "Loading…" line to go (it may be gone already).
    let waited = zoo
        .act(tab, json!({"action": "wait", "text": "Loading…", "gone": true, "seconds": 10}))
        .expect("wait");
    ok(&waited);
    let (obs, _) = zoo.observe(tab).expect("observe the suggestions");
    for city in ["London", "Londonderry", "Long Beach"] {
        assert!(ref_of(&obs, "option", city).is_some(), "no option {city}:\n{obs}");
    }
    assert!(!obs.contains("Loading…"), "{obs}");
    assert!(zoo.site.requests().iter().any(|r| r.path == "/cities.json"), "fetched from the site");
    ok(&zoo
        .act(tab, json!({"action": "select_option", "ref": city, "option": "London"}))
        .expect("choose"));
    assert_eq!(text(&page, "document.getElementById('city').value"), "London");
    let (obs, _) = zoo.observe(tab).expect("observe");
    ok(&zoo
        .act(tab, json!({"action": "click", "ref": must_ref(&obs, "button", "Ship here")}))
        .expect("ship"));
    assert_eq!(status(&page), "Shipping to London.");
    assert!(received(&zoo, "/api/ship").contains("\"city\":\"London\""));
}

fn sliders_move_by_the_keys_and_by_the_pointer(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (page, tab) = zoo.open("/slider.html").expect("page");
    let (obs, _) = zoo.observe(tab).expect("observe");
    assert!(obs.contains("] slider \"Volume\" value=\"20\""), "{obs}");
    // Volume takes the arrow keys (steps of 5).
    let volume = must_ref(&obs, "slider", "Volume");
    let moved =
        zoo.act(tab, json!({"action": "type", "ref": volume, "text": "65"})).expect("volume");
    ok(&moved);
    assert!(moved["text"].as_str().unwrap_or_default().contains("the slider is at 65"), "{moved}");
    assert_eq!(text(&page, "document.getElementById('vol-out').textContent"), "65");
    // Between two steps: the nearest it takes.
    let near = zoo.act(tab, json!({"action": "type", "ref": volume, "text": "72"})).expect("72");
    assert!(near["text"].as_str().unwrap_or_default().contains("nearest"), "{near}");
    // Balance takes only the pointer (it captures it while pressed).
    let balance = must_ref(&obs, "slider", "Balance");
    let dragged =
        zoo.act(tab, json!({"action": "type", "ref": balance, "text": "20"})).expect("balance");
    ok(&dragged);
    assert_eq!(text(&page, "document.getElementById('bal').getAttribute('aria-valuenow')"), "20");
    assert!(dragged["text"].as_str().unwrap_or_default().contains("20 right"), "{dragged}");
    let outside =
        zoo.act(tab, json!({"action": "type", "ref": balance, "text": "90"})).expect("90");
    failed_with(&outside, "outside the slider's range");
    // A native range moves by its step on an arrow key.
    let (page, tab) = zoo.open("/widgets.html").expect("widgets");
    let (obs, _) = zoo.observe(tab).expect("observe");
    let native = must_ref(&obs, "slider", "Volume");
    ok(&zoo
        .act(tab, json!({"action": "press_keys", "ref": native, "keys": "ArrowRight"}))
        .expect("arrow"));
    assert_eq!(text(&page, "document.getElementById('volume').value"), "60");
}

fn drag_and_drop_moves_cards_and_reorders_a_list(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (page, tab) = zoo.open("/dnd.html").expect("page");
    let (obs, _) = zoo.observe(tab).expect("observe");
    // HTML5: the card onto the column (named by its heading) that accepts drops.
    let card = must_ref(&obs, "draggable", "Write report");
    let done = must_ref(&obs, "dropzone", "Done");
    let dropped = zoo.act(tab, json!({"action": "drag", "ref": card, "to": done})).expect("drag");
    ok(&dropped);
    assert_eq!(
        text(
            &page,
            "[...document.querySelectorAll('[data-column=done] .card')].map((c) => c.dataset.id).join()"
        ),
        "report"
    );
    // A drop where the page accepts none is said so.
    let (obs, _) = zoo.observe(tab).expect("observe");
    let invoices = must_ref(&obs, "draggable", "Send invoices");
    let eggs = obs
        .lines()
        .find(|l| l.contains("Eggs"))
        .and_then(|l| l[1..].split(']').next())
        .and_then(|r| r.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("no Eggs item:\n{obs}"));
    let refused =
        zoo.act(tab, json!({"action": "drag", "ref": invoices, "to": eggs})).expect("drag");
    failed_with(&refused, "does not accept a drop");
    // Pointer events: the sortable list's Milk onto its first item.
    let item = |name: &str| {
        obs.lines()
            .find(|l| l.contains("] clickable") && l.contains(name))
            .and_then(|l| l[1..].split(']').next())
            .and_then(|r| r.parse::<u64>().ok())
            .unwrap_or_else(|| panic!("no item {name}:\n{obs}"))
    };
    let (milk, bread) = (item("Milk"), item("Bread"));
    ok(&zoo.act(tab, json!({"action": "drag", "ref": milk, "to": bread})).expect("sort"));
    assert_eq!(
        text(
            &page,
            "[...document.querySelectorAll('#list > li')].map((li) => li.dataset.id).join()"
        ),
        "milk,bread,eggs,apples"
    );
    let (obs, _) = zoo.observe(tab).expect("observe");
    ok(&zoo
        .act(tab, json!({"action": "click", "ref": must_ref(&obs, "button", "Save plan")}))
        .expect("save"));
    assert_eq!(status(&page), "Plan saved.");
    let body = received(&zoo, "/api/plan");
    assert!(
        body.contains("\"done\":\"report\"")
            && body.contains("\"list\":\"milk,bread,eggs,apples\""),
        "{body}"
    );
}

fn an_editor_with_its_own_model_takes_typed_text_and_formatting(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (page, tab) = zoo.open("/richtext.html").expect("page");
    let (obs, _) = zoo.observe(tab).expect("observe");
    ok(&zoo
        .act(tab, json!({"action": "click", "ref": must_ref(&obs, "button", "Bold")}))
        .expect("bold"));
    let note = must_ref(&obs, "textbox", "Note");
    ok(&zoo
        .act(tab, json!({"action": "type", "ref": note, "text": "Launch moved to Friday"}))
        .expect("type"));
    assert_eq!(
        text(&page, "document.getElementById('editor').innerHTML"),
        "<p><strong>Launch moved to Friday</strong></p>"
    );
    ok(&zoo
        .act(tab, json!({"action": "type", "ref": note, "text": " at noon", "append": true}))
        .expect("append"));
    assert_eq!(
        text(&page, "document.getElementById('editor').innerText").trim(),
        "Launch moved to Friday at noon"
    );
    // An editor that throws away what it did not apply itself is told as such, not as done.
    page.eval("document.getElementById('editor').addEventListener('beforeinput', (e) => e.stopImmediatePropagation(), true)")
        .expect("break the editor");
    let dropped =
        zoo.act(tab, json!({"action": "type", "ref": note, "text": "Lost words"})).expect("type");
    failed_with(&dropped, "the editor did not take the text");
}

fn a_virtualised_list_is_scrolled_by_its_box_until_the_row_exists(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (page, tab) = zoo.open("/virtual.html").expect("page");
    let (mut obs, _) = zoo.observe(tab).expect("observe");
    assert!(obs.contains("] scrollable \"Orders list\" 9280px below"), "{obs}");
    assert!(!obs.contains("Order #1058"), "not drawn yet:\n{obs}");
    let missing =
        zoo.act(tab, json!({"action": "scroll_to", "text": "Order #1058"})).expect("scroll_to");
    failed_with(&missing, "scroll the list itself with a ref inside it");
    let list = must_ref(&obs, "scrollable", "Orders list");
    for _ in 0..12 {
        if obs.contains("Order #1058") {
            break;
        }
        ok(&zoo
            .act(tab, json!({"action": "scroll", "ref": list, "direction": "down"}))
            .expect("scroll"));
        obs = zoo.observe(tab).expect("observe").0;
    }
    let row = obs
        .lines()
        .find(|l| l.contains("] clickable") && l.contains("Order #1058"))
        .and_then(|l| l[1..].split(']').next())
        .and_then(|r| r.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("no row #1058 after scrolling:\n{obs}"));
    assert!(obs.contains("px above"), "{obs}");
    ok(&zoo.act(tab, json!({"action": "click", "ref": row})).expect("open the order"));
    assert_eq!(
        text(&page, "document.getElementById('detail').textContent"),
        "Order #1058 for Alan: cancelled, 2 item(s)."
    );
}

fn a_terminal_takes_typing_through_the_keyboard_and_its_capture_field_stays_empty(
    extension: &Path,
) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (page, tab) = zoo.open("/terminal.html").expect("page");
    let (obs, _) = zoo.observe(tab).expect("observe");
    // The terminal is listed by its capture field's name; the 1×1 textarea itself is not.
    let terminal = must_ref(&obs, "textbox", "Terminal input");
    assert_eq!(obs.matches("] textbox").count(), 1, "{obs}");
    let typed =
        zoo.act(tab, json!({"action": "type", "ref": terminal, "text": "status\n"})).expect("type");
    ok(&typed);
    let note = typed["text"].as_str().unwrap_or_default();
    assert!(note.contains("7 key(s)") && note.contains("Waymark wrote nothing into it"), "{typed}");
    assert!(
        text(&page, "document.getElementById('rows').textContent")
            .contains("ops-01: up 42 days, load 0.12")
    );
    assert_eq!(text(&page, "document.querySelector('textarea').value"), "", "never typed into");
    let (obs, _) = zoo.observe(tab).expect("observe");
    assert!(obs.contains("ops-01: up 42 days, load 0.12"), "{obs}");
    // A widget whose click does not take the keyboard focus is refused, not typed at.
    let (_, tab) = zoo.open("/canvas.html").expect("canvas");
    let (obs, _) = zoo.observe(tab).expect("observe");
    let pen = must_ref(&obs, "button", "Pen");
    let refused = zoo.act(tab, json!({"action": "type", "ref": pen, "text": "x"})).expect("type");
    failed_with(&refused, "does not take text");
}

fn a_canvas_says_it_cannot_be_read_or_acted_in(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (_, tab) = zoo.open("/canvas.html").expect("page");
    let (obs, _) = zoo.observe(tab).expect("observe");
    assert!(obs.contains("(canvas “Drawing board”, 602×322 px: drawn by the page's script — Waymark cannot read it or act inside it"), "{obs}");
    assert!(!obs.contains("Q3 plan"), "the drawn text is not in the DOM:\n{obs}");
    assert!(ref_of(&obs, "button", "Clear board").is_some(), "{obs}");
}

fn wait_until_a_text_is_gone_and_fields_named_by_the_text_beside_them(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (page, tab) = zoo.open("/spinner.html").expect("page");
    let gone = zoo
        .act(tab, json!({"action": "wait", "text": "Loading…", "gone": true, "seconds": 8}))
        .expect("wait");
    ok(&gone);
    assert_eq!(
        text(&page, "document.getElementById('report').textContent"),
        "Revenue this quarter: 1.2 M EUR."
    );
    let stays = zoo
        .act(tab, json!({"action": "wait", "text": "Report", "gone": true, "seconds": 1}))
        .expect("wait");
    failed_with(&stays, "“Report” was still on the page within 1 s");

    let (_, tab) = zoo.open("/labels.html").expect("labels");
    let (obs, _) = zoo.observe(tab).expect("observe");
    for (role, name) in [
        ("textbox", "Username"),
        ("textbox", "Password"),
        ("textbox", "Email"),
        ("textbox", "Company"),
        ("textbox", "Phone number"),
        ("textbox", "Tied label"),
    ] {
        assert!(ref_of(&obs, role, name).is_some(), "no {role} {name}:\n{obs}");
    }
    assert!(obs.contains("] textbox (no name)"), "a field with nothing beside it:\n{obs}");
}

/// The page the tab shows, read through the observation (an `eval` in the page would give it a
/// user gesture and hide what this test is about): waits, bounded, until it is page `step`.
fn wait_page(zoo: &Zoo, tab: i32, step: u32) {
    let heading = format!("# Page {step}\n");
    let deadline = std::time::Instant::now() + perception_support::BOUND;
    loop {
        let seen = zoo.observe(tab).map(|(obs, _)| obs).unwrap_or_default();
        if seen.contains(&heading) {
            return;
        }
        assert!(std::time::Instant::now() < deadline, "never reached page {step}:\n{seen}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

fn back_goes_back_one_page_after_script_navigations(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (page, tab) = zoo.open("/history.html?step=1").expect("page");
    // The user opens page 2 with a real click (a user gesture); the agent then opens page 3
    // with its synthetic click, which carries none. Chrome's history intervention makes the
    // browser's own Back (`chrome.tabs.goBack`) pass over an entry whose document was left
    // without ever having had a user gesture, so Back went from page 3 to page 1; the page's
    // own history.back() is never skipped.
    let at = page
        .eval("(() => { const r = document.getElementById('next').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        .expect("where the link is");
    let (x, y) = (at[0].as_f64().unwrap_or(0.0), at[1].as_f64().unwrap_or(0.0));
    for kind in ["mousePressed", "mouseReleased"] {
        page.call(
            "Input.dispatchMouseEvent",
            json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
        )
        .expect("a real click");
    }
    wait_page(&zoo, tab, 2);
    // Twice, as when comparing products one after the other.
    for _ in 0..2 {
        let (obs, _) = zoo.observe(tab).expect("observe");
        ok(&zoo
            .act(tab, json!({"action": "click", "ref": must_ref(&obs, "link", "Next page")}))
            .expect("next"));
        wait_page(&zoo, tab, 3);
        ok(&zoo.act(tab, json!({"action": "back"})).expect("back"));
        wait_page(&zoo, tab, 2);
    }
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(test_hooks, a_popup_calendar_picks_a_date),
        e2e!(test_hooks, a_debounced_search_shows_its_suggestions_in_the_next_observation),
        e2e!(test_hooks, an_async_combobox_takes_typing_then_a_choice),
        e2e!(test_hooks, sliders_move_by_the_keys_and_by_the_pointer),
        e2e!(test_hooks, drag_and_drop_moves_cards_and_reorders_a_list),
        e2e!(test_hooks, an_editor_with_its_own_model_takes_typed_text_and_formatting),
        e2e!(test_hooks, a_virtualised_list_is_scrolled_by_its_box_until_the_row_exists),
        e2e!(
            test_hooks,
            a_terminal_takes_typing_through_the_keyboard_and_its_capture_field_stays_empty
        ),
        e2e!(test_hooks, a_canvas_says_it_cannot_be_read_or_acted_in),
        e2e!(test_hooks, wait_until_a_text_is_gone_and_fields_named_by_the_text_beside_them),
        e2e!(test_hooks, back_goes_back_one_page_after_script_navigations),
    ]
}
