use super::*;

const SHOP: &str = "http://shop.localhost:8080";
const TAB: i32 = 7;

fn permit(destination: Option<&str>) -> NetworkPermit {
    NetworkPermit {
        origins: vec![SHOP.to_owned()],
        approved_destination: destination.map(str::to_owned),
        form_submission: None,
        write_origins: vec![SHOP.to_owned()],
        released: Vec::new(),
        pinned: Vec::new(),
    }
}

fn verdict(set: &RuleSet, method: &str, kind: ResourceType, url: &str) -> Verdict {
    set.verdict(RequestFacts { url, method: Method::parse(method), kind, tab_id: TAB })
}

use ResourceType::*;
use Verdict::{Allow, Block};

#[test]
fn a_free_action_reaches_only_the_scope() {
    let set = RuleSet::build(&permit(None), &Guarded::Tabs(vec![TAB]), 1);
    let v = |m, k, u| verdict(&set, m, k, u);
    assert_eq!(v("POST", MainFrame, "http://shop.localhost:8080/cart"), Allow);
    assert_eq!(v("GET", MainFrame, "http://shop.localhost:8080/"), Allow);
    assert_eq!(v("POST", Xmlhttprequest, "http://shop.localhost:8080/api"), Allow);
    assert_eq!(v("GET", Websocket, "ws://shop.localhost:8080/live"), Allow);
    // Another origin: documents, sends and channels are blocked; plain reads are not.
    assert_eq!(v("GET", MainFrame, "http://evil.localhost:8080/"), Block);
    assert_eq!(v("GET", SubFrame, "http://evil.localhost:8080/frame"), Block);
    assert_eq!(v("POST", Xmlhttprequest, "http://evil.localhost:8080/c"), Block);
    assert_eq!(v("POST", Ping, "http://evil.localhost:8080/beacon"), Block);
    assert_eq!(v("GET", Websocket, "ws://evil.localhost:8080/"), Block);
    assert_eq!(v("PUT", Other, "http://evil.localhost:8080/"), Block);
    assert_eq!(v("PROPFIND", Xmlhttprequest, "http://evil.localhost:8080/"), Block);
    assert_eq!(v("GET", Image, "http://cdn.localhost:8080/logo.png"), Allow);
    // Same host, other port or scheme, or a look-alike host: another origin.
    assert_eq!(v("POST", MainFrame, "http://shop.localhost:9999/cart"), Block);
    assert_eq!(v("POST", MainFrame, "https://shop.localhost:8080/cart"), Block);
    assert_eq!(v("POST", MainFrame, "http://shop.localhost:8080.evil.localhost/"), Block);
    assert_eq!(v("POST", MainFrame, "http://evil.localhost/?http://shop.localhost:8080/"), Block);
}

#[test]
fn an_approved_submission_sends_only_to_exactly_its_destination() {
    let d = "http://news.localhost:8080/subscribe";
    let set = RuleSet::build(&permit(Some(d)), &Guarded::Tabs(vec![TAB]), 1);
    let v = |m, k, u| verdict(&set, m, k, u);
    assert_eq!(v("POST", MainFrame, d), Allow);
    assert_eq!(v("POST", Xmlhttprequest, d), Allow);
    // The page rewrote the action, added a query, or changed the case of the path.
    assert_eq!(v("POST", MainFrame, "http://evil.localhost:8080/subscribe"), Block);
    assert_eq!(v("POST", MainFrame, "http://news.localhost:8080/subscribe?t=1"), Block);
    assert_eq!(v("POST", MainFrame, "http://news.localhost:8080/Subscribe"), Block);
    assert_eq!(v("POST", MainFrame, "http://news.localhost:8080/subscribe/x"), Block);
    // Even the task's own site: an approved "Add to cart" may not become a checkout.
    assert_eq!(v("POST", MainFrame, "http://shop.localhost:8080/checkout"), Block);
    assert_eq!(v("POST", Ping, "http://shop.localhost:8080/beacon"), Block);
    assert_eq!(v("GET", Websocket, "ws://shop.localhost:8080/live"), Block);
    // Documents still load: the scope, the destination's own site (its redirect after the
    // POST), a GET form's submission with its query; not any other site.
    assert_eq!(v("GET", MainFrame, "http://shop.localhost:8080/thanks"), Allow);
    assert_eq!(v("GET", MainFrame, "http://news.localhost:8080/thanks"), Allow);
    assert_eq!(v("GET", MainFrame, "http://news.localhost:8080/subscribe?email=a"), Allow);
    assert_eq!(v("GET", MainFrame, "http://evil.localhost:8080/"), Block);
    assert_eq!(v("GET", Xmlhttprequest, "http://shop.localhost:8080/api"), Allow);
}

#[test]
fn a_destination_in_the_scope_still_binds_every_send() {
    let d = "http://shop.localhost:8080/cart/add?sku=1";
    let set = RuleSet::build(&permit(Some(d)), &Guarded::Tabs(vec![TAB]), 1);
    let v = |m, k, u| verdict(&set, m, k, u);
    assert_eq!(v("POST", MainFrame, d), Allow);
    assert_eq!(v("POST", MainFrame, "http://shop.localhost:8080/cart/add?sku=2"), Block);
    assert_eq!(v("POST", MainFrame, "http://shop.localhost:8080/checkout"), Block);
    assert_eq!(v("GET", MainFrame, "http://shop.localhost:8080/cart"), Allow);
}

#[test]
fn unparsable_or_wildcard_urls_allow_nothing() {
    for bad in ["javascript:alert(1)", "not a url", "http://news.localhost:8080/a*b", "data:,x"] {
        let set = RuleSet::build(&permit(Some(bad)), &Guarded::Tabs(vec![TAB]), 1);
        assert_eq!(verdict(&set, "POST", MainFrame, "http://evil.localhost:8080/a"), Block);
        assert_eq!(verdict(&set, "POST", MainFrame, "http://news.localhost:8080/axb"), Block);
        assert_eq!(verdict(&set, "GET", MainFrame, "http://shop.localhost:8080/"), Allow);
    }
    let odd =
        NetworkPermit { origins: vec!["file:///etc".into(), "garbage".into()], ..permit(None) };
    let set = RuleSet::build(&odd, &Guarded::Tabs(vec![TAB]), 1);
    assert!(set.rules.iter().all(|r| r.action.kind == Block), "no allow rule for them");
    assert_eq!(verdict(&set, "POST", MainFrame, "http://shop.localhost:8080/"), Block);
}

#[test]
fn the_destination_is_written_as_the_browser_writes_it() {
    // Upper-case host, default port, fragment: the browser requests the canonical form.
    let set = RuleSet::build(
        &permit(Some("HTTP://News.LOCALHOST:80/subscribe#top")),
        &Guarded::Tabs(vec![TAB]),
        1,
    );
    assert_eq!(verdict(&set, "POST", MainFrame, "http://news.localhost/subscribe"), Allow);
}

#[test]
fn rules_cover_the_right_tabs_and_have_fresh_ids() {
    let during = RuleSet::build(&permit(None), &Guarded::AllBut(vec![1, 2]), 100);
    assert_eq!(during.ids(), (100..100 + during.rules.len() as u32).collect::<Vec<_>>());
    let evil = |tab_id| {
        during.verdict(RequestFacts {
            url: "http://evil.localhost/",
            method: Method::Post,
            kind: MainFrame,
            tab_id,
        })
    };
    assert_eq!(evil(TAB), Block);
    assert_eq!(evil(99), Block, "a popup opened during the action");
    assert_eq!(evil(-1), Block, "a worker the page hands data to");
    assert_eq!(evil(1), Allow, "the user's other tabs are left alone");
    let between = RuleSet::build(&permit(None), &Guarded::Tabs(vec![TAB]), 1);
    assert!(between.rules.iter().all(|r| r.condition.tab_ids == Some(vec![TAB])));
    assert!(Guarded::AllBut(vec![1]).covers(-1) && !Guarded::Tabs(vec![TAB]).covers(-1));
}

#[test]
fn every_rule_names_its_resource_types() {
    // Chrome skips main frames for a rule without a type list: a POST navigation to another
    // site or an allow for the scope's documents would silently not apply.
    for destination in [None, Some("http://news.localhost:8080/s")] {
        let set = RuleSet::build(&permit(destination), &Guarded::AllBut(vec![]), 1);
        assert!(set.rules.iter().all(|r| r.condition.resource_types.is_some()), "{set:?}");
    }
    let untyped = RuleSet {
        rules: vec![Rule {
            id: 1,
            priority: 1,
            action: RuleAction { kind: Block },
            condition: Condition::default(),
        }],
    };
    assert_eq!(verdict(&untyped, "POST", MainFrame, "http://evil.localhost/"), Allow);
    assert_eq!(verdict(&untyped, "POST", Xmlhttprequest, "http://evil.localhost/"), Block);
}

#[test]
fn rules_serialize_as_chrome_reads_them() {
    let set =
        RuleSet::build(&permit(Some("http://news.localhost:8080/s")), &Guarded::AllBut(vec![3]), 5);
    let json = serde_json::to_value(&set.rules).expect("json");
    assert_eq!(
        json[0],
        serde_json::json!({"id": 5, "priority": 1, "action": {"type": "block"},
            "condition": {"resourceTypes": ["main_frame", "sub_frame"], "excludedTabIds": [3]}})
    );
    assert_eq!(
        json[1]["condition"]["excludedRequestMethods"],
        serde_json::json!(["get", "head", "options"])
    );
    let last = &json[set.rules.len() - 1];
    assert_eq!(last["action"]["type"], "allow");
    assert_eq!(last["priority"], 2);
    assert_eq!(last["condition"]["urlFilter"], "|http://news.localhost:8080/s|");
    assert_eq!(last["condition"]["isUrlFilterCaseSensitive"], true);
}

#[test]
fn a_free_form_submission_posts_only_to_the_judged_action() {
    let judged =
        NetworkPermit { form_submission: Some(format!("{SHOP}/cart/add")), ..permit(None) };
    let set = RuleSet::build(&judged, &Guarded::Tabs(vec![TAB]), 1);
    let v = |m, k, u| verdict(&set, m, k, u);
    assert_eq!(v("POST", MainFrame, "http://shop.localhost:8080/cart/add"), Allow);
    // The page rewrote the form's action on the click: "Add to cart" became a checkout.
    assert_eq!(v("POST", MainFrame, "http://shop.localhost:8080/checkout"), Block);
    assert_eq!(v("POST", SubFrame, "http://shop.localhost:8080/checkout"), Block);
    // The redirect after the POST, the page's own fetches and reads stay free.
    assert_eq!(v("GET", MainFrame, "http://shop.localhost:8080/cart"), Allow);
    assert_eq!(v("POST", Xmlhttprequest, "http://shop.localhost:8080/api/cart"), Allow);
    assert_eq!(v("GET", Websocket, "ws://shop.localhost:8080/live"), Allow);
    assert_eq!(v("POST", MainFrame, "http://evil.localhost:8080/cart/add"), Block);
}

#[test]
fn outside_the_write_budget_the_scope_is_only_read() {
    let reading = NetworkPermit { write_origins: Vec::new(), ..permit(None) };
    let set = RuleSet::build(&reading, &Guarded::Tabs(vec![TAB]), 1);
    let v = |m, k, u| verdict(&set, m, k, u);
    // A benign-named control that POSTs a state change on the task's own site: held.
    assert_eq!(v("POST", Xmlhttprequest, "http://shop.localhost:8080/api/reorder"), Block);
    assert_eq!(v("POST", MainFrame, "http://shop.localhost:8080/account/close"), Block);
    assert_eq!(v("DELETE", Xmlhttprequest, "http://shop.localhost:8080/files/7"), Block);
    assert_eq!(v("POST", Ping, "http://shop.localhost:8080/beacon"), Block);
    // Reads of the site still go.
    assert_eq!(v("GET", MainFrame, "http://shop.localhost:8080/orders"), Allow);
    assert_eq!(v("GET", Xmlhttprequest, "http://shop.localhost:8080/api/orders"), Allow);
    assert_eq!(v("GET", Websocket, "ws://shop.localhost:8080/live"), Allow);
    // Released after a hold: exactly that URL, nothing next to it.
    let released = reading.releasing("http://shop.localhost:8080/api/reorder#x");
    let set = RuleSet::build(&released, &Guarded::Tabs(vec![TAB]), 1);
    let v = |m, k, u| verdict(&set, m, k, u);
    assert_eq!(v("POST", Xmlhttprequest, "http://shop.localhost:8080/api/reorder"), Allow);
    assert_eq!(v("POST", Xmlhttprequest, "http://shop.localhost:8080/api/reorder?q=9"), Block);
    assert_eq!(v("POST", Xmlhttprequest, "http://shop.localhost:8080/api/delete"), Block);
    assert!(!released.holds_write_to("http://shop.localhost:8080/api/reorder"));
    assert!(released.holds_write_to("http://shop.localhost:8080/api/delete"));
    assert!(!permit(None).holds_write_to("http://shop.localhost:8080/api/delete"));
}
