//! Text from files shown on a terminal, or written into markup; numbers as people write them.
//!
//! Error messages echo what a file holds (a trace field, a spec value, a dataset reference), and
//! a file can hold anything: an escape sequence that recolours or clears the terminal, a carriage
//! return that overwrites the line, a bidirectional override that reorders it. [`escape_control`]
//! is the one place that makes such text inert; every error type whose message can carry file
//! content (traces, specs, datasets) displays through it.

use std::borrow::Cow;

/// `text` with every control character (C0, DEL, C1, line and paragraph separators) and every
/// bidirectional formatting character written as a Rust escape (`\u{1b}`, `\n`, `\t`, ...);
/// other text, non-ASCII letters included, is unchanged (and not copied).
pub fn escape_control(text: &str) -> Cow<'_, str> {
    let Some(first) = text.char_indices().find_map(|(i, c)| needs_escape(c).then_some(i)) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        if needs_escape(c) {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}' | '\u{061c}')
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// `text` for XML and HTML element content and quoted attribute values (the SVG figures and the
/// report page): the five markup characters as entities (`&#39;` for the apostrophe, valid in
/// both), and C0 controls other than tab and line breaks, which XML forbids, as spaces.
pub fn escape_markup(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// `8` for 8.0, `1.5` for 1.5: loads as people write them.
pub fn fmt_number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 { format!("{}", x as i64) } else { format!("{x}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_and_bidi_characters_are_escaped_and_the_rest_kept() {
        assert!(matches!(escape_control("plain: ü 東京 `x`"), Cow::Borrowed(_)));
        assert_eq!(escape_control("a\u{1b}[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(escape_control("x\ry\nz\t"), "x\\ry\\nz\\t");
        assert_eq!(escape_control("\u{7f}\u{9b}"), "\\u{7f}\\u{9b}");
        assert_eq!(escape_control("a\u{202e}b\u{2066}c\u{2028}"), "a\\u{202e}b\\u{2066}c\\u{2028}");
    }

    #[test]
    fn markup_characters_become_entities_and_forbidden_controls_spaces() {
        assert_eq!(escape_markup("<a href=\"x\">R&D's</a>"), "&lt;a href=&quot;x&quot;&gt;R&amp;D&#39;s&lt;/a&gt;");
        assert_eq!(escape_markup("a\u{1b}b\u{0}c\td\ne\rf"), "a b c\td\ne\rf");
        assert_eq!(escape_markup("ü 東京"), "ü 東京");
    }
}
