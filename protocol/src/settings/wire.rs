//! `config.set`'s settings on the wire: a JSON object from dotted name to text (or `null`),
//! read and written by the one parser, so the request is typed at both ends.

use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserializer, Serializer};

use super::{Setting, SettingError};

/// Writes the settings as `{"<name>": "<text>" | null}`, in order.
pub fn serialize<S: Serializer>(settings: &[Setting], s: S) -> Result<S::Ok, S::Error> {
    let mut map = s.serialize_map(Some(settings.len()))?;
    for setting in settings {
        map.serialize_entry(&setting.key().to_string(), &setting.text())?;
    }
    map.end()
}

/// Reads the object back, parsing every entry; the first bad one fails the whole request.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Setting>, D::Error> {
    d.deserialize_map(SettingsVisitor)
}

struct SettingsVisitor;

impl<'de> Visitor<'de> for SettingsVisitor {
    type Value = Vec<Setting>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object from setting name to text value or null")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut settings: Vec<Setting> = Vec::new();
        while let Some((name, text)) = map.next_entry::<String, Option<String>>()? {
            let setting = Setting::parse(&name, text.as_deref()).map_err(invalid)?;
            let key = setting.key();
            if settings.iter().any(|s| s.key() == key) {
                return Err(invalid(SettingError::Invalid {
                    key,
                    message: "named twice in one request".to_owned(),
                }));
            }
            settings.push(setting);
        }
        Ok(settings)
    }
}

fn invalid<E: serde::de::Error>(e: SettingError) -> E {
    E::custom(e)
}
