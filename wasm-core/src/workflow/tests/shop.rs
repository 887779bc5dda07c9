//! A two-page teapot shop for the workflow tests: an order form (a name, a date, a shipping
//! select, a gift-wrap checkbox under "Extras", Continue), a review page with Place order, and
//! a confirmation. Variants change the page the way sites do: a renamed button, an element
//! moved to another section, a removed one, a form that now sends elsewhere.

use crate::agent::{Page, PageError};
use crate::safety::{ActionTarget, NetworkPermit};
use std::cell::{Cell, RefCell};
use waymark_page::action::{Action, ActionOutcome};
use waymark_page::observation::{Element, Item, Observation, Ref};

pub const ORDER: &str = "https://shop.example/order";
pub const REVIEW: &str = "https://shop.example/review";
pub const PLACE: &str = "https://shop.example/place";

/// How the shop looks this time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Variant {
    /// Continue is called "Next".
    pub renamed: bool,
    /// Gift wrap sits under "Your order" instead of "Extras".
    pub moved: bool,
    /// There is no Continue button at all.
    pub removed: bool,
    /// Continue sends the form to another address.
    pub new_destination: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Screen {
    Order,
    Review,
    Placed,
}

/// The shop; `placed` is what the site received.
pub struct Shop {
    pub variant: Variant,
    screen: Cell<Screen>,
    pub name: RefCell<String>,
    pub date: RefCell<String>,
    pub shipping: RefCell<String>,
    pub gift: Cell<bool>,
    pub placed: RefCell<Option<String>>,
    pub acts: RefCell<Vec<Action>>,
    /// Where the tab is when the shop starts (a page elsewhere, for the start-page test).
    pub elsewhere: Cell<bool>,
}

impl Shop {
    pub fn new(variant: Variant) -> Self {
        Self {
            variant,
            screen: Cell::new(Screen::Order),
            name: RefCell::default(),
            date: RefCell::default(),
            shipping: RefCell::new("Standard".into()),
            gift: Cell::new(false),
            placed: RefCell::new(None),
            acts: RefCell::new(Vec::new()),
            elsewhere: Cell::new(false),
        }
    }

    fn continue_name(&self) -> &'static str {
        if self.variant.renamed { "Next" } else { "Continue" }
    }

    fn order_items(&self) -> Vec<Item> {
        let mut items = vec![
            heading("Your order"),
            element(1, "textbox", "Full name", Some(self.name.borrow().clone())),
            element(2, "textbox", "Delivery date", Some(self.date.borrow().clone())),
            element(3, "combobox", "Shipping", Some(self.shipping.borrow().clone())),
        ];
        let gift = element(4, "checkbox", "Gift wrap", None);
        if self.variant.moved {
            items.push(gift);
            items.push(heading("Extras"));
        } else {
            items.push(heading("Extras"));
            items.push(gift);
        }
        if !self.variant.removed {
            items.push(element(5, "button", self.continue_name(), None));
        }
        items
    }
}

fn heading(text: &str) -> Item {
    Item::Text { text: text.into(), heading: Some(2), zone: Default::default() }
}

fn element(index: u32, role: &str, name: &str, value: Option<String>) -> Item {
    Item::Element(Element {
        ref_id: Ref::top(index),
        role: role.into(),
        name: name.into(),
        value,
        ..Element::default()
    })
}

impl Page for Shop {
    async fn observe(&self) -> Result<Observation, PageError> {
        if self.elsewhere.get() {
            return Ok(Observation {
                url: "https://news.example/".into(),
                title: "News".into(),
                items: vec![heading("Today")],
                ..Observation::default()
            });
        }
        let (url, items) = match self.screen.get() {
            Screen::Order => (ORDER.to_owned(), self.order_items()),
            Screen::Review => (
                format!("{REVIEW}?n=1"),
                vec![
                    heading("Review"),
                    Item::Text {
                        text: format!(
                            "{}, {}, {}",
                            self.name.borrow(),
                            self.date.borrow(),
                            self.shipping.borrow()
                        ),
                        heading: None,
                        zone: Default::default(),
                    },
                    element(1, "button", "Place order", None),
                ],
            ),
            Screen::Placed => (
                format!("{PLACE}/done"),
                vec![Item::Text {
                    text: format!(
                        "Order placed for {}",
                        self.placed.borrow().clone().unwrap_or_default()
                    ),
                    heading: Some(1),
                    zone: Default::default(),
                }],
            ),
        };
        Ok(Observation {
            url,
            title: "Shop".into(),
            items,
            engine: "fake".into(),
            ..Observation::default()
        })
    }

    async fn act(
        &self,
        action: &Action,
        _permit: &NetworkPermit,
    ) -> Result<ActionOutcome, PageError> {
        self.acts.borrow_mut().push(action.clone());
        let changed = || ActionOutcome { value_changed: true, ..ActionOutcome::done() };
        let navigated = || ActionOutcome { navigated: true, ..ActionOutcome::done() };
        match (self.screen.get(), action) {
            (_, Action::Wait { .. }) => Ok(ActionOutcome::done()),
            (_, Action::Navigate { url }) if url.starts_with(ORDER) => {
                self.elsewhere.set(false);
                self.screen.set(Screen::Order);
                Ok(navigated())
            }
            (Screen::Order, Action::Type { ref_id, text, .. }) if ref_id.index == 1 => {
                *self.name.borrow_mut() = text.clone();
                Ok(changed())
            }
            (Screen::Order, Action::Type { ref_id, text, .. }) if ref_id.index == 2 => {
                *self.date.borrow_mut() = text.clone();
                Ok(changed())
            }
            (Screen::Order, Action::SelectOption { ref_id, option }) if ref_id.index == 3 => {
                *self.shipping.borrow_mut() = option.clone();
                Ok(changed())
            }
            (Screen::Order, Action::Check { ref_id }) if ref_id.index == 4 => {
                self.gift.set(true);
                Ok(changed())
            }
            (Screen::Order, Action::Click { ref_id })
                if ref_id.index == 5 && !self.variant.removed =>
            {
                self.screen.set(Screen::Review);
                Ok(navigated())
            }
            (Screen::Review, Action::Click { ref_id }) if ref_id.index == 1 => {
                let order = format!(
                    "{} on {} by {}{}",
                    self.name.borrow(),
                    self.date.borrow(),
                    self.shipping.borrow(),
                    if self.gift.get() { ", gift wrapped" } else { "" }
                );
                *self.placed.borrow_mut() = Some(order);
                self.screen.set(Screen::Placed);
                Ok(navigated())
            }
            (_, other) => Ok(ActionOutcome::failed(format!("the shop cannot {other:?}"))),
        }
    }

    async fn describe(&self, target: Option<Ref>) -> Result<ActionTarget, PageError> {
        let page = match self.screen.get() {
            Screen::Order => ORDER.to_owned(),
            Screen::Review => format!("{REVIEW}?n=1"),
            Screen::Placed => format!("{PLACE}/done"),
        };
        let base = ActionTarget { page_url: page.clone(), ..ActionTarget::default() };
        let Some(target) = target else { return Ok(base) };
        let field = |role: &str, name: &str, tag: &str| ActionTarget {
            role: role.into(),
            name: name.into(),
            tag: tag.into(),
            ..base.clone()
        };
        Ok(match (self.screen.get(), target.index) {
            (Screen::Order, 1) => field("textbox", "Full name", "input"),
            (Screen::Order, 2) => field("textbox", "Delivery date", "input"),
            (Screen::Order, 3) => field("combobox", "Shipping", "select"),
            (Screen::Order, 4) => field("checkbox", "Gift wrap", "input"),
            (Screen::Order, 5) => {
                let to = if self.variant.new_destination {
                    "https://shop.example/review-v2"
                } else {
                    REVIEW
                };
                ActionTarget {
                    input_type: "submit".into(),
                    submits_form: true,
                    form_action: Some(to.into()),
                    form_data: format!("name={}", self.name.borrow()),
                    ..field("button", self.continue_name(), "button")
                }
            }
            (Screen::Review, 1) => ActionTarget {
                input_type: "submit".into(),
                submits_form: true,
                form_action: Some(PLACE.into()),
                ..field("button", "Place order", "button")
            },
            _ => base,
        })
    }
}
