//! What a call cost: a built-in price table per known model, overridable in `[prices]`.
//!
//! Prices are list prices in US dollars per million tokens as published by the vendors; they
//! drift, which is why the config can override input and output. Dated model names
//! (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`) and router prefixes (`openai/gpt-4o`)
//! match their base entry through the longest known prefix.
//!
//! Prompt caching changes the bill: tokens read from a provider's cache cost a fraction of the
//! input price (Anthropic 0.1×; OpenAI 0.5× for gpt-4o, 0.25× for gpt-4.1 and o3/o4-mini, 0.1×
//! for gpt-5), and Anthropic charges 1.25× input for the tokens a call writes to its 5-minute
//! cache (OpenAI-compatible servers write for free). A user's override of a model's input price
//! keeps the model's published ratios; for a model the table does not know, the wire format's
//! (Anthropic's ratios, or none on the OpenAI-compatible wire: cached tokens at full price).

use std::collections::BTreeMap;

use waymark_protocol::{CallCost, ModelPrice, PriceSource, Provider, TokenUsage};

use crate::config::PriceSection;

/// Built-in list prices, $/Mtok: (model prefix, input, output, cached input, cache write).
/// Cache write is the input price where writing costs nothing extra.
const PRICES: &[(&str, f64, f64, f64, f64)] = &[
    ("gpt-4o-mini", 0.15, 0.60, 0.075, 0.15),
    ("gpt-4o", 2.50, 10.00, 1.25, 2.50),
    ("gpt-4.1-nano", 0.10, 0.40, 0.025, 0.10),
    ("gpt-4.1-mini", 0.40, 1.60, 0.10, 0.40),
    ("gpt-4.1", 2.00, 8.00, 0.50, 2.00),
    ("gpt-5-nano", 0.05, 0.40, 0.005, 0.05),
    ("gpt-5-mini", 0.25, 2.00, 0.025, 0.25),
    ("gpt-5", 1.25, 10.00, 0.125, 1.25),
    ("o4-mini", 1.10, 4.40, 0.275, 1.10),
    ("o3-mini", 1.10, 4.40, 0.55, 1.10),
    ("o3", 2.00, 8.00, 0.50, 2.00),
    ("claude-opus-4", 15.00, 75.00, 1.50, 18.75),
    ("claude-sonnet-4", 3.00, 15.00, 0.30, 3.75),
    ("claude-3-7-sonnet", 3.00, 15.00, 0.30, 3.75),
    ("claude-3-5-sonnet", 3.00, 15.00, 0.30, 3.75),
    ("claude-haiku-4-5", 1.00, 5.00, 0.10, 1.25),
    ("claude-3-5-haiku", 0.80, 4.00, 0.08, 1.00),
    ("claude-3-haiku", 0.25, 1.25, 0.03, 0.30),
    ("gemini-2.5-pro", 1.25, 10.00, 0.31, 1.25),
    ("gemini-2.5-flash-lite", 0.10, 0.40, 0.025, 0.10),
    ("gemini-2.5-flash", 0.30, 2.50, 0.075, 0.30),
    ("gemini-2.0-flash", 0.10, 0.40, 0.025, 0.10),
    ("deepseek-chat", 0.27, 1.10, 0.07, 0.27),
    ("deepseek-reasoner", 0.55, 2.19, 0.14, 0.55),
    ("llama-3.3-70b-versatile", 0.59, 0.79, 0.59, 0.59),
    ("llama-3.1-8b-instant", 0.05, 0.08, 0.05, 0.05),
];

/// What one model's tokens cost, US dollars per million.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    /// Prompt tokens not read from nor written to a cache.
    pub input: f64,
    /// Completion tokens.
    pub output: f64,
    /// Prompt tokens read from the provider's cache.
    pub cached_input: f64,
    /// Prompt tokens written to the provider's cache.
    pub cache_write: f64,
}

impl Price {
    /// A model on this machine.
    const FREE: Self = Self { input: 0.0, output: 0.0, cached_input: 0.0, cache_write: 0.0 };

    /// `input` and `output`, with the cache prices at `ratios` (read, write) of `input`.
    fn scaled(input: f64, output: f64, (read, write): (f64, f64)) -> Self {
        Self { input, output, cached_input: input * read, cache_write: input * write }
    }

    /// Cached read and write prices as fractions of the input price.
    fn cache_ratios(self) -> (f64, f64) {
        if self.input > 0.0 {
            (self.cached_input / self.input, self.cache_write / self.input)
        } else {
            (1.0, 1.0)
        }
    }
}

/// The cache ratios of a model the table does not know, by the wire it is reached over:
/// Anthropic prices caching the same for every model; an OpenAI-compatible server may not
/// discount at all, so cached tokens are counted at the full price.
fn wire_ratios(wire: Provider) -> (f64, f64) {
    match wire {
        Provider::Anthropic => (0.1, 1.25),
        Provider::Openai => (1.0, 1.0),
    }
}

/// The model name without any `vendor/` prefix, lower-cased: what the table is keyed by.
fn bare(model: &str) -> String {
    model.rsplit('/').next().unwrap_or(model).to_ascii_lowercase()
}

/// The built-in price of the longest known prefix of `bare`.
fn built_in(bare: &str) -> Option<Price> {
    PRICES
        .iter()
        .filter(|(prefix, ..)| bare.starts_with(prefix))
        .max_by_key(|(prefix, ..)| prefix.len())
        .map(|&(_, input, output, cached_input, cache_write)| Price {
            input,
            output,
            cached_input,
            cache_write,
        })
}

/// The user's override for `model`: its exact name first, then the bare name.
fn user_price<'a>(
    model: &str,
    overrides: &'a BTreeMap<String, PriceSection>,
) -> Option<&'a PriceSection> {
    overrides.get(model).or_else(|| overrides.get(bare(model).as_str()))
}

/// Dollars per million tokens for `model`: a config override (exact name) first, then the
/// longest built-in prefix of the name without any `vendor/` prefix. `None` when unknown.
pub fn price_of(model: &str, overrides: &BTreeMap<String, PriceSection>) -> Option<(f64, f64)> {
    if let Some(p) = user_price(model, overrides) {
        return Some((p.input, p.output));
    }
    built_in(&bare(model)).map(|p| (p.input, p.output))
}

/// Every price of `model` reached over `wire`, cache prices included (see the module doc).
pub fn price(
    model: &str,
    overrides: &BTreeMap<String, PriceSection>,
    wire: Provider,
) -> Option<Price> {
    let table = built_in(&bare(model));
    match user_price(model, overrides) {
        None => table,
        Some(p) => {
            let ratios = table.map_or_else(|| wire_ratios(wire), Price::cache_ratios);
            Some(Price::scaled(p.input, p.output, ratios))
        }
    }
}

/// The price `model` is charged at and where it comes from, as [`cost`] applies it: what the
/// side panel shows so the user can correct it. `local`: the model runs on this machine.
pub fn model_price(
    model: &str,
    overrides: &BTreeMap<String, PriceSection>,
    local: bool,
) -> ModelPrice {
    let source = if user_price(model, overrides).is_some() {
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

/// The cost of one call with `usage` on a `wire` endpoint: the prompt's cached part at the
/// cached price, the part written to the cache at the write price, the rest at the input
/// price. Models on this machine cost nothing; unknown remote models have no cost (the panel
/// shows tokens only).
pub fn cost(
    model: &str,
    usage: Option<TokenUsage>,
    local: bool,
    overrides: &BTreeMap<String, PriceSection>,
    wire: Provider,
) -> Option<CallCost> {
    let usage = usage?;
    let p = match price(model, overrides, wire) {
        Some(p) => p,
        None if local => Price::FREE,
        None => return None,
    };
    // A provider's counts are taken as parts of the prompt, never more than all of it.
    let cached = usage.cached_input_tokens.min(usage.input_tokens);
    let written = usage.cache_write_tokens.min(usage.input_tokens - cached);
    let fresh = usage.input_tokens - cached - written;
    // Token counts are far below 2^52, so the conversions are exact.
    #[allow(clippy::cast_precision_loss, reason = "token counts are far below 2^52")]
    let usd = (fresh as f64 * p.input
        + cached as f64 * p.cached_input
        + written as f64 * p.cache_write
        + usage.output_tokens as f64 * p.output)
        / 1e6;
    Some(CallCost {
        usd,
        input_usd_per_mtok: p.input,
        output_usd_per_mtok: p.output,
        cached_input_usd_per_mtok: (cached > 0).then_some(p.cached_input),
        cache_write_usd_per_mtok: (written > 0).then_some(p.cache_write),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(i: u64, o: u64) -> Option<TokenUsage> {
        Some(TokenUsage { input_tokens: i, output_tokens: o, ..TokenUsage::default() })
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
        let c =
            cost("gpt-4o", usage(1_000_000, 500_000), false, &o, Provider::Openai).expect("priced");
        assert!((c.usd - 2.0).abs() < 1e-9, "{c:?}");
        let c = cost("claude-haiku-4-5", usage(2000, 1000), false, &o, Provider::Anthropic)
            .expect("priced");
        assert!((c.usd - (2000.0 * 1.0 + 1000.0 * 5.0) / 1e6).abs() < 1e-12);
        assert_eq!(
            cost("llama3.1", usage(10, 10), true, &o, Provider::Openai).map(|c| c.usd),
            Some(0.0)
        );
        assert_eq!(cost("mystery", usage(10, 10), false, &o, Provider::Openai), None);
        assert_eq!(cost("gpt-4o", None, false, &o, Provider::Openai), None);
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

    fn cached(input: u64, cached: u64, written: u64, output: u64) -> Option<TokenUsage> {
        Some(TokenUsage {
            input_tokens: input,
            output_tokens: output,
            cached_input_tokens: cached,
            cache_write_tokens: written,
            estimated: false,
        })
    }

    #[test]
    fn cached_prompt_tokens_cost_the_cached_price_and_writes_the_write_price() {
        let none = BTreeMap::new();
        // Anthropic: 10,000 prompt tokens, 8,000 read from the cache, 1,500 written, 500 fresh.
        let c = cost(
            "claude-sonnet-4-5",
            cached(10_000, 8_000, 1_500, 200),
            false,
            &none,
            Provider::Anthropic,
        )
        .expect("priced");
        let want = (500.0 * 3.0 + 8_000.0 * 0.30 + 1_500.0 * 3.75 + 200.0 * 15.0) / 1e6;
        assert!((c.usd - want).abs() < 1e-12, "{c:?} vs {want}");
        assert_eq!(
            (c.cached_input_usd_per_mtok, c.cache_write_usd_per_mtok),
            (Some(0.30), Some(3.75))
        );
        // OpenAI families: gpt-4o 0.5×, gpt-4.1 0.25×, gpt-5 0.1×.
        for (model, input, read) in
            [("gpt-4o-2024-08-06", 2.50, 1.25), ("gpt-4.1", 2.00, 0.50), ("gpt-5", 1.25, 0.125)]
        {
            let c = cost(model, cached(2_000, 1_024, 0, 0), false, &none, Provider::Openai)
                .expect("priced");
            let want = (976.0 * input + 1_024.0 * read) / 1e6;
            assert!((c.usd - want).abs() < 1e-12, "{model}: {c:?} vs {want}");
            assert_eq!(c.cache_write_usd_per_mtok, None, "{model}: nothing written");
        }
        // Nothing cached: the same as before caching existed, and no cache prices reported.
        let plain =
            cost("gpt-4o", usage(2_000, 10), false, &none, Provider::Openai).expect("priced");
        assert!((plain.usd - (2_000.0 * 2.50 + 10.0 * 10.0) / 1e6).abs() < 1e-12);
        assert_eq!((plain.cached_input_usd_per_mtok, plain.cache_write_usd_per_mtok), (None, None));
        // Counts a server got wrong never make the prompt cost less than nothing.
        let odd = cost("gpt-4o", cached(100, 500, 500, 0), false, &none, Provider::Openai)
            .expect("priced");
        assert!((odd.usd - 100.0 * 1.25 / 1e6).abs() < 1e-12, "{odd:?}");
        // Local models stay free, cached or not.
        assert_eq!(
            cost("llama3.1", cached(100, 90, 0, 1), true, &none, Provider::Openai).map(|c| c.usd),
            Some(0.0)
        );
    }

    #[test]
    fn an_override_keeps_the_models_cache_ratios_or_else_the_wires() {
        let mut o = BTreeMap::new();
        o.insert("claude-haiku-4-5".to_owned(), PriceSection { input: 2.0, output: 10.0 });
        o.insert("gpt-4.1".to_owned(), PriceSection { input: 4.0, output: 16.0 });
        o.insert("my-proxy-model".to_owned(), PriceSection { input: 1.0, output: 2.0 });
        let p = price("claude-haiku-4-5", &o, Provider::Anthropic).expect("priced");
        assert!(
            (p.cached_input - 0.2).abs() < 1e-12 && (p.cache_write - 2.5).abs() < 1e-12,
            "{p:?}"
        );
        let p = price("gpt-4.1", &o, Provider::Openai).expect("priced");
        assert!(
            (p.cached_input - 1.0).abs() < 1e-12 && (p.cache_write - 4.0).abs() < 1e-12,
            "{p:?}"
        );
        // A model the table does not know: Anthropic's wire prices caching for every model...
        let p = price("my-proxy-model", &o, Provider::Anthropic).expect("priced");
        assert!(
            (p.cached_input - 0.1).abs() < 1e-12 && (p.cache_write - 1.25).abs() < 1e-12,
            "{p:?}"
        );
        // ...an OpenAI-compatible server may give no discount: cached tokens at full price.
        let p = price("my-proxy-model", &o, Provider::Openai).expect("priced");
        assert_eq!((p.cached_input, p.cache_write), (1.0, 1.0));
        assert_eq!(price("mystery", &o, Provider::Anthropic), None);
    }

    #[test]
    fn every_built_in_cache_price_is_at_most_input_and_writes_at_least_input() {
        for &(model, input, _, read, write) in PRICES {
            assert!(read > 0.0 && read <= input, "{model}");
            assert!(write >= input, "{model}");
        }
    }
}
