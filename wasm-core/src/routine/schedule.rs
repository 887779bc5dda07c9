//! When a routine runs next: hourly, daily, on weekdays or weekly at a time of the user's day.
//! Pure arithmetic on milliseconds since the epoch and the user's UTC offset (the worker reads
//! it when it schedules, so a change of daylight saving time is taken at the next run).

use serde::{Deserialize, Serialize};

const MINUTE_MS: f64 = 60_000.0;
const HOUR_MS: f64 = 60.0 * MINUTE_MS;
const DAY_MS: f64 = 24.0 * HOUR_MS;

/// A time of the user's day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeOfDay {
    /// 0–23.
    pub hour: u8,
    /// 0–59.
    pub minute: u8,
}

impl TimeOfDay {
    /// `hour`:`minute`, when both are in range.
    pub fn new(hour: u8, minute: u8) -> Option<Self> {
        (hour < 24 && minute < 60).then_some(Self { hour, minute })
    }

    fn ms(self) -> f64 {
        f64::from(self.hour) * HOUR_MS + f64::from(self.minute) * MINUTE_MS
    }
}

impl std::fmt::Display for TimeOfDay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:02}:{:02}", self.hour, self.minute)
    }
}

/// A day of the week.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Weekday {
    /// Monday.
    Monday,
    /// Tuesday.
    Tuesday,
    /// Wednesday.
    Wednesday,
    /// Thursday.
    Thursday,
    /// Friday.
    Friday,
    /// Saturday.
    Saturday,
    /// Sunday.
    Sunday,
}

impl Weekday {
    /// Days after Monday.
    fn index(self) -> i64 {
        match self {
            Self::Monday => 0,
            Self::Tuesday => 1,
            Self::Wednesday => 2,
            Self::Thursday => 3,
            Self::Friday => 4,
            Self::Saturday => 5,
            Self::Sunday => 6,
        }
    }

    /// The name, for the panel.
    pub fn name(self) -> &'static str {
        match self {
            Self::Monday => "Monday",
            Self::Tuesday => "Tuesday",
            Self::Wednesday => "Wednesday",
            Self::Thursday => "Thursday",
            Self::Friday => "Friday",
            Self::Saturday => "Saturday",
            Self::Sunday => "Sunday",
        }
    }
}

/// How often a routine runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "every", rename_all = "snake_case")]
pub enum Schedule {
    /// Every hour at `minute` past.
    Hour {
        /// 0–59.
        minute: u8,
    },
    /// Every day at a time.
    Day {
        /// When.
        at: TimeOfDay,
    },
    /// Monday to Friday at a time.
    Weekday {
        /// When.
        at: TimeOfDay,
    },
    /// One day a week at a time.
    Week {
        /// Which day.
        day: Weekday,
        /// When.
        at: TimeOfDay,
    },
}

/// The days since the epoch of local time `local_ms`, and the weekday (Monday = 0).
fn day_of(local_ms: f64) -> (f64, i64) {
    let day = (local_ms / DAY_MS).floor();
    // 1970-01-01 was a Thursday (3 days after a Monday).
    let weekday = ((day as i64) + 3).rem_euclid(7);
    (day, weekday)
}

impl Schedule {
    /// The first run strictly after `now_ms`, for a user whose local time is UTC plus
    /// `offset_minutes` (east positive, as `-Date.getTimezoneOffset()`).
    pub fn next_after(&self, now_ms: f64, offset_minutes: i32) -> f64 {
        let offset = f64::from(offset_minutes) * MINUTE_MS;
        let local = now_ms + offset;
        let next_local = match *self {
            Self::Hour { minute } => {
                let minute = f64::from(minute.min(59)) * MINUTE_MS;
                let hour = (local / HOUR_MS).floor() * HOUR_MS;
                let candidate = hour + minute;
                if candidate > local { candidate } else { candidate + HOUR_MS }
            }
            Self::Day { at } => first_day(local, at, |_| true),
            Self::Weekday { at } => first_day(local, at, |weekday| weekday < 5),
            Self::Week { day, at } => first_day(local, at, |weekday| weekday == day.index()),
        };
        next_local - offset
    }

    /// The schedule in words: "every day at 08:00".
    pub fn describe(&self) -> String {
        match self {
            Self::Hour { minute } => format!("every hour at {minute:02} past"),
            Self::Day { at } => format!("every day at {at}"),
            Self::Weekday { at } => format!("on weekdays at {at}"),
            Self::Week { day, at } => format!("every {} at {at}", day.name()),
        }
    }
}

/// The first day from `local`'s (today when its time is still ahead) that `fits`, at `at`.
fn first_day(local: f64, at: TimeOfDay, fits: impl Fn(i64) -> bool) -> f64 {
    let (today, _) = day_of(local);
    (0..8)
        .map(|ahead| (today + f64::from(ahead)) * DAY_MS + at.ms())
        .find(|candidate| *candidate > local && fits(day_of(*candidate).1))
        // Every schedule fits at least one day in eight; a week ahead is the bound.
        .unwrap_or((today + 7.0) * DAY_MS + at.ms())
}
