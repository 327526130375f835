//! Rows in PostgreSQL's `COPY ... FROM STDIN` text format: one line per row, columns separated
//! by tabs, `\N` for NULL, and backslash, tab, newline and carriage return escaped, so any text
//! a respondent typed arrives exactly. PostgreSQL's text cannot hold a NUL character at all,
//! so one (which answers stored before control characters were refused may hold) arrives as
//! U+FFFD, the replacement character, instead of failing the export.

use std::borrow::Cow;

/// `text` as PostgreSQL can store it: NUL characters replaced by U+FFFD.
pub(super) fn storable(text: &str) -> Cow<'_, str> {
    if text.contains('\0') {
        Cow::Owned(text.replace('\0', "\u{FFFD}"))
    } else {
        Cow::Borrowed(text)
    }
}

/// A buffer of rows being encoded.
#[derive(Debug, Default)]
pub(super) struct CopyRows {
    data: Vec<u8>,
    /// Whether the current row has a column yet (the next one needs a tab first).
    started: bool,
}

impl CopyRows {
    /// The encoded rows.
    pub(super) fn into_bytes(self) -> Vec<u8> {
        self.data
    }

    fn separate(&mut self) {
        if self.started {
            self.data.push(b'\t');
        }
        self.started = true;
    }

    /// A text column.
    pub(super) fn text(&mut self, value: &str) -> &mut Self {
        self.separate();
        escape_into(&mut self.data, value);
        self
    }

    /// A column written as it is: numbers and timestamps, which need no escaping.
    pub(super) fn plain(&mut self, value: impl std::fmt::Display) -> &mut Self {
        use std::io::Write;
        self.separate();
        // Writing into a Vec cannot fail.
        let _ = write!(self.data, "{value}");
        self
    }

    /// A NULL column.
    pub(super) fn null(&mut self) -> &mut Self {
        self.separate();
        self.data.extend_from_slice(b"\\N");
        self
    }

    /// A column written by `column` when there is a value, else NULL.
    pub(super) fn or_null<T>(
        &mut self,
        value: Option<T>,
        column: impl FnOnce(&mut Self, T) -> &mut Self,
    ) -> &mut Self {
        match value {
            Some(value) => column(self, value),
            None => self.null(),
        }
    }

    /// A `text[]` column: an array literal with every element quoted.
    pub(super) fn text_array<'a>(
        &mut self,
        values: impl IntoIterator<Item = &'a str>,
    ) -> &mut Self {
        let mut literal = String::from("{");
        for (index, value) in values.into_iter().enumerate() {
            if index > 0 {
                literal.push(',');
            }
            literal.push('"');
            for c in value.chars() {
                if matches!(c, '"' | '\\') {
                    literal.push('\\');
                }
                literal.push(c);
            }
            literal.push('"');
        }
        literal.push('}');
        self.text(&literal)
    }

    /// Ends the row.
    pub(super) fn end_row(&mut self) {
        self.data.push(b'\n');
        self.started = false;
    }
}

fn escape_into(out: &mut Vec<u8>, value: &str) {
    for &byte in storable(value).as_bytes() {
        match byte {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.push(byte),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(build: impl FnOnce(&mut CopyRows)) -> String {
        let mut rows = CopyRows::default();
        build(&mut rows);
        String::from_utf8(rows.into_bytes()).unwrap()
    }

    #[test]
    fn columns_are_tab_separated_and_rows_end_in_newlines() {
        let out = encoded(|rows| {
            rows.text("acme").plain(42).null().end_row();
            rows.plain(1.5).end_row();
        });
        assert_eq!(out, "acme\t42\t\\N\n1.5\n");
    }

    #[test]
    fn an_absent_value_is_null_and_a_present_one_is_written_by_its_column() {
        let out = encoded(|rows| {
            rows.or_null(None::<&str>, CopyRows::text)
                .or_null(Some(""), CopyRows::text)
                .or_null(Some(2.5), CopyRows::plain)
                .end_row();
        });
        assert_eq!(out, "\\N\t\t2.5\n");
    }

    #[test]
    fn special_characters_are_escaped_and_the_literal_text_null_stays_text() {
        let out = encoded(|rows| {
            rows.text("a\tb\nc\rd\\e").text("\\N").end_row();
        });
        assert_eq!(out, "a\\tb\\nc\\rd\\\\e\t\\\\N\n");
    }

    #[test]
    fn nul_characters_become_replacement_characters() {
        let out = encoded(|rows| {
            rows.text("a\0b").text_array(["c\0"]).end_row();
        });
        assert_eq!(out, "a\u{FFFD}b\t{\"c\u{FFFD}\"}\n");
        assert!(matches!(storable("plain"), Cow::Borrowed("plain")));
    }

    #[test]
    fn arrays_quote_every_element_and_escape_quotes_and_backslashes() {
        let out = encoded(|rows| {
            rows.text_array(["Red", "say \"hi\"", "a\\b", "x,y {z}"])
                .end_row();
            rows.text_array([]).end_row();
        });
        // The array literal's own backslashes are escaped again by the text format.
        assert_eq!(
            out,
            "{\"Red\",\"say \\\\\"hi\\\\\"\",\"a\\\\\\\\b\",\"x,y {z}\"}\n{}\n"
        );
    }
}
