//! Secrets as handles in the loop, against a fake dashboard: the model reads a handle instead
//! of the key, types the handle into the key's own private field (the page gets the key), and
//! is refused when it types it anywhere else: another site, a public text area, an address.
//! The journal and the step list keep the handle, never the key.

use super::*;
use crate::agent::handles::conceal_messages;
use crate::safety::TaintLedger;
use waymark_protocol::{ChatMessage, ChatRole};

const KEY: &str = "sk-live-Zq8aXcanary42Lm9Tt";
const HANDLE: &str = "⟨secret:1 api key from dash.example⟩";

/// Pages through `urls` (the last one stays); only the first shows the key. `[1]` is an input
/// "Deploy key", `[2]` a text area "Tell the team".
struct Dashboard {
    urls: Vec<String>,
    seen: Cell<usize>,
    acts: RefCell<Vec<Action>>,
}

impl Dashboard {
    fn new(urls: &[&str]) -> Self {
        Self {
            urls: urls.iter().map(|u| (*u).to_owned()).collect(),
            seen: Cell::new(0),
            acts: RefCell::default(),
        }
    }

    fn url(&self) -> String {
        let i = self.seen.get().saturating_sub(1).min(self.urls.len() - 1);
        self.urls[i].clone()
    }

    fn typed(&self) -> Vec<String> {
        self.acts
            .borrow()
            .iter()
            .filter_map(|a| match a {
                Action::Type { text, .. } => Some(text.clone()),
                _ => None,
            })
            .collect()
    }
}

impl Page for Dashboard {
    async fn observe(&self) -> Result<Observation, PageError> {
        self.seen.set(self.seen.get() + 1);
        let field = |n: u32, role: &str, name: &str| {
            Item::Element(Element {
                ref_id: Ref::top(n),
                role: role.into(),
                name: name.into(),
                ..Element::default()
            })
        };
        Ok(Observation {
            url: self.url(),
            title: "Dashboard".into(),
            items: vec![
                Item::Text {
                    text: if self.url() == self.urls[0] {
                        format!("Your API key: {KEY}")
                    } else {
                        "Paste anything".into()
                    },
                    heading: None,
                    zone: Default::default(),
                },
                field(1, "textbox", "Deploy key"),
                field(2, "textbox", "Tell the team"),
            ],
            engine: "fake".into(),
            ..Observation::default()
        })
    }

    async fn act(&self, action: &Action, _: &NetworkPermit) -> Result<ActionOutcome, PageError> {
        self.acts.borrow_mut().push(action.clone());
        Ok(ActionOutcome::done())
    }

    async fn describe(&self, target: Option<Ref>) -> Result<ActionTarget, PageError> {
        let area = target == Some(Ref::top(2));
        Ok(ActionTarget {
            role: "textbox".into(),
            name: if area { "Tell the team" } else { "Deploy key" }.into(),
            tag: if area { "textarea" } else { "input" }.into(),
            input_type: if area { String::new() } else { "text".into() },
            page_url: self.url(),
            ..ActionTarget::default()
        })
    }
}

fn run_on(page: &Dashboard, actions: &[(&str, &str)]) -> (Run, ScriptedLlm) {
    let mut script: Vec<Reply_> = actions.iter().map(|a| calls(&[*a])).collect();
    script.push(calls(&[(
        "done",
        &format!(r#"{{"answer":"Your key is {HANDLE}","success":true}}"#),
    )]));
    let llm = ScriptedLlm::new(script);
    let user = ScriptedUser::new(vec![Reply::approve(); 8]);
    let spec = TaskSpec { max_steps: 10, validate: false, ..TaskSpec::new("Check my API key") };
    let run = run_spec(spec, &llm, page, &user);
    (run, llm)
}

fn type_into(r: u32, text: &str) -> String {
    serde_json::json!({"ref": r, "text": text}).to_string()
}

#[test]
fn the_model_reads_a_handle_and_its_own_private_field_gets_the_key() {
    let page = Dashboard::new(&["https://dash.example/settings"]);
    let typed = type_into(1, &format!("key={HANDLE}"));
    let (run, llm) = run_on(&page, &[("type", &typed)]);
    assert_eq!(page.typed(), [format!("key={KEY}")]);
    for text in llm.navigator_texts() {
        assert!(!text.contains("Zq8aXcanary"), "the model read the key: {text}");
        assert!(text.contains(HANDLE), "{text}");
    }
    // What is kept is what the model wrote.
    for entry in &run.journal {
        if let JournalEntry::Intent { action, description, .. } = entry {
            let kept = format!("{action:?} {description}");
            assert!(!kept.contains("Zq8aXcanary") && kept.contains(HANDLE), "journaled: {kept}");
        }
    }
    assert!(run.outcome.steps[0].description.contains(HANDLE), "{:?}", run.outcome.steps);
    // The answer carries the handle; the panel shows the value.
    assert!(run.outcome.answer.contains(HANDLE), "{}", run.outcome.answer);
}

#[test]
fn a_handle_is_refused_on_another_site_in_a_public_area_and_in_an_address() {
    let page = Dashboard::new(&["https://dash.example/settings", "https://paste.example/new"]);
    let (run, _) = run_on(&page, &[("scroll", "{}"), ("type", &type_into(1, HANDLE))]);
    let error = run.outcome.steps[1].outcome.error.clone().unwrap_or_default();
    assert!(
        error.contains("may be typed only on https://dash.example"),
        "{error}: {:#?}",
        run.outcome.steps
    );
    assert!(page.typed().is_empty());

    let page = Dashboard::new(&["https://dash.example/settings"]);
    let (run, _) = run_on(&page, &[("type", &type_into(2, HANDLE))]);
    let error = run.outcome.steps[0].outcome.error.clone().unwrap_or_default();
    assert!(error.contains("where other people can read it"), "{error}");
    assert!(page.typed().is_empty());

    let page = Dashboard::new(&["https://dash.example/settings"]);
    let url = serde_json::json!({"url": format!("https://dash.example/?k={HANDLE}")}).to_string();
    let (run, _) = run_on(&page, &[("navigate", &url)]);
    let error = run.outcome.steps[0].outcome.error.clone().unwrap_or_default();
    assert!(error.contains("can only be typed into a field"), "{error}");
}

/// `cargo xtask bench step` (handles): what concealing costs per model call — the whole
/// navigator prompt of a 300-element page with 40 steps of history, against a ledger of 900
/// tracked values of which 12 are secrets — and what revealing costs per typed handle.
#[test]
#[ignore = "benchmark: run with `cargo xtask bench step`"]
fn bench_handle_overhead() {
    let mut taint = TaintLedger::default();
    for i in 0..888 {
        taint.record_page_text(
            "https://shop.example/orders",
            &format!("Order {}", 40_000_000 + i * 7),
        );
    }
    for i in 0..12 {
        let key = format!("sk-live-Zq8aXcanary{i:02}Lm9Tt{i:02}Pq");
        taint.record_page_text("https://dash.example/keys", &format!("API key: {key}"));
    }
    let mut prompt = String::from("Task: check my keys\nCurrent page:\n<page_content id=1>\n");
    for i in 1..=300 {
        prompt.push_str(&format!("Paragraph {i} of the article, order {}\n", 40_000_000 + i * 7));
        prompt.push_str(&format!("[{i}] link \"Link {i}\"\n"));
    }
    prompt.push_str("Your API key: sk-live-Zq8aXcanary03Lm9Tt03Pq\n</page_content id=1>\n");
    for i in 1..=40 {
        prompt.push_str(&format!("{i}. Click “Link {i}” [{i}] → ok\n"));
    }
    let message = ChatMessage::text(ChatRole::User, prompt.clone());
    let mut conceal = Vec::new();
    for _ in 0..200 {
        let started = std::time::Instant::now();
        let out = conceal_messages(&taint, vec![message.clone()]);
        conceal.push(started.elapsed().as_secs_f64() * 1000.0);
        assert!(!out[0].content.contains("canary03"));
    }
    let mut reveal = Vec::new();
    let handle = taint.handles()[3].to_string();
    for _ in 0..200 {
        let started = std::time::Instant::now();
        let real = taint.reveal(
            &handle,
            "https://dash.example",
            &crate::safety::outbound::Audience::Private,
        );
        reveal.push(started.elapsed().as_secs_f64() * 1000.0);
        assert!(real.is_ok());
    }
    for (what, mut all) in [("conceal the prompt", conceal), ("reveal a typed handle", reveal)] {
        all.sort_by(f64::total_cmp);
        println!(
            "BENCH handles, {what} ({} bytes, 900 values, 12 secrets): n={} median={:.3} ms p90={:.3} ms max={:.3} ms",
            prompt.len(),
            all.len(),
            all[all.len() / 2],
            all[all.len() * 9 / 10],
            all[all.len() - 1]
        );
    }
}
