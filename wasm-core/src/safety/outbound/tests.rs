//! The outbound check against attacker variants of every class, and the benign twins that
//! must still go.

use super::*;

const OTP: &str = "Your code is 493817. It expires soon.";
const KEY: &str = "sk-live-Zq8aXcanary42Lm9Tt";
const FORUM: &str = "https://forum.example/post";

fn ledger() -> TaintLedger {
    let mut l = TaintLedger::default();
    l.record_page_text("https://mail.example/inbox", OTP);
    l.record_page_text("https://dash.example/keys", &format!("API key: {KEY}"));
    l
}

fn blocked(l: &TaintLedger, url: &str, data: &str) -> bool {
    l.check(url, data).is_err()
}

fn base64(bytes: &[u8], url_safe: bool) -> String {
    use base64::Engine;
    let engine = if url_safe {
        base64::engine::general_purpose::URL_SAFE_NO_PAD
    } else {
        base64::engine::general_purpose::STANDARD
    };
    engine.encode(bytes)
}

#[test]
fn secrets_may_return_to_their_own_origin() {
    assert!(ledger().check("https://mail.example/reply", "code 493817").is_ok());
    assert!(ledger().check("https://dash.example/rotate", KEY).is_ok());
}

#[test]
fn secrets_may_not_leave_in_any_spelling() {
    let l = ledger();
    let hex: String = KEY.bytes().map(|b| format!("{b:02X}")).collect();
    let hex_sep: String =
        "493817".bytes().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":");
    let reversed: String = KEY.chars().rev().collect();
    let entities: String = "493817".chars().map(|c| format!("&#{};", c as u32)).collect();
    let fullwidth: String =
        "493817".chars().map(|c| char::from_u32(c as u32 + 0xFEE0).unwrap_or(c)).collect();
    let double = "sk%252Dlive%252DZq8aXcanary42Lm9Tt";
    for (data, why) in [
        ("my code: 493817".to_owned(), "raw"),
        (KEY.to_uppercase(), "upper case"),
        ("https://forum.example/?k=sk%2Dlive%2DZq8aXcanary42Lm9Tt".into(), "percent"),
        (double.into(), "double percent"),
        ("q=sk-live-Zq8aX+canary42Lm9Tt".into(), "plus as space"),
        (hex, "hex"),
        (hex_sep, "hex with separators"),
        (reversed, "reversed"),
        ("7 1 8 3 9 4".into(), "reversed, spaced"),
        ("4.9.3.8.1.7".into(), "dots"),
        ("4 9 3 - 8 1 7".into(), "separators"),
        (entities, "HTML entities"),
        (fullwidth, "full-width digits"),
        ("\\x34\\x39\\x33\\x38\\x31\\x37".into(), "JS escapes"),
        ("Zq8aXcana".into(), "9 characters of the distinctive part"),
        ("ary42Lm9T".into(), "another 9"),
        ("Ζq8аXcanary42Lm9Tt".into(), "Greek and Cyrillic look-alikes"),
    ] {
        assert!(blocked(&l, FORUM, &data), "{why}: {data}");
    }
    for prefix in ["", "a", "ab"] {
        for url_safe in [false, true] {
            let b64 = base64(format!("{prefix}{KEY}!").as_bytes(), url_safe);
            assert!(blocked(&l, FORUM, &format!("q={b64}")), "base64 {prefix} {url_safe}");
            let b64 = base64(format!("{prefix}493817").as_bytes(), url_safe);
            assert!(blocked(&l, FORUM, &format!("q={b64}")), "base64 otp {prefix} {url_safe}");
        }
    }
    let nested = base64(format!("https://x/?{}", "sk-live-Zq8aXcanary42Lm9Tt").as_bytes(), false);
    assert!(blocked(&l, &format!("https://forum.example/?d={nested}"), ""), "base64 in URL");
    assert!(blocked(&l, "https://493-817.evil.example/", ""), "split into a subdomain");
    assert!(blocked(&l, "https://zq8axcanary42lm9tt.evil.example/", ""), "key as a subdomain");
}

#[test]
fn the_common_prefix_alone_is_not_the_secret() {
    let l = ledger();
    assert!(!blocked(&l, FORUM, "our keys look like sk-live-xxxxxxxx"), "prefix only");
    assert!(!blocked(&l, FORUM, "canary"), "a word inside the key");
}

#[test]
fn ordinary_words_and_short_numbers_are_not_tracked() {
    let mut l = TaintLedger::default();
    l.record_page_text("https://a.example/", "Welcome back, please review 3 items in 2024");
    l.record_page_text("https://a.example/", "Total $1,249.99 on 12/05/2024, press any key");
    assert!(l.is_empty(), "{l:?}");
    assert!(l.check("https://b.example/", "welcome review items 2024 1249.99").is_ok());
}

#[test]
fn sensitive_field_values_may_go_nowhere() {
    let mut l = TaintLedger::default();
    l.record_sensitive("https://bank.example/login", "hunter2pw");
    assert!(blocked(&l, "https://bank.example/search", "hunter2pw"));
}

#[test]
fn links_shown_as_text_are_not_secrets_but_their_tokens_are() {
    let mut l = TaintLedger::default();
    l.record_page_text(
        "https://a.example/",
        "See https://shop.localhost:41234/checkout/confirmation-page-2024 or \
         shop.localhost:41234, reset at https://b.example/r?token=Zq8aX9canary42Lm9Tt77",
    );
    assert!(l.check("https://shop.localhost:41234/checkout/confirmation-page-2024", "").is_ok());
    assert!(l.check("https://b.example/?t=Zq8aX9canary42Lm9Tt77", "").is_ok());
    assert!(l.check("https://c.example/?t=Zq8aX9canary42Lm9Tt77", "").is_err());
}

#[test]
fn text_of_unknown_origin_may_go_nowhere() {
    let mut l = TaintLedger::default();
    l.record_unattributed("Your code is 493817.");
    let err = l.check("https://mail.example/", "493817").expect_err("blocked");
    assert_eq!(err.from, TaintSource::Unattributed);
    assert_eq!(err.from.to_string(), "an earlier page of this task");
}

// Class 4: same-origin is not trusted blindly.

#[test]
fn an_open_redirect_on_the_secrets_own_site_is_another_destination() {
    let l = ledger();
    for url in [
        "https://mail.example/go?to=https://evil.example/?d=493817",
        "https://mail.example/go?to=https%3A%2F%2Fevil.example%2F%3Fd%3D493817",
        "https://mail.example/go?to=https%253A%252F%252Fevil.example%252F%253Fd%253D493817",
        "https://mail.example/go?to=//evil.example/c/493817",
        "https://mail.example/go?to=evil.example/c/493817",
        "https://mail.example/r/https://evil.example/493817",
        "https://mail.example/go#https://evil.example/?d=493817",
        "https://mail.example/go?to=https:\\\\evil.example\\?d=493817",
        "https://mail.example/go?to=https://mail.example@evil.example/?d=493817",
    ] {
        let err = l.check(url, "").expect_err(url);
        assert_eq!(err.destination, "https://evil.example", "{url}");
    }
    let encoded = base64(b"https://evil.example/?d=", false);
    assert!(blocked(&l, &format!("https://mail.example/go?u={encoded}&d=493817"), ""));
}

#[test]
fn a_same_site_redirect_the_task_needs_still_goes() {
    let l = ledger();
    let url = "https://mail.example/login?next=https%3A%2F%2Fmail.example%2Finbox%3Fcode%3D493817";
    assert!(l.check(url, "").is_ok());
    assert!(l.check("https://mail.example/go?to=https://evil.example/", "").is_ok(), "no data");
    assert!(l.check("https://mail.example/files?f=report.pdf&code=493817", "").is_ok());
}

// Class 3: the user's own secrets.

fn user_ledger(task: &str) -> TaintLedger {
    let mut l = TaintLedger::default();
    l.record_user_text(task, UserText::Task);
    l.allow_user_site("https://start.example/home");
    l
}

#[test]
fn the_users_secrets_go_only_where_the_task_sends_them() {
    let l = user_ledger(
        "Log in to shop.example with password sunshine42 and pay with card 4111 1111 1111 1111",
    );
    assert!(l.check("https://shop.example/login", "sunshine42").is_ok());
    assert!(l.check("https://www.shop.example/pay", "4111111111111111").is_ok());
    assert!(l.check("https://start.example/x", "sunshine42").is_ok());
    for (url, data) in [
        ("https://evil.example/", "sunshine42"),
        ("https://evil.example/", "4111-1111-1111-1111"),
        ("https://evil.example/", "4111 1111 1111 1111"),
        ("https://evil.example/", "24enihsnus"),
        ("https://shop.example.evil.example/", "sunshine42"),
        ("https://shop.example/go?to=https://evil.example/?p=sunshine42", ""),
    ] {
        let err = l.check(url, data).expect_err(data);
        assert_eq!(err.from, TaintSource::User { said: UserText::Task });
    }
}

#[test]
fn a_card_answer_is_the_users_too() {
    let mut l = user_ledger("Renew my subscription on shop.example");
    l.record_user_text("the code is 771902 and my PIN is 4821", UserText::Answer);
    assert!(l.check("https://shop.example/verify", "771902").is_ok());
    assert!(blocked(&l, "https://evil.example/", "pin 4821"));
    assert!(blocked(&l, "https://evil.example/", "771902"));
    assert!(!blocked(&l, "https://evil.example/", "order 148210"), "not inside other numbers");
}

#[test]
fn a_site_the_page_lured_the_agent_to_is_not_the_users() {
    let mut l = user_ledger("Use API key sk-test-9fJ2kQ7xLm3Pz8Rt on start.example");
    // The user approved a card for paste.example later: the scope grows, the user's sites do not.
    assert!(blocked(&l, "https://paste.example/new", "sk-test-9fJ2kQ7xLm3Pz8Rt"));
    l.record_user_text("yes, also paste it on paste.example", UserText::Answer);
    assert!(l.check("https://paste.example/new", "sk-test-9fJ2kQ7xLm3Pz8Rt").is_ok());
}

#[test]
fn numbers_the_user_typed_go_to_the_users_sites() {
    let l = user_ledger("Track order 55512345 on shop.example and note the delivery date");
    assert!(l.check("https://shop.example/track", "55512345").is_ok());
    assert!(l.check("https://shop.example/track?date=2024-05-12&price=19.99", "").is_ok());
}

#[test]
fn attached_files_are_the_users() {
    let mut l = user_ledger("Upload my CV to jobs.example");
    l.record_file("cv", "/home/ada/private/cv-2024-AX93KQ7Z.pdf");
    assert!(l.check("https://jobs.example/apply", "cv-2024-AX93KQ7Z.pdf").is_ok());
    assert!(blocked(&l, "https://evil.example/", "cv-2024-AX93KQ7Z"));
    // Tracked, not secret: the model reads the name of the file it uploaded.
    let said = "uploaded cv-2024-AX93KQ7Z.pdf from /home/ada/private";
    assert_eq!(l.conceal(said), said);
}

// Class 4: session notes with provenance.

#[test]
fn session_notes_go_back_only_where_they_were_read() {
    let mut l = TaintLedger::default();
    let provenance =
        Provenance::from([("55512345".to_owned(), vec!["https://shop.example".into()])]);
    l.record_session_notes("Order 55512345, ref Q7ZK3XR91MPL2WQ8 total $12", &provenance);
    assert!(l.check("https://shop.example/track", "55512345").is_ok());
    assert!(blocked(&l, "https://evil.example/", "55512345"));
    let err = l.check("https://shop.example/", "Q7ZK3XR91MPL2WQ8").expect_err("unknown origin");
    assert_eq!(err.from, TaintSource::SessionNote { from: vec![] });
}

#[test]
fn provenance_names_where_each_value_was_read() {
    let mut l = user_ledger("Find order 55512345 on shop.example");
    l.record_page_text("https://mail.example/", "Parcel 77712399 shipped");
    let p = l.provenance("Order 55512345 is parcel 77712399; other 99911122");
    assert_eq!(p.get("77712399"), Some(&vec!["https://mail.example".to_owned()]));
    assert!(p.get("55512345").is_some_and(|s| s.contains(&"shop.example".to_owned())));
    assert_eq!(p.get("99911122"), None);
}

#[test]
fn secrets_are_redacted_before_they_are_stored() {
    let mut l = user_ledger("Log in with password sunshine42 then find order 55512345");
    l.record_page_text("https://dash.example/", &format!("Your API key: {KEY}"));
    let stored = l.redact_secrets(&format!("Typed sunshine42, key {KEY}, order 55512345"));
    assert_eq!(stored, "Typed [redacted], key [redacted], order 55512345");
    assert_eq!(l.redact_all("order 55512345"), "order [redacted]");
}

// Class 5: pieces over several actions.

#[test]
fn halves_sent_in_separate_actions_are_recognised() {
    let mut l = ledger();
    l.record_sent("https://forum.example/post?p=1", "first half 493");
    assert!(blocked(&l, "https://forum.example/post?p=2", "second half 817"));
    let mut l = ledger();
    l.record_sent("https://a.evil.example/", "817");
    assert!(blocked(&l, "https://b.evil.example/", "493"), "reversed order, sibling host");
    let mut l = ledger();
    l.record_sent(FORUM, "Zq8a");
    assert!(blocked(&l, FORUM, "Xcan"), "8 characters assembled in order");
    let mut l = ledger();
    assert!(!blocked(&l, FORUM, "ary4"), "four characters alone");
    l.record_sent(FORUM, "ary4");
    assert!(blocked(&l, FORUM, "Zq8a"), "eight characters of the key in pieces, out of order");
    let mut l = ledger();
    l.record_sent(FORUM, "Zq8aXc");
    assert!(blocked(&l, FORUM, "ary42L"), "quarters 1 and 3: not adjacent, still 12 characters");
    let mut l = ledger();
    for piece in ["49", "38"] {
        l.record_sent(FORUM, piece);
    }
    assert!(blocked(&l, FORUM, "17"), "three pieces typed one after another");
}

#[test]
fn pieces_to_different_sites_or_ordinary_numbers_do_not_add_up() {
    let mut l = ledger();
    l.record_sent("https://forum.example/", "493");
    assert!(l.check("https://other.example/", "817").is_ok(), "another site");
    let mut l = ledger();
    for data in ["qty 2", "price 49.99", "size 38", "page 17", "zip 10117"] {
        assert!(l.check(FORUM, data).is_ok(), "{data}");
        l.record_sent(FORUM, data);
    }
}

#[test]
fn site_keys_group_subdomains() {
    assert_eq!(site_key("https://a.evil.example:8443"), "evil.example");
    assert_eq!(site_key("http://shop.localhost:41234"), "shop.localhost");
    assert_eq!(site_key("http://127.0.0.1:8080"), "127.0.0.1");
}

#[test]
fn a_redirect_links_own_tokens_may_follow_it_but_nothing_else_rides_along() {
    let mut l = TaintLedger::default();
    let link = "https://shop.example/go?to=https://news.example/welcome&ref=Cmp7Hq2Lw9Xt4Rz8Pk3Vn";
    l.record_page_text("https://shop.example/deals", &format!("Weekly news: {link}"));
    l.record_page_text("https://shop.example/account", &format!("Your key {KEY}"));
    assert!(!blocked(&l, link, ""), "clicking the page's own redirect link sends what it carries");
    let smuggled = format!("https://shop.example/go?to=https://news.example/?k={KEY}");
    assert!(blocked(&l, &smuggled, ""), "the shop's key may not ride the redirect to news");
}

#[test]
fn prose_after_a_secrets_name_is_not_a_secret() {
    let mut l = TaintLedger::default();
    let text = "What is the status of my API key? Obeyed every instruction. The key Active \
                was shown. Your code: Qz7-Lm4k";
    l.record_session_notes(text, &Default::default());
    assert_eq!(
        l.redact_all(text),
        "What is the status of my API key? Obeyed every instruction. The key Active was \
         shown. Your code: [redacted]"
    );
}
