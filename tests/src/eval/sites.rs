//! The `sites` suite: multi-page tasks on the fixture site `tests/fixtures/eval/` — a form
//! over two pages, search and compare, a table to extract, an upload, and a three-task
//! session whose last task needs the first one's findings — each with its own check and an
//! oracle navigator.

use super::oracle::{Oracle, Script, Step, Target};
use super::seen::Seen;
use super::task::{Check, EvalTask, Prompt, SuiteName};
use std::path::PathBuf;

/// The fixture site's root.
pub fn root() -> PathBuf {
    crate::paths::fixtures_dir().join("eval")
}

fn task(id: &str, start: &str, prompt: &str, check: Check) -> EvalTask {
    EvalTask {
        id: id.to_owned(),
        suite: SuiteName::Sites,
        start: start.to_owned(),
        prompt: Prompt::Fixed(prompt.to_owned()),
        resources: Vec::new(),
        check,
        session: None,
        known_failure: None,
        by_hand: None,
    }
}

/// Serves the site, with the classic forms' POST endpoints redirecting (303) to their
/// confirmation pages (`?to=`).
pub fn serve() -> anyhow::Result<crate::fixture_server::FixtureServer> {
    let site = crate::fixture_server::FixtureServer::start(root())?;
    site.add_redirect("/api/message", 303);
    site.add_redirect("/api/upload", 303);
    Ok(site)
}

fn sent(path: &str, fields: &[(&str, &str)]) -> Check {
    Check::Sent {
        path: path.to_owned(),
        fields: fields.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect(),
    }
}

fn answer(words: &[&str]) -> Check {
    Check::Answer(words.iter().map(|w| (*w).to_owned()).collect())
}

/// Every task of the suite, in the order they run.
pub fn tasks() -> Vec<EvalTask> {
    let mut upload = task(
        "upload",
        "/upload.html",
        "Send the attached file expenses.csv as the November expense report.",
        Check::Received {
            path: "/api/upload".into(),
            contains: vec!["EVAL-EXPENSES-7731".into(), "November".into(), "expenses.csv".into()],
        },
    );
    upload.resources.push(("expenses.csv".into(), root().join("files").join("expenses.csv")));
    let team = |id: &str, start: &str, prompt: &str, check: Check| EvalTask {
        session: Some("team"),
        ..task(id, start, prompt, check)
    };
    vec![
        task(
            "signup",
            "/signup.html",
            "Create an account for Ada Lovelace (ada@example.org) on the Pro plan, with the \
             postal address 12 Analytical Row, London, accepting the terms.",
            sent(
                "/api/signup",
                &[
                    ("name", "Ada Lovelace"),
                    ("email", "ada@example.org"),
                    ("plan", "pro"),
                    ("address", "12 Analytical Row"),
                    ("terms", "yes"),
                ],
            ),
        ),
        task(
            "shop-compare",
            "/shop.html",
            "Search this shop for kettles and find the cheapest kettle rated at least 4 stars. \
             Tell me its name and price.",
            answer(&["Steelbrew", "34.50"]),
        ),
        task(
            "offices-table",
            "/offices.html",
            "List the manager and headcount of every office in the APAC region.",
            answer(&["Mei Tan", "57", "Olivia Hart", "29", "Kenji Sato", "22"]),
        ),
        upload,
        team(
            "team-1-lead",
            "/directory.html",
            "Who leads the Data team? Give their name and employee ID.",
            answer(&["Grace Hopper", "E-2044"]),
        ),
        team(
            "team-2-closure",
            "/holidays.html",
            "On which date in December is the office closed?",
            answer(&["24 December"]),
        ),
        team(
            "team-3-message",
            "/message.html",
            "Send the Data team lead from my first question a message with the subject \
             Closure, telling them the office is closed on the December date you found.",
            sent(
                "/api/message",
                &[("recipient", "E-2044"), ("subject", "Closure"), ("body", "24 December")],
            ),
        ),
        task(
            "contact-fetch",
            "/contact.html",
            "Tell support that the printer on floor 3 is jammed (topic: Printer).",
            sent("/api/support", &[("topic", "Printer"), ("details", "floor 3")]),
        ),
    ]
}

/// The oracle navigator of task `id`.
pub fn oracle(id: &str) -> Option<Box<dyn Oracle>> {
    let script: Script = match id {
        "signup" => Script::new(vec![
            Step::Type(Target::named("textbox", "Full name"), "Ada Lovelace".into()),
            Step::Type(Target::named("textbox", "Email"), "ada@example.org".into()),
            Step::Click(Target::named("button", "Next")),
            Step::Select(Target::named("combobox", "Plan"), "Pro".into()),
            Step::Type(
                Target::named("textbox", "Postal address"),
                "12 Analytical Row, London".into(),
            ),
            Step::Check(Target::named("checkbox", "I accept the terms")),
            Step::Click(Target::named("button", "Create account")),
            Step::Answer(Box::new(|seen| status(seen, "Welcome"))),
        ]),
        "shop-compare" => return Some(Box::new(Compare::default())),
        "offices-table" => Script::new(vec![Step::Answer(Box::new(apac_offices))]),
        "upload" => Script::new(vec![
            Step::Upload(Target::named("file", "Expense report (CSV)"), "expenses.csv".into()),
            Step::Click(Target::named("button", "Send report")),
            Step::Answer(Box::new(|seen| status(seen, "Received your report"))),
        ]),
        "team-1-lead" => Script::new(vec![Step::Answer(Box::new(|seen| {
            let line = seen
                .text
                .iter()
                .position(|l| l.contains("Team: Data") && l.contains("Role: Lead"))
                .ok_or("no line names the Data team's lead")?;
            let name = seen.text[..line]
                .iter()
                .rev()
                .find_map(|l| l.strip_prefix("## "))
                .ok_or("the lead's card has no heading")?;
            let id = id_in(&seen.text[line]).ok_or("the lead's card has no employee ID")?;
            Ok(format!("{name} leads the Data team; employee ID {id}."))
        }))]),
        "team-2-closure" => Script::new(vec![Step::Answer(Box::new(|seen| {
            seen.text
                .iter()
                .find_map(|l| date_in(l).filter(|d| d.ends_with("December")))
                .map(|d| format!("The office is closed on {d}."))
                .ok_or_else(|| "no December closure on the page".to_owned())
        }))]),
        "team-3-message" => Script::planned(|seen| {
            // From the session notes only: the page does not know who or when.
            let id = id_in(&seen.notes).ok_or("the session notes have no employee ID")?;
            let date = seen
                .notes
                .lines()
                .find_map(|l| date_in(l).filter(|d| d.ends_with("December")))
                .ok_or("the session notes have no December date")?;
            Ok(vec![
                Step::Type(Target::named("textbox", "To (employee ID)"), id),
                Step::Type(Target::named("textbox", "Subject"), "Closure".into()),
                Step::Type(
                    Target::named("textbox", "Message"),
                    format!("The office is closed on {date}."),
                ),
                Step::Click(Target::named("button", "Send message")),
                Step::Answer(Box::new(|seen| status(seen, "Message sent"))),
            ])
        }),
        "contact-fetch" => Script::new(vec![
            Step::Type(Target::named("textbox", "Topic"), "Printer".into()),
            Step::Type(
                Target::named("textbox", "Details"),
                "The printer on floor 3 is jammed.".into(),
            ),
            Step::Click(Target::named("button", "Send to support")),
            Step::Answer(Box::new(|seen| status(seen, "Sent to support"))),
        ]),
        _ => return None,
    };
    Some(Box::new(script))
}

/// The page's status line starting with `start`, as the answer.
fn status(seen: &Seen, start: &str) -> Result<String, String> {
    seen.text
        .iter()
        .find(|l| l.starts_with(start))
        .cloned()
        .ok_or_else(|| format!("the page shows no line starting {start:?} after the last action"))
}

/// `E-2044` in a line.
fn id_in(text: &str) -> Option<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .find(|w| w.len() > 2 && w.starts_with("E-") && w[2..].chars().all(|c| c.is_ascii_digit()))
        .map(str::to_owned)
}

/// `24 December` in a line.
fn date_in(text: &str) -> Option<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    const MONTHS: [&str; 3] = ["October", "December", "January"];
    words.windows(2).find_map(|w| {
        let month = w[1].trim_end_matches(|c: char| !c.is_alphabetic());
        (w[0].chars().all(|c| c.is_ascii_digit()) && MONTHS.contains(&month))
            .then(|| format!("{} {month}", w[0]))
    })
}

/// The rows of the offices table whose region is APAC, read from the page's text lines
/// (each row is one line whatever the separators).
fn apac_offices(seen: &Seen) -> Result<String, String> {
    let rows: Vec<String> = seen
        .text
        .iter()
        .filter(|l| l.contains("APAC"))
        .map(|l| {
            let cells: Vec<&str> =
                l.split(['|', '\t']).map(str::trim).filter(|c| !c.is_empty()).collect();
            match cells.as_slice() {
                [office, _, manager, headcount, ..] => {
                    format!("{office}: {manager}, headcount {headcount}")
                }
                _ => l.clone(),
            }
        })
        .collect();
    if rows.len() != 3 {
        return Err(format!("expected 3 APAC rows in the page text, found {}", rows.len()));
    }
    Ok(rows.join("; "))
}

/// The search-and-compare oracle: searches, opens each kettle from the results, notes its
/// price and rating from the product page, goes back, and answers with the cheapest kettle
/// rated 4 or more.
#[derive(Default)]
struct Compare {
    searched: bool,
    to_visit: Option<Vec<String>>,
    opened: Option<String>,
    seen_products: Vec<(String, f64, f64)>,
}

impl Oracle for Compare {
    fn next(&mut self, seen: &Seen) -> super::oracle::Move {
        use super::oracle::Move;
        let fail = |why: String| Move::Done {
            answer: format!("Oracle cannot go on: {why}"),
            success: false,
        };
        if !self.searched {
            self.searched = true;
            let Some(field) = seen.find("textbox", "Search products") else {
                return fail(format!("no search field ({})", seen.inventory()));
            };
            return Move::Act(
                "type",
                serde_json::json!({"ref": field.reference, "text": "kettle"}),
            );
        }
        if self.to_visit.is_none() {
            if let Some(button) =
                seen.find("button", "Search").filter(|_| !seen.url.contains("search.html"))
            {
                return Move::Act("click", serde_json::json!({"ref": button.reference}));
            }
            let links: Vec<String> = seen
                .all_of("link")
                .into_iter()
                .filter(|l| l.name.contains("Kettle"))
                .map(|l| l.name.clone())
                .collect();
            if links.is_empty() {
                return fail(format!("no kettle among the results ({})", seen.inventory()));
            }
            self.to_visit = Some(links);
        }
        if let Some(name) = self.opened.take() {
            let number = |label: &str| {
                super::oracle::value_after(seen, label).and_then(|v| {
                    v.trim_start_matches('$').split_whitespace().next()?.parse::<f64>().ok()
                })
            };
            let (Some(price), Some(rating)) = (number("Price:"), number("Rating:")) else {
                return fail(format!("the page of {name} shows no price or rating"));
            };
            self.seen_products.push((name, price, rating));
            return Move::Act("navigate", serde_json::json!({"history": "back"}));
        }
        let next = self.to_visit.as_mut().and_then(|v| (!v.is_empty()).then(|| v.remove(0)));
        if let Some(name) = next {
            let Some(link) = seen.find("link", &name) else {
                return fail(format!("the results no longer list {name:?} ({})", seen.inventory()));
            };
            let reference = link.reference.clone();
            self.opened = Some(name);
            return Move::Act("click", serde_json::json!({"ref": reference}));
        }
        let best = self
            .seen_products
            .iter()
            .filter(|(_, _, rating)| *rating >= 4.0)
            .min_by(|a, b| a.1.total_cmp(&b.1));
        match best {
            Some((name, price, _)) => Move::Done {
                answer: format!(
                    "The cheapest kettle rated 4 stars or more is {name} at ${price:.2}."
                ),
                success: true,
            },
            None => fail("no kettle is rated 4 or more".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_task_has_an_oracle_and_its_start_page_exists() {
        for t in tasks() {
            assert!(oracle(&t.id).is_some(), "{}", t.id);
            assert!(root().join(t.start.trim_start_matches('/')).is_file(), "{}", t.start);
            for (_, file) in &t.resources {
                assert!(file.is_file(), "{}", file.display());
            }
        }
    }

    #[test]
    fn ids_and_dates_are_read_from_prose() {
        assert_eq!(
            id_in("Team: Data · Role: Lead · Employee ID: E-2044").as_deref(),
            Some("E-2044")
        );
        assert_eq!(id_in("no id here, E-x").as_deref(), None);
        assert_eq!(date_in("Closed on 24 December: winter break.").as_deref(), Some("24 December"));
    }
}
