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
    let px = font_size.trim().trim_end_matches("px").trim().parse::<f64>().ok();
    invisible_by_style_of(effective_opacity, px, rgba(color))
}

/// [`invisible_by_style`] of values already read: the font size in px and the colour
/// (`None` when unknown; the walk reads them as numbers, without a string per element).
pub fn invisible_by_style_of(
    effective_opacity: f64,
    font_px: Option<f64>,
    color: Option<[f64; 4]>,
) -> Option<bool> {
    if transparent(effective_opacity) {
        return Some(true);
    }
    if font_px.is_some_and(|px| px < 2.0) {
        return Some(true);
    }
    match color {
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

/// The smallest glyph box, in CSS pixels, a person can read: text scaled or zoomed below it,
/// letters squashed onto each other, or a clipping box narrower than it, show nothing legible.
pub const MIN_GLYPH_PX: f64 = 3.0;

/// Below this contrast ratio (WCAG's, 1–21) between text and what is behind it, with the
/// colours this close, a person sees no text: faint grey placeholders sit near 2.8, a hidden
/// near-black on black at 1.04.
pub const MIN_CONTRAST: f64 = 1.25;

/// Where the glyphs of one text node are drawn (its `Range`'s bounding box, which counts every
/// transform, zoom, indent and margin), in viewport coordinates, and the page around it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Glyphs {
    /// Left edge.
    pub left: f64,
    /// Top edge.
    pub top: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
    /// Characters other than white space in the node.
    pub chars: usize,
    /// Scroll offsets of the frame.
    pub scroll_x: f64,
    /// See `scroll_x`.
    pub scroll_y: f64,
    /// Scrollable width and height of the frame's document: what scrolling can ever show.
    pub page_width: f64,
    /// See `page_width`.
    pub page_height: f64,
}

/// Whether a person can never read the glyphs `g` describes: too small, squashed onto each
/// other, outside every part of the page that scrolling can show, or not drawn at all (no
/// box: an individual `scale: 0`, which the computed `transform` does not show; the fallback
/// text of a `<meter>` or `<progress>`; content no slot shows). `None`: no characters to judge.
pub fn glyphs_hidden(g: &Glyphs) -> Option<bool> {
    if g.chars == 0 {
        return None;
    }
    if g.width <= 0.0 && g.height <= 0.0 {
        return Some(true);
    }
    let tiny = g.height < MIN_GLYPH_PX;
    let squashed = g.chars >= 4 && g.width / (g.chars as f64) < 1.0;
    let right = g.left + g.width + g.scroll_x;
    let bottom = g.top + g.height + g.scroll_y;
    let away = right <= 0.0
        || bottom <= 0.0
        || (g.page_width > 0.0 && g.left + g.scroll_x >= g.page_width)
        || (g.page_height > 0.0 && g.top + g.scroll_y >= g.page_height);
    Some(tiny || squashed || away)
}

/// What the hit test found at the centre of a text's first line of glyphs (in view).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TextHit {
    /// The text's own element is on top there.
    pub on_top: bool,
    /// What is on top is an ancestor of the text's element (the text is painted beneath it,
    /// or lets the pointer through).
    pub under_ancestor: bool,
    /// The text's element lets the pointer through (`pointer-events: none`): a hit on an
    /// ancestor then says nothing.
    pub pass_through: bool,
    /// What is on top paints over that point at opacity 0.5 or more: an opaque background
    /// colour, a background image, or an image, video, canvas or frame of its own.
    pub opaque: bool,
}

/// Whether something opaque covers the text: another element, or an ancestor's background
/// painted over it (`z-index: -1` under its parent). A transparent layer on top (a stretched
/// link, a click catcher, a dimming backdrop) hides nothing; an overlay that lets the pointer
/// through (`pointer-events: none`) is not seen by the hit test at all.
pub fn text_covered(hit: &TextHit) -> bool {
    !hit.on_top && hit.opaque && !(hit.under_ancestor && hit.pass_through)
}

/// What a computed `filter` does to content: the opacity it multiplies in (`opacity()`) and
/// whether it blurs text past reading (`blur()` of 4 px or more).
pub fn filter_effect(filter: &str) -> (f64, bool) {
    let mut opacity = 1.0;
    let mut blurred = false;
    for (name, arg) in functions(filter) {
        match name {
            "opacity" => opacity *= number_or_percent(arg).map_or(1.0, |o| o.clamp(0.0, 1.0)),
            "blur" => blurred |= px(arg).is_some_and(|r| r >= 4.0),
            _ => {}
        }
    }
    (opacity, blurred)
}

/// Whether a computed `clip-path` leaves no readable part of a `width` × `height` box:
/// `inset()` that meets itself, `circle()` or `ellipse()` of a radius under [`MIN_GLYPH_PX`],
/// a `polygon()` of no area. Other clips (`path()`, `url()`) are not judged.
pub fn clip_hides(clip: &str, width: f64, height: f64) -> bool {
    let Some((name, arg)) = functions(clip).into_iter().next() else { return false };
    let shape = arg.split(" at ").next().unwrap_or(arg);
    let length = |v: &str, of: f64| -> Option<f64> {
        v.strip_suffix('%')
            .and_then(|p| p.trim().parse::<f64>().ok())
            .map(|p| p / 100.0 * of)
            .or_else(|| px(v))
    };
    match name {
        "inset" => {
            let values: Vec<&str> =
                shape.split(" round ").next().unwrap_or(shape).split_whitespace().collect();
            let at = |i: usize| values.get(i).copied();
            // CSS's 1–4 value shorthand: top, right, bottom, left.
            let (top, right, bottom, left) = match values.len() {
                1 => (at(0), at(0), at(0), at(0)),
                2 => (at(0), at(1), at(0), at(1)),
                3 => (at(0), at(1), at(2), at(1)),
                4 => (at(0), at(1), at(2), at(3)),
                _ => return false,
            };
            let v = |s: Option<&str>, of: f64| s.and_then(|s| length(s, of)).unwrap_or(0.0);
            height - v(top, height) - v(bottom, height) < MIN_GLYPH_PX
                || width - v(left, width) - v(right, width) < MIN_GLYPH_PX
        }
        "circle" | "ellipse" => {
            let radii: Vec<f64> =
                shape.split_whitespace().filter_map(|r| length(r, width.min(height))).collect();
            radii.first().is_some_and(|_| radii.iter().any(|r| *r < MIN_GLYPH_PX))
        }
        "polygon" => {
            let points: Vec<(f64, f64)> = shape
                .split(',')
                .filter_map(|p| {
                    let mut xy =
                        p.split_whitespace().filter(|w| !matches!(*w, "nonzero" | "evenodd"));
                    Some((length(xy.next()?, width)?, length(xy.next()?, height)?))
                })
                .collect();
            let twice_area: f64 = points
                .iter()
                .zip(points.iter().cycle().skip(1))
                .map(|(a, b)| a.0 * b.1 - b.0 * a.1)
                .sum();
            points.len() >= 3 && twice_area.abs() / 2.0 < MIN_GLYPH_PX * MIN_GLYPH_PX
        }
        _ => false,
    }
}

/// Whether a computed `mask-image` masks everything out: every layer a gradient whose every
/// colour is fully transparent. Image masks (`url()`) are not judged.
pub fn mask_hides(mask: &str) -> bool {
    let layers = functions(mask);
    !layers.is_empty()
        && layers.iter().all(|(name, arg)| {
            name.ends_with("gradient")
                && colours(arg).iter().all(|c| c[3] <= 0.01)
                && !colours(arg).is_empty()
        })
}

/// The single opaque colour a computed `background-image` paints everywhere (a gradient whose
/// stops are all one opaque colour), `None` for anything else.
pub fn uniform_image(image: &str) -> Option<[f64; 4]> {
    let layers = functions(image);
    let [(name, arg)] = layers.as_slice() else { return None };
    let stops = colours(arg);
    let first = *stops.first()?;
    (name.ends_with("gradient") && first[3] >= 1.0 && stops.iter().all(|c| *c == first))
        .then_some(first)
}

/// Whether text in `text` colour at `effective_opacity` cannot be told apart from the
/// `background` behind it (both as computed `rgb()`/`rgba()`): their contrast ratio after
/// blending is under [`MIN_CONTRAST`] and no channel differs much (a red on a green of the
/// same lightness stays readable).
pub fn unreadable_on(text: [f64; 4], effective_opacity: f64, background: [f64; 4]) -> bool {
    let alpha = (text[3] * effective_opacity).clamp(0.0, 1.0);
    let shown: Vec<f64> = (0..3).map(|i| text[i] * alpha + background[i] * (1.0 - alpha)).collect();
    let luminance = |c: &[f64]| {
        let lin = |v: f64| {
            let v = v / 255.0;
            if v <= 0.03928 { v / 12.92 } else { ((v + 0.055) / 1.055).powf(2.4) }
        };
        0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2])
    };
    let (a, b) = (luminance(&shown), luminance(&background[..3]));
    let ratio = (a.max(b) + 0.05) / (a.min(b) + 0.05);
    let spread = (0..3).map(|i| (shown[i] - background[i]).abs()).fold(0.0, f64::max);
    ratio < MIN_CONTRAST && spread < 48.0
}

/// `name(args)` of a computed value's top-level functions, in order.
fn functions(value: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut rest = value.trim();
    while let Some((head, after_open)) = rest.split_once('(') {
        let name = head.trim().trim_start_matches(',').trim();
        let mut depth = 1usize;
        let mut close = None;
        for (i, c) in after_open.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some((args, tail)) = close.and_then(|i| after_open.split_at_checked(i)) else { break };
        out.push((name, args));
        rest = tail.strip_prefix(')').unwrap_or(tail);
    }
    out
}

/// Every `rgb()`/`rgba()` colour inside a value (a gradient's stops).
fn colours(value: &str) -> Vec<[f64; 4]> {
    let mut out = Vec::new();
    let mut rest = value;
    while let Some((at, _)) = rest.match_indices("rgb").next() {
        let tail = rest.get(at..).unwrap_or("");
        let Some(end) = tail.find(')') else { break };
        let Some((colour, after)) = tail.split_at_checked(end + 1) else { break };
        if let Some(c) = rgba(colour) {
            out.push(c);
        }
        rest = after;
    }
    out
}

/// `12px` as a number.
fn px(v: &str) -> Option<f64> {
    v.trim().strip_suffix("px").and_then(|n| n.trim().parse().ok())
}

/// `0.4` or `40%` as a fraction.
fn number_or_percent(v: &str) -> Option<f64> {
    let v = v.trim();
    match v.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().ok().map(|p| p / 100.0),
        None => v.parse().ok(),
    }
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
    fn paint_tricks_are_read_from_the_computed_style() {
        assert_eq!(filter_effect("opacity(0)"), (0.0, false));
        assert_eq!(filter_effect("grayscale(1) blur(0.4px)"), (1.0, false));
        assert!(filter_effect("blur(14px)").1);
        assert!(transparent(filter_effect("opacity(0.1)").0));
        assert!(clip_hides("inset(50%)", 600.0, 20.0));
        assert!(clip_hides("circle(0px at 50% 50%)", 600.0, 20.0));
        assert!(clip_hides("polygon(0px 0px, 0px 0px, 0px 0px)", 600.0, 20.0));
        assert!(!clip_hides("inset(0px round 8px)", 600.0, 20.0), "rounded corners");
        assert!(!clip_hides("circle(50% at 50% 50%)", 600.0, 20.0));
        assert!(!clip_hides("none", 600.0, 20.0));
        let clear = "linear-gradient(rgba(0, 0, 0, 0), rgba(0, 0, 0, 0))";
        assert!(mask_hides(clear));
        assert!(!mask_hides("linear-gradient(rgb(0, 0, 0) 60%, rgba(0, 0, 0, 0))"), "a fade");
        assert!(!mask_hides("url(\"m.svg\")"));
        let white = [255.0, 255.0, 255.0, 1.0];
        assert_eq!(
            uniform_image("linear-gradient(rgb(255, 255, 255), rgb(255, 255, 255))"),
            Some(white)
        );
        assert_eq!(uniform_image("linear-gradient(rgb(255, 0, 0), rgb(0, 0, 255))"), None);
    }

    #[test]
    fn text_must_stand_out_from_what_is_behind_it() {
        let black = [0.0, 0.0, 0.0, 1.0];
        let white = [255.0, 255.0, 255.0, 1.0];
        assert!(unreadable_on([7.0, 7.0, 7.0, 1.0], 1.0, black), "near-black on black");
        assert!(unreadable_on([131.0, 131.0, 131.0, 1.0], 1.0, [128.0, 128.0, 128.0, 1.0]));
        assert!(unreadable_on([254.0, 254.0, 254.0, 1.0], 1.0, white));
        assert!(!unreadable_on([153.0, 153.0, 153.0, 1.0], 1.0, white), "a grey placeholder");
        assert!(!unreadable_on(white, 1.0, [17.0, 34.0, 51.0, 1.0]), "light on dark");
        assert!(!unreadable_on(black, 0.5, white), "faded to half");
        assert!(!unreadable_on([200.0, 0.0, 0.0, 1.0], 1.0, [0.0, 110.0, 0.0, 1.0]), "hue");
    }

    #[test]
    fn text_under_something_opaque_is_covered() {
        let on_top = TextHit { on_top: true, ..TextHit::default() };
        assert!(!text_covered(&on_top));
        let overlay = TextHit { opaque: true, ..TextHit::default() };
        assert!(text_covered(&overlay), "a white box over it");
        let behind_parent = TextHit { under_ancestor: true, opaque: true, ..TextHit::default() };
        assert!(text_covered(&behind_parent), "z-index: -1 under the parent's background");
        let through = TextHit {
            under_ancestor: true,
            pass_through: true,
            opaque: true,
            ..TextHit::default()
        };
        assert!(!text_covered(&through), "pointer-events: none on the text");
        assert!(!text_covered(&TextHit::default()), "a transparent layer on top");
    }

    #[test]
    fn glyphs_must_be_big_apart_and_within_reach() {
        let g = Glyphs {
            left: 8.0,
            top: 100.0,
            width: 300.0,
            height: 18.0,
            chars: 40,
            page_width: 1280.0,
            page_height: 4000.0,
            ..Glyphs::default()
        };
        assert_eq!(glyphs_hidden(&g), Some(false));
        assert_eq!(glyphs_hidden(&Glyphs { top: 3900.0, ..g }), Some(false), "below the fold");
        assert_eq!(glyphs_hidden(&Glyphs { height: 1.1, width: 18.0, ..g }), Some(true), "tiny");
        assert_eq!(glyphs_hidden(&Glyphs { width: 9.0, ..g }), Some(true), "squashed");
        assert_eq!(glyphs_hidden(&Glyphs { left: -6000.0, ..g }), Some(true), "left of the page");
        assert_eq!(glyphs_hidden(&Glyphs { left: 6000.0, ..g }), Some(true), "right of it");
        assert_eq!(glyphs_hidden(&Glyphs { top: 6000.0, ..g }), Some(true), "below its end");
        let scrolled = Glyphs { top: -50.0, scroll_y: 400.0, ..g };
        assert_eq!(glyphs_hidden(&scrolled), Some(false), "scrolled past, still on the page");
        assert_eq!(glyphs_hidden(&Glyphs { width: 0.0, height: 0.0, ..g }), Some(true), "no box");
        assert_eq!(glyphs_hidden(&Glyphs { chars: 0, ..g }), None, "nothing to judge");
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
