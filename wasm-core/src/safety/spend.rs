//! Spending the write budget: each state-changing request an action causes is read
//! ([`super::writes::classify`]) and either fits what the user's words granted — its kind, on
//! one of the user's sites, to the recipient they named, within the count — or is held.
//!
//! How requests count: **one action is one write of each kind** it causes (a click that
//! posts `/api/cart` and then `/api/cart/totals` added one item) unless it posts to the same
//! endpoint again (a second add is a second item), weighted by a quantity field (`qty: 2` is
//! two items); an order counts per endpoint (the steps of one checkout post to
//! different endpoints; a second order posts to the same one again). Analytics (a request
//! whose path and fields name only telemetry) and beacons (`ping`, `sendBeacon`) that say
//! nothing of what they do are **dropped**: blocked, never sent, neither spent nor asked
//! about — nothing can be told about them without trusting the page, so they do not go.

use super::baseline::Baseline;
use super::budget::{Count, WriteBudget};
use super::network::BlockedRequest;
use super::writes::{Effect, EffectKind, classify_against};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What the task's writes have spent (journaled through [`Spend`]s; rebuilt on replay).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Spent {
    /// Per key (a kind, or an order's endpoint): how many so far.
    used: BTreeMap<String, u32>,
    /// The same for the action running now (its requests count as one write per key).
    this_action: BTreeMap<String, u32>,
    /// The endpoints each key was spent on by the action running now: a second request to
    /// the same endpoint in one action is a second write (a second item added).
    endpoints: std::collections::BTreeSet<(String, String)>,
}

/// One spend, as journaled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spend {
    /// What was spent on (a kind, or `order /api/orders`).
    pub key: String,
    /// How many more writes it counted.
    pub extra: u32,
    /// The endpoint it went to (ids as `*`).
    #[serde(default)]
    pub endpoint: String,
}

/// What a request comes to against the budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fit {
    /// Inside the budget: let it go; `spend` is what it costs (possibly nothing more).
    Within {
        /// To journal once it is released.
        spend: Spend,
    },
    /// Outside: put it to the user; in words why.
    Outside(String),
    /// Analytics or a beacon that says nothing: dropped without a card.
    Dropped,
}

impl Spent {
    /// A new action starts: its requests count afresh.
    pub fn begin_action(&mut self) {
        self.this_action.clear();
        self.endpoints.clear();
    }

    /// Records a spend (live and on replay).
    pub fn record(&mut self, spend: &Spend) {
        *self.used.entry(spend.key.clone()).or_default() += spend.extra;
        *self.this_action.entry(spend.key.clone()).or_default() += spend.extra;
        self.endpoints.insert((spend.key.clone(), spend.endpoint.clone()));
    }

    /// How many writes under `key` so far.
    pub fn used(&self, key: &str) -> u32 {
        self.used.get(key).copied().unwrap_or(0)
    }
}

fn key_of(effect: &Effect) -> String {
    match effect.kind {
        EffectKind::Order | EffectKind::Unknown => {
            format!("{:?} /{}", effect.kind, effect.endpoint).to_lowercase()
        }
        kind => format!("{kind:?}").to_lowercase(),
    }
}

/// Whether one request (`resource`: the browser's type) to one of the user's sites
/// (`user_site`) fits `budget` after what `spent` holds.
pub fn fit(
    budget: &WriteBudget,
    spent: &Spent,
    effect: &Effect,
    resource: &str,
    user_site: bool,
) -> Fit {
    let says_nothing = matches!(effect.kind, EffectKind::Unknown | EffectKind::Telemetry);
    if effect.kind == EffectKind::Telemetry || (resource == "ping" && says_nothing) {
        return Fit::Dropped;
    }
    if !user_site {
        return Fit::Outside("it goes to a site your task does not name".into());
    }
    // A request that names nothing, carrying what the user's words search for, is that search.
    let searched;
    let effect = if effect.kind == EffectKind::Unknown && budget.searches_for(&effect.values) {
        searched = Effect { kind: EffectKind::Lookup, ..effect.clone() };
        &searched
    } else {
        effect
    };
    let Some(count) = budget.allowance(effect.kind, &effect.recipients) else {
        let to = if effect.kind == EffectKind::Message && !effect.recipients.is_empty() {
            format!(" (to {})", effect.recipients.join(", "))
        } else {
            String::new()
        };
        return Fit::Outside(format!(
            "it would {}{to}; {}",
            effect.kind.words(),
            budget.describe()
        ));
    };
    let key = key_of(effect);
    let before = spent.this_action.get(&key).copied().unwrap_or(0);
    let repeat = spent.endpoints.contains(&(key.clone(), effect.endpoint.clone()));
    let extra = if repeat { effect.quantity } else { effect.quantity.saturating_sub(before) };
    let total = spent.used(&key).saturating_add(extra);
    if count.allows(total) {
        return Fit::Within { spend: Spend { key, extra, endpoint: effect.endpoint.clone() } };
    }
    let asked = match count {
        Count::Up(n) => n,
        Count::Many => u32::MAX,
    };
    Fit::Outside(format!(
        "it would {} — {} in all, and your task asks for {asked}",
        effect.kind.words(),
        total
    ))
}

/// [`fit`] for a request the network layer blocked, its fields read against `baseline`
/// ([`super::baseline`]) where the task has one.
pub fn fit_request(
    budget: &WriteBudget,
    spent: &Spent,
    request: &BlockedRequest,
    user_site: bool,
    baseline: Option<&Baseline>,
) -> Fit {
    let effect = classify_against(&request.method, &request.url, request.body.as_ref(), baseline);
    fit(budget, spent, &effect, &request.kind, user_site)
}

#[cfg(test)]
#[path = "spend_tests.rs"]
mod tests;
