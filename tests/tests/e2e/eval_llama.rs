//! The evaluation against a real OpenAI-compatible server: llama.cpp's (`llama-cpp-python`)
//! with Gemma 3 270M, from the tools cache. The model cannot do the task; what this proves is
//! the real wire end to end — streamed answers without usage (the host counts the tokens),
//! junk and malformed tool calls — and that the task then ends cleanly: honestly headed,
//! its tokens counted, nothing done that was not reported.

use std::path::Path;
use std::time::Duration;
use waymark_tests::eval::task::{Budget, SuiteName};
use waymark_tests::eval::{self, Model, Options, SKIP_EVAL_TOOLS, llama};
use waymark_tests::paths;
use waymark_tests::trial::{Data, E2e};

fn a_task_against_the_real_llama_cpp_server_ends_cleanly(extension: &Path) {
    assert!(
        llama::installed(),
        "the llama.cpp server is not installed: run `cargo xtask setup --eval` (or set {SKIP_EVAL_TOOLS}=1)"
    );
    let server = llama::LlamaServer::start().expect("llama.cpp server");
    let opts = Options {
        suites: vec![SuiteName::Sites],
        tasks: Some(vec!["offices-table".into()]),
        runs: 1,
        // One step keeps CI short (a call takes tens of seconds on 2 cores); the time budget
        // is a failure bound (the harness then stops the task, which must end as well).
        budget: Budget { steps: 1, time: Duration::from_secs(600) },
        model: Model::Local { base_url: server.base_url(), model: llama::MODEL_NAME.into() },
        role_models: Vec::new(),
        extension: extension.to_path_buf(),
        host: paths::host_binary(),
    };
    let report = eval::evaluate(&opts).expect("evaluation");
    println!("{}", report.markdown());
    let r = &report.results[0];
    let failure = r.failure.clone().unwrap_or_default();
    assert!(
        !failure.contains("did not end"),
        "the task never ended: {failure}\n{}",
        server.log_tail()
    );
    // The real server's calls were counted; llama.cpp streams no usage, so the host counted.
    assert!(r.usage.calls >= 1 && r.usage.input_tokens > 0, "{:?}", r.usage);
    assert!(r.usage.estimated_calls >= 1, "{:?}", r.usage);
    // The heading tells how it ended: never "Finished" for a task the agent did not finish.
    assert!(!r.heading.is_empty(), "{r:?}");
    if !r.agent_success {
        assert!(!r.heading.starts_with("Finished"), "{}", r.heading);
    }
    // The user is told what happened (and what of the model's answer was not done).
    assert!(!r.answer.is_empty(), "{r:?}");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(extension, a_task_against_the_real_llama_cpp_server_ends_cleanly)
            .with_data(Data::EvalTools),
    ]
}
