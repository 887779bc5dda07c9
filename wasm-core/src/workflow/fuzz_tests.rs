//! Property tests over hostile text (`waymark-fuzzgen`) for workflows: importing a file, the
//! templates that carry the user's values, URL patterns and the `run NAME …` prompt. No input
//! may panic; an exported workflow imports back exactly when it is valid, a lone surrogate
//! in a file is refused, a page's pattern matches the page, and a template filled with the
//! values it was made from gives the text back.

#![allow(
    clippy::let_underscore_must_use,
    reason = "a call made only for the panic it must not cause drops its result"
)]

use super::schema::ImportError;
use super::*;
use crate::locate::{is_param_name, param_name_from};
use proptest::prelude::*;
use std::sync::LazyLock;
use waymark_fuzzgen::{config, costly, glued_url, hostile_short, hostile_text, js_string};

/// A real recorded workflow (six steps over two pages), made once: the hostile text goes
/// into its fields.
static RECORDED: LazyLock<Workflow> = LazyLock::new(super::tests::recorded);

fn param_name() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9_]{0,10}"
}

/// A workflow as a hostile file could hold it: every text field hostile.
fn workflow() -> impl Strategy<Value = Workflow> {
    (hostile_short(), hostile_text(), hostile_short(), proptest::collection::vec(hostile_text(), 6))
        .prop_map(|(name, task, label, intents)| {
            let mut w = RECORDED.clone();
            w.name = name;
            w.task = Template(format!("{task} {{{{full_name}}}}"));
            if let Some(p) = w.params.first_mut() {
                p.label = label.clone();
                p.default = Some(label);
            }
            for (step, intent) in w.steps.iter_mut().zip(intents) {
                step.intent = intent;
            }
            w
        })
}

/// Text with the values of `params` in it, between hostile pieces.
fn text_with_values() -> impl Strategy<Value = (String, Vec<(String, String)>)> {
    let value = hostile_short().prop_filter("a value", |v| !v.trim().is_empty());
    let params = proptest::collection::vec((param_name(), value), 1..4).prop_map(|params| {
        // Names made unique: a template names each input once.
        params.into_iter().enumerate().map(|(i, (n, v))| (format!("{n}{i}"), v)).collect::<Vec<_>>()
    });
    params.prop_flat_map(|params| {
        let n = params.len();
        let bits = proptest::collection::vec(
            prop_oneof![hostile_short().prop_map(Err), (0..n).prop_map(Ok)],
            0..8,
        );
        (Just(params), bits).prop_map(|(params, bits)| {
            let text: String = bits
                .into_iter()
                .map(|b| match b {
                    Ok(i) => params[i].1.clone(),
                    Err(t) => t,
                })
                .collect();
            (text, params)
        })
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn fuzz_workflow_import_text(text in hostile_text()) {
        let _ = import_json(&text);
        let _ = import_json(&format!(r#"{{"schema_version":1,"name":{text:?}}}"#));
    }

    #[test]
    fn fuzz_workflow_templates((text, params) in text_with_values(), min_len in 1usize..4, label in hostile_short()) {
        let template = Template::from_text(&text, &params, min_len);
        prop_assert!(template.params().iter().all(|p| is_param_name(p)));
        let values: BTreeMap<String, String> = params.iter().cloned().collect();
        if !text.contains(['{', '}']) && params.iter().all(|(_, v)| !v.contains(['{', '}'])) {
            let filled = template.fill(&values);
            prop_assert_eq!(filled.to_lowercase(), text.to_lowercase(), "{:?}", template);
        }
        let renamed = template.rename(&params[0].0, "renamed");
        prop_assert!(!renamed.params().contains(&params[0].0.as_str()) || params[0].0 == "renamed");
        let name = param_name_from(&label, "input");
        prop_assert!(is_param_name(&name) || name == "input");
    }

    #[test]
    fn fuzz_workflow_patterns(page in glued_url(), other in prop_oneof![glued_url(), hostile_short()]) {
        if let Some(pattern) = UrlPattern::of_page(&page) {
            prop_assert!(pattern.matches(&page), "{pattern} against {page:?}");
            let _ = pattern.concrete();
            let back = UrlPattern::try_from(pattern.to_string());
            prop_assert_eq!(back.as_ref(), Ok(&pattern), "{}", pattern);
            let _ = pattern.matches(&other);
        }
        let _ = UrlPattern::try_from(other);
    }

    #[test]
    fn fuzz_workflow_run_prompt(names in proptest::collection::vec(hostile_short(), 1..4), args in hostile_text(), pick in any::<proptest::sample::Index>()) {
        let metas: Vec<WorkflowMeta> = names
            .iter()
            .enumerate()
            .map(|(i, name)| WorkflowMeta {
                id: format!("wf{i}"),
                name: name.clone(),
                params: vec!["when".into(), format!("p{i}")].into_iter().take(i + 1).collect(),
                ..WorkflowMeta::default()
            })
            .collect();
        let name = pick.get(&names);
        for prompt in [format!("run {name}{args}"), format!("Run the workflow “{name}” {args}"), args.clone()] {
            let _ = parse_run_prompt(&prompt, &metas);
        }
    }
}

proptest! {
    #![proptest_config(config())]

    /// What the user showed: the page's text (names, headings), the values they typed and the
    /// addresses they loaded are hostile; no step may panic, and the draft is valid.
    #[test]
    fn fuzz_demonstration(name in hostile_short(), heading in hostile_text(), typed in hostile_text(), url in glued_url(), option in hostile_short()) {
        use waymark_page::observation::{Element, Item, Observation, Ref};
        use waymark_page::demonstration::{Demonstrated, DemonstratedAct};
        let observation = Observation {
            url: format!("https://shop.example/{url}"),
            items: vec![
                Item::Text { text: heading, heading: Some(2), zone: Default::default() },
                Item::Element(Element { ref_id: Ref::top(1), role: "textbox".into(), name: name.clone(), ..Element::default() }),
                Item::Element(Element { ref_id: Ref::top(2), role: "combobox".into(), name, ..Element::default() }),
            ],
            ..Observation::default()
        };
        let mut demo = Demonstration::start(1, &url, 0.0);
        let acts = [
            (1, DemonstratedAct::Type { text: typed }),
            (2, DemonstratedAct::Choose { option }),
            (1, DemonstratedAct::TypeSecret),
            (1, DemonstratedAct::Press { keys: "Enter".into() }),
        ];
        for (index, act) in acts {
            let shown = Demonstrated { observation: observation.clone(), target: Ref::top(index), act, destination: Some(url.clone()) };
            let _ = demo.add(&shown);
        }
        let _ = demo.navigated(&url);
        let _ = crate::panel::recording::view(&demo, false);
        if let Ok(w) = demo.finish("f".into(), 0.0) {
            prop_assert!(w.params.iter().all(|p| is_param_name(&p.name)));
        }
    }
}

proptest! {
    #![proptest_config(costly(2))]

    #[test]
    fn fuzz_workflow_import_round_trip(w in workflow(), js in js_string()) {
        let exported = export_json(&w);
        let expected = validate(&w).map(|()| w.clone()).map_err(ImportError::Invalid);
        prop_assert_eq!(import_json(&exported), expected);
        // The name as `JSON.stringify` writes a JavaScript string with lone surrogates.
        let mut value: serde_json::Value = serde_json::from_str(&exported).map_err(|e| TestCaseError::fail(e.to_string()))?;
        value["name"] = serde_json::Value::String("\u{0}NAME\u{0}".into());
        let text = value.to_string().replace(r#""\u0000NAME\u0000""#, &js.json_literal(false));
        match import_json(&text) {
            Ok(imported) => prop_assert_eq!(imported.name, js.lossy()),
            Err(ImportError::NotJson(_)) => prop_assert!(js.has_lone_surrogate()),
            Err(other) => prop_assert!(!js.has_lone_surrogate(), "{other}"),
        }
    }
}

// Crashes the properties found or their generators aim at, each as its minimal input.

/// `İ` grows and `ẞ` shrinks when lower-cased, so the lower-case copy has the text's length
/// but not its character boundaries: the end of a value found in the copy fell inside the `ẞ`.
#[test]
fn a_value_beside_characters_whose_case_changes_their_width_is_matched_on_the_text() {
    let values = [("name".to_owned(), "ab".to_owned())];
    assert_eq!(Template::from_text("İabẞ", &values, 1).as_str(), "İabẞ", "inside a word");
    let template = Template::from_text("İ AB ẞ", &values, 1);
    assert_eq!(template.as_str(), "İ {{name}} ẞ");
    assert_eq!(template.fill(&values.into_iter().collect()), "İ ab ẞ");
}
