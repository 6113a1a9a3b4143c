//! Trivia between tokens: whitespace and comments, some holding a stacked statement.

use arbitrary::Arbitrary;

/// Trivia between tokens.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Sep {
    /// One space.
    Space,
    /// A newline.
    Newline,
    /// A tab and spaces.
    Tab,
    /// `/* c */`
    Block,
    /// `-- c` and a newline.
    Line,
    /// A nested block comment.
    Nested,
    /// A block comment that holds a stacked statement.
    BlockSemicolon,
    /// A line comment that holds a stacked statement.
    LineSemicolon,
    /// `/**/`
    EmptyBlock,
}

impl Sep {
    pub(super) fn text(self) -> &'static str {
        match self {
            Sep::Space => " ",
            Sep::Newline => "\n",
            Sep::Tab => "\t  ",
            Sep::Block => " /* c */ ",
            Sep::Line => " -- c\n",
            Sep::Nested => " /* a /* b */ c */ ",
            Sep::BlockSemicolon => " /*; DROP TABLE t;*/ ",
            Sep::LineSemicolon => " --; DELETE FROM t\n",
            Sep::EmptyBlock => "/**/",
        }
    }
}
