//! Property tests over hostile text (`waymark-fuzzgen`) for what the page crate reads besides
//! the observation (that is `observation::fuzz_tests`): the typed-input formats the model's text
//! is written in, and the computed CSS strings the visibility rules parse. No input may panic;
//! what a format accepts, it writes in a form it accepts again unchanged.

#![allow(
    clippy::let_underscore_must_use,
    reason = "a call made only for the panic it must not cause drops its result"
)]

use crate::formats::FieldKind;
use crate::visibility::{
    clip_hides, filter_effect, invisible_by_style, mask_hides, opacity_of, rgba,
    transform_collapses, uniform_image,
};
use proptest::prelude::*;
use waymark_fuzzgen::{config, hostile_chars, hostile_short};

const KINDS: &[&str] =
    &["date", "time", "datetime-local", "month", "week", "number", "range", "color"];

/// What a model writes into a typed field: numbers, separators, month names and colours,
/// in any script's digits, with hostile characters between them.
fn field_text() -> impl Strategy<Value = String> {
    let bit = prop_oneof![
        3 => "[0-9]{1,4}",
        1 => "[０-９]{1,4}",
        1 => "[٠-٩]{1,4}",
        2 => proptest::sample::select(&["-", "/", ".", ":", " ", ",", "T", "W", "#", "h", "pm", "am", "%", "$", "e", "+"][..]).prop_map(str::to_owned),
        1 => proptest::sample::select(&["March", "mar.", "Dec", "sept", "Mai", "rgb(", ")"][..]).prop_map(str::to_owned),
        1 => "[0-9a-fA-F]{3,6}",
        1 => hostile_chars(2),
    ];
    proptest::collection::vec(bit, 0..8).prop_map(|bits| bits.concat())
}

/// A computed-style value: a function with arguments, as the visibility rules read them.
fn css() -> impl Strategy<Value = String> {
    let name = proptest::sample::select(
        &[
            "rgb",
            "rgba",
            "matrix",
            "inset",
            "circle",
            "ellipse",
            "polygon",
            "opacity",
            "blur",
            "linear-gradient",
            "url",
            "",
        ][..],
    );
    let arg = prop_oneof![
        "[0-9 .,%/-]{0,24}",
        "-?[0-9]{1,4}(px|%|e9)?( -?[0-9]{1,4}(px|%)?){0,5}",
        hostile_short(),
    ];
    (name, arg, proptest::sample::select(&["", ")", "))", ") rgb(0, 0, 0)"][..]))
        .prop_map(|(name, arg, close)| format!("{name}({arg}{close}"))
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn fuzz_page_formats(kind in proptest::sample::select(KINDS), text in prop_oneof![field_text(), hostile_short()]) {
        let Some(kind) = FieldKind::of(kind) else { return Err(TestCaseError::fail("a kind")) };
        if let Ok(written) = kind.normalise(&text) {
            prop_assert_eq!(kind.normalise(&written), Ok(written.clone()), "{:?} from {:?}", kind, text);
        }
    }

    #[test]
    fn fuzz_page_css(value in prop_oneof![css(), hostile_short()], width in -10.0f64..2000.0, height in -10.0f64..2000.0) {
        let _ = rgba(&value);
        let o = opacity_of(&value);
        prop_assert!(!o.is_nan() || value.trim().parse::<f64>().is_ok());
        let _ = invisible_by_style(o, &value, &value);
        let _ = transform_collapses(&value);
        let (opacity, _) = filter_effect(&value);
        prop_assert!(opacity.is_nan() || (0.0..=1.0).contains(&opacity), "{opacity}");
        let _ = clip_hides(&value, width, height);
        let _ = mask_hides(&value);
        let _ = uniform_image(&value);
    }
}
