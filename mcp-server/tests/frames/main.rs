//! Every request gets an answer: the binary over stdio and over HTTP, sent a request nested
//! 100 000 levels deep, a 64 MiB line (the server's memory not growing with it), malformed and
//! invalid messages, each followed by a valid request (`stdio`, `http`), and a seeded fuzz of
//! frames of random size, depth and garbage (`fuzz`). All on the embedded demo database.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod fuzz;
mod http;
mod raw;
mod stdio;
