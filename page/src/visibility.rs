//! What a person can see, as one definition for the observation and the actions: hostile pages
//! hide instructions to the agent (`opacity: 0`, a zero font size, a transparent colour, white
//! on white) and hide form fields that their script reads (1×1 px, covered by another element,
//! barely opaque). The content script measures; these functions decide. Text a person cannot
//! read never reaches the model, and a field a person cannot see is neither listed in the
//! observation nor typed into, selected or ticked.

use std::fmt;

/// Below this effective opacity (the element's own times every ancestor's) a person cannot
/// make out content: a faded form (a "disabled" look) sits at 0.38 or more, a field at 0.06 is
/// a trap. The walk drops such content and fields; the actions refuse such fields.
pub const MIN_OPACITY: f64 = 0.2;

/// The smallest width and height, in CSS pixels, of a form field a person can see and use (a
/// native checkbox is 13 px); a visually-hidden native checkbox, radio or file input counts as
/// visible through a label of at least this size.
pub const MIN_FIELD_PX: f64 = 8.0;

/// Whether content at this effective opacity (0–1) is too faint to see.
pub fn transparent(effective_opacity: f64) -> bool {
    effective_opacity < MIN_OPACITY
}

/// A computed `opacity` value (`""` = the initial 1).
pub fn opacity_of(css: &str) -> f64 {
    css.trim().parse::<f64>().map_or(1.0, |o| o.clamp(0.0, 1.0))
}

/// What the style alone says about text at `effective_opacity`: `Some(true)` invisible,
/// `Some(false)` visible, `None` when the background decides (light text: compare with
/// [`is_light`] of the background).
pub fn invisible_by_style(effective_opacity: f64, font_size: &str, color: &str) -> Option<bool> {
    if transparent(effective_opacity) {
        return Some(true);
    }
    if font_size.trim().trim_end_matches("px").trim().parse::<f64>().is_ok_and(|px| px < 2.0) {
        return Some(true);
    }
    match rgba(color) {
        Some(c) if transparent(c[3] * effective_opacity) => Some(true),
        Some(c) if is_light(c) => None,
        _ => Some(false),
    }
}

/// What the content script measured about a form field (or the label that stands for a
/// visually-hidden native toggle), after scrolling it into view.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldView {
    /// Rendered width and height in CSS pixels.
    pub width: f64,
    /// See `width`.
    pub height: f64,
    /// Its opacity times every ancestor's.
    pub opacity: f64,
    /// Whether its centre lies inside the frame's viewport (`false` for a field scrolled or
    /// positioned out of reach, or inside a frame too small to show it).
    pub centre_in_view: bool,
    /// What the hit test found at its centre when that is another element (`None` when the
    /// field, its content or its label is on top; also `None` when not measured).
    pub covered_by: Option<String>,
    /// How the text typed into it would look (fields that take text; `None` for toggles).
    pub text: Option<TextLook>,
}

/// The computed styles that decide whether a person sees what is typed into a field.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TextLook {
    /// `color`.
    pub color: String,
    /// `-webkit-text-fill-color` (it paints the text when set, whatever `color` says).
    pub fill: String,
    /// `font-size`.
    pub font_size: String,
}

/// Why a person could not see a field.
#[derive(Debug, Clone, PartialEq)]
pub enum Hidden {
    /// Smaller than [`MIN_FIELD_PX`] in a dimension.
    TooSmall {
        /// Measured width.
        width: f64,
        /// Measured height.
        height: f64,
    },
    /// Effective opacity under [`MIN_OPACITY`].
    Transparent(f64),
    /// Its centre is outside the visible area.
    OutOfView,
    /// Another element is on top of its centre.
    Covered(String),
    /// What is typed into it would not show: transparent text or fill colour, or a font
    /// under 2 px (a field drawn visible whose contents the person cannot read).
    TextInvisible,
}

impl fmt::Display for Hidden {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooSmall { width, height } => {
                write!(f, "it is too small to see ({width:.0}×{height:.0} px)")
            }
            Self::Transparent(o) => write!(f, "it is nearly transparent (opacity {o:.2})"),
            Self::OutOfView => f.write_str("it lies outside the visible page"),
            Self::Covered(by) => write!(f, "another element covers it: {by}"),
            Self::TextInvisible => f.write_str("what is typed into it would be invisible"),
        }
    }
}

/// Whether a person could see the field `view` describes; the first reason it fails.
pub fn field_hidden(view: &FieldView) -> Option<Hidden> {
    if view.width < MIN_FIELD_PX || view.height < MIN_FIELD_PX {
        return Some(Hidden::TooSmall { width: view.width, height: view.height });
    }
    if transparent(view.opacity) {
        return Some(Hidden::Transparent(view.opacity));
    }
    if let Some(look) = &view.text
        && text_invisible(view.opacity, look)
    {
        return Some(Hidden::TextInvisible);
    }
    if !view.centre_in_view {
        return Some(Hidden::OutOfView);
    }
    view.covered_by.clone().map(Hidden::Covered)
}

/// Whether text in `look` at `effective_opacity` cannot be seen (light text is left to its
/// background: a dark field with white text is fine).
fn text_invisible(effective_opacity: f64, look: &TextLook) -> bool {
    let fill_transparent = rgba(&look.fill).is_some_and(|c| transparent(c[3] * effective_opacity));
    fill_transparent
        || invisible_by_style(effective_opacity, &look.font_size, &look.color) == Some(true)
}

/// Whether a computed `transform` squashes the element to nothing (`scale(0)` computes to
/// `matrix(0, 0, 0, 0, x, y)`).
pub fn transform_collapses(transform: &str) -> bool {
    let Some(inner) = transform.trim().strip_prefix("matrix(") else { return false };
    let parts: Vec<f64> =
        inner.trim_end_matches(')').split(',').filter_map(|p| p.trim().parse().ok()).collect();
    // The 2D scale factors: the lengths of the transformed unit vectors.
    matches!(parts.as_slice(), [a, b, c, d, ..] if a.hypot(*b) < 0.05 || c.hypot(*d) < 0.05)
}

/// Near white: light text on such a background is unreadable.
pub fn is_light(c: [f64; 4]) -> bool {
    c[0] >= 235.0 && c[1] >= 235.0 && c[2] >= 235.0
}

/// `rgb(r, g, b)` / `rgba(r, g, b, a)` / `rgb(r g b / a)` as computed styles write them.
pub fn rgba(css: &str) -> Option<[f64; 4]> {
    let css = css.trim();
    let inner = css.strip_prefix("rgba(").or_else(|| css.strip_prefix("rgb("))?;
    let inner = inner.strip_suffix(')')?;
    let parts: Vec<f64> = inner
        .split([',', ' ', '/'])
        .filter(|p| !p.is_empty())
        .map(str::parse::<f64>)
        .collect::<Result<_, _>>()
        .ok()?;
    match parts.as_slice() {
        [r, g, b] => Some([*r, *g, *b, 1.0]),
        [r, g, b, a] => Some([*r, *g, *b, *a]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transparent_tiny_and_faded_text_is_invisible() {
        assert_eq!(invisible_by_style(0.0, "16px", "rgb(0, 0, 0)"), Some(true));
        assert_eq!(invisible_by_style(0.06, "16px", "rgb(0, 0, 0)"), Some(true));
        assert_eq!(invisible_by_style(1.0, "0px", "rgb(0, 0, 0)"), Some(true));
        assert_eq!(invisible_by_style(1.0, "1.5px", "rgb(0, 0, 0)"), Some(true));
        assert_eq!(invisible_by_style(1.0, "16px", "rgba(0, 0, 0, 0)"), Some(true));
        assert_eq!(invisible_by_style(0.5, "16px", "rgba(0, 0, 0, 0.3)"), Some(true));
        assert_eq!(invisible_by_style(1.0, "16px", "rgb(20, 20, 20)"), Some(false));
        assert_eq!(invisible_by_style(0.9, "12px", "rgb(0 0 0 / 0.8)"), Some(false));
        assert_eq!(invisible_by_style(0.38, "12px", "rgb(0, 0, 0)"), Some(false), "disabled look");
    }

    #[test]
    fn opacity_multiplies_down_the_tree() {
        assert_eq!(opacity_of(""), 1.0);
        assert_eq!(opacity_of("0.5"), 0.5);
        assert!(transparent(opacity_of("0.5") * opacity_of("0.3")));
        assert!(!transparent(opacity_of("0.5") * opacity_of("0.5")));
        assert!(transparent(opacity_of("0.05")) && transparent(opacity_of("0.06")));
    }

    fn field(width: f64, height: f64, opacity: f64) -> FieldView {
        FieldView { width, height, opacity, centre_in_view: true, covered_by: None, text: None }
    }

    #[test]
    fn a_field_must_be_big_enough_opaque_in_view_and_on_top() {
        assert_eq!(field_hidden(&field(200.0, 24.0, 1.0)), None);
        assert_eq!(field_hidden(&field(13.0, 13.0, 0.5)), None, "a native checkbox, faded");
        assert!(matches!(field_hidden(&field(1.0, 1.0, 1.0)), Some(Hidden::TooSmall { .. })));
        assert!(matches!(field_hidden(&field(0.0, 40.0, 1.0)), Some(Hidden::TooSmall { .. })));
        assert!(matches!(field_hidden(&field(300.0, 7.0, 1.0)), Some(Hidden::TooSmall { .. })));
        assert_eq!(field_hidden(&field(200.0, 24.0, 0.06)), Some(Hidden::Transparent(0.06)));
        let parent_faded = field(200.0, 24.0, opacity_of("0.05") * opacity_of("1"));
        assert!(matches!(field_hidden(&parent_faded), Some(Hidden::Transparent(_))));
        let away = FieldView { centre_in_view: false, ..field(200.0, 24.0, 1.0) };
        assert_eq!(field_hidden(&away), Some(Hidden::OutOfView));
        let covered =
            FieldView { covered_by: Some("<div id=cover>".into()), ..field(200.0, 24.0, 1.0) };
        let why = field_hidden(&covered).expect("covered");
        assert_eq!(why.to_string(), "another element covers it: <div id=cover>");
    }

    #[test]
    fn a_zero_scale_collapses_the_element() {
        assert!(transform_collapses("matrix(0, 0, 0, 0, 0, 0)"));
        assert!(transform_collapses("matrix(1, 0, 0, 0.01, 0, 0)"));
        assert!(!transform_collapses("matrix(1, 0, 0, 1, 10, 0)"));
        assert!(!transform_collapses("none"));
    }

    #[test]
    fn light_text_depends_on_the_background() {
        assert_eq!(invisible_by_style(1.0, "16px", "rgb(255, 255, 255)"), None);
        assert!(is_light([250.0, 250.0, 250.0, 1.0]));
        assert!(!is_light([30.0, 30.0, 30.0, 1.0]));
        assert_eq!(rgba("rgba(1, 2, 3, 0.5)"), Some([1.0, 2.0, 3.0, 0.5]));
        assert_eq!(rgba("transparent"), None);
    }

    #[test]
    fn a_field_whose_typed_text_would_not_show_is_hidden() {
        let look = |color: &str, fill: &str, size: &str| FieldView {
            text: Some(TextLook { color: color.into(), fill: fill.into(), font_size: size.into() }),
            ..field(200.0, 24.0, 1.0)
        };
        let black = "rgb(0, 0, 0)";
        assert_eq!(field_hidden(&look(black, black, "16px")), None);
        assert_eq!(field_hidden(&look("rgb(255, 255, 255)", "rgb(255, 255, 255)", "16px")), None);
        for hidden in [
            look("rgba(0, 0, 0, 0)", "rgba(0, 0, 0, 0)", "16px"),
            look(black, "rgba(0, 0, 0, 0)", "16px"),
            look("rgba(0, 0, 0, 0.1)", "rgba(0, 0, 0, 0.1)", "16px"),
            look(black, black, "1px"),
        ] {
            assert_eq!(field_hidden(&hidden), Some(Hidden::TextInvisible), "{hidden:?}");
        }
    }
}
