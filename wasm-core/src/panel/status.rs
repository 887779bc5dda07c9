//! What the LLM costs: token and dollar totals of the current task and session.

use serde::{Deserialize, Serialize, Serializer};
use waymark_protocol::LlmCompletion;

/// Tokens and dollars spent, summed over LLM calls. Serialized with its line for the panel
/// (`text`, empty before the first call), worked out from the totals, never stored apart.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(as = "UsageWire"))]
pub struct Usage {
    /// Completed calls.
    pub calls: u32,
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Of the prompt tokens, those the provider read from its prompt cache (cheaper, and the
    /// sign that the prompts' shared prefix works).
    #[serde(default)]
    pub cached_input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
    /// Dollars, over the calls whose model has a price.
    pub usd: f64,
    /// Calls whose cost is unknown (the model has no price in the host config).
    pub unpriced_calls: u32,
    /// Calls whose token counts the host estimated (the provider reported none).
    #[serde(default)]
    pub estimated_calls: u32,
}

impl Serialize for Usage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Every field named: a field added to `Usage` fails here until the wire has it too.
        let Usage {
            calls,
            input_tokens,
            cached_input_tokens,
            output_tokens,
            usd,
            unpriced_calls,
            estimated_calls,
        } = *self;
        let text = if calls == 0 { String::new() } else { self.describe() };
        UsageWire {
            calls,
            input_tokens,
            cached_input_tokens,
            output_tokens,
            usd,
            unpriced_calls,
            estimated_calls,
            text,
        }
        .serialize(serializer)
    }
}

/// [`Usage`] as the panel receives it: the totals and their line (the panel's TypeScript
/// declaration is generated from this, the shape [`Usage`]'s `Serialize` writes).
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "Usage"))]
struct UsageWire {
    calls: u32,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    input_tokens: u64,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    cached_input_tokens: u64,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    output_tokens: u64,
    usd: f64,
    unpriced_calls: u32,
    estimated_calls: u32,
    /// The line the panel shows ([`Usage::describe`]), empty before the first call.
    text: String,
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Self) {
        self.calls += other.calls;
        self.input_tokens += other.input_tokens;
        self.cached_input_tokens += other.cached_input_tokens;
        self.output_tokens += other.output_tokens;
        self.usd += other.usd;
        self.unpriced_calls += other.unpriced_calls;
        self.estimated_calls += other.estimated_calls;
    }
}

impl Usage {
    /// Adds one completed call.
    pub fn add(&mut self, completion: &LlmCompletion) {
        self.calls += 1;
        if let Some(u) = completion.usage {
            self.input_tokens += u.input_tokens;
            self.cached_input_tokens += u.cached_input_tokens;
            self.output_tokens += u.output_tokens;
            self.estimated_calls += u32::from(u.estimated);
        }
        // No cost: the host has no price for a remote model (local models cost 0).
        match completion.cost {
            Some(c) => self.usd += c.usd,
            None => self.unpriced_calls += 1,
        }
    }

    /// The line the panel shows, e.g. `1,234 tokens (1,000 in, 234 out) · $0.0123`, with the
    /// cached part of the prompt when there is one (`12,400 in (9,800 cached)`); `≈` in front
    /// when the host had to count some calls' tokens itself.
    pub fn describe(&self) -> String {
        if self.calls == 0 {
            return "no model calls yet".to_owned();
        }
        let cost = if self.unpriced_calls == self.calls {
            "no price set for the model".to_owned()
        } else if self.unpriced_calls > 0 {
            format!("≥ {}", dollars(self.usd))
        } else {
            dollars(self.usd)
        };
        let about = if self.estimated_calls > 0 { "≈ " } else { "" };
        let cached = if self.cached_input_tokens > 0 {
            format!(" ({} cached)", thousands(self.cached_input_tokens))
        } else {
            String::new()
        };
        format!(
            "{about}{} tokens ({} in{cached}, {} out) · {} · {cost}",
            thousands(self.input_tokens + self.output_tokens),
            thousands(self.input_tokens),
            thousands(self.output_tokens),
            crate::text::counted(self.calls, "call")
        )
    }
}

/// `$0` for free calls, cents for larger sums, four decimals for small ones.
fn dollars(usd: f64) -> String {
    if usd == 0.0 {
        "$0".to_owned()
    } else if usd >= 1.0 {
        format!("${usd:.2}")
    } else {
        format!("${usd:.4}")
    }
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use waymark_protocol::{CallCost, TokenUsage};

    #[test]
    fn counted_tokens_are_marked_as_an_estimate() {
        let mut u = Usage::default();
        u.add(&call(1000, 234, Some(0.0)));
        assert!(u.describe().starts_with("1,234 tokens"), "{}", u.describe());
        let mut counted = call(500, 10, Some(0.0));
        if let Some(usage) = counted.usage.as_mut() {
            usage.estimated = true;
        }
        u.add(&counted);
        assert_eq!(u.estimated_calls, 1);
        assert!(u.describe().starts_with("≈ 1,744 tokens (1,500 in, 244 out)"), "{}", u.describe());
    }

    fn call(input: u64, output: u64, usd: Option<f64>) -> LlmCompletion {
        LlmCompletion {
            model: "m".into(),
            usage: Some(TokenUsage {
                input_tokens: input,
                output_tokens: output,
                ..TokenUsage::default()
            }),
            cost: usd.map(|usd| CallCost {
                usd,
                input_usd_per_mtok: 1.0,
                output_usd_per_mtok: 2.0,
                ..CallCost::default()
            }),
            ..LlmCompletion::default()
        }
    }

    #[test]
    fn usage_sums_tokens_and_dollars_and_says_when_cost_is_unknown() {
        let mut u = Usage::default();
        assert_eq!(u.describe(), "no model calls yet");
        u.add(&call(1000, 234, Some(0.01)));
        u.add(&call(500, 0, Some(0.0023)));
        assert_eq!((u.calls, u.input_tokens, u.output_tokens), (2, 1500, 234));
        assert_eq!(u.describe(), "1,734 tokens (1,500 in, 234 out) · 2 calls · $0.0123");
        u.add(&call(1, 1, None));
        assert!(u.describe().ends_with("≥ $0.0123"), "{}", u.describe());
        let mut unpriced = Usage::default();
        unpriced.add(&call(1, 1, None));
        assert!(unpriced.describe().ends_with("no price set for the model"));
        // The panel's line travels with the totals; before the first call there is none, and
        // stored totals (which carry an old line) read back as the same numbers.
        let json = serde_json::to_value(u).expect("json");
        assert_eq!(json["text"], u.describe());
        let back: Usage = serde_json::from_value(json).expect("back");
        assert_eq!(back, u);
        assert_eq!(serde_json::to_value(Usage::default()).expect("json")["text"], "");
        let mut sum = Usage::default();
        sum += u;
        sum += u;
        assert_eq!((sum.calls, sum.unpriced_calls, sum.usd), (6, 2, 2.0 * u.usd));
        let mut local = Usage::default();
        local.add(&call(1, 1, Some(0.0)));
        assert!(local.describe().ends_with("· $0"), "{}", local.describe());
    }

    #[test]
    fn the_cached_part_of_the_prompt_is_shown_when_there_is_one() {
        let mut u = Usage::default();
        let mut first = call(12_000, 300, Some(0.004));
        if let Some(usage) = first.usage.as_mut() {
            usage.cached_input_tokens = 9_800;
            usage.cache_write_tokens = 1_000;
        }
        u.add(&first);
        u.add(&call(400, 10, Some(0.0002)));
        assert_eq!(u.cached_input_tokens, 9_800);
        assert_eq!(
            u.describe(),
            "12,710 tokens (12,400 in (9,800 cached), 310 out) · 2 calls · $0.0042"
        );
        // Estimated calls keep their mark; the session sums the cached counts too.
        let mut counted = call(100, 1, Some(0.0));
        if let Some(usage) = counted.usage.as_mut() {
            usage.estimated = true;
        }
        u.add(&counted);
        assert!(
            u.describe().starts_with("≈ 12,811 tokens (12,500 in (9,800 cached), 311 out)"),
            "{}",
            u.describe()
        );
        let mut session = Usage::default();
        session += u;
        session += u;
        assert_eq!(session.cached_input_tokens, 19_600);
        // Totals stored before cached counts existed read back as nothing cached.
        let old: Usage = serde_json::from_str(
            r#"{"calls":1,"input_tokens":5,"output_tokens":1,"usd":0,"unpriced_calls":0,"text":"x"}"#,
        )
        .expect("old totals");
        assert_eq!(old.cached_input_tokens, 0);
        assert!(!old.describe().contains("cached"));
    }
}
