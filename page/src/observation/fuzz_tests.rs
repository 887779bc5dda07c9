//! Property tests over hostile text (`waymark-fuzzgen`): how an observation becomes the model's
//! text, and the page-side text helpers (cleaning, shortening, names, refs, keys). No input may
//! panic; where a cheap invariant exists it is checked too. Long runs: `cargo xtask fuzz`.

#![allow(
    clippy::let_underscore_must_use,
    reason = "a call made only for the panic it must not cause drops its result"
)]

use super::names::{MAX_NEARBY, icon_words, join_pieces, nearby_label, without_shown_value};
use super::rules::{cap_options, key_codes, number_in, numbers_in, parse_keys, text_presses};
use super::*;
use proptest::prelude::*;
use waymark_fuzzgen::{
    config, costly, glued_url, hostile_char, hostile_short, hostile_text, hostile_text_of,
};

/// Roles and states come from the content script's own vocabulary, never from the page.
const ROLES: &[&str] = &["button", "link", "textbox", "checkbox", "combobox", "clickable", "img"];
const STATES: &[&str] = &["checked", "required", "sensitive", "filled", "disabled", "expanded"];

/// A line of page text: fewer pieces than [`hostile_text`], as an observation has many.
fn page_text() -> impl Strategy<Value = String> {
    hostile_text_of(5)
}

fn zone() -> impl Strategy<Value = Zone> {
    prop_oneof![Just(Zone::In), Just(Zone::Above), Just(Zone::Below)]
}

fn element() -> impl Strategy<Value = Element> {
    (
        (0u32..3, any::<u32>()),
        proptest::sample::select(ROLES),
        page_text(),
        proptest::option::of(hostile_short()),
        proptest::collection::vec(proptest::sample::select(STATES), 0..3),
        proptest::collection::vec(hostile_short(), 0..4),
        zone(),
    )
        .prop_map(|((frame, index), role, name, value, states, options, zone)| Element {
            ref_id: Ref { frame, index },
            role: role.to_owned(),
            name,
            value,
            states: states.into_iter().map(str::to_owned).collect(),
            options,
            zone,
        })
}

fn leaf() -> impl Strategy<Value = Item> {
    prop_oneof![
        (page_text(), proptest::option::of(any::<u8>()), zone())
            .prop_map(|(text, heading, zone)| Item::Text { text, heading, zone }),
        element().prop_map(Item::Element),
    ]
}

fn items() -> impl Strategy<Value = Vec<Item>> {
    let frame = (0u32..4, glued_url(), proptest::collection::vec(leaf(), 0..4), zone()).prop_map(
        |(frame, url, items, zone)| {
            Item::Frame(Frame { src: url.clone(), frame, url, items, zone })
        },
    );
    proptest::collection::vec(prop_oneof![4 => leaf(), 1 => frame], 0..10)
}

fn observation() -> impl Strategy<Value = Observation> {
    let tab = (any::<i32>(), hostile_short(), glued_url(), any::<bool>())
        .prop_map(|(id, title, url, current)| TabSummary { id, title, url, current });
    let viewport = proptest::array::uniform5(prop_oneof![any::<f64>(), 0.0..5000.0]).prop_map(
        |[width, height, scroll_x, scroll_y, page_height]| Viewport {
            width,
            height,
            scroll_x,
            scroll_y,
            page_height,
        },
    );
    (glued_url(), hostile_short(), items(), viewport, proptest::collection::vec(tab, 0..3))
        .prop_map(|(url, title, items, viewport, tabs)| Observation {
            url,
            title,
            items,
            viewport,
            tabs,
            ..Observation::default()
        })
}

/// Characters that would let page text start a new line or hide in the prompt.
fn smuggles(c: char) -> bool {
    (c.is_control() && c != '\n') || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202E}' | '\u{200B}')
}

/// The prompt is fenced exactly once by its nonce, and no page string breaks a line.
fn check_fenced(out: &str, nonce: &str) -> Result<(), TestCaseError> {
    let open = format!("<page_content id={nonce}>\n");
    let close = format!("</page_content id={nonce}>");
    prop_assert!(out.starts_with(&open), "{out:?}");
    prop_assert!(out.ends_with(&close), "{out:?}");
    prop_assert_eq!(out.matches(&close).count(), 1);
    prop_assert!(!out.chars().any(smuggles), "{out:?}");
    Ok(())
}

proptest! {
    #![proptest_config(costly(4))]

    #[test]
    fn fuzz_page_render(obs in observation(), nonce in "[0-9a-f]{8}", budget in 0usize..4000) {
        check_fenced(&obs.to_prompt_with_budget(&nonce, budget), &nonce)?;
        check_fenced(&obs.page_prompt(&nonce), &nonce)?;
        check_fenced(&obs.outline(&nonce), &nonce)?;
        for element in obs.elements() {
            prop_assert!(!element.line().chars().any(smuggles));
        }
    }

    #[test]
    fn fuzz_page_find(obs in observation(), query in hostile_short(), limit in 0usize..8) {
        let found = obs.find_read(&query, limit);
        prop_assert!(found.len() <= limit);
        prop_assert!(found.iter().all(|f| !f.text.contains('\n')));
    }

    #[test]
    fn fuzz_page_observation_json(text in hostile_text(), js in waymark_fuzzgen::js_string()) {
        // What the content script's message could carry, also with a lone surrogate escaped.
        let _ = serde_json::from_str::<Observation>(&text);
        let json = format!(r#"{{"url":{0},"title":{0},"items":[{{"kind":"text","text":{0}}}]}}"#,
            js.json_literal(false));
        match serde_json::from_str::<Observation>(&json) {
            Ok(obs) => prop_assert_eq!(obs.title, js.lossy()),
            Err(_) => prop_assert!(js.has_lone_surrogate()),
        }
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn fuzz_page_clean(text in hostile_text()) {
        let cleaned = clean(&text);
        prop_assert!(!cleaned.chars().any(|c| c.is_control() || is_invisible(c)), "{cleaned:?}");
        prop_assert!(!cleaned.starts_with(char::is_whitespace));
        prop_assert!(!cleaned.ends_with(char::is_whitespace));
        prop_assert!(cleaned.chars().all(|c| !c.is_whitespace() || c == ' '));
        prop_assert!(!cleaned.contains("  "));
        prop_assert_eq!(clean(&cleaned), cleaned.clone(), "idempotent");
    }

    #[test]
    fn fuzz_page_shorten(text in hostile_text(), max in 0usize..300) {
        let short = shorten(&text, max);
        let kept = short.strip_suffix('…').filter(|_| short != text).unwrap_or(&short);
        prop_assert!(kept.chars().count() <= max || short == text);
        prop_assert!(text.starts_with(kept));
        if text.chars().count() <= max {
            prop_assert_eq!(short, text);
        }
    }

    #[test]
    fn fuzz_page_names(sources in proptest::collection::vec(hostile_short(), 0..4)) {
        let words = icon_words(sources.iter().map(String::as_str));
        prop_assert!(words.len() <= 2);
        prop_assert!(words.iter().all(|w| w.len() >= 3 && w.bytes().all(|b| b.is_ascii_lowercase())));
        if let Some(label) = nearby_label(sources.iter().map(String::as_str)) {
            prop_assert!(!label.is_empty() && label.chars().count() <= MAX_NEARBY);
            prop_assert!(!label.ends_with(':') && !label.chars().any(|c| c.is_control()));
        }
        for source in &sources {
            let name = without_shown_value(source);
            prop_assert!(source.starts_with(name) && !name.is_empty() || name == source);
        }
        let joined = join_pieces(sources.iter().map(String::as_str));
        let mut rest = joined.as_str();
        for piece in sources.iter().filter(|p| !p.is_empty()) {
            let after = rest.split_once(piece.as_str()).map(|(_, after)| after);
            prop_assert!(after.is_some(), "{piece:?} in order in {joined:?}");
            rest = after.unwrap_or_default();
        }
    }

    #[test]
    fn fuzz_page_refs(text in hostile_short(), frame in any::<u32>(), index in any::<u32>()) {
        let _ = Ref::parse(&text);
        let r = Ref { frame, index };
        prop_assert_eq!(Ref::parse(&r.to_string()), Some(r));
        prop_assert_eq!(Ref::parse(&format!(" [{r}] ")), Some(r));
        let json = serde_json::to_string(&r).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(serde_json::from_str::<Ref>(&json).ok(), Some(r));
    }

    #[test]
    fn fuzz_page_keys(text in hostile_short(), c in hostile_char()) {
        for press in parse_keys(&text).unwrap_or_default() {
            let _ = key_codes(&press, true);
            let _ = key_codes(&press, false);
        }
        let typed = format!("{text}{c}");
        let presses = text_presses(&typed);
        prop_assert_eq!(presses.len(), typed.chars().filter(|c| *c != '\r').count());
        for press in &presses {
            let _ = key_codes(press, true);
            let _ = key_codes(press, false);
        }
        prop_assert!(number_in(&text).is_none_or(f64::is_finite));
        prop_assert!(numbers_in(&text).iter().all(|v| v.is_finite()));
    }

    #[test]
    fn fuzz_page_options(options in proptest::collection::vec(hostile_short(), 0..12), max in 0usize..8) {
        let n = options.len();
        let capped = cap_options(options, max);
        prop_assert!(capped.len() <= max + 1);
        prop_assert!(capped.len() == n || capped.last().is_some_and(|l| l.starts_with('+')));
    }
}
