//! Prepared-statement state kept by the protocol layer, and decoding of
//! `COM_STMT_EXECUTE` parameters.
//!
//! Per statement the server remembers the parameter count, the parameter
//! types last bound, and long data received with `COM_STMT_SEND_LONG_DATA`.
//!
//! The parameter-type rule: after the null bitmap, `new_params_bound_flag`
//! says whether `2 * n` type bytes follow. Clients send the types on the
//! first execution and whenever they rebind; later executions (sysbench,
//! libmysqlclient) send flag 0 and no types, and the values must then be
//! read with the types remembered from the last execution that sent them.
//! Executing with flag 0 before any types were sent is an error
//! (`ER_WRONG_ARGUMENTS`), as in MySQL.
//!
//! A parameter that received long data takes its value from it (whatever
//! the null bitmap says) and has no bytes in the execute packet. Long data
//! is cleared after every execution and by `COM_STMT_RESET`.

use crate::error::MysqlError;
use crate::value::{decode_binary_param, Value};
use mysql_common::io::ParseBuf;
use std::collections::HashMap;

/// The unsigned bit in a parameter's flag byte.
const PARAM_UNSIGNED: u8 = 0x80;

/// One prepared statement's protocol state.
#[derive(Debug, Default)]
pub(crate) struct StmtState {
    params: u16,
    /// (type, flags) per parameter, from the last execution that sent them.
    types: Option<Vec<(u8, u8)>>,
    long_data: HashMap<u16, Vec<u8>>,
    long_data_bytes: usize,
    long_data_error: Option<MysqlError>,
}

impl StmtState {
    pub(crate) fn new(params: u16) -> Self {
        StmtState {
            params,
            ..StmtState::default()
        }
    }

    /// Appends `COM_STMT_SEND_LONG_DATA` bytes for parameter `param`. Errors
    /// are remembered and reported by the next execution (the command itself
    /// has no response).
    pub(crate) fn append_long_data(&mut self, param: u16, data: &[u8], limit: usize) {
        if param >= self.params {
            self.long_data_error = Some(MysqlError::wrong_arguments("mysqld_stmt_send_long_data"));
            return;
        }
        self.long_data_bytes += data.len();
        if self.long_data_bytes > limit {
            self.long_data_error = Some(MysqlError::new(
                crate::error::codes::ER_NET_PACKET_TOO_LARGE,
                "08S01",
                "Parameter of prepared statement which is set through mysql_send_long_data() is longer than 'max_allowed_packet' bytes",
            ));
            self.long_data.clear();
            return;
        }
        self.long_data
            .entry(param)
            .or_default()
            .extend_from_slice(data);
    }

    /// Forgets long data (after an execution, or `COM_STMT_RESET`).
    pub(crate) fn clear_long_data(&mut self) {
        self.long_data.clear();
        self.long_data_bytes = 0;
        self.long_data_error = None;
    }

    /// Decodes the parameters of a `COM_STMT_EXECUTE` body positioned after
    /// the statement id, flags and iteration count.
    pub(crate) fn decode_params(
        &mut self,
        buf: &mut ParseBuf<'_>,
    ) -> Result<Vec<Value>, MysqlError> {
        const CMD: &str = "mysqld_stmt_execute";
        if let Some(err) = self.long_data_error.take() {
            return Err(err);
        }
        let n = usize::from(self.params);
        if n == 0 {
            return Ok(Vec::new());
        }
        let bitmap = buf
            .checked_eat(n.div_ceil(8))
            .ok_or_else(|| MysqlError::wrong_arguments(CMD))?;
        let bound = buf
            .checked_eat_u8()
            .ok_or_else(|| MysqlError::wrong_arguments(CMD))?;
        match bound {
            0 => {}
            1 => {
                let raw = buf
                    .checked_eat(2 * n)
                    .ok_or_else(|| MysqlError::wrong_arguments(CMD))?;
                self.types = Some(raw.chunks_exact(2).map(|c| (c[0], c[1])).collect());
            }
            _ => return Err(MysqlError::wrong_arguments(CMD)),
        }
        let types = self
            .types
            .as_ref()
            .ok_or_else(|| MysqlError::wrong_arguments(CMD))?;
        let mut values = Vec::with_capacity(n);
        for (i, &(ty, flags)) in types.iter().enumerate() {
            if let Some(data) = self.long_data.remove(&(i as u16)) {
                values.push(long_data_value(ty, data));
                continue;
            }
            if bitmap[i / 8] & (1 << (i % 8)) != 0 {
                values.push(Value::Null);
                continue;
            }
            let value = decode_binary_param(ty, flags & PARAM_UNSIGNED != 0, buf)
                .ok_or_else(|| MysqlError::wrong_arguments(CMD))?;
            values.push(value);
        }
        Ok(values)
    }
}

/// The value of a parameter sent as long data: text for decimals, bytes
/// for everything else (long data is meant for strings and blobs).
fn long_data_value(ty: u8, data: Vec<u8>) -> Value {
    use crate::column::ColumnType::*;
    let decimal = ty == MYSQL_TYPE_NEWDECIMAL as u8 || ty == MYSQL_TYPE_DECIMAL as u8;
    match String::from_utf8(data) {
        Ok(text) if decimal => Value::Decimal(text),
        Ok(text) => Value::Bytes(text.into_bytes()),
        Err(e) => Value::Bytes(e.into_bytes()),
    }
}

/// The statements of one connection, by id.
#[derive(Debug, Default)]
pub(crate) struct Statements {
    by_id: HashMap<u32, StmtState>,
    last_id: u32,
}

impl Statements {
    /// A fresh id (ids are never reused within a connection; 0 is skipped).
    pub(crate) fn next_id(&mut self) -> u32 {
        self.last_id = self.last_id.wrapping_add(1).max(1);
        self.last_id
    }

    pub(crate) fn insert(&mut self, id: u32, state: StmtState) {
        self.by_id.insert(id, state);
    }

    pub(crate) fn get_mut(&mut self, id: u32) -> Option<&mut StmtState> {
        self.by_id.get_mut(&id)
    }

    pub(crate) fn remove(&mut self, id: u32) -> Option<StmtState> {
        self.by_id.remove(&id)
    }

    pub(crate) fn ids(&self) -> Vec<u32> {
        self.by_id.keys().copied().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::column::ColumnType::*;

    fn body(bitmap: &[u8], types: Option<&[(u8, u8)]>, values: &[u8]) -> Vec<u8> {
        let mut b = bitmap.to_vec();
        match types {
            Some(types) => {
                b.push(1);
                for &(t, f) in types {
                    b.extend_from_slice(&[t, f]);
                }
            }
            None => b.push(0),
        }
        b.extend_from_slice(values);
        b
    }

    #[test]
    fn types_are_remembered_for_executions_without_them() -> Result<(), MysqlError> {
        let mut st = StmtState::new(2);
        let types = [(MYSQL_TYPE_LONG as u8, 0), (MYSQL_TYPE_VAR_STRING as u8, 0)];
        let first = body(&[0], Some(&types), b"\x05\x00\x00\x00\x03abc");
        let v = st.decode_params(&mut ParseBuf(&first))?;
        assert_eq!(v, vec![Value::Int(5), Value::from("abc")]);
        // Second execution: flag 0, no types; the value bytes start right
        // after the flag.
        let second = body(&[0], None, b"\x07\x00\x00\x00\x01z");
        let v = st.decode_params(&mut ParseBuf(&second))?;
        assert_eq!(v, vec![Value::Int(7), Value::from("z")]);
        // NULL in the bitmap consumes no value bytes.
        let third = body(&[0b10], None, b"\xff\xff\xff\xff");
        let v = st.decode_params(&mut ParseBuf(&third))?;
        assert_eq!(v, vec![Value::Int(-1), Value::Null]);
        Ok(())
    }

    #[test]
    fn execute_without_any_types_is_an_error() {
        let mut st = StmtState::new(1);
        let b = body(&[0], None, b"\x01\x00\x00\x00");
        let err = st.decode_params(&mut ParseBuf(&b)).err();
        assert_eq!(err.map(|e| e.code), Some(1210));
    }

    #[test]
    fn unsigned_flag_and_truncation() {
        let mut st = StmtState::new(1);
        let b = body(&[0], Some(&[(MYSQL_TYPE_TINY as u8, 0x80)]), b"\xff");
        assert_eq!(
            st.decode_params(&mut ParseBuf(&b)).ok(),
            Some(vec![Value::UInt(255)])
        );
        let b = body(&[0], Some(&[(MYSQL_TYPE_LONGLONG as u8, 0)]), b"\x01\x02");
        assert!(st.decode_params(&mut ParseBuf(&b)).is_err());
        let b = [0u8]; // bitmap only, no bound flag
        assert!(st.decode_params(&mut ParseBuf(&b)).is_err());
    }

    #[test]
    fn long_data_replaces_the_packet_value() -> Result<(), MysqlError> {
        let mut st = StmtState::new(2);
        st.append_long_data(1, b"hello ", 100);
        st.append_long_data(1, b"world", 100);
        let types = [(MYSQL_TYPE_LONG as u8, 0), (MYSQL_TYPE_BLOB as u8, 0)];
        let b = body(&[0], Some(&types), b"\x01\x00\x00\x00");
        let v = st.decode_params(&mut ParseBuf(&b))?;
        assert_eq!(v, vec![Value::Int(1), Value::from("hello world")]);
        st.append_long_data(5, b"x", 100);
        assert_eq!(
            st.decode_params(&mut ParseBuf(&b)).err().map(|e| e.code),
            Some(1210)
        );
        st.clear_long_data();
        st.append_long_data(0, &[0u8; 101], 100);
        assert_eq!(
            st.decode_params(&mut ParseBuf(&b)).err().map(|e| e.code),
            Some(1153)
        );
        Ok(())
    }

    #[test]
    fn statement_ids_are_never_zero_or_reused() {
        let mut s = Statements::default();
        let a = s.next_id();
        let b = s.next_id();
        assert!(a != 0 && b != a);
    }
}
