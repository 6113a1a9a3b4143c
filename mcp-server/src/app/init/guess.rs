//! PII categories guessed from a column's name and type (issue 30's categories), each with the
//! reason the draft policy writes beside it. Guesses lean to few false positives: a bare `name`
//! is a person's only in a table of people, `state` or `country` a place only beside an address
//! or a city, and keys, counts, flags and numbers are never personal data by name.

/// A guessed category and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guess {
    /// The category (`EMAIL_ADDRESS`, ...).
    pub category: &'static str,
    /// Why, for the TOML comment (never a value of the column).
    pub reason: String,
}

/// Tables whose rows are people (singular, lower case): their `name` is a person's.
const PEOPLE: [&str; 18] = [
    "customer",
    "employee",
    "user",
    "person",
    "people",
    "contact",
    "member",
    "client",
    "patient",
    "student",
    "staff",
    "subscriber",
    "guest",
    "applicant",
    "candidate",
    "passenger",
    "author",
    "account_holder",
];

/// The words of an identifier: `BillingPostalCode`, `billing_postal_code` and
/// `BILLING_POSTAL_CODE` are all `billing postal code`.
pub fn words(ident: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = ident.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(|p| chars[p]);
        let next = chars.get(i + 1);
        let boundary = c.is_uppercase()
            && prev.is_some_and(|p| {
                p.is_lowercase() || (p.is_uppercase() && next.is_some_and(|n| n.is_lowercase()))
            });
        if boundary && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn singular(word: &str) -> &str {
    if word == "people" || word == "staff" {
        return word;
    }
    word.strip_suffix('s').unwrap_or(word)
}

/// Whether the table's name says its rows are people (`customers`, `app_user`).
pub fn is_people_table(table: &str) -> bool {
    let w = words(table);
    let joined = w.join("_");
    PEOPLE.contains(&singular(&joined)) || w.last().is_some_and(|l| PEOPLE.contains(&singular(l)))
}

/// A type that holds numbers or flags, never a name, a contact or an address by itself.
fn is_numeric_or_flag(data_type: &str) -> bool {
    let t = data_type.to_lowercase();
    [
        "int", "serial", "numeric", "decimal", "real", "double", "float", "bool", "bit", "money",
    ]
    .iter()
    .any(|n| t.contains(n))
        && !t.contains("interval")
        && !t.contains("point")
}

/// Whether the column's words name a street address, city or postal code (a strong sign that
/// `state` and `country` beside it are part of an address).
fn is_address_part(w: &[String]) -> bool {
    let qualifier = |q: &str| w.iter().any(|x| x == q);
    let address = qualifier("address")
        && ![
            "ip", "mac", "email", "mail", "web", "url", "wallet", "server",
        ]
        .iter()
        .any(|q| qualifier(q));
    address
        || [
            "street", "city", "town", "postal", "postcode", "zip", "zipcode",
        ]
        .iter()
        .any(|q| qualifier(q))
}

/// The categories a column's words name by themselves: contacts, identifiers, a birth date.
fn by_words(w: &[String], joined: &str) -> Option<&'static str> {
    let has = |x: &str| w.iter().any(|y| y == x);
    let phone = [
        "phone",
        "fax",
        "mobile",
        "telephone",
        "tel",
        "cellphone",
        "msisdn",
    ];
    let national = ["ssn", "socialsecurity", "nationalid", "passport", "nino"];
    if joined.contains("email") || (has("mail") && (has("e") || has("address"))) {
        Some("EMAIL_ADDRESS")
    } else if has("ip") || joined == "ipaddress" || joined == "ipaddr" {
        Some("IP_ADDRESS")
    } else if joined.contains("phone") || phone.iter().any(|p| has(p)) {
        Some("PHONE_NUMBER")
    } else if joined.contains("creditcard") || joined.contains("cardnumber") || joined == "ccnumber"
    {
        Some("CREDIT_CARD")
    } else if has("iban") {
        Some("IBAN")
    } else if national.iter().any(|n| joined.contains(n)) {
        Some("NATIONAL_ID")
    } else if joined.contains("birth") || has("dob") {
        Some("DATE_OF_BIRTH")
    } else {
        None
    }
}

/// The category a column's name (and type) suggests, with the reason. `siblings` are the other
/// columns of its table.
pub fn by_name(table: &str, column: &str, data_type: &str, siblings: &[String]) -> Option<Guess> {
    let w = words(column);
    let joined = w.concat();
    let has = |x: &str| w.iter().any(|y| y == x);
    let named = |category| {
        Some(Guess {
            category,
            reason: format!("column name \"{column}\""),
        })
    };
    // A key, a count, a flag or a kind names something about the data, not the data.
    let last = w.last().map(String::as_str).unwrap_or_default();
    let not_data = [
        "id", "ids", "key", "count", "type", "flag", "verified", "status", "hash", "format",
    ];
    if not_data.contains(&last) || data_type.to_lowercase().starts_with("bool") {
        return None;
    }
    if (has("latitude") || has("longitude")) && !data_type.is_empty() {
        return named("LOCATION");
    }
    if data_type.to_lowercase() == "inet" {
        return Some(Guess {
            category: "IP_ADDRESS",
            reason: format!("column \"{column}\" of type inet"),
        });
    }
    if is_numeric_or_flag(data_type) {
        return None;
    }
    if let Some(category) = by_words(&w, &joined) {
        return named(category);
    }
    let person_words = [
        "firstname",
        "lastname",
        "fullname",
        "givenname",
        "familyname",
        "surname",
        "middlename",
        "maidenname",
        "forename",
    ];
    if person_words.iter().any(|p| joined.contains(p)) {
        return named("PERSON");
    }
    if last == "name" && w.len() >= 2 && PEOPLE.contains(&singular(&w[w.len() - 2])) {
        return named("PERSON");
    }
    if w == ["name"] && is_people_table(table) {
        return Some(Guess {
            category: "PERSON",
            reason: format!("column name \"{column}\" in a table of people (\"{table}\")"),
        });
    }
    if is_address_part(&w) {
        return named("LOCATION");
    }
    let region = ["state", "province", "region", "country", "county"];
    if region.iter().any(|r| has(r)) {
        let beside = siblings
            .iter()
            .find(|s| *s != column && is_address_part(&words(s)));
        if let Some(b) = beside {
            return Some(Guess {
                category: "LOCATION",
                reason: format!("column name \"{column}\" beside \"{b}\""),
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guess(table: &str, column: &str, ty: &str, siblings: &[&str]) -> Option<&'static str> {
        let s: Vec<String> = siblings.iter().map(|s| s.to_string()).collect();
        by_name(table, column, ty, &s).map(|g| g.category)
    }

    #[test]
    fn words_split_camel_and_snake_case() {
        assert_eq!(words("BillingPostalCode"), ["billing", "postal", "code"]);
        assert_eq!(words("first_name"), ["first", "name"]);
        assert_eq!(words("EMAIL_ADDRESS"), ["email", "address"]);
        assert_eq!(words("IPAddress"), ["ip", "address"]);
        assert_eq!(words("AddressLine1"), ["address", "line1"]);
    }

    #[test]
    fn chinook_columns() {
        let customer = ["Address", "City", "State", "Country", "PostalCode"];
        for (col, cat) in [
            ("Email", Some("EMAIL_ADDRESS")),
            ("Phone", Some("PHONE_NUMBER")),
            ("Fax", Some("PHONE_NUMBER")),
            ("FirstName", Some("PERSON")),
            ("last_name", Some("PERSON")),
            ("Address", Some("LOCATION")),
            ("City", Some("LOCATION")),
            ("State", Some("LOCATION")),
            ("Country", Some("LOCATION")),
            ("PostalCode", Some("LOCATION")),
            ("Company", None),
            ("SupportRepId", None),
            ("BirthDate", Some("DATE_OF_BIRTH")),
        ] {
            assert_eq!(
                guess("Customer", col, "NVARCHAR(40)", &customer),
                cat,
                "{col}"
            );
        }
        assert_eq!(guess("track", "name", "varchar(200)", &[]), None);
        assert_eq!(guess("genre", "name", "varchar(120)", &[]), None);
        assert_eq!(guess("artist", "Name", "NVARCHAR(120)", &[]), None);
        assert_eq!(guess("customers", "name", "TEXT", &[]), Some("PERSON"));
    }

    #[test]
    fn few_false_positives() {
        assert_eq!(guess("orders", "state", "text", &["id", "total"]), None);
        assert_eq!(guess("country", "name", "text", &[]), None);
        assert_eq!(guess("customer", "email_verified", "boolean", &[]), None);
        assert_eq!(guess("customer", "address_id", "integer", &[]), None);
        assert_eq!(guess("customer", "phone_count", "integer", &[]), None);
        assert_eq!(
            guess("session", "ip_address", "text", &[]),
            Some("IP_ADDRESS")
        );
        assert_eq!(guess("session", "client", "inet", &[]), Some("IP_ADDRESS"));
        assert_eq!(guess("employee", "hire_date", "date", &[]), None);
        assert_eq!(guess("order", "customer_name", "text", &[]), Some("PERSON"));
        assert_eq!(guess("payment", "iban", "text", &[]), Some("IBAN"));
    }
}
