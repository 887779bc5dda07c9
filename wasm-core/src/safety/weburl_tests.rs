//! The policy's URL parser against what Chromium computes: every tricky URL of
//! `tricky_urls.txt` with the origin and canonical string Chromium 156 gave for it
//! (`new URL(u).origin` / `.href`, recorded from a headless run).

use super::*;

/// (URL, `origin_of` as Chromium 156 computes it for http(s) URLs, canonical string Chromium loads).
const TRICKY: &[(&str, Option<&str>, Option<&str>)] = &[
    (
        "https://attacker.example\\@shop.example/?q=SECRET",
        Some("https://attacker.example"),
        Some("https://attacker.example/@shop.example/?q=SECRET"),
    ),
    (
        "https://attacker.example\\\\@shop.example/",
        Some("https://attacker.example"),
        Some("https://attacker.example//@shop.example/"),
    ),
    (
        "https://shop.example\\evil.example/",
        Some("https://shop.example"),
        Some("https://shop.example/evil.example/"),
    ),
    ("http:\\\\evil.example\\path", Some("http://evil.example"), Some("http://evil.example/path")),
    ("https:/\\evil.example/", Some("https://evil.example"), Some("https://evil.example/")),
    ("https:evil.example/x", Some("https://evil.example"), Some("https://evil.example/x")),
    ("https:///evil.example/", Some("https://evil.example"), Some("https://evil.example/")),
    ("//evil.example/x", None, None),
    (
        "https://user:pass@shop.example/",
        Some("https://shop.example"),
        Some("https://user:pass@shop.example/"),
    ),
    (
        "https://shop.example@evil.example/",
        Some("https://evil.example"),
        Some("https://shop.example@evil.example/"),
    ),
    (
        "https://shop.example:443@evil.example/",
        Some("https://evil.example"),
        Some("https://shop.example:443@evil.example/"),
    ),
    ("https://shop.example%40evil.example/", None, None),
    (
        "https://a@b@evil.example/",
        Some("https://evil.example"),
        Some("https://a%40b@evil.example/"),
    ),
    (
        "https://evil.example#@shop.example/",
        Some("https://evil.example"),
        Some("https://evil.example/#@shop.example/"),
    ),
    (
        "https://evil.example?@shop.example/",
        Some("https://evil.example"),
        Some("https://evil.example/?@shop.example/"),
    ),
    (
        "https://evil.example/@shop.example",
        Some("https://evil.example"),
        Some("https://evil.example/@shop.example"),
    ),
    (
        "HTTPS://Shop.EXAMPLE:443/a?b#c",
        Some("https://shop.example"),
        Some("https://shop.example/a?b#c"),
    ),
    ("HtTp://SHOP.example:80/", Some("http://shop.example"), Some("http://shop.example/")),
    ("https://shop.example:80/", Some("https://shop.example:80"), Some("https://shop.example:80/")),
    ("http://shop.example:443/", Some("http://shop.example:443"), Some("http://shop.example:443/")),
    ("https://shop.example:0443/", Some("https://shop.example"), Some("https://shop.example/")),
    (
        "https://shop.example:8443/",
        Some("https://shop.example:8443"),
        Some("https://shop.example:8443/"),
    ),
    ("https://shop.example:/", Some("https://shop.example"), Some("https://shop.example/")),
    ("https://shop.example./", Some("https://shop.example."), Some("https://shop.example./")),
    ("https://shop.example../", Some("https://shop.example.."), Some("https://shop.example../")),
    ("https://SHOP.example./x", Some("https://shop.example."), Some("https://shop.example./x")),
    ("https://sh\top.example/", Some("https://shop.example"), Some("https://shop.example/")),
    ("https://shop.exa\nmple/", Some("https://shop.example"), Some("https://shop.example/")),
    (
        "https://shop.example\r\n.evil.example/",
        Some("https://shop.example.evil.example"),
        Some("https://shop.example.evil.example/"),
    ),
    ("  https://shop.example/  ", Some("https://shop.example"), Some("https://shop.example/")),
    ("\u{1}https://shop.example/", Some("https://shop.example"), Some("https://shop.example/")),
    ("https://shop%2eexample/", Some("https://shop.example"), Some("https://shop.example/")),
    ("https://%73hop.example/", Some("https://shop.example"), Some("https://shop.example/")),
    ("https://shop.example%2f.evil.example/", None, None),
    ("https://evil.example%2fshop.example/", None, None),
    (
        "https://xn--80ak6aa92e.com/",
        Some("https://xn--80ak6aa92e.com"),
        Some("https://xn--80ak6aa92e.com/"),
    ),
    ("https://аррӏе.com/", Some("https://xn--80ak6aa92e.com"), Some("https://xn--80ak6aa92e.com/")),
    ("https://pаypal.com/", Some("https://xn--pypal-4ve.com"), Some("https://xn--pypal-4ve.com/")),
    (
        "https://BÜCHER.example/",
        Some("https://xn--bcher-kva.example"),
        Some("https://xn--bcher-kva.example/"),
    ),
    (
        "https://faß.example/",
        Some("https://xn--fa-hia.example"),
        Some("https://xn--fa-hia.example/"),
    ),
    ("https://ＳＨＯＰ．example/", Some("https://shop.example"), Some("https://shop.example/")),
    ("https://shop。example/", Some("https://shop.example"), Some("https://shop.example/")),
    ("https://shop\u{200b}.example/", Some("https://shop.example"), Some("https://shop.example/")),
    ("http://0x7f.1/", Some("http://127.0.0.1"), Some("http://127.0.0.1/")),
    ("http://2130706433/", Some("http://127.0.0.1"), Some("http://127.0.0.1/")),
    ("http://0177.0.0.1/", Some("http://127.0.0.1"), Some("http://127.0.0.1/")),
    ("http://127.1/", Some("http://127.0.0.1"), Some("http://127.0.0.1/")),
    ("http://127.0.0.1./", Some("http://127.0.0.1"), Some("http://127.0.0.1/")),
    ("http://0x7f000001/", Some("http://127.0.0.1"), Some("http://127.0.0.1/")),
    ("http://1.2.3.4.5/", None, None),
    ("http://256.256.256.256/", None, None),
    ("http://[::1]/", Some("http://[::1]"), Some("http://[::1]/")),
    ("http://[0:0:0:0:0:0:0:1]:80/", Some("http://[::1]"), Some("http://[::1]/")),
    ("http://[::ffff:127.0.0.1]/", Some("http://[::ffff:7f00:1]"), Some("http://[::ffff:7f00:1]/")),
    ("http://[::1]:8080/x", Some("http://[::1]:8080"), Some("http://[::1]:8080/x")),
    ("http://127.0.0.1:8080/x", Some("http://127.0.0.1:8080"), Some("http://127.0.0.1:8080/x")),
    ("javascript:alert(1)", None, None),
    ("JAVASCRIPT:alert(document.domain)", None, None),
    ("java\tscript:alert(1)", None, None),
    (" javascript:alert(1)", None, None),
    ("data:text/html,<script>alert(1)</script>", None, None),
    ("DATA:text/html;base64,PHNjcmlwdD4=", None, None),
    ("blob:https://shop.example/550e8400-e29b-41d4-a716-446655440000", None, None),
    ("blob:http://evil.example:8080/uuid", None, None),
    ("blob:null/uuid", None, None),
    ("blob:data:text/html,x", None, None),
    ("filesystem:https://shop.example/temporary/a.html", None, None),
    ("about:blank", None, None),
    ("about:srcdoc", None, None),
    ("file:///etc/passwd", None, None),
    ("ftp://shop.example/", None, None),
    ("ws://shop.example/", None, None),
    ("wss://shop.example:443/", None, None),
    ("chrome://settings/", None, None),
    ("view-source:https://shop.example/", None, None),
    ("mailto:a@shop.example", None, None),
    (
        "https://shop.example/redirect?to=https://evil.example/",
        Some("https://shop.example"),
        Some("https://shop.example/redirect?to=https://evil.example/"),
    ),
    (
        "https://shop.example/../../evil.example",
        Some("https://shop.example"),
        Some("https://shop.example/evil.example"),
    ),
    (
        "https://shop.example/%2e%2e/%2e%2e/x",
        Some("https://shop.example"),
        Some("https://shop.example/x"),
    ),
    ("https://", None, None),
    ("https:", None, None),
    ("http://[::1/", None, None),
    ("https://sh op.example/", None, None),
    ("https://shop.example:99999/", None, None),
    ("https://shop..example/", Some("https://shop..example"), Some("https://shop..example/")),
    ("https://-shop.example/", Some("https://-shop.example"), Some("https://-shop.example/")),
    ("https://xn--/", None, None),
    ("https://%zz.example/", None, None),
];

/// The URLs of `tricky_urls.txt` (JSON string literals, one a line; `#` starts a comment).
fn listed() -> Vec<String> {
    include_str!("tricky_urls.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| serde_json::from_str::<String>(l).expect("a JSON string per line"))
        .collect()
}

#[test]
fn the_list_for_the_end_to_end_test_is_the_one_tested_here() {
    let expected: Vec<&str> = TRICKY.iter().map(|(u, _, _)| *u).collect();
    assert_eq!(listed(), expected);
    assert!(expected.len() >= 50);
}

#[test]
fn origins_are_the_ones_chromium_computes() {
    let mut wrong = Vec::new();
    for (url, origin, _) in TRICKY {
        if origin_of(url).as_deref() != *origin {
            wrong.push(format!("{url:?}: policy {:?}, Chromium {origin:?}", origin_of(url)));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_canonical_string_is_the_one_chromium_loads() {
    for (url, _, href) in TRICKY {
        let canonical = WebUrl::parse(url).ok().map(|u| u.as_str().to_owned());
        assert_eq!(canonical.as_deref(), *href, "{url:?}");
    }
}

#[test]
fn the_backslash_userinfo_trick_goes_where_chrome_goes() {
    let url = WebUrl::parse("https://attacker.example\\@shop.example/?q=SECRET").expect("url");
    assert_eq!(url.origin(), "https://attacker.example");
    assert_eq!(url.host(), "attacker.example");
    assert_eq!(url.site(), "attacker.example");
    assert_eq!(
        WebUrl::parse("http://shop.localhost:8080/x").expect("url").site(),
        "shop.localhost:8080"
    );
    assert_eq!(WebUrl::parse("https://shop.example:443/").expect("url").site(), "shop.example");
}

#[test]
fn browser_origin_matches_chromium_for_every_scheme_it_agrees_on() {
    assert_eq!(browser_origin("javascript:alert(1)").as_deref(), Some("null"));
    assert_eq!(
        browser_origin("blob:https://shop.example/uuid").as_deref(),
        Some("https://shop.example")
    );
    assert_eq!(browser_origin("blob:null/uuid").as_deref(), Some("null"));
    assert_eq!(browser_origin("wss://shop.example:443/").as_deref(), Some("wss://shop.example"));
    assert_eq!(browser_origin("https://"), None);
    // ... but the policy acts on none of them.
    assert_eq!(origin_of("blob:https://shop.example/uuid"), None);
    assert_eq!(origin_of("wss://shop.example/"), None);
}

#[test]
fn navigation_refuses_credentials_and_non_web_schemes() {
    assert!(matches!(
        WebUrl::parse_for_navigation("https://shop.example@evil.example/"),
        Err(UrlRefusal::Credentials(_))
    ));
    assert!(matches!(
        WebUrl::parse_for_navigation("https://a@b@evil.example/"),
        Err(UrlRefusal::Credentials(_))
    ));
    assert!(matches!(
        WebUrl::parse_for_navigation("java\tscript:alert(1)"),
        Err(UrlRefusal::NotWeb(_))
    ));
    assert!(matches!(WebUrl::parse_for_navigation("/cart"), Err(UrlRefusal::Unparsable(_))));
    assert!(WebUrl::parse_for_navigation("https://shop.example/a b").is_ok());
}

#[test]
fn host_labels_are_ascii_and_unicode_without_the_trailing_dot() {
    let labels = WebUrl::parse("https://WWW.PayPal.com./x").expect("url").host_labels();
    assert_eq!(labels, vec!["www", "paypal", "com"]);
    let idn = WebUrl::parse("https://bücher.example/").expect("url").host_labels();
    assert!(idn.contains(&"xn--bcher-kva".to_owned()) && idn.contains(&"bücher".to_owned()));
    assert!(WebUrl::parse("http://0x7f.1/").expect("url").host_labels().is_empty());
}

#[test]
fn documents_differ_by_more_than_their_fragment() {
    let page = WebUrl::parse("https://shop.example/a?b=1").expect("url");
    assert!(page.same_document(&WebUrl::parse("https://SHOP.example/a?b=1#pay").expect("url")));
    assert!(!page.same_document(&WebUrl::parse("https://shop.example/a?b=2").expect("url")));
}

#[test]
fn paths_are_judged_decoded_and_lower_case() {
    let url = WebUrl::parse("https://shop.example/Setup%2EEXE?V=%41").expect("url");
    assert_eq!(url.path(), "/setup.exe");
    assert_eq!(url.query(), "v=a");
}

#[test]
fn only_round_tripping_origins_count_as_web_origins() {
    assert!(is_web_origin("https://ads.example"));
    assert!(is_web_origin("http://127.0.0.1:8080"));
    assert!(!is_web_origin("https://ads.example/"));
    assert!(!is_web_origin("HTTPS://ads.example"));
    assert!(!is_web_origin("null"));
    assert!(!is_web_origin("chrome-extension://abc"));
}
