//! [`NumberShape`]: the shape of a carrier's bare booking and bill-of-lading numbers.

/// One element of a [`NumberShape`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum ShapePart {
    /// This exact upper-case text.
    Literal(String),
    /// This many ASCII digits.
    Digits(usize),
    /// This many ASCII upper-case letters.
    Letters(usize),
    /// This many ASCII upper-case letters or digits.
    Either(usize),
}

/// The shape of a carrier's bare numbers (`ocean-carriers.csv` column `number_shapes`): upper-case
/// letters stand for themselves, `<n>d` for n digits, `<n>a` for n letters, `<n>x` for n letters
/// or digits. `9d` is Maersk's nine-digit numbers, `EBKG8d` MSC's bookings, `3a7d` three letters
/// and seven digits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumberShape(Vec<ShapePart>);

impl NumberShape {
    /// Parses a pattern; `None` when it is empty or not of the grammar above.
    pub fn parse(pattern: &str) -> Option<NumberShape> {
        let mut parts = Vec::new();
        let mut count = 0usize;
        for c in pattern.chars() {
            match c {
                '0'..='9' => {
                    count = count
                        .checked_mul(10)?
                        .checked_add(c as usize - '0' as usize)?
                }
                'd' | 'a' | 'x' if count > 0 => {
                    parts.push(match c {
                        'd' => ShapePart::Digits(count),
                        'a' => ShapePart::Letters(count),
                        _ => ShapePart::Either(count),
                    });
                    count = 0;
                }
                'A'..='Z' if count == 0 => match parts.last_mut() {
                    Some(ShapePart::Literal(l)) => l.push(c),
                    _ => parts.push(ShapePart::Literal(c.to_string())),
                },
                _ => return None,
            }
        }
        (count == 0 && !parts.is_empty()).then_some(NumberShape(parts))
    }

    /// How specific the shape is: the number of literal characters (`EBKG8d` is 4, `9d` 0).
    /// Where shapes of several lines match, only the most specific count.
    pub fn specificity(&self) -> usize {
        self.0
            .iter()
            .map(|p| match p {
                ShapePart::Literal(l) => l.len(),
                _ => 0,
            })
            .sum()
    }

    /// Whether the normalized number `s` (upper case, letters and digits) has this shape.
    pub fn matches(&self, s: &str) -> bool {
        let mut rest = s.as_bytes();
        for part in &self.0 {
            let (n, ok): (usize, fn(&u8) -> bool) = match part {
                ShapePart::Literal(l) => {
                    let Some(tail) = rest.strip_prefix(l.as_bytes()) else {
                        return false;
                    };
                    rest = tail;
                    continue;
                }
                ShapePart::Digits(n) => (*n, u8::is_ascii_digit),
                ShapePart::Letters(n) => (*n, u8::is_ascii_uppercase),
                ShapePart::Either(n) => (*n, |b: &u8| b.is_ascii_digit() || b.is_ascii_uppercase()),
            };
            if rest.len() < n || !rest[..n].iter().all(ok) {
                return false;
            }
            rest = &rest[n..];
        }
        rest.is_empty()
    }
}
