//! What a call cost: a built-in price table per known model, overridable in `[prices]`.
//!
//! Prices are list prices in US dollars per million tokens (input, output) as published by the
//! vendors; they drift, which is why the config can override any of them. Dated model names
//! (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`) and router prefixes (`openai/gpt-4o`)
//! match their base entry through the longest known prefix.

use std::collections::BTreeMap;

use waymark_protocol::{CallCost, ModelPrice, PriceSource, TokenUsage};

use crate::config::PriceSection;

/// Built-in list prices: (model prefix, input $/Mtok, output $/Mtok).
const PRICES: &[(&str, f64, f64)] = &[
    ("gpt-4o-mini", 0.15, 0.60),
    ("gpt-4o", 2.50, 10.00),
    ("gpt-4.1-nano", 0.10, 0.40),
    ("gpt-4.1-mini", 0.40, 1.60),
    ("gpt-4.1", 2.00, 8.00),
    ("gpt-5-nano", 0.05, 0.40),
    ("gpt-5-mini", 0.25, 2.00),
    ("gpt-5", 1.25, 10.00),
    ("o4-mini", 1.10, 4.40),
    ("o3-mini", 1.10, 4.40),
    ("o3", 2.00, 8.00),
    ("claude-opus-4", 15.00, 75.00),
    ("claude-sonnet-4", 3.00, 15.00),
    ("claude-3-7-sonnet", 3.00, 15.00),
    ("claude-3-5-sonnet", 3.00, 15.00),
    ("claude-haiku-4-5", 1.00, 5.00),
    ("claude-3-5-haiku", 0.80, 4.00),
    ("claude-3-haiku", 0.25, 1.25),
    ("gemini-2.5-pro", 1.25, 10.00),
    ("gemini-2.5-flash-lite", 0.10, 0.40),
    ("gemini-2.5-flash", 0.30, 2.50),
    ("gemini-2.0-flash", 0.10, 0.40),
    ("deepseek-chat", 0.27, 1.10),
    ("deepseek-reasoner", 0.55, 2.19),
    ("llama-3.3-70b-versatile", 0.59, 0.79),
    ("llama-3.1-8b-instant", 0.05, 0.08),
];

/// Dollars per million tokens for `model`: a config override (exact name) first, then the
/// longest built-in prefix of the name without any `vendor/` prefix. `None` when unknown.
pub fn price_of(model: &str, overrides: &BTreeMap<String, PriceSection>) -> Option<(f64, f64)> {
    if let Some(p) = overrides.get(model) {
        return Some((p.input, p.output));
    }
    let bare = model.rsplit('/').next().unwrap_or(model).to_ascii_lowercase();
    if let Some(p) = overrides.get(bare.as_str()) {
        return Some((p.input, p.output));
    }
    PRICES
        .iter()
        .filter(|(prefix, _, _)| bare.starts_with(prefix))
        .max_by_key(|(prefix, _, _)| prefix.len())
        .map(|(_, i, o)| (*i, *o))
}

/// The price `model` is charged at and where it comes from, as [`cost`] applies it: what the
/// side panel shows so the user can correct it. `local`: the model runs on this machine.
pub fn model_price(
    model: &str,
    overrides: &BTreeMap<String, PriceSection>,
    local: bool,
) -> ModelPrice {
    let bare = model.rsplit('/').next().unwrap_or(model).to_ascii_lowercase();
    let source = if overrides.contains_key(model) || overrides.contains_key(bare.as_str()) {
        PriceSource::User
    } else if price_of(model, overrides).is_some() {
        PriceSource::BuiltIn
    } else if local {
        PriceSource::Local
    } else {
        PriceSource::Unknown
    };
    let price = price_of(model, overrides).or_else(|| local.then_some((0.0, 0.0)));
    ModelPrice { input: price.map(|p| p.0), output: price.map(|p| p.1), source }
}

/// The cost of one call with `usage`. Models on this machine cost nothing; unknown remote
/// models have no cost (the panel shows tokens only).
pub fn cost(
    model: &str,
    usage: Option<TokenUsage>,
    local: bool,
    overrides: &BTreeMap<String, PriceSection>,
) -> Option<CallCost> {
    let usage = usage?;
    let (input, output) = match price_of(model, overrides) {
        Some(p) => p,
        None if local => (0.0, 0.0),
        None => return None,
    };
    // Token counts are far below 2^52, so the conversions are exact.
    #[allow(clippy::cast_precision_loss, reason = "token counts are far below 2^52")]
    let usd = (usage.input_tokens as f64 * input + usage.output_tokens as f64 * output) / 1e6;
    Some(CallCost { usd, input_usd_per_mtok: input, output_usd_per_mtok: output })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(i: u64, o: u64) -> Option<TokenUsage> {
        Some(TokenUsage { input_tokens: i, output_tokens: o, estimated: false })
    }

    #[test]
    fn longest_prefix_wins_and_vendor_prefixes_are_ignored() {
        let none = BTreeMap::new();
        assert_eq!(price_of("gpt-4o-mini-2024-07-18", &none), Some((0.15, 0.60)));
        assert_eq!(price_of("gpt-4o-2024-08-06", &none), Some((2.50, 10.00)));
        assert_eq!(price_of("openai/gpt-4.1-mini", &none), Some((0.40, 1.60)));
        assert_eq!(price_of("claude-sonnet-4-5-20250929", &none), Some((3.00, 15.00)));
        assert_eq!(price_of("llama3.1", &none), None);
    }

    #[test]
    fn overrides_beat_the_table_and_local_models_are_free() {
        let mut o = BTreeMap::new();
        o.insert("gpt-4o".to_owned(), PriceSection { input: 1.0, output: 2.0 });
        let c = cost("gpt-4o", usage(1_000_000, 500_000), false, &o).expect("priced");
        assert!((c.usd - 2.0).abs() < 1e-9, "{c:?}");
        let c = cost("claude-haiku-4-5", usage(2000, 1000), false, &o).expect("priced");
        assert!((c.usd - (2000.0 * 1.0 + 1000.0 * 5.0) / 1e6).abs() < 1e-12);
        assert_eq!(cost("llama3.1", usage(10, 10), true, &o).map(|c| c.usd), Some(0.0));
        assert_eq!(cost("mystery", usage(10, 10), false, &o), None);
        assert_eq!(cost("gpt-4o", None, false, &o), None);
    }

    #[test]
    fn model_prices_say_where_they_come_from() {
        let mut o = BTreeMap::new();
        o.insert("gpt-4o".to_owned(), PriceSection { input: 1.0, output: 2.0 });
        let p = model_price("openai/gpt-4o", &o, false);
        assert_eq!((p.input, p.output, p.source), (Some(1.0), Some(2.0), PriceSource::User));
        let p = model_price("gpt-4.1-mini", &o, true);
        assert_eq!((p.input, p.output, p.source), (Some(0.40), Some(1.60), PriceSource::BuiltIn));
        let p = model_price("llama3.1", &o, true);
        assert_eq!((p.input, p.output, p.source), (Some(0.0), Some(0.0), PriceSource::Local));
        let p = model_price("mystery", &o, false);
        assert_eq!((p.input, p.output, p.source), (None, None, PriceSource::Unknown));
    }
}
