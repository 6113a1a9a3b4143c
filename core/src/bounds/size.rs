//! The size domain of the bounds model: an upper bound on a value's bytes, as literal bytes plus
//! copies of values read from the data. A column is data: returned as itself it is the data's
//! size, not the query's; amplified (`repeat(col, 1000000)`, `hex(hex(hex(col)))`) it is not
//! bounded unless the copies stay a small constant ([`super::AMPLIFY`]). Concatenating many
//! columns is not amplifying them (each copy is written in the query): what is bounded is the
//! `gain`, how many times one data value was multiplied.

/// At most `bytes + data x (one value read from the data)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Size {
    /// Bytes the query itself builds: literals, generated text.
    pub(crate) bytes: f64,
    /// Copies of data values (columns, values computed from them) it holds.
    pub(crate) data: f64,
    /// The most times one data value was multiplied on the way (1 for a column as it is).
    pub(crate) gain: f64,
}

impl Size {
    /// Nothing (NULL, or no argument).
    pub(crate) const NONE: Size = Size {
        bytes: 0.0,
        data: 0.0,
        gain: 0.0,
    };

    /// One value read from the data, as it is.
    pub(crate) const DATA: Size = Size {
        bytes: 0.0,
        data: 1.0,
        gain: 1.0,
    };

    /// A value of at most `bytes` bytes.
    pub(crate) fn fixed(bytes: f64) -> Size {
        Size {
            bytes,
            data: 0.0,
            gain: 0.0,
        }
    }

    /// Both values together (a concatenation).
    pub(crate) fn plus(self, other: Size) -> Size {
        Size {
            bytes: self.bytes + other.bytes,
            data: self.data + other.data,
            gain: self.gain.max(other.gain),
        }
    }

    /// The larger of two values (one or the other is the result).
    pub(crate) fn max(self, other: Size) -> Size {
        Size {
            bytes: self.bytes.max(other.bytes),
            data: self.data.max(other.data),
            gain: self.gain.max(other.gain),
        }
    }

    /// `k` copies of the value (`k` is not negative).
    pub(crate) fn times(self, k: f64) -> Size {
        Size {
            bytes: self.bytes * k,
            data: self.data * k,
            gain: self.gain * k,
        }
    }
}
