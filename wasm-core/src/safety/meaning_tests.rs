//! Meanings of elements on real-looking sites: benign forms mean nothing, risky ones are seen
//! through spellings.

use super::*;

fn el(role: &str, name: &str) -> ActionTarget {
    ActionTarget {
        role: role.into(),
        name: name.into(),
        tag: if role == "link" { "a".into() } else { "button".into() },
        page_url: "https://shop.example/page".into(),
        ..ActionTarget::default()
    }
}

fn submit(name: &str, action: &str, data: &str) -> ActionTarget {
    ActionTarget {
        submits_form: true,
        form_action: Some(action.into()),
        form_data: data.into(),
        ..el("button", name)
    }
}

fn click(t: &ActionTarget) -> Option<ConfirmClass> {
    meaning(t, Activation::Click)
}

#[test]
fn generic_words_mean_nothing_by_themselves() {
    for name in ["Submit", "Save", "Continue", "Search", "Apply", "OK", "Next", "Go", "Update"] {
        assert_eq!(click(&el("button", name)), None, "{name}");
        assert_eq!(click(&submit(name, "https://shop.example/save", "title=Hi")), None, "{name}");
    }
}

#[test]
fn benign_site_forms_mean_nothing() {
    let cases = [
        submit("Subscribe", "https://shop.example/newsletter/subscribe", "email=ada@x.example"),
        submit("Search", "https://shop.example/search", "q=teapot"),
        submit("Apply filters", "https://shop.example/products", "colour=red&size=m"),
        submit("Add to cart", "https://shop.example/cart/add", "id=3&qty=1"),
        submit("Save", "https://shop.example/settings/profile", "name=Ada&bio=Hi&return_to=/x"),
        submit("Save note", "https://shop.example/notes", "title=Hi&text=Hello"),
        submit("Proceed to checkout", "https://shop.example/checkout/shipping", "address=1 Road"),
        submit("Remove", "https://shop.example/cart/remove", "id=3"),
    ];
    for t in cases {
        assert_eq!(click(&t), None, "{t:?}");
    }
    for name in ["Next post", "Older posts", "Comments (12)", "Share", "Reply", "Buyer guide"] {
        assert_eq!(click(&el("button", name)), None, "{name}");
    }
    let mut banner = el("link", "Buy now");
    banner.href = Some("https://shop.example/collections/teapots".into());
    assert_eq!(click(&banner), None, "a link to a product page pays nothing");
    assert_eq!(click(&el("checkbox", "Under $25")), None, "a price filter is no payment");
}

#[test]
fn money_is_seen_in_the_name_the_price_and_the_form() {
    for name in ["Pay now", "Place your order", "Buy", "Confirm purchase", "Donate", "Book now"] {
        assert_eq!(click(&el("button", name)), Some(ConfirmClass::Purchase), "{name}");
    }
    for name in ["Plаce order", "PL\u{200b}ACE ORDER", "Ｐａｙ ｎｏｗ", "place_order"] {
        assert_eq!(click(&el("button", name)), Some(ConfirmClass::Purchase), "{name:?}");
    }
    assert_eq!(click(&el("button", "Subscribe – $9.99/month")), Some(ConfirmClass::Purchase));
    assert_eq!(
        click(&submit("Continue", "https://shop.example/checkout/place-order", "")),
        Some(ConfirmClass::Purchase)
    );
    assert_eq!(
        click(&submit("Submit", "https://shop.example/pay", "")),
        Some(ConfirmClass::Purchase)
    );
    assert_eq!(
        click(&submit("Submit", "https://shop.example/x", "card_number=4111&exp=12")),
        Some(ConfirmClass::Purchase)
    );
    let mut link = el("link", "Pay");
    link.href = Some("#".into());
    assert_eq!(click(&link), Some(ConfirmClass::Purchase), "no web href: a button in disguise");
    link.href = Some("https://shop.example/page#pay".into());
    assert_eq!(click(&link), Some(ConfirmClass::Purchase), "a same-document link is a button");
}

#[test]
fn messages_deletions_and_account_changes_are_seen() {
    assert_eq!(click(&el("button", "Send")), Some(ConfirmClass::Message));
    assert_eq!(click(&el("button", "Post")), Some(ConfirmClass::Message));
    assert_eq!(click(&submit("Reply", "https://mail.example/x", "")), Some(ConfirmClass::Message));
    assert_eq!(
        click(&submit("Submit", "https://blog.example/wp-comments-post.php", "comment=Hi")),
        Some(ConfirmClass::Message)
    );
    assert_eq!(
        click(&submit("Submit", "https://shop.example/contact", "name=A&message=Hi")),
        Some(ConfirmClass::Message)
    );
    assert_eq!(click(&el("button", "Delete forever")), Some(ConfirmClass::Delete));
    assert_eq!(click(&el("button", "Cancel subscription")), Some(ConfirmClass::Delete));
    let mut rails = el("link", "Destroy");
    rails.href = Some("https://shop.example/items/3".into());
    assert_eq!(click(&rails), Some(ConfirmClass::Delete), "deletion links stay carded");
    assert_eq!(
        click(&submit("Save", "https://shop.example/items/3", "_method=delete")),
        Some(ConfirmClass::Delete)
    );
    assert_eq!(click(&el("button", "Transfer ownership")), Some(ConfirmClass::AccountSettings));
    assert_eq!(click(&el("button", "Generate token")), Some(ConfirmClass::AccountSettings));
    assert_eq!(
        click(&submit("Save", "https://shop.example/settings/security", "x=1")),
        Some(ConfirmClass::AccountSettings)
    );
}

#[test]
fn editing_how_an_account_is_reached_is_an_account_change_on_account_pages_only() {
    let mut email = el("textbox", "Email");
    email.tag = "input".into();
    email.input_type = "email".into();
    email.page_url = "https://shop.example/settings/profile".into();
    assert_eq!(meaning(&email, Activation::Edit), Some(ConfirmClass::AccountSettings));
    email.page_url = "https://shop.example/newsletter".into();
    assert_eq!(meaning(&email, Activation::Edit), None, "a newsletter signup");
    email.page_url = "https://shop.example/account/login".into();
    assert_eq!(meaning(&email, Activation::Edit), None, "signing in is not changing");
    let mut bio = el("textbox", "Bio");
    bio.page_url = "https://shop.example/settings/profile".into();
    assert_eq!(meaning(&bio, Activation::Edit), None);
}

#[test]
fn enter_in_a_field_means_what_the_form_s_default_button_means() {
    let mut coupon = el("textbox", "Coupon code");
    coupon.tag = "input".into();
    coupon.form_action = Some("https://shop.example/checkout/review".into());
    coupon.default_button = "Place order".into();
    assert_eq!(meaning(&coupon, Activation::Enter), Some(ConfirmClass::Purchase));
    coupon.default_button = "Send".into();
    assert_eq!(meaning(&coupon, Activation::Enter), Some(ConfirmClass::Message));
    coupon.default_button = "Apply".into();
    assert_eq!(meaning(&coupon, Activation::Enter), None);
    let mut search = el("textbox", "Search");
    search.tag = "input".into();
    search.form_action = Some("https://shop.example/search".into());
    search.default_button = "Search".into();
    assert_eq!(meaning(&search, Activation::Enter), None);
    let flights = submit("Search flights", "https://air.example/flights", "from=OSL&to=LHR");
    assert_eq!(click(&flights), None, "`to` on a search is no recipient");
    let find = submit("Go", "https://air.example/messages", "message=hello");
    assert_eq!(click(&find), Some(ConfirmClass::Message));
}

#[test]
fn enter_in_a_compose_box_sends_but_not_in_a_search_box() {
    let mut chat = el("textbox", "Message #general");
    chat.tag = "div".into();
    assert_eq!(meaning(&chat, Activation::Enter), Some(ConfirmClass::Message));
    let mut search = el("searchbox", "Search messages");
    search.tag = "input".into();
    assert_eq!(meaning(&search, Activation::Enter), None);
}

#[test]
fn names_are_normalised_to_words() {
    assert_eq!(normalise("  Place-Order\u{200b}!! "), "place order");
    assert_eq!(normalise("ＰＡＹ"), "pay");
    assert_eq!(normalise("Рау"), "pay", "Cyrillic look-alikes");
    assert!(contains_phrase("buy now", "buy"));
    assert!(!contains_phrase("buyer guide", "buy"));
    assert!(contains_phrase(&normalise("post-comment"), "post"));
    assert!(!contains_phrase("compost", "post"));
}

#[test]
fn what_an_element_draws_counts_as_much_as_its_name() {
    let drawn =
        |name: &str, shown: &str| ActionTarget { shown: shown.into(), ..el("button", name) };
    assert_eq!(click(&drawn("Search", "Place order")), Some(ConfirmClass::Purchase));
    assert_eq!(click(&drawn("Cancel", "Transfer $500")), Some(ConfirmClass::Purchase));
    assert_eq!(click(&drawn("Close", "Delete account")), Some(ConfirmClass::Delete));
    assert_eq!(click(&drawn("Menu", "Send")), Some(ConfirmClass::Message));
    // Drawn words that mean nothing leave the name's meaning alone.
    assert_eq!(click(&drawn("Close dialog", "×")), None);
    assert_eq!(click(&drawn("Pay now", "→")), Some(ConfirmClass::Purchase));
    // A link drawn "Buy now" is still a navigation (judged as one elsewhere).
    let link = ActionTarget {
        shown: "Buy now".into(),
        href: Some("https://shop.example/product".into()),
        ..el("link", "Teapot")
    };
    assert_eq!(click(&link), None);
}
