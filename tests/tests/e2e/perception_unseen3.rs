//! Widgets of the zoo's third round (issue 27): libraries no earlier fix was written against —
//! Mantine 7, Bootstrap 5, jQuery UI 1.14 and Select2 4.1 — in real Chromium. Each assertion
//! failed before the fix of its class (named per assertion); the `libs` evaluation drives the
//! same pages through the agent and checks what each library holds.

use crate::perception_support;
use perception_support::{Zoo, must_ref, ok, posted, ref_of};
use serde_json::json;
use std::path::Path;
use std::time::Duration;
use waymark_tests::libzoo;
use waymark_tests::trial::{Data, E2e};

fn launch(extension: &Path) -> Zoo {
    libzoo::require();
    Zoo::launch_serving(extension, libzoo::serve().expect("libzoo")).expect("launch")
}

fn open(zoo: &Zoo, path: &str, ready: &str) -> i32 {
    let (page, tab) = zoo.open(path).expect("open");
    page.wait_for(&format!("document.querySelector({ready:?}) !== null"), Duration::from_secs(30))
        .expect("the library drew its widgets");
    tab
}

fn observe(zoo: &Zoo, tab: i32) -> String {
    zoo.observe(tab).expect("observe").0
}

fn probe_round_three(extension: &Path) {
    let zoo = launch(extension);
    for (page, ready) in [
        ("/mantine.html", ".mantine-Rating-root"),
        ("/bootstrap.html", ".toast.show"),
        ("/jqueryui.html", ".ui-slider-handle"),
        ("/select2.html", ".select2-container"),
    ] {
        let tab = open(&zoo, page, ready);
        std::thread::sleep(Duration::from_millis(500));
        eprintln!("===== {page}\n{}", observe(&zoo, tab));
    }
    let _ = (must_ref, ok, posted, ref_of, json!(1));
    panic!("probe");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![e2e!(test_hooks, probe_round_three).with_data(Data::EvalTools)]
}
