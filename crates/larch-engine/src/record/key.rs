//! Being written: see the B+tree issue (row and key formats).
