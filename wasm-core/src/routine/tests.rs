//! Routines against a fake clock: schedules in the user's time zone, findings compared run to
//! run, notifications only when they say something new, missed runs made up once.

use super::*;

/// 2026-11-23 00:00 UTC, a Monday.
const MONDAY: f64 = 1_795_392_000_000.0;
const HOUR: f64 = 3_600_000.0;
const DAY: f64 = 24.0 * HOUR;
const MIN: f64 = 60_000.0;

fn at(hour: u8, minute: u8) -> TimeOfDay {
    TimeOfDay::new(hour, minute).expect("a time")
}

#[test]
fn the_epoch_constant_is_a_monday() {
    // 2026-11-23: 20,780 days after 1970-01-01, a Thursday; 20,780 + 3 ≡ 0 (mod 7).
    assert_eq!(MONDAY / DAY, 20_780.0);
    let weekly = Schedule::Week { day: Weekday::Monday, at: at(0, 0) };
    assert_eq!(weekly.next_after(MONDAY - 1.0, 0), MONDAY);
}

#[test]
fn schedules_run_at_the_users_local_time() {
    let daily = Schedule::Day { at: at(8, 0) };
    assert_eq!(daily.next_after(MONDAY, 0), MONDAY + 8.0 * HOUR);
    assert_eq!(
        daily.next_after(MONDAY + 8.0 * HOUR, 0),
        MONDAY + DAY + 8.0 * HOUR,
        "strictly after"
    );
    // UTC+1: 08:00 local is 07:00 UTC; UTC-5: 13:00 UTC.
    assert_eq!(daily.next_after(MONDAY, 60), MONDAY + 7.0 * HOUR);
    assert_eq!(daily.next_after(MONDAY, -300), MONDAY + 13.0 * HOUR);
    // Late on Sunday in UTC-5 is already Monday in UTC: still Sunday's 08:00 passed → Monday.
    assert_eq!(daily.next_after(MONDAY + 2.0 * HOUR, -300), MONDAY + 13.0 * HOUR);

    let hourly = Schedule::Hour { minute: 15 };
    assert_eq!(hourly.next_after(MONDAY + 10.0 * MIN, 0), MONDAY + 15.0 * MIN);
    assert_eq!(hourly.next_after(MONDAY + 15.0 * MIN, 0), MONDAY + HOUR + 15.0 * MIN);
    // India (UTC+5:30): quarter past local is 45 past in UTC.
    assert_eq!(hourly.next_after(MONDAY, 330), MONDAY + 45.0 * MIN);

    let weekdays = Schedule::Weekday { at: at(9, 30) };
    let friday_evening = MONDAY + 4.0 * DAY + 18.0 * HOUR;
    let next_monday = MONDAY + 7.0 * DAY + 9.5 * HOUR;
    assert_eq!(weekdays.next_after(friday_evening, 0), next_monday, "the weekend is skipped");

    let sundays = Schedule::Week { day: Weekday::Sunday, at: at(20, 0) };
    assert_eq!(sundays.next_after(MONDAY, 0), MONDAY + 6.0 * DAY + 20.0 * HOUR);
    assert_eq!(
        sundays.next_after(MONDAY + 6.0 * DAY + 21.0 * HOUR, 0),
        MONDAY + 13.0 * DAY + 20.0 * HOUR
    );
    assert_eq!(sundays.describe(), "every Sunday at 20:00");
    assert!(TimeOfDay::new(24, 0).is_none() && TimeOfDay::new(7, 60).is_none());
}

fn findings(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
}

fn routine(notify: NotifyWhen) -> Routine {
    let schedule = Schedule::Day { at: at(8, 0) };
    Routine {
        id: "r1".into(),
        name: "Teapot price".into(),
        job: RoutineJob::Workflow { id: "w1".into(), values: BTreeMap::new() },
        start_url: None,
        schedule,
        notify,
        on_card: CardInRun::Wait,
        missed: MissedRuns::RunOnce,
        paused: false,
        next_ms: schedule.next_after(MONDAY, 0),
        history: Vec::new(),
    }
}

fn run(ending: RunEnding, pairs: &[(&str, &str)]) -> RoutineRun {
    RoutineRun {
        started_ms: 0.0,
        duration_ms: 900.0,
        ending,
        answer: match ending {
            RunEnding::Done => "Checked.".into(),
            _ => "the Price column is gone from the page".into(),
        },
        findings: findings(pairs),
        changes: Vec::new(),
        tokens: 0,
    }
}

#[test]
fn a_change_is_told_once_with_what_changed_and_the_first_run_only_records() {
    let mut r = routine(NotifyWhen::Changes);
    let now = MONDAY + 8.0 * HOUR;
    assert_eq!(r.record(run(RunEnding::Done, &[("price", "45.00")]), now, 0), None);
    assert_eq!(r.next_ms, MONDAY + DAY + 8.0 * HOUR, "the next run is scheduled");
    assert_eq!(r.record(run(RunEnding::Done, &[("price", "45.00 ")]), now + DAY, 0), None);
    let told = r
        .record(run(RunEnding::Done, &[("price", "39.99"), ("stock", "3")]), now + 2.0 * DAY, 0)
        .expect("a change");
    assert_eq!(told.title, "Teapot price: when a finding changes");
    assert_eq!(told.message, "price: 45.00 → 39.99\nstock: 3 (new)");
    assert_eq!(r.history.last().expect("run").changes.len(), 2);
}

#[test]
fn a_limit_notifies_when_crossed_not_while_it_stays_crossed() {
    let mut r = routine(NotifyWhen::Below { key: "price".into(), limit: 40.0 });
    assert!(r.record(run(RunEnding::Done, &[("price", "€45,00")]), MONDAY, 0).is_none());
    let told = r.record(run(RunEnding::Done, &[("price", "€39,99")]), MONDAY, 0).expect("below");
    assert_eq!(told.title, "Teapot price: when price drops below 40");
    assert!(told.message.contains("€45,00 → €39,99"), "{}", told.message);
    assert!(r.record(run(RunEnding::Done, &[("price", "€38,00")]), MONDAY, 0).is_none());
    assert!(r.record(run(RunEnding::Done, &[("price", "sold out")]), MONDAY, 0).is_none());
    assert!(r.record(run(RunEnding::Done, &[("price", "€30")]), MONDAY, 0).is_some(), "again");
}

#[test]
fn a_failing_routine_says_so_once_and_again_when_it_works() {
    let mut r = routine(NotifyWhen::Changes);
    r.record(run(RunEnding::Done, &[("price", "45")]), MONDAY, 0);
    let failed = r.record(run(RunEnding::Failed, &[]), MONDAY, 0).expect("the first failure");
    assert_eq!(failed.title, "Teapot price: failed");
    assert!(failed.message.contains("Price column is gone"));
    for _ in 0..5 {
        assert_eq!(r.record(run(RunEnding::Failed, &[]), MONDAY, 0), None, "said once");
    }
    assert_eq!(r.record(run(RunEnding::Stopped, &[]), MONDAY, 0), None);
    let back = r.record(run(RunEnding::Done, &[("price", "45")]), MONDAY, 0).expect("works");
    assert_eq!(back.title, "Teapot price: works again");
    assert_eq!(r.history.last().expect("run").changes, vec![], "compared with the last done run");
}

#[test]
fn history_is_bounded() {
    let mut r = routine(NotifyWhen::EveryRun);
    for i in 0..KEPT_RUNS + 4 {
        let told = r.record(run(RunEnding::Done, &[("n", &i.to_string())]), MONDAY, 0);
        assert!(told.is_some(), "every run is told");
    }
    assert_eq!(r.history.len(), KEPT_RUNS);
    assert_eq!(r.history[0].findings["n"], "4");
}

#[test]
fn missed_runs_are_made_up_once_or_skipped() {
    let mut r = routine(NotifyWhen::Changes);
    let three_days_later = r.next_ms + 3.0 * DAY + HOUR;
    assert!(r.on_start(three_days_later, 0), "one run now for the missed ones");
    r.record(run(RunEnding::Done, &[]), three_days_later, 0);
    assert!(r.next_ms > three_days_later);
    assert!(!r.on_start(three_days_later + MIN, 0), "not twice");

    let mut skip = routine(NotifyWhen::Changes);
    skip.missed = MissedRuns::Skip;
    assert!(!skip.on_start(three_days_later, 0));
    assert_eq!(skip.next_ms, MONDAY + 4.0 * DAY + 8.0 * HOUR, "the next 08:00");
    let mut paused = routine(NotifyWhen::Changes);
    paused.paused = true;
    assert!(!paused.on_start(three_days_later, 0));
}

#[test]
fn numbers_are_read_as_people_write_them() {
    let cases = [
        ("€1,299.00", Some(1299.0)),
        ("1.299,00 €", Some(1299.0)),
        ("39,99", Some(39.99)),
        ("$39.99 (was $45)", Some(39.99)),
        ("1,234,567", Some(1_234_567.0)),
        ("1.234.567", Some(1_234_567.0)),
        ("1 299", Some(1.0)),
        ("12'500", Some(12_500.0)),
        ("-3 °C", Some(-3.0)),
        ("−3", Some(-3.0)),
        ("4.5 stars", Some(4.5)),
        ("sold out", None),
        ("", None),
    ];
    for (text, want) in cases {
        assert_eq!(number_in(text), want, "{text}");
    }
}

proptest::proptest! {
    #![proptest_config(waymark_fuzzgen::config())]
    #[test]
    fn hostile_findings_never_panic(a in waymark_fuzzgen::hostile_short(), b in waymark_fuzzgen::hostile_short()) {
        let _n = number_in(&a);
        let mut r = routine(NotifyWhen::Above { key: a.clone(), limit: 1.0 });
        r.record(run(RunEnding::Done, &[(a.as_str(), b.as_str())]), MONDAY, 0);
        let told = r.record(run(RunEnding::Done, &[(b.as_str(), a.as_str())]), MONDAY, 0);
        if let Some(told) = told {
            proptest::prop_assert!(told.message.chars().count() <= 401);
        }
    }
}
