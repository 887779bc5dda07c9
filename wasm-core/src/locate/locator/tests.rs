//! Locators against hand-made observations: what survives a page change, and what must not.

use super::*;
use waymark_page::observation::Frame;

fn heading(text: &str) -> Item {
    Item::Text { text: text.into(), heading: Some(2), zone: Default::default() }
}

fn line(text: &str) -> Item {
    Item::Text { text: text.into(), heading: None, zone: Default::default() }
}

fn el(index: u32, role: &str, name: &str) -> Item {
    Item::Element(Element {
        ref_id: Ref::top(index),
        role: role.into(),
        name: name.into(),
        ..Element::default()
    })
}

fn page(items: Vec<Item>) -> Observation {
    Observation { url: "https://shop.example/account".into(), items, ..Observation::default() }
}

fn no_values() -> BTreeMap<String, String> {
    BTreeMap::new()
}

/// Two "Edit" links, one per address section.
fn addresses(first: &str, second: &str) -> Observation {
    page(vec![
        heading("Your account"),
        heading(first),
        line(&format!("{first} address: 1 Main St")),
        el(1, "link", "Edit"),
        heading(second),
        line(&format!("{second} address: 9 Side Rd")),
        el(2, "link", "Edit"),
        el(3, "button", "Save"),
    ])
}

#[test]
fn an_unchanged_page_resolves_every_element_it_was_recorded_from() {
    let obs = addresses("Shipping", "Billing");
    for index in 1..=3 {
        let locator = Locator::capture(&obs, Ref::top(index)).expect("captured");
        assert_eq!(locator.resolve(&obs, &no_values()), Resolution::Found(Ref::top(index)));
    }
    let save = Locator::capture(&obs, Ref::top(3)).expect("captured");
    assert_eq!(save.describe(), "button “Save” under “Billing”");
    assert_eq!(Locator::capture(&obs, Ref::top(9)), None);
}

#[test]
fn sections_that_swap_places_still_resolve_to_the_recorded_one() {
    let before = addresses("Shipping", "Billing");
    let shipping_edit = Locator::capture(&before, Ref::top(1)).expect("captured");
    // The page now lists Billing first: position alone would pick the wrong "Edit".
    let after = addresses("Billing", "Shipping");
    assert_eq!(shipping_edit.resolve(&after, &no_values()), Resolution::Found(Ref::top(2)));
}

#[test]
fn a_renamed_element_or_one_moved_under_another_heading_is_not_found() {
    let before = addresses("Shipping", "Billing");
    let save = Locator::capture(&before, Ref::top(3)).expect("captured");
    let renamed = page(vec![heading("Billing"), el(3, "button", "Store")]);
    assert!(
        matches!(save.resolve(&renamed, &no_values()), Resolution::Missing(m) if m.contains("no button “Save”"))
    );
    let moved = page(vec![heading("Shipping"), el(7, "button", "Save"), heading("Billing")]);
    let Resolution::Missing(why) = save.resolve(&moved, &no_values()) else { panic!("found") };
    assert!(why.contains("no longer under “Billing”"), "{why}");
    // Headings that only count something are the same heading.
    let cart = page(vec![heading("3 items in your cart"), el(1, "button", "Check out")]);
    let checkout = Locator::capture(&cart, Ref::top(1)).expect("captured");
    let more = page(vec![heading("12 items in your cart"), el(4, "button", "Check out")]);
    assert_eq!(checkout.resolve(&more, &no_values()), Resolution::Found(Ref::top(4)));
}

#[test]
fn alike_elements_are_told_apart_by_the_line_before_them_or_else_ambiguous() {
    let list = |names: &[&str]| {
        let mut items = vec![heading("Teapots")];
        for (i, n) in names.iter().enumerate() {
            items.push(line(n));
            items.push(el(i as u32 + 1, "button", "Add to cart"));
        }
        page(items)
    };
    let before = list(&["Blue teapot", "Red teapot", "Green teapot"]);
    let red = Locator::capture(&before, Ref::top(2)).expect("captured");
    assert_eq!((red.nth, red.of), (1, 3));
    let reordered = list(&["Green teapot", "Blue teapot", "Red teapot"]);
    assert_eq!(red.resolve(&reordered, &no_values()), Resolution::Found(Ref::top(3)));
    // A fourth product and no line that tells: several match, nothing says which.
    let mut unclear = list(&["Blue teapot", "Red teapot", "Green teapot", "Red teapot"]);
    unclear.items.push(el(9, "button", "Add to cart"));
    assert!(matches!(red.resolve(&unclear, &no_values()), Resolution::Ambiguous(_)));
}

#[test]
fn frames_are_part_of_where_an_element_is() {
    let framed = |url: &str| {
        page(vec![
            el(1, "button", "Pay"),
            Item::Frame(Frame {
                src: url.into(),
                frame: 5,
                url: url.into(),
                items: vec![Item::Element(Element {
                    ref_id: Ref { frame: 5, index: 1 },
                    role: "button".into(),
                    name: "Pay".into(),
                    ..Element::default()
                })],
                zone: Default::default(),
            }),
        ])
    };
    let before = framed("https://pay.example/widget/81734211");
    let inner = Locator::capture(&before, Ref { frame: 5, index: 1 }).expect("captured");
    assert_eq!(inner.frames, ["https://pay.example/widget/*"]);
    let again = framed("https://pay.example/widget/99");
    assert_eq!(inner.resolve(&again, &no_values()), Resolution::Found(Ref { frame: 5, index: 1 }));
    let other = framed("https://evil.example/widget/99");
    assert!(matches!(inner.resolve(&other, &no_values()), Resolution::Missing(_)));
    let top = Locator::capture(&before, Ref::top(1)).expect("captured");
    assert_eq!(top.resolve(&other, &no_values()), Resolution::Found(Ref::top(1)));
}

#[test]
fn parameters_fill_the_name_before_it_is_looked_for() {
    let results =
        |term: &str| page(vec![heading("Results"), el(1, "link", term), el(2, "link", "Other")]);
    let mut locator = Locator::capture(&results("Teapot"), Ref::top(1)).expect("captured");
    locator.name = Template::literal("{{term}}");
    let values = BTreeMap::from([("term".to_owned(), "Kettle".to_owned())]);
    assert_eq!(locator.resolve(&results("Kettle"), &values), Resolution::Found(Ref::top(1)));
    assert!(matches!(locator.resolve(&results("Teapot"), &values), Resolution::Missing(_)));
}
