//! Property tests over hostile text (`waymark-fuzzgen`) for the policy's URL handling and the
//! words it judges: the one URL parser, the task's scope, the risk of an action and what an
//! element's name means. No input may panic; a parsed URL is a fixed point of the parser, an
//! origin round-trips, and a task's start page is always in its scope (unless sensitive).
//! The outbound check has its own (`outbound::fuzz_tests`).

#![allow(
    clippy::let_underscore_must_use,
    reason = "a call made only for the panic it must not cause drops its result"
)]

use super::meaning::{Activation, contains_phrase, meaning, normalise};
use super::scope::sensitive_category;
use super::weburl::is_web_origin;
use super::*;
use proptest::prelude::*;
use waymark_fuzzgen::{config, glued_url, hostile_short, hostile_text};

fn url_text() -> impl Strategy<Value = String> {
    prop_oneof![3 => glued_url(), 1 => hostile_short()]
}

fn document_origin_of(text: String, pick: u8) -> DocumentOrigin {
    match pick % 3 {
        0 => DocumentOrigin::Unknown,
        1 => DocumentOrigin::Opaque,
        _ => DocumentOrigin::Web(text),
    }
}

fn target() -> impl Strategy<Value = ActionTarget> {
    (
        (hostile_short(), hostile_text(), hostile_short(), hostile_short()),
        (hostile_short(), hostile_short(), proptest::option::of(url_text())),
        (proptest::option::of(url_text()), any::<bool>(), any::<bool>(), hostile_short()),
        (url_text(), url_text(), any::<u8>(), hostile_text(), hostile_short()),
    )
        .prop_map(
            |(
                (role, name, shown, tag),
                (input_type, autocomplete, href),
                (form_action, download, submits_form, default_button),
                (page_url, origin, pick, form_data, form_method),
            )| ActionTarget {
                role,
                name,
                shown,
                tag,
                input_type,
                autocomplete,
                href,
                download,
                form_action,
                submits_form,
                default_button,
                page_url,
                origin: document_origin_of(origin, pick),
                form_data,
                form_method,
            },
        )
}

fn kind() -> impl Strategy<Value = ActionKind> {
    prop_oneof![
        Just(ActionKind::Read),
        Just(ActionKind::Click),
        Just(ActionKind::Choose),
        hostile_text().prop_map(|text| ActionKind::Type { text }),
        hostile_short().prop_map(|key| ActionKind::PressKey { key }),
        url_text().prop_map(|url| ActionKind::Navigate { url }),
        hostile_short().prop_map(|file| ActionKind::Upload { file }),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn fuzz_url_weburl(text in url_text()) {
        let _ = browser_origin(&text);
        match WebUrl::parse(&text) {
            Ok(url) => {
                let again = WebUrl::parse(url.as_str());
                prop_assert_eq!(again.as_ref().map(WebUrl::as_str), Ok(url.as_str()), "fixed point");
                prop_assert!(url.same_document(&url));
                prop_assert!(is_web_origin(&url.origin()), "{}", url.origin());
                prop_assert_eq!(origin_of(&text), Some(url.origin()));
                let _ = (url.host_labels(), url.host(), url.site(), url.path(), url.query());
            }
            Err(refusal) => {
                prop_assert!(origin_of(&text).is_none());
                prop_assert!(refusal.to_string().chars().count() < 300);
            }
        }
        let _ = WebUrl::parse_for_navigation(&text);
    }

    #[test]
    fn fuzz_url_scope(start in url_text(), other in url_text()) {
        let mut scope = SiteScope::starting_at(&start);
        if let Some(origin) = origin_of(&start) {
            match scope.check(&start) {
                Ok(checked) => prop_assert_eq!(checked, origin),
                Err(ScopeError::Sensitive { .. }) => prop_assert!(sensitive_category(&start).is_some()),
                Err(other) => prop_assert!(false, "{other}"),
            }
        }
        scope.allow(&other);
        scope.grant_sensitive(&other);
        scope.allow_similar(ConfirmClass::Message, &other);
        let _ = scope.similar_allowed(ConfirmClass::FormSubmission, &other);
        if origin_of(&other).is_some() {
            prop_assert!(scope.check(&other).is_ok(), "granted");
        }
        let _ = sensitive_category(&other);
    }

    #[test]
    fn fuzz_url_risk(kind in kind(), target in target(), with_target in any::<bool>()) {
        let _ = classify(&kind, with_target.then_some(&target));
        if let Some(origin) = document_origin(&target) {
            prop_assert!(is_web_origin(&origin));
        }
        for how in [Activation::Click, Activation::Enter, Activation::Edit] {
            let _ = meaning(&target, how);
        }
    }

    #[test]
    fn fuzz_words_budget_and_requests(
        task in hostile_text(),
        url in url_text(),
        body in hostile_text(),
        json in any::<bool>(),
    ) {
        let budget = WriteBudget::from_words([task.as_str()]);
        let body = if json {
            RequestBody::Raw { bytes: format!("{{\"q\":{body:?},\"v\":[{body:?}]}}").into_bytes() }
        } else {
            RequestBody::Raw { bytes: body.into_bytes() }
        };
        let effect = writes::classify("POST", &url, Some(&body));
        prop_assert!(effect.values.len() <= writes::MAX_VALUE_WORDS);
        prop_assert!(effect.values.iter().all(|w| !w.is_empty() && !w.chars().any(char::is_whitespace)));
        if budget.searches_for(&effect.values) {
            prop_assert!(budget.grants.contains(&WriteKind::Search));
        }
        let _ = spend::fit(&budget, &spend::Spent::default(), &effect, "xmlhttprequest", true);
    }

    #[test]
    fn fuzz_url_meaning_normalise(text in hostile_text()) {
        let words = normalise(&text);
        prop_assert_eq!(words.trim(), words.as_str());
        prop_assert!(!words.contains("  "));
        prop_assert_eq!(normalise(&words), words.clone(), "idempotent");
        if !words.is_empty() {
            prop_assert!(contains_phrase(&words, &words));
        }
    }
}
