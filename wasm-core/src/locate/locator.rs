//! Stable locators: how a workflow finds the element of a step again on a later visit, without
//! refs (they live one observation) and without the model. An element is named by what a person
//! would use — its role and accessible name, the heading it sits under, the line before it, its
//! position among elements alike — within the frames it was in.
//!
//! Capture and resolution walk the observation the same way ([`walk`]), so a page that did not
//! change resolves every locator to the element it was recorded from.

use super::pattern::UrlPattern;
use super::template::Template;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use waymark_page::observation::{Element, Item, Observation, Ref, clean, shorten};

/// Longest context line kept (a heading, the line before the element).
const MAX_CONTEXT_CHARS: usize = 80;

/// Where to find a step's element again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct Locator {
    /// ARIA role (`button`, `textbox`, `combobox`, …).
    pub role: String,
    /// Accessible name (a parameter's value in it is a `{{name}}` reference).
    pub name: Template,
    /// The nearest heading before the element, if any: part of what the element is ("Delete"
    /// under "Drafts" is not "Delete" under "Account").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heading: Option<Template>,
    /// The line just before the element (a label, a product's name): tells alike elements of a
    /// list apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub near: Option<Template>,
    /// 0-based position among the elements with the same role, name and heading.
    #[serde(default)]
    pub nth: u32,
    /// How many such elements there were.
    #[serde(default = "one")]
    pub of: u32,
    /// The frames it was in, outermost first, as URL patterns (`about:srcdoc` as it is); empty
    /// for the page itself.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<String>,
}

fn one() -> u32 {
    1
}

/// What a locator found on a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// Exactly one element: this one.
    Found(Ref),
    /// None (renamed, removed, moved elsewhere); why, in words.
    Missing(String),
    /// Several, and nothing recorded tells which; why, in words.
    Ambiguous(String),
}

/// One element as the walk saw it, with its context.
struct Seen<'a> {
    element: &'a Element,
    frames: Vec<&'a str>,
    heading: Option<String>,
    near: Option<String>,
}

/// Every element of the observation in reading order, each with its frames, the heading above
/// it and the line before it.
fn walk(observation: &Observation) -> Vec<Seen<'_>> {
    fn go<'a>(
        items: &'a [Item],
        frames: &mut Vec<&'a str>,
        heading: &mut Option<String>,
        near: &mut Option<String>,
        out: &mut Vec<Seen<'a>>,
    ) {
        for item in items {
            match item {
                Item::Text { text, heading: Some(_), .. } => {
                    *heading = context(text);
                    *near = None;
                }
                Item::Text { text, .. } => *near = context(text).or(near.take()),
                Item::Element(element) => {
                    out.push(Seen {
                        element,
                        frames: frames.clone(),
                        heading: heading.clone(),
                        near: near.clone(),
                    });
                    *near = context(&element.name).or(near.take());
                }
                Item::Frame(frame) => {
                    frames.push(frame.url.as_str());
                    go(&frame.items, frames, heading, near, out);
                    frames.pop();
                }
            }
        }
    }
    let mut out = Vec::new();
    go(&observation.items, &mut Vec::new(), &mut None, &mut None, &mut out);
    out
}

/// A line as context: cleaned, shortened; `None` when empty.
fn context(text: &str) -> Option<String> {
    let text = clean(text);
    (!text.is_empty()).then(|| shorten(&text, MAX_CONTEXT_CHARS))
}

/// How names compare: cleaned, case-insensitive.
fn same_name(a: &str, b: &str) -> bool {
    clean(a).to_lowercase() == clean(b).to_lowercase()
}

/// How headings compare: like names, with every run of digits alike ("3 items in your cart"
/// is the same heading as "4 items in your cart").
fn same_heading(a: Option<&str>, b: Option<&str>) -> bool {
    fn norm(s: &str) -> String {
        let mut out = String::new();
        for c in clean(s).to_lowercase().chars() {
            if c.is_ascii_digit() {
                if !out.ends_with('#') {
                    out.push('#');
                }
            } else {
                out.push(c);
            }
        }
        out
    }
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => norm(a) == norm(b),
        _ => false,
    }
}

/// The pattern a frame's URL is kept as: a page pattern for web frames, the URL itself for the
/// rest (`about:srcdoc`).
fn frame_pattern(url: &str) -> String {
    UrlPattern::of_page(url).map_or_else(|| url.to_owned(), |p| p.to_string())
}

fn frame_matches(pattern: &str, url: &str) -> bool {
    match UrlPattern::try_from(pattern.to_owned()) {
        Ok(p) => p.matches(url),
        Err(_) => pattern == url,
    }
}

impl Locator {
    /// The locator of the element `target` of `observation`, or `None` when it has no such
    /// element.
    pub fn capture(observation: &Observation, target: Ref) -> Option<Self> {
        let seen = walk(observation);
        let me = seen.iter().find(|s| s.element.ref_id == target)?;
        let alike: Vec<&Seen<'_>> = seen
            .iter()
            .filter(|s| {
                s.frames == me.frames
                    && s.element.role == me.element.role
                    && same_name(&s.element.name, &me.element.name)
                    && same_heading(s.heading.as_deref(), me.heading.as_deref())
            })
            .collect();
        let nth = alike.iter().position(|s| s.element.ref_id == target).unwrap_or(0);
        Some(Self {
            role: me.element.role.clone(),
            name: Template::literal(clean(&me.element.name)),
            heading: me.heading.clone().map(Template::literal),
            near: me.near.clone().map(Template::literal),
            nth: nth as u32,
            of: alike.len() as u32,
            frames: me.frames.iter().map(|f| frame_pattern(f)).collect(),
        })
    }

    /// Finds the element on `observation`, with the run's parameter `values` filled in.
    pub fn resolve(
        &self,
        observation: &Observation,
        values: &BTreeMap<String, String>,
    ) -> Resolution {
        let name = self.name.fill(values);
        let heading = self.heading.as_ref().map(|h| h.fill(values));
        let near = self.near.as_ref().map(|n| n.fill(values));
        let seen = walk(observation);
        let same: Vec<&Seen<'_>> = seen
            .iter()
            .filter(|s| {
                s.frames.len() == self.frames.len()
                    && self.frames.iter().zip(&s.frames).all(|(p, url)| frame_matches(p, url))
                    && s.element.role == self.role
                    && same_name(&s.element.name, &name)
            })
            .collect();
        let what = format!("{} “{name}”", self.role);
        if same.is_empty() {
            return Resolution::Missing(format!("there is no {what} on the page"));
        }
        let group: Vec<&Seen<'_>> = same
            .iter()
            .copied()
            .filter(|s| same_heading(s.heading.as_deref(), heading.as_deref()))
            .collect();
        if group.is_empty() {
            let was =
                heading.map_or("at the top of the page".to_owned(), |h| format!("under “{h}”"));
            return Resolution::Missing(format!("the {what} is no longer {was}"));
        }
        if group.len() == 1 && self.of == 1 {
            return Resolution::Found(group[0].element.ref_id);
        }
        if let Some(near) = &near {
            let by_near: Vec<&&Seen<'_>> = group
                .iter()
                .filter(|s| s.near.as_deref().is_some_and(|n| same_name(n, near)))
                .collect();
            if by_near.len() == 1 {
                return Resolution::Found(by_near[0].element.ref_id);
            }
        }
        if group.len() == self.of as usize
            && let Some(s) = group.get(self.nth as usize)
        {
            return Resolution::Found(s.element.ref_id);
        }
        Resolution::Ambiguous(format!(
            "{} match the {what} (there were {} when it was recorded)",
            group.len(),
            self.of
        ))
    }

    /// The element in words, for the user and the healing prompt: `button “Save” under
    /// “Your order”`.
    pub fn describe(&self) -> String {
        let mut out = format!("{} “{}”", self.role, self.name.as_str());
        if let Some(h) = &self.heading {
            out.push_str(&format!(" under “{}”", h.as_str()));
        }
        if self.of > 1 {
            out.push_str(&format!(" ({} of {} alike)", self.nth + 1, self.of));
        }
        if !self.frames.is_empty() {
            out.push_str(&format!(" in a frame from {}", self.frames.join(" › ")));
        }
        out
    }

    /// Every text of the locator that may name parameters.
    pub fn templates(&self) -> impl Iterator<Item = &Template> {
        std::iter::once(&self.name).chain(self.heading.as_ref()).chain(self.near.as_ref())
    }

    /// Every text of the locator, mutably (parameter renames, redaction).
    pub fn templates_mut(&mut self) -> impl Iterator<Item = &mut Template> {
        std::iter::once(&mut self.name).chain(self.heading.as_mut()).chain(self.near.as_mut())
    }
}

#[cfg(test)]
mod tests;
