//! Unit tests of the reader and writer (the differential tests against
//! serde_json are in `crate::oracle`).
