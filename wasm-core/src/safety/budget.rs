//! The write budget: which state changes the user's own words grant a task. Derived from the
//! task text and the user's card answers before any page is read — never from page text — and
//! enforced below the page's words, at the network layer: during an action, a state-changing
//! request (any method but GET/HEAD/OPTIONS, or a form submitted by GET) that the budget does
//! not cover is held and put to the user with what it would really send.
//!
//! The budget says *what kind* of writes the user asked for and, through the task's user
//! sites (the start tab and the sites the words name, [`super::outbound::UserSites`]), *where*.
//! A read-only task ("check my order history", "read the reviews") has none: every
//! state-changing request of its actions is held, whatever the control was called.

use super::writes::EffectKind;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

mod grants;
pub use grants::{Count, Grant, covers};

/// A kind of write the user's words ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WriteKind {
    /// A search or filter: forms submitted by GET ("find teapots with the shop's search").
    Search,
    /// Filling in and sending a form, signing up or in, subscribing, registering, uploading.
    Submit,
    /// Putting something into a cart or list.
    Cart,
    /// Buying, ordering, paying, booking, donating, transferring.
    Purchase,
    /// Sending or publishing: a message, a reply, a comment, a post, a review, a rating.
    Message,
    /// Deleting, removing, cancelling, archiving.
    Delete,
    /// Changing a setting or a record: edit, update, change, set, enable, save.
    Change,
}

impl WriteKind {
    /// In words, for cards ("your task asks to send or publish").
    pub fn words(self) -> &'static str {
        match self {
            Self::Search => "search",
            Self::Submit => "send a form",
            Self::Cart => "add to a cart",
            Self::Purchase => "buy or pay",
            Self::Message => "send or publish",
            Self::Delete => "delete or cancel",
            Self::Change => "change a setting",
        }
    }

    /// Whether the kind writes anything beyond a search (a GET form).
    pub fn writes(self) -> bool {
        self != Self::Search
    }
}

/// What the user's words grant: empty for a read-only task.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriteBudget {
    /// The kinds of write asked for.
    pub grants: BTreeSet<WriteKind>,
    /// Hosts the user's words name (`shop.example`, `shop.localhost:8080`; from URLs too),
    /// lower case, without `www.`.
    pub named: BTreeSet<String>,
    /// Each write asked for with its count and recipients, in the order of the words.
    #[serde(default)]
    pub counted: Vec<Grant>,
    /// The domains (billing, accounts, integrations) the words name, which a change may touch.
    #[serde(default)]
    pub topics: BTreeSet<EffectKind>,
    /// What the user asks to search for: the words after a search verb in its clause ("search
    /// holidays **in Zermatt**"), lower case, without the words that only join them. A request
    /// that names nothing and carries one of them is that search ([`Self::searches_for`]).
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub searched: BTreeSet<String>,
}

/// Verbs (base forms, lower case) and what they ask for. A verb counts only where it is used
/// as one (see [`WriteBudget::from_words`]).
const VERBS: &[(&str, WriteKind)] = &[
    ("search", WriteKind::Search),
    ("find", WriteKind::Search),
    ("filter", WriteKind::Search),
    ("sort", WriteKind::Search),
    ("submit", WriteKind::Submit),
    ("fill", WriteKind::Submit),
    ("register", WriteKind::Submit),
    ("subscribe", WriteKind::Submit),
    ("signup", WriteKind::Submit),
    ("sign", WriteKind::Submit),
    ("log", WriteKind::Submit),
    ("login", WriteKind::Submit),
    ("apply", WriteKind::Submit),
    ("join", WriteKind::Submit),
    ("enroll", WriteKind::Submit),
    ("enrol", WriteKind::Submit),
    ("upload", WriteKind::Submit),
    ("attach", WriteKind::Submit),
    ("create", WriteKind::Submit),
    ("rsvp", WriteKind::Submit),
    ("add", WriteKind::Cart),
    ("buy", WriteKind::Purchase),
    ("purchase", WriteKind::Purchase),
    ("order", WriteKind::Purchase),
    ("reorder", WriteKind::Purchase),
    ("pay", WriteKind::Purchase),
    ("checkout", WriteKind::Purchase),
    ("book", WriteKind::Purchase),
    ("reserve", WriteKind::Purchase),
    ("donate", WriteKind::Purchase),
    ("transfer", WriteKind::Purchase),
    ("send", WriteKind::Message),
    ("message", WriteKind::Message),
    ("reply", WriteKind::Message),
    ("respond", WriteKind::Message),
    ("email", WriteKind::Message),
    ("post", WriteKind::Message),
    ("publish", WriteKind::Message),
    ("comment", WriteKind::Message),
    ("review", WriteKind::Message),
    ("rate", WriteKind::Message),
    ("vote", WriteKind::Message),
    ("invite", WriteKind::Message),
    ("share", WriteKind::Message),
    ("tweet", WriteKind::Message),
    ("delete", WriteKind::Delete),
    ("remove", WriteKind::Delete),
    ("cancel", WriteKind::Delete),
    ("unsubscribe", WriteKind::Delete),
    ("archive", WriteKind::Delete),
    ("change", WriteKind::Change),
    ("update", WriteKind::Change),
    ("edit", WriteKind::Change),
    ("set", WriteKind::Change),
    ("enable", WriteKind::Change),
    ("disable", WriteKind::Change),
    ("rename", WriteKind::Change),
    ("save", WriteKind::Change),
    ("mark", WriteKind::Change),
    ("upgrade", WriteKind::Change),
    ("downgrade", WriteKind::Change),
    ("accept", WriteKind::Change),
    ("approve", WriteKind::Change),
    ("decline", WriteKind::Change),
    ("confirm", WriteKind::Change),
];

/// Words after which a verb is used as one: a request's first word, or one of these before
/// it ("please order", "help me order", "I want to order", "read it and reply", "can you
/// add"). Anything else before a verb's form makes it a noun or a modifier ("my order", "the
/// latest post", "the exchange rate") or a negated verb ("do not change anything").
const INTRODUCERS: &[&str] = &[
    "please", "pls", "to", "and", "then", "also", "yes", "ok", "okay", "just", "me", "us", "you",
    "should", "can", "could", "would", "will", "must", "go", "let's", "lets", "now", "finally",
    "first", "kindly",
];

/// Verbs of pressing a control: "press the send button" asks for what the control's own name
/// says ("send"), as the user wrote it.
const PRESS_VERBS: &[&str] = &["press", "click", "tap", "hit", "push"];
/// Nouns of a control after the words that name what it does ("the **send** button").
const CONTROL_NOUNS: &[&str] = &["button", "icon", "link", "key"];
/// Words that only join the words of a search ("holidays **in** Zermatt **for** two").
const JOINING_WORDS: &[&str] =
    &["with", "and", "or", "as", "at", "of", "for", "from", "in", "on", "by", "to"];

/// Where a new request starts inside a text.
const CLAUSE_ENDS: &[char] =
    &['.', ',', ';', ':', '!', '?', '\n', '(', ')', '[', ']', '{', '}', '—', '–', '•', '|'];

impl WriteBudget {
    /// A read-only budget (no writes at all).
    pub fn read_only() -> Self {
        Self::default()
    }

    /// The budget the user's words grant: the task text and the user's own answers on cards
    /// (never page text). A verb counts where it is used as one: at the start of a request or
    /// after one of [`INTRODUCERS`] ("order the blue teapot", "help me order it") — not as a
    /// noun ("check my order history"), a modifier ("the exchange rate") or after a negation
    /// ("do not change anything").
    pub fn from_words<'a>(texts: impl IntoIterator<Item = &'a str>) -> Self {
        let mut grants = BTreeSet::new();
        let mut named = BTreeSet::new();
        let mut counted = Vec::new();
        let mut topics = BTreeSet::new();
        let mut searched = BTreeSet::new();
        for text in texts {
            named.extend(hosts_in(text));
            let lower = text.to_lowercase().replace('’', "'");
            for clause in lower.split(CLAUSE_ENDS) {
                let words: Vec<&str> = clause
                    .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-'))
                    .map(|w| w.trim_matches(|c: char| c == '\'' || c == '-'))
                    .filter(|w| !w.is_empty())
                    .collect();
                topics.extend(grants::topics_in(&words));
                let mut introduced = true;
                // A press verb used as one earlier in the clause: the words before a control's
                // noun name the control ("press the message's send button").
                let mut pressing = false;
                for (at, word) in words.iter().enumerate() {
                    let names_control = pressing
                        && words.get(at + 1).is_some_and(|next| CONTROL_NOUNS.contains(next));
                    match verb(word) {
                        Some(kind) if introduced || names_control => {
                            grants.insert(kind);
                            counted.push(grants::grant_at(&words, at, kind));
                            if kind == WriteKind::Search {
                                searched.extend(search_words(&words[at + 1..]));
                            }
                        }
                        _ => {}
                    }
                    pressing |= introduced && PRESS_VERBS.contains(word);
                    introduced = INTRODUCERS.contains(word);
                }
            }
        }
        Self { grants, named, counted, topics, searched }
    }

    /// Whether a request carrying `values` (the words of what it sends) is a search these
    /// words ask for: they grant a search, and it carries one of the words searched for.
    pub fn searches_for(&self, values: &BTreeSet<String>) -> bool {
        self.grants.contains(&WriteKind::Search) && !self.searched.is_disjoint(values)
    }

    /// Whether the user's words name the site of `origin` (the host or a parent of it, and
    /// the port when one was written).
    pub fn names(&self, origin: &str) -> bool {
        let Ok(url) = url::Url::parse(origin) else { return false };
        let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else {
            return false;
        };
        let host = host.strip_prefix("www.").unwrap_or(host);
        self.named.iter().any(|named| {
            let (named_host, named_port) = match named.rsplit_once(':') {
                Some((h, p)) => (h, p.parse::<u16>().ok()),
                None => (named.as_str(), None),
            };
            let same_host = host == named_host || host.ends_with(&format!(".{named_host}"));
            same_host && named_port.is_none_or(|p| p == port)
        })
    }

    /// Whether the user asked for no writes at all (a search is a read).
    pub fn is_read_only(&self) -> bool {
        !self.grants.iter().any(|k| k.writes())
    }

    /// Whether state-changing requests (POST and the like) to the user's sites are inside
    /// the budget.
    pub fn grants_writes(&self) -> bool {
        !self.is_read_only()
    }

    /// Whether a form submitted by GET is inside the budget (a search, or any write asked).
    pub fn grants_get_forms(&self) -> bool {
        !self.grants.is_empty()
    }

    /// In words, for cards and the timeline ("your task asks to add to a cart (1)").
    pub fn describe(&self) -> String {
        if self.grants.is_empty() {
            return "your task asks only to read".into();
        }
        let kinds: Vec<String> = self
            .grants
            .iter()
            .map(|k| match self.allowed(*k) {
                Some(Count::Up(n)) if k.writes() => format!("{} ({n})", k.words()),
                _ => k.words().to_owned(),
            })
            .collect();
        format!("your task asks to {}", kinds.join(", "))
    }

    /// How many writes of `kind` the words ask for, all its mentions together.
    fn allowed(&self, kind: WriteKind) -> Option<Count> {
        self.counted.iter().filter(|g| g.kind == kind).map(|g| g.count).reduce(Count::plus)
    }

    /// How many writes with `effect` the words allow (every grant covering it together) to
    /// the recipients `to` (a message's, as the request names them; empty when it names
    /// none). `None`: no grant covers it.
    pub fn allowance(&self, effect: EffectKind, to: &[String]) -> Option<Count> {
        let topics: Vec<EffectKind> = self.topics.iter().copied().collect();
        self.counted
            .iter()
            .filter(|g| covers(g.kind, effect, &topics))
            .filter(|g| effect != EffectKind::Message || addressed(g, to))
            .map(|g| g.count)
            .reduce(Count::plus)
    }
}

/// The words of a search's object (what follows its verb in the clause), without the words
/// that only join them, split as a request's values are ([`crate::safety::writes`]).
fn search_words<'a>(object: &'a [&'a str]) -> impl Iterator<Item = String> + 'a {
    object
        .iter()
        .flat_map(|w| w.split(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .filter(|w| !JOINING_WORDS.contains(w) && !grants::DETERMINERS.contains(w))
        .filter(|w| w.chars().count() > 1)
        .map(str::to_owned)
}

/// Whether a message to `to` (what the request names) is one the grant's recipients allow:
/// the grant names nobody, the request names nobody, or every place the request names has
/// one of the grant's recipients as a word ("ann" in `ann@mail.example`, `dm-ann`).
fn addressed(grant: &Grant, to: &[String]) -> bool {
    grant.recipients.is_empty()
        || to.iter().all(|place| {
            let words: Vec<&str> =
                place.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
            grant.recipients.iter().any(|r| words.contains(&r.as_str()) || place == r)
        })
}

/// The hosts a text names: URLs, and words with a dot or `localhost` that parse as a host
/// (`shop.example`, `mail.localhost:8080/inbox`).
fn hosts_in(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || "\"'<>()[]{},;“”‘’«»".contains(c))
        .filter_map(|word| {
            let word = word.trim_matches(|c: char| matches!(c, '.' | ':' | '!' | '?'));
            let word = word.strip_suffix("'s").unwrap_or(word);
            let candidate =
                if word.contains("://") { word.to_owned() } else { format!("http://{word}") };
            let looks_host = word.contains('.') || word.contains("localhost");
            let url = url::Url::parse(&candidate).ok().filter(|_| looks_host)?;
            let host = url.host_str()?.to_ascii_lowercase();
            let last = host.rsplit('.').next().unwrap_or("");
            if last.len() < 2 || !last.chars().all(|c| c.is_ascii_alphabetic()) {
                return None;
            }
            let host = host.strip_prefix("www.").map(str::to_owned).unwrap_or(host);
            Some(match url.port() {
                Some(port) => format!("{host}:{port}"),
                None => host,
            })
        })
        .collect()
}

/// The kind a word asks for when it is a write verb in its base form (a request is worded
/// "order it", not "orders"; "reviews" after "and" is a noun).
fn verb(word: &str) -> Option<WriteKind> {
    VERBS.iter().find(|(v, _)| *v == word).map(|(_, k)| *k)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(task: &str) -> WriteBudget {
        WriteBudget::from_words([task])
    }

    #[test]
    fn reading_tasks_grant_no_writes() {
        for task in [
            "Check my order history",
            "Read the reviews of the blue teapot",
            "What is the status of my latest order?",
            "Summarise my unread mail",
            "How many items are in my cart?",
            "Look at the reviews and tell me the average rating",
            "Check the exchange rate, but do not change anything",
            "Show me the last post on the forum",
            "Check my orders and reviews",
            "Close the welcome banner and read the news",
            "What did I order last week?",
            "Did we pay the invoice?",
        ] {
            assert!(budget(task).is_read_only(), "{task}: {:?}", budget(task));
        }
        assert!(budget("Find the cheapest teapot").is_read_only(), "a search is a read");
        assert!(budget("Find the cheapest teapot").grants_get_forms());
        assert!(!budget("Check my order history").grants_get_forms());
    }

    #[test]
    fn asked_writes_are_granted_with_their_kind() {
        let cases = [
            ("Order the blue teapot", WriteKind::Purchase),
            ("[run 90] Subscribe me to the newsletter", WriteKind::Submit),
            ("Add one teapot to the cart", WriteKind::Cart),
            ("Submit the contact form on shop.example", WriteKind::Submit),
            ("Send a message to Bob saying hi", WriteKind::Message),
            ("Sign me up for the newsletter", WriteKind::Submit),
            ("Subscribe me to the teapot newsletter", WriteKind::Submit),
            ("Rate my teapot as great", WriteKind::Message),
            ("Please delete my mail", WriteKind::Delete),
            ("Post a comment that I liked it", WriteKind::Message),
            ("Switch off auto-renew in the settings, then save", WriteKind::Change),
            ("I want to cancel my subscription", WriteKind::Delete),
        ];
        for (task, kind) in cases {
            let b = budget(task);
            assert!(b.grants.contains(&kind), "{task}: {b:?}");
            assert!(b.grants_writes(), "{task}");
        }
    }

    #[test]
    fn card_answers_are_the_users_words_too() {
        let b = WriteBudget::from_words(["Read my messages", "yes, reply to Ada with thanks"]);
        assert!(b.grants.contains(&WriteKind::Message));
        assert!(WriteBudget::from_words(["Read my messages", "no"]).is_read_only());
    }

    #[test]
    fn sites_the_words_name() {
        let b = budget(
            "Submit the contact form on shop.example, then check mail.localhost:8080/inbox.",
        );
        assert!(b.names("https://shop.example"));
        assert!(b.names("https://www.shop.example"));
        assert!(b.names("http://mail.localhost:8080"));
        assert!(!b.names("http://mail.localhost:9090"));
        assert!(!b.names("https://evil.example"));
        assert!(!budget("It costs 3.50 today. Done.").names("http://3.50"));
    }

    #[test]
    fn counts_recipients_and_topics_come_from_the_words() {
        let count = |task: &str| budget(task).counted.first().map(|g| g.count);
        assert_eq!(count("Add one teapot to the cart"), Some(Count::Up(1)));
        assert_eq!(count("Add a teapot to the cart"), Some(Count::Up(1)));
        assert_eq!(count("Add the blue teapot to the cart"), Some(Count::Up(1)), "default 1");
        assert_eq!(count("Add 3 teapots to the cart"), Some(Count::Up(3)));
        assert_eq!(count("Add both teapots to my cart"), Some(Count::Up(2)));
        assert_eq!(count("Buy twelve mugs"), Some(Count::Up(12)));
        assert_eq!(count("Delete all my mail"), Some(Count::Many));
        assert_eq!(count("Delete the spam messages"), Some(Count::Many), "a plural object");
        assert_eq!(count("Add item 4711 to the cart"), Some(Count::Up(1)), "an item's number");
        assert_eq!(count("Rename my project to Teapots"), Some(Count::Many), "edits");
        let b = budget("Reply to Ann that I agree, then email bob@x.example the notes");
        let to: Vec<&str> =
            b.counted.iter().flat_map(|g| g.recipients.iter().map(String::as_str)).collect();
        assert_eq!(to, ["ann", "bob"]);
        assert_eq!(b.allowance(EffectKind::Message, &["general".into()]), None);
        assert!(b.allowance(EffectKind::Message, &["ann@chat.example".into()]).is_some());
        assert!(budget("Change my plan to Team").topics.contains(&EffectKind::Billing));
        assert!(budget("Rename my project").topics.is_empty());
        assert_eq!(budget("Rename my project").allowance(EffectKind::Account, &[]), None);
        assert_eq!(
            budget("Add one teapot and one cup to the cart").allowance(EffectKind::Cart, &[]),
            Some(Count::Up(2)),
            "a second counted object after “and” adds to the count"
        );
        assert_eq!(
            budget("Add one teapot to the cart and a cup").allowance(EffectKind::Cart, &[]),
            Some(Count::Up(1)),
            "after the object ends (“to the cart”), the words are not counted"
        );
    }

    #[test]
    fn a_control_the_user_names_to_press_grants_what_its_name_says() {
        let b = budget("Press the message's send button (the paper-plane icon) and save it");
        assert_eq!(b.allowance(EffectKind::Message, &[]), Some(Count::Up(1)), "{b:?}");
        assert!(budget("Click the delete button").grants.contains(&WriteKind::Delete));
        // Not pressed, or not a control's name: nothing granted.
        assert!(!budget("Do not press the send button").grants.contains(&WriteKind::Message));
        assert!(!budget("Read what the send button says").grants.contains(&WriteKind::Message));
        assert!(!budget("Press the message's send").grants.contains(&WriteKind::Message));
        assert!(!budget("Click “Place order”").grants.contains(&WriteKind::Purchase));
    }

    #[test]
    fn a_search_keeps_the_words_it_searches_for() {
        let words = |w: &[&str]| w.iter().map(|w| (*w).to_owned()).collect::<BTreeSet<_>>();
        let b = budget("Search holidays in Zermatt for two, then save the notes");
        assert_eq!(b.searched, words(&["holidays", "zermatt", "two"]));
        assert!(b.searches_for(&words(&["zermatt", "2025"])));
        assert!(!b.searches_for(&words(&["yes", "close"])), "{b:?}");
        assert!(budget("Sort the laptops by price").searches_for(&words(&["price", "asc"])));
        // Words of a task that asks for no search, or a one-letter word, never make a search.
        assert!(!budget("Look at the Zermatt holidays").searches_for(&words(&["zermatt"])));
        assert!(!budget("Search for a 2 room flat").searches_for(&words(&["2", "a"])));
    }

    #[test]
    fn multibyte_text_is_read_safely() {
        let b = budget("“Order” the teapot： ✓ — and don’t delete anything");
        assert!(b.grants.contains(&WriteKind::Purchase));
        assert!(!b.grants.contains(&WriteKind::Delete), "{b:?}");
    }
}
