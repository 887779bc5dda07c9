//! The value formats of typed inputs (`date`, `time`, `number`, `range`, `color`…): shown to
//! the model so it knows what a field takes, and used to write what it typed in the one form
//! the browser accepts. A date field given "15/03/2024" silently stays empty; written as
//! "2024-03-15" it takes it. Anything not understood is refused in words, never guessed.

/// Why a typed value could not be written in its field's format: the field's kind and the
/// text, with the [`Problem`] found in it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// The text is not in (or cannot be turned into) the field's format.
    #[error("“{text}” is not a {} ({problem})", kind.hint())]
    Unreadable {
        /// The text as given (trimmed).
        text: String,
        /// The field's kind.
        kind: FieldKind,
        /// What is wrong with the text.
        problem: Problem,
    },
    /// A `datetime-local` value's date or time part could not be read: said without the
    /// whole text, as the model has always read it.
    #[error("{0}")]
    DateTime(Problem),
}

/// What is wrong with a text given for a formatted field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    /// A date-time without a word holding a colon.
    #[error("give a date and a time")]
    NoTime,
    /// A month number outside 1–12.
    #[error("there is no month {0}")]
    NoSuchMonth(u32),
    /// A day the month does not have.
    #[error("month {month} of {year} has no day {day}")]
    NoSuchDay {
        /// The year.
        year: u32,
        /// The month (1–12).
        month: u32,
        /// The day asked for.
        day: u32,
    },
    /// A part that should be a whole number is not.
    #[error("“{0}” is not a number")]
    NotWhole(String),
    /// A date with other than three parts.
    #[error("expected a day, a month and a year")]
    NotThreeParts,
    /// A date with a two-digit year.
    #[error("write the year with four digits")]
    ShortYear,
    /// Day and month both 12 or less, slash-separated.
    #[error("day and month could be either way round; write YYYY-MM-DD")]
    Ambiguous,
    /// A time without hours and minutes.
    #[error("expected hours and minutes")]
    NoHoursMinutes,
    /// An am/pm time whose hour is not 1–12.
    #[error("a 12-hour time runs from 1 to 12")]
    TwelveHour,
    /// A time or week outside its range.
    #[error("out of range")]
    OutOfRange,
    /// A month value without a month and a four-digit year.
    #[error("expected a month and a four-digit year")]
    NoMonthYear,
    /// A week value without `-W`.
    #[error("expected YYYY-Www")]
    NoWeek,
    /// Not a number at all.
    #[error("not a number")]
    NotNumber,
    /// `rgb()` with a part that is not 0–255.
    #[error("bad rgb()")]
    BadRgb,
    /// `rgb()` with other than three numbers.
    #[error("rgb() takes three numbers")]
    RgbNotThree,
    /// Neither a colour name nor hex digits of the right length.
    #[error("not a colour name or #rrggbb")]
    NotColour,
}

/// An input whose value has a fixed format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// `type=date`: `YYYY-MM-DD`.
    Date,
    /// `type=time`: `HH:MM` (or `HH:MM:SS`).
    Time,
    /// `type=datetime-local`: `YYYY-MM-DDTHH:MM`.
    DateTimeLocal,
    /// `type=month`: `YYYY-MM`.
    Month,
    /// `type=week`: `YYYY-Www`.
    Week,
    /// `type=number`.
    Number,
    /// `type=range`: a number between min and max.
    Range,
    /// `type=color`: `#rrggbb`.
    Color,
}

impl FieldKind {
    /// The kind of an input `type` (lower case), if its value has a fixed format.
    pub fn of(input_type: &str) -> Option<Self> {
        Some(match input_type {
            "date" => Self::Date,
            "time" => Self::Time,
            "datetime-local" => Self::DateTimeLocal,
            "month" => Self::Month,
            "week" => Self::Week,
            "number" => Self::Number,
            "range" => Self::Range,
            "color" => Self::Color,
            _ => return None,
        })
    }

    /// The format the model sees on the element's line.
    pub fn hint(self) -> &'static str {
        match self {
            Self::Date => "date YYYY-MM-DD",
            Self::Time => "time HH:MM",
            Self::DateTimeLocal => "datetime YYYY-MM-DDTHH:MM",
            Self::Month => "month YYYY-MM",
            Self::Week => "week YYYY-Www",
            Self::Number => "number",
            Self::Range => "range",
            Self::Color => "color #rrggbb",
        }
    }

    /// The word on the element's line that tells the model the field's format.
    pub fn state(self) -> &'static str {
        match self {
            Self::Date => "format=YYYY-MM-DD",
            Self::Time => "format=HH:MM",
            Self::DateTimeLocal => "format=YYYY-MM-DDTHH:MM",
            Self::Month => "format=YYYY-MM",
            Self::Week => "format=YYYY-Www",
            Self::Number => "type=number",
            Self::Range => "type=range",
            Self::Color => "format=#rrggbb",
        }
    }

    /// `text` written in the format the field accepts, or why it cannot be.
    pub fn normalise(self, text: &str) -> Result<String, FormatError> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(String::new());
        }
        let out = match self {
            Self::Date => date(text),
            Self::Time => time(text),
            Self::DateTimeLocal => {
                let (d, t) = match text.split_once('T') {
                    Some((d, t)) => (d.to_owned(), t.to_owned()),
                    None => {
                        // The time starts at the first word with a colon: "March 5, 2024 2:30 pm".
                        let words: Vec<&str> = text.split_whitespace().collect();
                        let at = words
                            .iter()
                            .position(|w| w.contains(':'))
                            .ok_or(FormatError::DateTime(Problem::NoTime))?;
                        (words[..at].join(" "), words[at..].join(" "))
                    }
                };
                let day = date(d.trim_end_matches([',', ' '])).map_err(FormatError::DateTime)?;
                Ok(format!("{day}T{}", time(&t).map_err(FormatError::DateTime)?))
            }
            Self::Month => month(text),
            Self::Week => week(text),
            Self::Number | Self::Range => number(text),
            Self::Color => color(text),
        };
        out.map_err(|problem| FormatError::Unreadable {
            text: text.to_owned(),
            kind: self,
            problem,
        })
    }
}

const MONTHS: [&str; 12] =
    ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

fn month_named(word: &str) -> Option<u32> {
    let word = word.trim_end_matches('.').to_ascii_lowercase();
    if word.len() < 3 {
        return None;
    }
    MONTHS.iter().position(|m| word.starts_with(m)).map(|i| i as u32 + 1)
}

fn days_in(year: u32, month: u32) -> u32 {
    match month {
        2 if (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn ymd(year: u32, month: u32, day: u32) -> Result<String, Problem> {
    if !(1..=12).contains(&month) {
        return Err(Problem::NoSuchMonth(month));
    }
    if day == 0 || day > days_in(year, month) {
        return Err(Problem::NoSuchDay { year, month, day });
    }
    Ok(format!("{year:04}-{month:02}-{day:02}"))
}

fn num(part: &str) -> Result<u32, Problem> {
    let part = part.trim().trim_end_matches(|c: char| c.is_ascii_alphabetic() && c != 'T');
    part.parse().map_err(|_| Problem::NotWhole(part.to_owned()))
}

fn date(text: &str) -> Result<String, Problem> {
    let parts: Vec<&str> = text
        .split(|c: char| c == '-' || c == '/' || c == '.' || c == ',' || c.is_whitespace())
        .filter(|p| !p.is_empty())
        .collect();
    if parts.len() != 3 {
        return Err(Problem::NotThreeParts);
    }
    // Month written as a word: "March 15 2024", "15 March 2024".
    if let Some(m) = month_named(parts[0]) {
        return ymd(num(parts[2])?, m, num(parts[1])?);
    }
    if let Some(m) = month_named(parts[1]) {
        return ymd(num(parts[2])?, m, num(parts[0])?);
    }
    let [a, b, c] = [num(parts[0])?, num(parts[1])?, num(parts[2])?];
    if parts[0].len() == 4 {
        return ymd(a, b, c);
    }
    if parts[2].len() != 4 {
        return Err(Problem::ShortYear);
    }
    let dotted = text.contains('.');
    match (a > 12, b > 12) {
        (true, false) => ymd(c, b, a),
        (false, true) => ymd(c, a, b),
        // Dots are the day-first convention (15.03.2024); slashes are ambiguous.
        _ if dotted || a == b => ymd(c, b, a),
        _ => Err(Problem::Ambiguous),
    }
}

fn time(text: &str) -> Result<String, Problem> {
    let lower = text.to_ascii_lowercase().replace('.', "");
    let (body, pm) = if let Some(b) = lower.strip_suffix("pm") {
        (b.trim(), Some(true))
    } else if let Some(b) = lower.strip_suffix("am") {
        (b.trim(), Some(false))
    } else {
        (lower.trim(), None)
    };
    let parts: Vec<&str> = body.split([':', 'h']).filter(|p| !p.is_empty()).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(Problem::NoHoursMinutes);
    }
    let mut hour = num(parts[0])?;
    let minute = parts.get(1).map(|m| num(m)).transpose()?.unwrap_or(0);
    let second = parts.get(2).map(|s| num(s)).transpose()?;
    match pm {
        Some(_) if hour == 0 || hour > 12 => return Err(Problem::TwelveHour),
        Some(true) if hour != 12 => hour += 12,
        Some(false) if hour == 12 => hour = 0,
        _ => {}
    }
    if hour > 23 || minute > 59 || second.is_some_and(|s| s > 59) {
        return Err(Problem::OutOfRange);
    }
    Ok(match second {
        Some(s) => format!("{hour:02}:{minute:02}:{s:02}"),
        None => format!("{hour:02}:{minute:02}"),
    })
}

fn month(text: &str) -> Result<String, Problem> {
    let parts: Vec<&str> = text
        .split(|c: char| c == '-' || c == '/' || c == '.' || c.is_whitespace())
        .filter(|p| !p.is_empty())
        .collect();
    let (year, month) = match parts.as_slice() {
        [a, b] if a.len() == 4 => (num(a)?, month_named(b).map_or_else(|| num(b), Ok)?),
        [a, b] if b.len() == 4 => (num(b)?, month_named(a).map_or_else(|| num(a), Ok)?),
        _ => return Err(Problem::NoMonthYear),
    };
    if !(1..=12).contains(&month) {
        return Err(Problem::NoSuchMonth(month));
    }
    Ok(format!("{year:04}-{month:02}"))
}

fn week(text: &str) -> Result<String, Problem> {
    let upper = text.to_ascii_uppercase().replace(' ', "");
    let (year, week) = upper.split_once("-W").ok_or(Problem::NoWeek)?;
    let (year, week) = (num(year)?, num(week)?);
    if year < 1000 || !(1..=53).contains(&week) {
        return Err(Problem::OutOfRange);
    }
    Ok(format!("{year:04}-W{week:02}"))
}

fn number(text: &str) -> Result<String, Problem> {
    let mut t: String = text.chars().filter(|c| !c.is_whitespace() && *c != '_').collect();
    if t.contains(',') && t.contains('.') {
        t = t.replace(',', "");
    } else if let Some((_, tail)) = t.rsplit_once(',') {
        // "1,234" groups thousands; "3,5" is a decimal comma.
        t = if tail.len() == 3 { t.replace(',', "") } else { t.replace(',', ".") };
    }
    t.parse::<f64>().map_err(|_| Problem::NotNumber)?;
    Ok(t)
}

fn color(text: &str) -> Result<String, Problem> {
    let lower = text.to_ascii_lowercase();
    let named = match lower.as_str() {
        "black" => Some("#000000"),
        "white" => Some("#ffffff"),
        "red" => Some("#ff0000"),
        "green" => Some("#008000"),
        "lime" => Some("#00ff00"),
        "blue" => Some("#0000ff"),
        "yellow" => Some("#ffff00"),
        "orange" => Some("#ffa500"),
        "purple" => Some("#800080"),
        "pink" => Some("#ffc0cb"),
        "brown" => Some("#a52a2a"),
        "gray" | "grey" => Some("#808080"),
        "cyan" => Some("#00ffff"),
        "magenta" => Some("#ff00ff"),
        _ => None,
    };
    if let Some(hex) = named {
        return Ok(hex.to_owned());
    }
    if let Some(inner) = lower.strip_prefix("rgb(").and_then(|r| r.strip_suffix(')')) {
        let parts: Vec<u8> = inner
            .split(',')
            .map(|p| p.trim().parse::<u8>())
            .collect::<Result<_, _>>()
            .map_err(|_| Problem::BadRgb)?;
        if let [r, g, b] = parts.as_slice() {
            return Ok(format!("#{r:02x}{g:02x}{b:02x}"));
        }
        return Err(Problem::RgbNotThree);
    }
    let hex = lower.trim_start_matches('#');
    if !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(Problem::NotColour);
    }
    match hex.len() {
        6 => Ok(format!("#{hex}")),
        3 => Ok(format!("#{}", hex.chars().flat_map(|c| [c, c]).collect::<String>())),
        _ => Err(Problem::NotColour),
    }
}

#[cfg(test)]
mod tests {
    use super::FieldKind::*;

    #[test]
    fn dates_in_common_spellings() {
        for text in [
            "2024-03-15",
            "15/03/2024",
            "03/15/2024",
            "15.03.2024",
            "March 15, 2024",
            "15 Mar 2024",
            "2024/3/15",
        ] {
            assert_eq!(Date.normalise(text).as_deref(), Ok("2024-03-15"), "{text}");
        }
        assert!(
            Date.normalise("03/04/2024").expect_err("ambiguous").to_string().contains("YYYY-MM-DD")
        );
        assert!(Date.normalise("2023-02-29").is_err());
        assert!(Date.normalise("soon").is_err());
        assert_eq!(Date.normalise("").as_deref(), Ok(""));
    }

    #[test]
    fn times_months_weeks_and_datetimes() {
        assert_eq!(Time.normalise("3:05 pm").as_deref(), Ok("15:05"));
        assert_eq!(Time.normalise("12 am").as_deref(), Ok("00:00"));
        assert_eq!(Time.normalise("09:30:15").as_deref(), Ok("09:30:15"));
        assert!(Time.normalise("25:00").is_err());
        assert_eq!(DateTimeLocal.normalise("2024-03-15 14:30").as_deref(), Ok("2024-03-15T14:30"));
        assert_eq!(
            DateTimeLocal.normalise("March 15, 2024 2:30 pm").as_deref(),
            Ok("2024-03-15T14:30")
        );
        assert_eq!(DateTimeLocal.normalise("2024-03-15T14:30").as_deref(), Ok("2024-03-15T14:30"));
        assert_eq!(Month.normalise("March 2024").as_deref(), Ok("2024-03"));
        assert_eq!(Month.normalise("2024-3").as_deref(), Ok("2024-03"));
        assert_eq!(Week.normalise("2024-w7").as_deref(), Ok("2024-W07"));
    }

    #[test]
    fn numbers_and_colours() {
        assert_eq!(Number.normalise("1,234").as_deref(), Ok("1234"));
        assert_eq!(Number.normalise("3,5").as_deref(), Ok("3.5"));
        assert_eq!(Range.normalise(" 42 ").as_deref(), Ok("42"));
        assert!(Number.normalise("twelve").is_err());
        assert_eq!(Color.normalise("Red").as_deref(), Ok("#ff0000"));
        assert_eq!(Color.normalise("#0AF").as_deref(), Ok("#00aaff"));
        assert_eq!(Color.normalise("rgb(255, 128, 0)").as_deref(), Ok("#ff8000"));
        assert!(Color.normalise("#12").is_err());
        assert_eq!(FieldKind::of("date"), Some(Date));
        assert_eq!(FieldKind::of("text"), None);
    }

    /// Each problem reads as the sentence the model has always been given, inside the
    /// field's hint; a date-time's part is said alone.
    #[test]
    fn errors_read_as_before() {
        use super::{FormatError, Problem};
        let said = [
            (Problem::NoTime, "give a date and a time"),
            (Problem::NoSuchMonth(13), "there is no month 13"),
            (Problem::NoSuchDay { year: 2023, month: 2, day: 29 }, "month 2 of 2023 has no day 29"),
            (Problem::NotWhole("x1".into()), "“x1” is not a number"),
            (Problem::NotThreeParts, "expected a day, a month and a year"),
            (Problem::ShortYear, "write the year with four digits"),
            (Problem::Ambiguous, "day and month could be either way round; write YYYY-MM-DD"),
            (Problem::NoHoursMinutes, "expected hours and minutes"),
            (Problem::TwelveHour, "a 12-hour time runs from 1 to 12"),
            (Problem::OutOfRange, "out of range"),
            (Problem::NoMonthYear, "expected a month and a four-digit year"),
            (Problem::NoWeek, "expected YYYY-Www"),
            (Problem::NotNumber, "not a number"),
            (Problem::BadRgb, "bad rgb()"),
            (Problem::RgbNotThree, "rgb() takes three numbers"),
            (Problem::NotColour, "not a colour name or #rrggbb"),
        ];
        for (problem, sentence) in said {
            assert_eq!(problem.to_string(), sentence);
        }
        assert_eq!(
            Date.normalise("03/04/2024").expect_err("ambiguous").to_string(),
            "“03/04/2024” is not a date YYYY-MM-DD (day and month could be either way round; \
             write YYYY-MM-DD)"
        );
        assert_eq!(
            Date.normalise("2023-02-29"),
            Err(FormatError::Unreadable {
                text: "2023-02-29".into(),
                kind: Date,
                problem: Problem::NoSuchDay { year: 2023, month: 2, day: 29 },
            })
        );
        assert_eq!(
            Color.normalise("#12").expect_err("short").to_string(),
            "“#12” is not a color #rrggbb (not a colour name or #rrggbb)"
        );
        assert_eq!(
            DateTimeLocal.normalise("tomorrow"),
            Err(FormatError::DateTime(Problem::NoTime))
        );
        assert_eq!(
            DateTimeLocal.normalise("2024-13-01 10:00").expect_err("month").to_string(),
            "there is no month 13"
        );
    }

    use super::FieldKind;
}
