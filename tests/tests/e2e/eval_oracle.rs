//! The evaluation harness end to end with the oracle navigators (CI's subset): the suites run
//! through the real extension and host, the oracles choose refs by name from the observation
//! the model is sent, and each task's own check decides. A task passes exactly when it has no
//! known defect, so a regression (an element missing or unnamed, an action without effect)
//! fails here, and so does a fixed defect whose flag was not flipped.

use std::path::Path;
use std::time::Duration;
use waymark_tests::eval::report::Report;
use waymark_tests::eval::task::{Budget, SuiteName};
use waymark_tests::eval::{self, Model, Options, SKIP_EVAL_TOOLS, miniwob};
use waymark_tests::trial::{Data, E2e};
use waymark_tests::{libzoo, paths};

fn options(suite: SuiteName, extension: &Path) -> Options {
    Options {
        suites: vec![suite],
        tasks: None,
        runs: 1,
        // Failure bounds only: the oracle needs a handful of steps and seconds.
        budget: Budget { steps: 15, time: Duration::from_secs(120) },
        model: Model::Oracle,
        role_models: Vec::new(),
        extension: extension.to_path_buf(),
        host: paths::host_binary(),
    }
}

/// Every task succeeds unless it is flagged as a known defect, which must still fail.
fn assert_as_known(report: &Report) {
    println!("{}", report.markdown());
    assert!(!report.results.is_empty());
    for r in &report.results {
        match &r.known_failure {
            None => assert!(
                r.success,
                "{}/{} failed: {:?}\n{:#?}",
                r.suite, r.task, r.failure, r.timeline
            ),
            Some(why) => assert!(
                !r.success,
                "{}/{} succeeds now: its known defect ({why}) is fixed — drop the flag",
                r.suite, r.task
            ),
        }
    }
}

fn the_sites_suite_with_the_oracle(extension: &Path) {
    let report = eval::evaluate(&options(SuiteName::Sites, extension)).expect("evaluation");
    assert_as_known(&report);
    // The session's third task acted on the first one's finding (from the notes only).
    let third = report.results.iter().find(|r| r.task == "team-3-message").expect("team-3");
    assert!(third.timeline.iter().any(|s| s.contains("E-2044")), "{:?}", third.timeline);
    // Usage is counted per task (the scripted server reports it).
    assert!(report.results.iter().all(|r| r.usage.calls > 0 && r.usage.input_tokens > 0));
    // The upload's confirmation card was approved by the harness, as the user would.
    let upload = report.results.iter().find(|r| r.task == "upload").expect("upload");
    assert!(upload.approvals >= 1, "{upload:?}");
}

fn the_widgets_suite_with_the_oracle(extension: &Path) {
    let report = eval::evaluate(&options(SuiteName::Widgets, extension)).expect("evaluation");
    assert_eq!(report.results.len(), eval::widgets::tasks().len());
    assert_as_known(&report);
    // The canvas task is done by saying it cannot be, never by claiming success.
    let canvas = report.results.iter().find(|r| r.task == "canvas").expect("canvas");
    assert!(!canvas.agent_success && canvas.answer.contains("canvas"), "{canvas:?}");
}

fn a_miniwob_subset_with_the_oracle(extension: &Path) {
    assert!(
        miniwob::html_dir().join("core/core.js").is_file(),
        "no MiniWoB pages in {}: run `cargo xtask setup --eval` (or set {SKIP_EVAL_TOOLS}=1)",
        miniwob::html_dir().display()
    );
    let report = eval::evaluate(&options(SuiteName::MiniWob, extension)).expect("evaluation");
    assert_eq!(report.results.len(), miniwob::ORACLE_TASKS.len());
    assert_as_known(&report);
    // Passwords are typed by the user at Waymark's take-over card, as designed.
    for task in ["enter-password", "login-user"] {
        let r = report.results.iter().find(|r| r.task == task).expect("password task");
        assert!(r.by_hand >= 1, "{task}: {r:?}");
    }
}

fn the_libs_suite_with_the_oracle(extension: &Path) {
    libzoo::require();
    let report = eval::evaluate(&options(SuiteName::Libs, extension)).expect("evaluation");
    assert_eq!(report.results.len(), eval::libs::tasks().len());
    assert_as_known(&report);
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(extension, the_sites_suite_with_the_oracle),
        e2e!(extension, the_widgets_suite_with_the_oracle),
        e2e!(extension, a_miniwob_subset_with_the_oracle).with_data(Data::EvalTools),
        e2e!(extension, the_libs_suite_with_the_oracle).with_data(Data::EvalTools),
    ]
}
