//! Performs page actions on the elements of this frame's latest observation.

use super::dom::REFS;
use super::events::{fire, fire_input, js, mouse, mouse_with, point_of};
use super::roles::live_fingerprint;
use crate::act_error::{ActError, ChoiceError, FieldError, Undone};
use crate::action::readback::{TextReadback, judge_text, judge_toggle, over_max_length};
use crate::action::{Action, ActionOutcome};
use crate::error::ContentError;
use crate::js::best_effort;
use crate::observation::rules::text_presses;
use crate::observation::{Ref, clean, shorten};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Element, HtmlElement, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

/// Performs one page action; never acts on an element other than the one the ref named.
/// `expect` and `expect_to` are the target's and the drop target's `role|name` as the model
/// saw them.
pub async fn perform(
    action: &Action,
    expect: Option<&str>,
    expect_to: Option<&str>,
) -> ActionOutcome {
    // Later pages of a listing are read with the shape learned on the first: the example's
    // ref belonged to a page that is gone.
    if let Action::Collect(spec) = action
        && spec.shape.is_some()
    {
        return super::collect::collect_page(spec, None);
    }
    let live = |r: Ref, expect: Option<&str>| {
        resolve(r).map_err(ActError::from).and_then(|el| check_expectation(el, r, expect))
    };
    let target = match action.target_ref().map(|r| live(r, expect)).transpose() {
        Ok(target) => target,
        Err(reason) => return reason.into(),
    };
    let dropped_on = match action.drop_ref().map(|r| live(r, expect_to)).transpose() {
        Ok(on) => on,
        Err(reason) => return reason.into(),
    };
    let el = || target.clone().ok_or(ActError::NeedsRef);
    // Typing, selecting and ticking need a field a person can see, as clicking does.
    let fills = matches!(
        action,
        Action::Type { .. }
            | Action::Clear { .. }
            | Action::SelectOption { .. }
            | Action::Check { .. }
            | Action::Uncheck { .. }
            | Action::PressKeys { .. }
            | Action::SelectText { .. }
    );
    if fills
        && let Some(field) = &target
        && let Err(reason) = super::usable::check(field)
    {
        return reason.into();
    }
    // A formatting command (Ctrl+B, a toolbar's Bold) on selected words is judged by what it
    // did to them, read back from the editor.
    let watch = formats(action, target.as_ref()).then(super::passage::FormatWatch::start).flatten();
    let result = match action {
        Action::Click { .. } => match el() {
            Ok(e) => super::readback::click(&e).await,
            Err(e) => Err(e),
        },
        Action::DoubleClick { .. } => el().and_then(|e| click(&e, 2)),
        Action::Hover { .. } => el().and_then(|e| hover(&e)),
        Action::Type { text, append, .. } => match el() {
            Ok(e) => {
                let covered = super::usable::under_placeholder(&e);
                match type_any(&e, text, *append).await {
                    Ok(outcome) if covered => {
                        super::usable::typed_text_seen(&e).await.map(|()| outcome)
                    }
                    done => done,
                }
            }
            Err(e) => Err(e),
        },
        Action::Clear { .. } => match el() {
            Ok(e) => type_any(&e, "", false).await,
            Err(e) => Err(e),
        },
        Action::PressKeys { keys, .. } => super::keys::press(target.as_ref(), keys),
        Action::SelectText { text, .. } => match el() {
            Ok(e) => super::passage::select_text(&e, text).await,
            Err(e) => Err(e),
        },
        Action::SelectOption { option, .. } => match el() {
            Ok(e) => select_option(&e, option).await,
            Err(e) => Err(e),
        },
        Action::Check { .. } => match el() {
            Ok(e) => set_checked(&e, true).await,
            Err(e) => Err(e),
        },
        Action::Uncheck { .. } => match el() {
            Ok(e) => set_checked(&e, false).await,
            Err(e) => Err(e),
        },
        Action::Drag { .. } => match (el(), &dropped_on) {
            (Ok(from), Some(to)) => super::drag::drag(&from, to).await,
            (Err(e), _) => Err(e),
            (_, None) => Err(ActError::NeedsDropTarget),
        },
        Action::Scroll { direction, .. } => super::scroll::scroll(target.as_ref(), *direction),
        Action::ScrollTo { text, .. } => super::scroll::scroll_to(target.as_ref(), text.as_deref()),
        Action::Extract { .. } => {
            Ok(ActionOutcome::with_text(super::extract::markdown(target.as_ref())))
        }
        Action::Collect(spec) => Ok(super::collect::collect_page(spec, target.clone())),
        other => Err(ActError::NotInPage(other.name())),
    };
    let outcome = result.unwrap_or_else(ActionOutcome::from);
    match watch {
        Some(watch) => watch.judge(outcome).await,
        None => outcome,
    }
}

/// Whether the action is a formatting command: a formatting shortcut, or a click on a
/// toolbar control outside the editor whose name, title or class says it formats (Bold, a
/// link, a list).
fn formats(action: &Action, target: Option<&Element>) -> bool {
    use crate::action::richtext::{format_command, is_format_control};
    match action {
        Action::PressKeys { keys, .. } => crate::observation::rules::parse_keys(keys)
            .is_ok_and(|presses| presses.iter().any(|p| format_command(p).is_some())),
        Action::Click { .. } => target.is_some_and(|el| {
            let inside_editor =
                el.dyn_ref::<HtmlElement>().is_some_and(|h| h.is_content_editable());
            let words = [
                super::roles::accessible_name(el, &el.local_name()),
                el.get_attribute("title").unwrap_or_default(),
                el.get_attribute("class").unwrap_or_default(),
            ];
            !inside_editor && words.iter().any(|w| is_format_control(w))
        }),
        _ => false,
    }
}

/// The element must still have the role and name the model saw.
fn check_expectation(el: Element, r: Ref, expect: Option<&str>) -> Result<Element, ActError> {
    let Some(expect) = expect else { return Ok(el) };
    let tag = el.local_name();
    let live = live_fingerprint(&el).unwrap_or_default();
    let role = live.split('|').next().unwrap_or_default();
    let name = super::roles::name_as(&el, &tag, role);
    if format!("{role}|{name}") == expect {
        return Ok(el);
    }
    Err(ActError::NotWhatModelSaw { r, role: role.to_owned(), name })
}

/// The live element of a ref, if it is still the element the model saw.
pub(super) fn resolve(r: Ref) -> Result<Element, ContentError> {
    let entry = REFS.with(|refs| {
        refs.borrow()
            .get(r.index.wrapping_sub(1) as usize)
            .map(|e| (e.element.clone(), e.fingerprint.clone()))
    });
    let Some((element, fingerprint)) = entry else {
        return Err(ContentError::no_such_element(r));
    };
    if !element.is_connected() {
        return Err(ContentError::stale(format!(
            "element [{r}] is no longer on the page; observe again"
        )));
    }
    if live_fingerprint(&element).as_deref() != Some(fingerprint.as_str()) {
        return Err(ContentError::stale(format!(
            "element [{r}] changed since the page was read (its fingerprint no longer matches); \
             observe again"
        )));
    }
    Ok(element)
}

fn html(el: &Element) -> Result<&HtmlElement, ActError> {
    el.dyn_ref::<HtmlElement>().ok_or(ActError::NotHtml)
}

/// Describes an element for an error message: `<div id=x> “text”`.
pub(super) fn label(el: &Element) -> String {
    let mut out = format!("<{}", el.local_name());
    if let Some(id) = el.get_attribute("id").filter(|i| !i.is_empty()) {
        out.push_str(&format!(" id={id}"));
    } else if let Some(class) = el.get_attribute("class").filter(|c| !c.is_empty()) {
        out.push_str(&format!(" class=\"{}\"", shorten(&clean(&class), 40)));
    }
    out.push('>');
    let text = shorten(&clean(&el.text_content().unwrap_or_default()), 60);
    if !text.is_empty() {
        out.push_str(&format!(" “{text}”"));
    }
    out
}

/// Scrolls the element into view and returns its centre and the element a person's pointer
/// would land on there (the element itself, a child that fills it, or a label standing for a
/// control), or why it cannot be reached (something else covers it).
pub(super) fn reachable_point(el: &Element) -> Result<(f64, f64, Element), ActError> {
    let options = web_sys::ScrollIntoViewOptions::new();
    options.set_block(web_sys::ScrollLogicalPosition::Center);
    options.set_inline(web_sys::ScrollLogicalPosition::Center);
    el.scroll_into_view_with_scroll_into_view_options(&options);
    let (x, y) = point_of(el);
    let rect = el.get_bounding_client_rect();
    if rect.width() < 1.0 || rect.height() < 1.0 {
        return Err(ActError::NoSize);
    }
    let Some(hit) = hit_at(el, x, y) else { return Ok((x, y, el.clone())) };
    if el.contains(Some(&hit))
        || labels_for(&hit, el)
        || inside_own_shadow(&hit, el)
        || super::usable::combobox_stand_in(el).is_some_and(|b| b.contains(Some(&hit)))
    {
        // The element, its label, its own shadow content (a slot drawing its text), or the
        // box that draws a transparent combobox: the pointer lands on the element.
        return Ok((x, y, hit));
    }
    if hit.contains(Some(el)) || slotted_into(el, &hit) || hosts(&hit, el) {
        // The element lets the pointer through (`pointer-events: none`), or the hit test
        // stopped at the `<slot>` that draws it (a web component's slotted option): keep it
        // the target — or what it draws at that point in its own shadow tree, where its
        // handlers listen (`<md-select-option>` listens on the `<li>` it renders).
        return Ok((x, y, drawn_at(el, x, y)));
    }
    Err(ActError::Covered(label(&hit)))
}

/// Whether a pointer at `el`'s centre lands on it: on it, inside it or on what its own shadow
/// tree draws there (no scrolling; an element off screen does not).
pub(super) fn pointer_lands_on(el: &Element) -> bool {
    let (x, y) = point_of(el);
    hit_at(el, x, y).is_some_and(|hit| el.contains(Some(&hit)) || inside_own_shadow(&hit, el))
}

/// The deepest element `el`'s own shadow tree draws at (x, y), else `el`.
fn drawn_at(el: &Element, x: f64, y: f64) -> Element {
    let inner = deepest_at(el.clone(), x, y);
    if inside_own_shadow(&inner, el) { inner } else { el.clone() }
}

/// Whether `hit` lies in `el`'s own shadow tree (or deeper ones inside it).
fn inside_own_shadow(hit: &Element, el: &Element) -> bool {
    let mut node = hit.clone();
    for _ in 0..32 {
        let Some(shadow) = node.get_root_node().dyn_into::<web_sys::ShadowRoot>().ok() else {
            return false;
        };
        node = shadow.host();
        if node == *el {
            return true;
        }
    }
    false
}

/// Whether `hit` is the shadow host of `el`'s tree: a point over text the host slots into its
/// shadow tree (a web component's label) hits the host.
fn hosts(hit: &Element, el: &Element) -> bool {
    el.get_root_node().dyn_ref::<web_sys::ShadowRoot>().is_some_and(|s| s.host() == *hit)
}

/// Whether `el` (or an ancestor of it) is assigned to the slot `hit`: the slot draws it.
fn slotted_into(el: &Element, hit: &Element) -> bool {
    if hit.local_name() != "slot" {
        return false;
    }
    let mut node = Some(el.clone());
    for _ in 0..32 {
        let Some(n) = node else { return false };
        let slot = js_sys::Reflect::get(&n, &"assignedSlot".into()).ok();
        if slot.is_some_and(|s| s == JsValue::from(hit.clone())) {
            return true;
        }
        node = n.parent_element();
    }
    false
}

/// The innermost element at viewport point (x, y) as `el`'s tree sees it, inside open shadow
/// roots too (a real pointer lands on the deepest element).
fn hit_at(el: &Element, x: f64, y: f64) -> Option<Element> {
    let root = el.get_root_node();
    let hit = if let Some(shadow) = root.dyn_ref::<web_sys::ShadowRoot>() {
        shadow.element_from_point(x as f32, y as f32)
    } else {
        el.owner_document().and_then(|d| d.element_from_point(x as f32, y as f32))
    }?;
    Some(deepest_at(hit, x, y))
}

/// The innermost element at (x, y) inside `start`'s open shadow roots (and theirs), else `start`.
fn deepest_at(start: Element, x: f64, y: f64) -> Element {
    let mut hit = start;
    for _ in 0..32 {
        let inner = hit.shadow_root().and_then(|s| s.element_from_point(x as f32, y as f32));
        match inner {
            Some(inner) if inner != hit => hit = inner,
            _ => break,
        }
    }
    hit
}

/// Whether `hit` is (inside) a label of the form control `el`.
fn labels_for(hit: &Element, el: &Element) -> bool {
    let label = hit.closest("label").ok().flatten();
    let control = label.and_then(|l| js_sys::Reflect::get(&l, &"control".into()).ok());
    control.is_some_and(|c| c == JsValue::from(el.clone()))
}

/// Clicks like a person: the pointer and mouse events and the click go to the element under
/// the pointer at the element's centre (a tab's label, a toolbar's icon), so handlers on a
/// child that fills the element run, and bubble up to the element as a real click would.
pub(super) fn click(el: &Element, count: u32) -> Result<ActionOutcome, ActError> {
    let html = html(el)?;
    let hidden_input = el.dyn_ref::<HtmlInputElement>().is_some_and(|i| {
        matches!(i.type_().as_str(), "checkbox" | "radio" | "file")
            && el.get_bounding_client_rect().width() < 2.0
    });
    let (x, y, target) = if let Some(label) = super::usable::clicked_label(el) {
        reachable_point(&label)?
    } else if let Some(widget) = super::usable::wrapped_combobox(el) {
        reachable_point(&widget)?
    } else if hidden_input {
        let (x, y) = point_of(el);
        (x, y, el.clone())
    } else {
        reachable_point(el)?
    };
    let before = field_value(el);
    pointer_over(&target, el, x, y)?;
    for i in 1..=count {
        mouse(&target, "pointerdown", x, y, i)?;
        // A page that cancels the press keeps the focus where it is (an editor's toolbar
        // keeps the editor's selection so); otherwise the press focuses, as a real one does.
        if mouse_with(&target, "mousedown", x, y, i, 1)? {
            best_effort(html.focus(), "focus on click");
        }
        mouse(&target, "pointerup", x, y, i)?;
        mouse(&target, "mouseup", x, y, i)?;
        // A dispatched click runs the default action too (follows a link, ticks a box).
        mouse(&target, "click", x, y, i)?;
    }
    if count == 2 {
        mouse(&target, "dblclick", x, y, 2)?;
    }
    Ok(ActionOutcome { value_changed: before != field_value(el), ..ActionOutcome::done() })
}

/// Clicks a widget so that its page gives it the keyboard focus (typing through the keyboard).
pub(super) fn click_to_focus(el: &Element) -> Result<(), ActError> {
    click(el, 1).map(|_| ())
}

fn hover(el: &Element) -> Result<ActionOutcome, ActError> {
    let (x, y, target) = reachable_point(el)?;
    pointer_over(&target, el, x, y)?;
    Ok(ActionOutcome::done())
}

/// The pointer arriving over `target` (inside `el`): over and move events at the target, and
/// the non-bubbling enter events at each element entered, from `el` down to the target.
fn pointer_over(target: &Element, el: &Element, x: f64, y: f64) -> Result<(), ActError> {
    mouse(target, "pointerover", x, y, 0)?;
    let mut entered = vec![target.clone()];
    let mut node = target.clone();
    while &node != el && entered.len() < 64 {
        match node.parent_element() {
            Some(parent) if parent.contains(Some(el)) || el.contains(Some(&parent)) => {
                entered.push(parent.clone());
                node = parent;
            }
            _ => break,
        }
    }
    for kind in ["pointerenter", "mouseenter"] {
        for element in entered.iter().rev() {
            mouse(element, kind, x, y, 0)?;
        }
        if kind == "pointerenter" {
            mouse(target, "mouseover", x, y, 0)?;
        }
    }
    mouse(target, "pointermove", x, y, 0)?;
    mouse(target, "mousemove", x, y, 0)
}

/// The checked state or value of a field, to tell whether an action changed it.
fn field_value(el: &Element) -> Option<String> {
    if let Some(control) = super::roles::toggle_of_label(el) {
        return Some(control.checked().to_string());
    }
    if let Some(input) = el.dyn_ref::<HtmlInputElement>() {
        return Some(format!("{}{}", input.checked(), input.value()));
    }
    super::facts::aria_now(el, "aria-checked")
}

/// Types into whatever the element is: a custom slider is moved to the value, an editor
/// (contenteditable) takes the text as an edit, a field its value, and a widget that listens
/// to keys (a terminal) the keys.
async fn type_any(el: &Element, text: &str, append: bool) -> Result<ActionOutcome, ActError> {
    if super::slider::is_custom(el) {
        return super::slider::set(el, text).await;
    }
    match el.dyn_ref::<HtmlElement>() {
        Some(editor) if editor.is_content_editable() => {
            super::editor::type_into(editor, text, append).await
        }
        _ => type_text(el, text, append).await,
    }
}

/// Sets the value through the prototype's setter (so React/Vue value trackers see a change),
/// then fires `input` and `change` like a user would.
async fn type_text(el: &Element, text: &str, append: bool) -> Result<ActionOutcome, ActError> {
    let html = html(el)?;
    if el.dyn_ref::<HtmlInputElement>().is_some_and(HtmlInputElement::disabled)
        || el.dyn_ref::<HtmlTextAreaElement>().is_some_and(HtmlTextAreaElement::disabled)
    {
        return Err(FieldError::Disabled.into());
    }
    if el.dyn_ref::<HtmlInputElement>().is_some_and(HtmlInputElement::read_only)
        || el.dyn_ref::<HtmlTextAreaElement>().is_some_and(HtmlTextAreaElement::read_only)
    {
        return Err(FieldError::ReadOnly.into());
    }
    let (proto, old) = if let Some(input) = el.dyn_ref::<HtmlInputElement>() {
        ("HTMLInputElement", input.value())
    } else if let Some(area) = el.dyn_ref::<HtmlTextAreaElement>() {
        ("HTMLTextAreaElement", area.value())
    } else if input_less(el) {
        return Err(FieldError::TakesNoText.into());
    } else {
        // A widget that takes keys itself (a terminal, a canvas editor): through the keyboard.
        return super::typing::type_keys(el, text);
    };
    best_effort(html.focus(), "focus before typing");
    let kind = el
        .dyn_ref::<HtmlInputElement>()
        .and_then(|i| crate::formats::FieldKind::of(&i.type_().to_ascii_lowercase()));
    let new = match kind {
        // A date, time, number or colour field takes one format and silently drops the rest.
        Some(kind) => kind.normalise(text)?,
        None if append => format!("{old}{text}"),
        None => text.to_owned(),
    };
    // A person's typing stops at the field's `maxlength`; the value setter would not.
    let max = el
        .dyn_ref::<HtmlInputElement>()
        .map(HtmlInputElement::max_length)
        .or_else(|| el.dyn_ref::<HtmlTextAreaElement>().map(HtmlTextAreaElement::max_length))
        .and_then(|m| u32::try_from(m).ok());
    let cut = kind.is_none().then(|| over_max_length(&new, max)).flatten().map(str::to_owned);
    let written = cut.clone().unwrap_or_else(|| new.clone());
    set_value(el, proto, &written)?;
    // What the browser kept (a range snaps to its step); the page's scripts come after.
    let kept = field_text(el).unwrap_or_default();
    fire_input(el, if text.is_empty() { "deleteContentBackward" } else { "insertText" }, text)?;
    // A person's typing ends with a key coming up: a widget that reads its field on `keyup`
    // (jQuery UI's datepicker parses the typed date there, then Enter picks it) sees the text.
    if let Some(last) = text_presses(text).pop().filter(|p| p.key.chars().count() == 1) {
        super::events::key(el, "keyup", &last)?;
    }
    fire(el, "change")?;
    // What the field holds once the page reacted is the outcome, not what was sent to it: a
    // text field waits for the text or a reformatting of it, a typed field for what the
    // browser kept.
    let met = |v: &String| match kind {
        None => judge_text(&written, v) != TextReadback::NotTaken,
        Some(_) => *v == kept,
    };
    let now = super::readback::read_back(|| field_text(el).unwrap_or_default(), met).await;
    let changed = ActionOutcome { value_changed: old != now, ..ActionOutcome::done() };
    let said = |note: String| Ok(ActionOutcome { text: Some(note), ..changed.clone() });
    let quoted = |v: &str| super::readback::quoted(el, v);
    if let (Some(max), Some(_)) = (max, &cut) {
        return Err(FieldError::TooLong { max, holds: quoted(&now) }.into());
    }
    let holds = now.clone();
    match kind {
        None => super::readback::keep(Undone::Text, el, move |el| {
            judge_text(&holds, &field_text(el).unwrap_or_default()) != TextReadback::NotTaken
        }),
        Some(_) => super::readback::keep(Undone::Text, el, move |el| {
            field_text(el).as_ref() == Some(&holds)
        }),
    }
    match kind {
        Some(crate::formats::FieldKind::Range) if now == kept && kept != new => {
            said(format!("the slider is at {now}: the nearest value it takes to {new}"))
        }
        Some(crate::formats::FieldKind::Range) if now == kept => {
            said(format!("the slider is at {now}"))
        }
        Some(_) if now != new => Err(FieldError::NotTaken { wanted: new, holds: now }.into()),
        Some(_) => said(format!("the field holds {now}")),
        None => match judge_text(&written, &now) {
            TextReadback::AsTyped if now.is_empty() => said("the field is empty".to_owned()),
            TextReadback::AsTyped => said("the field holds the text as typed".to_owned()),
            TextReadback::Reformatted => {
                said(format!("the page reformatted it: the field holds “{}”", quoted(&now)))
            }
            TextReadback::NotTaken => {
                Err(FieldError::NotTaken { wanted: quoted(&written), holds: quoted(&now) }.into())
            }
        },
    }
}

/// Elements that never take typing: buttons, links, choices (typing "into" them is a mistake
/// of the model, said as such, rather than keys sent to them).
fn input_less(el: &Element) -> bool {
    let by_tag = matches!(
        el.local_name().as_str(),
        "button"
            | "a"
            | "select"
            | "img"
            | "option"
            | "summary"
            | "label"
            | "iframe"
            | "video"
            | "audio"
    );
    let role = super::facts::aria(el, "role").unwrap_or_default();
    let by_role = matches!(
        role.split_whitespace().next().unwrap_or_default(),
        "button" | "link" | "checkbox" | "radio" | "switch" | "tab" | "menuitem" | "option"
    );
    by_tag || by_role
}

/// The text value of an input or textarea.
fn field_text(el: &Element) -> Option<String> {
    if let Some(input) = el.dyn_ref::<HtmlInputElement>() {
        return Some(input.value());
    }
    el.dyn_ref::<HtmlTextAreaElement>().map(HtmlTextAreaElement::value)
}

pub(super) fn set_value(el: &Element, proto: &str, value: &str) -> Result<(), ActError> {
    let global = js_sys::global();
    let class =
        js_sys::Reflect::get(&global, &proto.into()).map_err(|_| FieldError::NoPrototype)?;
    let prototype =
        js_sys::Reflect::get(&class, &"prototype".into()).map_err(|_| FieldError::NoPrototype)?;
    let descriptor =
        js_sys::Object::get_own_property_descriptor(&prototype.into(), &"value".into());
    let setter =
        js_sys::Reflect::get(&descriptor, &"set".into()).map_err(|_| FieldError::NoValueSetter)?;
    let setter: js_sys::Function = setter.dyn_into().map_err(|_| FieldError::NoValueSetter)?;
    setter
        .call1(el, &JsValue::from_str(value))
        .map_err(|e| FieldError::SetValueFailed(crate::js::js_message(&e)))?;
    Ok(())
}

pub(super) fn matches_option(label: &str, value: &str, wanted: &str) -> bool {
    let wanted = clean(wanted).to_lowercase();
    clean(label).to_lowercase() == wanted || value.to_lowercase() == wanted
}

async fn select_option(el: &Element, option: &str) -> Result<ActionOutcome, ActError> {
    let Some(select) = el.dyn_ref::<HtmlSelectElement>() else {
        return super::select::custom(el, option).await;
    };
    let options = select.options();
    let mut labels = Vec::new();
    for i in 0..options.length() {
        let Some(o) = options.item(i).and_then(|o| o.dyn_into::<web_sys::HtmlOptionElement>().ok())
        else {
            continue;
        };
        if matches_option(&o.label(), &o.value(), option) {
            if o.disabled() {
                return Err(ChoiceError::Disabled(option.to_owned()).into());
            }
            let changed = !o.selected();
            if select.multiple() {
                o.set_selected(true);
            } else {
                select.set_selected_index(i as i32);
            }
            fire(el, "input")?;
            fire(el, "change")?;
            // The page's script may choose another option in its change handler.
            let label = clean(&o.label());
            let kept = super::readback::read_back(|| o.selected(), |s| *s).await;
            let chosen = o.clone();
            super::readback::keep(Undone::Choice, el, move |_| chosen.selected());
            if !kept {
                let shown = select.selected_options();
                let selected = (0..shown.length())
                    .filter_map(|i| shown.item(i)?.text_content())
                    .map(|t| clean(&t))
                    .collect::<Vec<_>>()
                    .join(" | ");
                return Err(ChoiceError::Undone { wanted: label, selected }.into());
            }
            return Ok(ActionOutcome {
                value_changed: changed,
                ..ActionOutcome::with_text(format!("“{label}” is selected"))
            });
        }
        labels.push(clean(&o.label()));
    }
    Err(ChoiceError::Missing { wanted: option.to_owned(), offered: labels }.into())
}

/// Whether a box is ticked ([`super::readback::checked`]), or a toggle button pressed.
fn is_checked(el: &Element) -> bool {
    super::readback::checked(el)
        .unwrap_or_else(|| super::facts::aria_now(el, "aria-pressed").as_deref() == Some("true"))
}

async fn set_checked(el: &Element, want: bool) -> Result<ActionOutcome, ActError> {
    if is_checked(el) == want {
        return Ok(ActionOutcome::with_text(if want {
            "already checked"
        } else {
            "already unchecked"
        }));
    }
    if !want && el.dyn_ref::<HtmlInputElement>().is_some_and(|i| i.type_() == "radio") {
        return Err(FieldError::RadioUncheck.into());
    }
    click(el, 1)?;
    // Read back once the page reacted: a script may set the box back after the click.
    let right_after = is_checked(el);
    let later = super::readback::read_back(|| is_checked(el), |c| *c == want).await;
    judge_toggle(want, right_after, later)?;
    super::readback::keep(Undone::Checked, el, move |el| is_checked(el) == want);
    let now = if want { "it is checked now" } else { "it is unchecked now" };
    Ok(ActionOutcome { value_changed: true, ..ActionOutcome::with_text(now) })
}

/// Puts a file into a file input through `DataTransfer`, then fires input and change; the
/// outcome is read back: the input holds the file, or the page took it (it shows its name)
/// and emptied the input, as drop zones do.
pub async fn set_file(r: Ref, name: &str, mime: &str, base64: &str) -> ActionOutcome {
    let put = (|| -> Result<Element, ActError> {
        let el = resolve(r)?;
        let input = el
            .dyn_ref::<HtmlInputElement>()
            .filter(|i| i.type_() == "file")
            .ok_or(FieldError::NotFileInput)?;
        let window = web_sys::window().ok_or(ActError::NoWindow)?;
        let binary = window.atob(base64).map_err(|_| FieldError::BadBase64)?;
        let bytes: Vec<u8> = binary.chars().map(|c| c as u32 as u8).collect();
        let array = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes.as_slice()));
        let bag = web_sys::FilePropertyBag::new();
        bag.set_type(mime);
        let file = web_sys::File::new_with_u8_array_sequence_and_options(&array, name, &bag)
            .map_err(js)?;
        let transfer = web_sys::DataTransfer::new().map_err(js)?;
        transfer.items().add_with_file(&file).map_err(js)?;
        input.set_files(transfer.files().as_ref());
        fire(&el, "input")?;
        fire(&el, "change")?;
        Ok(el)
    })();
    let el = match put {
        Ok(el) => el,
        Err(e) => return e.into(),
    };
    let holds = || {
        let files = el.dyn_ref::<HtmlInputElement>().and_then(HtmlInputElement::files);
        files.and_then(|f| f.item(0)).filter(|f| f.name() == name).map(|f| f.size())
    };
    let shown = || {
        let body = el.owner_document().and_then(|d| d.body()).map(|b| b.inner_text());
        body.is_some_and(|t| t.contains(name))
    };
    let read = super::readback::read_back(|| (holds(), shown()), |(h, s)| h.is_some() || *s).await;
    let note = match read {
        (Some(size), _) => format!("the input holds “{name}” ({size} bytes)"),
        (None, true) => format!("the page took “{name}” (it shows its name) and emptied the input"),
        (None, false) => return ActError::from(FieldError::FileNotKept(name.to_owned())).into(),
    };
    ActionOutcome { value_changed: true, ..ActionOutcome::with_text(note) }
}
