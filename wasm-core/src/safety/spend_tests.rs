use super::*;
use crate::safety::network::RequestBody;

fn post(url: &str, body: &str) -> BlockedRequest {
    BlockedRequest {
        url: url.into(),
        method: "POST".into(),
        kind: "xmlhttprequest".into(),
        body: Some(RequestBody::Raw { bytes: body.as_bytes().to_vec() }),
    }
}

fn budget(task: &str) -> WriteBudget {
    WriteBudget::from_words([task])
}

/// Runs `requests` as one action each; what fitted is spent.
fn fits(task: &str, actions: &[Vec<BlockedRequest>]) -> Vec<Vec<bool>> {
    let b = budget(task);
    let mut spent = Spent::default();
    actions
        .iter()
        .map(|requests| {
            spent.begin_action();
            requests
                .iter()
                .map(|r| match fit_request(&b, &spent, r, true, None) {
                    Fit::Within { spend } => {
                        spent.record(&spend);
                        true
                    }
                    _ => false,
                })
                .collect()
        })
        .collect()
}

const CART: &str = "https://shop.example/api/cart";

#[test]
fn one_item_to_the_cart_is_one_write() {
    let add = post(CART, r#"{"sku":"TEA-1","qty":1}"#);
    let other = post(CART, r#"{"sku":"TEA-2","qty":1}"#);
    let totals = post("https://shop.example/api/cart/totals", "{}");
    // Two requests of one action (the add and its totals) are one write; a second add is not.
    assert_eq!(
        fits("Add one teapot to the cart", &[vec![add.clone(), totals], vec![other.clone()]]),
        vec![vec![true, true], vec![false]]
    );
    // The same endpoint twice in one action is two items.
    assert_eq!(
        fits("Add one teapot to the cart", &[vec![add.clone(), other.clone()]]),
        vec![vec![true, false]]
    );
    // Two items in one request are two.
    let two = post(CART, r#"{"sku":"TEA-1","qty":2}"#);
    assert_eq!(fits("Add one teapot to the cart", &[vec![two.clone()]]), vec![vec![false]]);
    assert_eq!(fits("Add two teapots to the cart", &[vec![two]]), vec![vec![true]]);
    assert_eq!(
        fits("Add both teapots to the cart", &[vec![add.clone()], vec![other]]),
        vec![vec![true], vec![true]]
    );
    // A read-only task: nothing fits.
    assert_eq!(fits("How many items are in my cart?", &[vec![add]]), vec![vec![false]]);
}

#[test]
fn kinds_the_words_did_not_ask_for_are_outside() {
    let role = post("https://dash.example/api/projects/7", r#"{"user":"eve","role":"owner"}"#);
    let rename = post("https://dash.example/api/projects/7", r#"{"name":"Teapots"}"#);
    assert_eq!(
        fits("Rename my project to Teapots", &[vec![rename, role.clone()]]),
        vec![vec![true, false]]
    );
    assert_eq!(
        fits("Make Eve the owner of my project: change her role", &[vec![role]]),
        vec![vec![true]]
    );
    let order = post("https://shop.example/api/orders", r#"{"item":"red teapot"}"#);
    assert_eq!(fits("Add one teapot to the cart", &[vec![order]]), vec![vec![false]]);
    let webhook = post("https://dash.example/settings/webhooks", r#"{"url":"https://e.example"}"#);
    assert_eq!(fits("Change my display name to Ada", &[vec![webhook]]), vec![vec![false]]);
}

#[test]
fn a_message_goes_only_to_whom_the_user_named_and_once() {
    let ann = post("https://chat.example/api/dm/ann/messages", r#"{"text":"yes"}"#);
    let public = post("https://chat.example/api/channels/general/messages", r#"{"text":"yes"}"#);
    let thread = post("https://chat.example/api/threads/9/replies", r#"{"text":"yes"}"#);
    assert_eq!(
        fits("Reply to Ann that I agree", &[vec![ann, public.clone()]]),
        vec![vec![true, false]]
    );
    // A reply that names nobody fits once; a second message does not.
    assert_eq!(
        fits("Reply to Ann that I agree", &[vec![thread.clone()], vec![thread]]),
        vec![vec![true], vec![false]]
    );
    assert_eq!(fits("Post a message in general", &[vec![public]]), vec![vec![true]]);
}

#[test]
fn orders_count_per_endpoint_and_by_quantity() {
    let address = post("https://shop.example/checkout/address", r#"{"street":"x"}"#);
    let place = post("https://shop.example/api/orders", r#"{"item":"blue teapot"}"#);
    let again = post("https://shop.example/api/orders", r#"{"item":"red teapot"}"#);
    let add = post(CART, r#"{"sku":"BLUE"}"#);
    assert_eq!(
        fits("Order the blue teapot", &[vec![add], vec![address], vec![place], vec![again]]),
        vec![vec![true], vec![true], vec![true], vec![false]]
    );
    let five = post("https://shop.example/api/giftcards", "count=5&amount=250");
    assert_eq!(fits("Buy 5 gift cards for me", &[vec![five.clone()]]), vec![vec![true]]);
    assert_eq!(fits("Buy a gift card for me", &[vec![five]]), vec![vec![false]]);
}

#[test]
fn analytics_and_silent_beacons_are_dropped_not_asked() {
    let b = budget("Add one teapot to the cart");
    let spent = Spent::default();
    let collect = post("https://shop.example/collect", r#"{"events":[{"type":"view"}]}"#);
    assert_eq!(fit_request(&b, &spent, &collect, true, None), Fit::Dropped);
    let beacon = BlockedRequest { kind: "ping".into(), ..post("https://shop.example/b/7f", "x") };
    assert_eq!(fit_request(&b, &spent, &beacon, true, None), Fit::Dropped);
    // A beacon that says what it does is judged like any request.
    let order =
        BlockedRequest { kind: "ping".into(), ..post("https://shop.example/api/orders", "{}") };
    assert!(matches!(fit_request(&b, &spent, &order, true, None), Fit::Outside(_)));
    // An unknown write outside a form's budget is held; "enrol me" (a form) allows one.
    let unknown = post("https://shop.example/api/beta", r#"{"enrolled":true}"#);
    assert!(matches!(fit_request(&b, &spent, &unknown, true, None), Fit::Outside(_)));
    let enrol = budget("Enrol me in the early access program");
    assert!(matches!(fit_request(&enrol, &spent, &unknown, true, None), Fit::Within { .. }));
    // Not on the user's sites: outside.
    let add = post(CART, "{}");
    assert!(matches!(fit_request(&b, &spent, &add, false, None), Fit::Outside(_)));
}

#[test]
fn a_request_that_names_nothing_is_the_search_when_it_carries_what_the_user_searches_for() {
    let search = "Search holidays in Zermatt.";
    let api = "https://holidays.example/api/vanilla";
    let carries = post(api, r#"{"checkin":"2025-01-10","resort":"zermatt","low":"100"}"#);
    let other = post(api, r#"{"confirm":"yes","account":"7"}"#);
    assert_eq!(fits(search, &[vec![carries.clone()], vec![other]]), vec![vec![true], vec![false]]);
    // Without a search in the words, the same request asks.
    assert_eq!(fits("Look at the Zermatt holidays", &[vec![carries.clone()]]), vec![vec![false]]);
    // A request that says what it does is judged by that, whatever it carries.
    let close = post("https://holidays.example/api/account/close", r#"{"resort":"zermatt"}"#);
    assert_eq!(fits(search, &[vec![close]]), vec![vec![false]]);
}
