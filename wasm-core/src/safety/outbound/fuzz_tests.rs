//! Property tests over hostile text (`waymark-fuzzgen`) for the outbound check: the value
//! scanner, every spelling's decoder, redaction, destinations and the ledger as a whole. No
//! input may panic, and a tracked value stays caught and cut whatever text surrounds it.

#![allow(
    clippy::let_underscore_must_use,
    reason = "a call made only for the panic it must not cause drops its result"
)]

use super::spelling::{Needle, Payload, tokens};
use super::values::{Speaker, named_hosts, values};
use super::*;
use crate::safety::weburl::is_web_origin;
use proptest::prelude::*;
use waymark_fuzzgen::{config, costly, glued_url, hostile_short, hostile_text};

const PAGE: &str = "https://shop.example/account";
const ELSEWHERE: &str = "https://collector.attacker.test/in";

/// A value the scanner tracks by its shape: letters then digits then capitals (a digit and a
/// capital past the first letter make it code-like), 12 to 40 characters.
fn secret() -> impl Strategy<Value = String> {
    "[a-z]{4,12}[0-9]{4,12}[A-Z]{4,16}"
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn fuzz_outbound_values(text in hostile_text(), user in any::<bool>()) {
        let speaker = if user { Speaker::User } else { Speaker::Page };
        for found in values(&text, speaker) {
            prop_assert!(!found.value.is_empty());
            prop_assert!(found.link.iter().all(|o| is_web_origin(o)), "{:?}", found.link);
        }
        for host in named_hosts(&text) {
            prop_assert!(!host.is_empty());
        }
    }

    #[test]
    fn fuzz_outbound_spelling(url in glued_url(), data in hostile_text(), value in hostile_short()) {
        let payload = Payload::outbound(&url, &data);
        for reading in Payload::texts(&data) {
            let _ = tokens(&reading);
        }
        for token in tokens(&data) {
            prop_assert!(!token.is_empty());
            prop_assert!(token.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()));
        }
        if let Some(needle) = Needle::new(&value, 4) {
            let _ = needle.find(&payload);
            let _ = needle.in_pieces(&spelling::Sent::new(&[&payload]));
        }
    }

    #[test]
    fn fuzz_outbound_found_in_any_surroundings(before in hostile_short(), value in secret(), after in hostile_short()) {
        let needle = Needle::new(&value, 4).ok_or_else(|| TestCaseError::fail("a needle"))?;
        for data in [format!("{before}{value}{after}"), format!("{before}{}{after}", value.to_uppercase())] {
            prop_assert!(needle.find(&Payload::outbound(ELSEWHERE, &data)).is_some(), "{data:?}");
        }
    }

    #[test]
    fn fuzz_outbound_redact(before in hostile_text(), value in secret(), after in hostile_text()) {
        let needle = Needle::new(&value, 4).ok_or_else(|| TestCaseError::fail("a needle"))?;
        let text = format!("{before} {value} {after}");
        let cut = redact::redact(&text, &[&needle]);
        prop_assert!(!cut.contains(&value), "{cut:?}");
        prop_assert!(cut.contains(REDACTED));
        prop_assert_eq!(redact::redact(&text, &[]), text);
    }

    #[test]
    fn fuzz_outbound_destinations(url in prop_oneof![glued_url(), hostile_short()]) {
        let found = destinations(&url);
        prop_assert!(found.iter().all(|o| is_web_origin(o)), "{found:?}");
        if let Some(own) = crate::safety::origin_of(&url) {
            prop_assert_eq!(found.first(), Some(&own));
        }
    }
}

proptest! {
    #![proptest_config(costly(4))]

    /// The whole ledger on hostile pages, tasks and outbound data: a secret a page showed
    /// never leaves for another site, whatever text is around it where it was read and sent.
    #[test]
    fn fuzz_outbound_ledger(
        page in hostile_text(),
        task in hostile_text(),
        value in secret(),
        before in hostile_short(),
        after in hostile_short(),
        url in glued_url(),
    ) {
        let mut ledger = TaintLedger::default();
        ledger.record_user_text(&task, UserText::Task);
        ledger.record_page_text(PAGE, &format!("{page} password: {value} {page}"));
        ledger.record_page_text(&url, &page);
        ledger.record_unattributed(&task);
        let outbound = format!("{before}{value}{after}");
        prop_assert!(ledger.check(ELSEWHERE, &outbound).is_err(), "{outbound:?}");
        let _ = ledger.check(&url, &page);
        ledger.record_sent(&url, &page);
        ledger.record_sent(ELSEWHERE, &before);
        let _ = ledger.check(ELSEWHERE, &after);
        let stored = ledger.redact_secrets(&format!("{page} {value} {task}"));
        prop_assert!(!stored.contains(&value), "{stored:?}");
        let _ = ledger.redact_all(&task);
        let provenance = ledger.provenance(&page);
        let mut later = TaintLedger::default();
        later.record_session_notes(&page, &provenance);
        later.adopt_read(&ledger);
        let _ = later.check(&url, &task);
    }
}

// Crashes the properties found, each as its minimal input.

/// `Ⱥ` is 2 bytes and its lower case `ⱥ` 3: the value after `name:` was cut at the lower-case
/// copy's byte index, inside the `é` (found by `fuzz_outbound_values`).
#[test]
fn a_name_whose_lower_case_is_longer_does_not_cut_inside_a_character() {
    assert_eq!(values("Ⱥ:é", Speaker::Page), Vec::new());
    let found: Vec<String> =
        values("PASSWORD:Sécret99 K:ébc123", Speaker::User).into_iter().map(|f| f.value).collect();
    assert!(found.iter().any(|v| v == "Sécret99"), "{found:?}");
    assert!(!found.iter().any(|v| v.contains("ébc")), "`k` names no secret: {found:?}");
}
