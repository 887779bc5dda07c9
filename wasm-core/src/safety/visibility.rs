//! Whether computed styles make text invisible to a person although it renders: hostile pages
//! hide instructions to the agent with `opacity: 0`, a zero font size, a transparent colour or
//! white on white. The content script feeds computed styles in; what the user cannot read never
//! reaches the model.

/// What the style alone says: `Some(true)` invisible, `Some(false)` visible, `None` when the
/// background decides (light text: compare with [`is_light`] of the background).
pub fn invisible_by_style(opacity: &str, font_size: &str, color: &str) -> Option<bool> {
    if opacity.trim().parse::<f64>().is_ok_and(|o| o < 0.05) {
        return Some(true);
    }
    if font_size.trim().trim_end_matches("px").trim().parse::<f64>().is_ok_and(|px| px < 2.0) {
        return Some(true);
    }
    match rgba(color) {
        Some(c) if c[3] < 0.05 => Some(true),
        Some(c) if is_light(c) => None,
        _ => Some(false),
    }
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
        assert_eq!(invisible_by_style("0", "16px", "rgb(0, 0, 0)"), Some(true));
        assert_eq!(invisible_by_style("1", "0px", "rgb(0, 0, 0)"), Some(true));
        assert_eq!(invisible_by_style("1", "1.5px", "rgb(0, 0, 0)"), Some(true));
        assert_eq!(invisible_by_style("1", "16px", "rgba(0, 0, 0, 0)"), Some(true));
        assert_eq!(invisible_by_style("1", "16px", "rgb(20, 20, 20)"), Some(false));
        assert_eq!(invisible_by_style("0.9", "12px", "rgb(0 0 0 / 0.8)"), Some(false));
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
        assert_eq!(invisible_by_style("1", "16px", "rgb(255, 255, 255)"), None);
        assert!(is_light([250.0, 250.0, 250.0, 1.0]));
        assert!(!is_light([30.0, 30.0, 30.0, 1.0]));
        assert_eq!(rgba("rgba(1, 2, 3, 0.5)"), Some([1.0, 2.0, 3.0, 0.5]));
        assert_eq!(rgba("transparent"), None);
    }
}
