//! AS_MSG wire format: protocol constants, zero-copy message parsing and reply building.

/// Proto header version.
pub const PROTO_VERSION: u8 = 2;
/// Proto types.
pub const PROTO_INFO: u8 = 1;
pub const PROTO_MSG: u8 = 3;
pub const PROTO_COMPRESSED: u8 = 4;
/// Size of the AS_MSG header that follows the proto header.
pub const MSG_HEADER: usize = 22;

pub const INFO1_READ: u8 = 1;
pub const INFO1_GET_ALL: u8 = 1 << 1;
pub const INFO1_SHORT_QUERY: u8 = 1 << 2;
pub const INFO1_BATCH: u8 = 1 << 3;
pub const INFO1_NOBINDATA: u8 = 1 << 5;
pub const INFO1_COMPRESS_RESPONSE: u8 = 1 << 7;
pub const INFO2_WRITE: u8 = 1;
pub const INFO2_DELETE: u8 = 1 << 1;
pub const INFO2_GENERATION: u8 = 1 << 2;
pub const INFO2_GENERATION_GT: u8 = 1 << 3;
pub const INFO2_DURABLE_DELETE: u8 = 1 << 4;
pub const INFO2_CREATE_ONLY: u8 = 1 << 5;
pub const INFO2_RESPOND_ALL_OPS: u8 = 1 << 7;
pub const INFO3_LAST: u8 = 1;
pub const INFO3_PARTITION_DONE: u8 = 1 << 2;
pub const INFO3_UPDATE_ONLY: u8 = 1 << 3;
pub const INFO3_CREATE_OR_REPLACE: u8 = 1 << 4;
pub const INFO3_REPLACE_ONLY: u8 = 1 << 5;

/// Field types.
pub mod field {
    pub const RECORDS_PER_SECOND: u8 = 10;
    pub const NAMESPACE: u8 = 0;
    pub const SET: u8 = 1;
    pub const KEY: u8 = 2;
    pub const DIGEST: u8 = 4;
    pub const QUERY_ID: u8 = 7;
    pub const PID_ARRAY: u8 = 11;
    pub const DIGEST_ARRAY: u8 = 12;
    pub const MAX_RECORDS: u8 = 13;
    pub const BVAL_ARRAY: u8 = 15;
    pub const INDEX_NAME: u8 = 21;
    pub const INDEX_RANGE: u8 = 22;
    pub const INDEX_CONTEXT: u8 = 23;
    pub const INDEX_EXPRESSION: u8 = 24;
    pub const INDEX_TYPE: u8 = 26;
    pub const UDF_PACKAGE: u8 = 30;
    pub const UDF_FUNCTION: u8 = 31;
    pub const UDF_ARGLIST: u8 = 32;
    pub const UDF_OP: u8 = 33;
    pub const BATCH_INDEX: u8 = 41;
    pub const BATCH_INDEX_WITH_SET: u8 = 42;
    pub const FILTER_EXP: u8 = 43;
    /// Slots kept by [`super::Fields`]; higher types are accepted and ignored.
    pub const SLOTS: usize = 48;
}

/// Operation types.
pub mod op {
    pub const READ: u8 = 1;
    pub const WRITE: u8 = 2;
    pub const CDT_READ: u8 = 3;
    pub const CDT_MODIFY: u8 = 4;
    pub const ADD: u8 = 5;
    pub const EXP_READ: u8 = 7;
    pub const EXP_MODIFY: u8 = 8;
    pub const APPEND: u8 = 9;
    pub const PREPEND: u8 = 10;
    pub const TOUCH: u8 = 11;
    pub const BIT_READ: u8 = 12;
    pub const BIT_MODIFY: u8 = 13;
    pub const DELETE: u8 = 14;
    pub const HLL_READ: u8 = 15;
    pub const HLL_MODIFY: u8 = 16;
}

/// Input that is not a well-formed message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Malformed;

/// Bounds-checked big-endian reader over a byte slice.
#[derive(Debug, Clone, Copy)]
pub struct Reader<'a> {
    buf: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Self { buf }
    }

    /// Bytes not read yet.
    pub fn rest(&self) -> &'a [u8] {
        self.buf
    }

    pub fn take(&mut self, n: usize) -> Result<&'a [u8], Malformed> {
        if n > self.buf.len() {
            return Err(Malformed);
        }
        let (head, tail) = self.buf.split_at(n);
        self.buf = tail;
        Ok(head)
    }

    pub fn u8(&mut self) -> Result<u8, Malformed> {
        Ok(self.take(1)?[0])
    }

    pub fn u16(&mut self) -> Result<u16, Malformed> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    pub fn u32(&mut self) -> Result<u32, Malformed> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn u64(&mut self) -> Result<u64, Malformed> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_be_bytes(a))
    }
}

/// The 22-byte AS_MSG header.
#[derive(Debug, Clone, Copy, Default)]
pub struct Header {
    pub info1: u8,
    pub info2: u8,
    pub info3: u8,
    pub info4: u8,
    pub result_code: u8,
    pub generation: u32,
    pub ttl: u32,
    pub timeout: u32,
    pub n_fields: u16,
    pub n_ops: u16,
}

impl Header {
    pub fn parse(r: &mut Reader<'_>) -> Result<Header, Malformed> {
        let size = r.u8()?;
        if usize::from(size) != MSG_HEADER {
            return Err(Malformed);
        }
        Ok(Header {
            info1: r.u8()?,
            info2: r.u8()?,
            info3: r.u8()?,
            info4: r.u8()?,
            result_code: r.u8()?,
            generation: r.u32()?,
            ttl: r.u32()?,
            timeout: r.u32()?,
            n_fields: r.u16()?,
            n_ops: r.u16()?,
        })
    }
}

/// Message fields by type (the last occurrence wins).
#[derive(Debug, Clone, Copy)]
pub struct Fields<'a> {
    slots: [Option<&'a [u8]>; field::SLOTS],
}

impl<'a> Fields<'a> {
    pub fn parse(r: &mut Reader<'a>, count: u16) -> Result<Fields<'a>, Malformed> {
        Self::parse_with(r, count, false)
    }

    /// The fields of a batch message, read as a real node reads them: each field must start
    /// inside the message, and one that claims more bytes than remain holds what remains.
    /// (Clients on the Rust crate 1.x/2.x count the filter field that precedes the batch
    /// field in the batch field's length.)
    pub fn parse_batch(r: &mut Reader<'a>, count: u16) -> Result<Fields<'a>, Malformed> {
        Self::parse_with(r, count, true)
    }

    fn parse_with(
        r: &mut Reader<'a>,
        count: u16,
        clamp_to_end: bool,
    ) -> Result<Fields<'a>, Malformed> {
        let mut slots = [None; field::SLOTS];
        for _ in 0..count {
            let len = r.u32()? as usize;
            if len == 0 {
                return Err(Malformed);
            }
            let ftype = r.u8()?;
            let len = if clamp_to_end {
                (len - 1).min(r.rest().len())
            } else {
                len - 1
            };
            let data = r.take(len)?;
            if let Some(slot) = slots.get_mut(usize::from(ftype)) {
                *slot = Some(data);
            }
        }
        Ok(Fields { slots })
    }

    pub fn get(&self, ftype: u8) -> Option<&'a [u8]> {
        self.slots.get(usize::from(ftype)).copied().flatten()
    }
}

/// One operation of a message.
#[derive(Debug, Clone, Copy)]
pub struct Op<'a> {
    pub op: u8,
    pub ptype: u8,
    pub name: &'a [u8],
    pub data: &'a [u8],
}

/// Validated operations, decoded lazily.
#[derive(Debug, Clone, Copy)]
pub struct Ops<'a> {
    bytes: &'a [u8],
    count: u16,
}

impl<'a> Ops<'a> {
    /// Takes `count` operations from `r`, checking every length.
    pub fn parse(r: &mut Reader<'a>, count: u16) -> Result<Ops<'a>, Malformed> {
        let start = r.rest();
        let mut consumed = 0usize;
        for _ in 0..count {
            let size = r.u32()? as usize;
            let body = r.take(size)?;
            let name_len = usize::from(*body.get(3).ok_or(Malformed)?);
            if 4 + name_len > size {
                return Err(Malformed);
            }
            consumed += 4 + size;
        }
        Ok(Ops {
            bytes: start.get(..consumed).ok_or(Malformed)?,
            count,
        })
    }

    pub fn empty() -> Ops<'static> {
        Ops {
            bytes: &[],
            count: 0,
        }
    }

    pub fn len(&self) -> usize {
        usize::from(self.count)
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    pub fn iter(&self) -> OpsIter<'a> {
        OpsIter {
            r: Reader::new(self.bytes),
        }
    }
}

/// Iterator over validated operations.
pub struct OpsIter<'a> {
    r: Reader<'a>,
}

impl<'a> Iterator for OpsIter<'a> {
    type Item = Op<'a>;

    fn next(&mut self) -> Option<Op<'a>> {
        let size = self.r.u32().ok()? as usize;
        let body = self.r.take(size).ok()?;
        let (head, rest) = body.split_at_checked(4)?;
        let (name, data) = rest.split_at_checked(usize::from(head[3]))?;
        Some(Op {
            op: head[0],
            ptype: head[1],
            name,
            data,
        })
    }
}

/// A parsed message: header, fields and operations.
#[derive(Debug, Clone, Copy)]
pub struct Msg<'a> {
    pub header: Header,
    pub fields: Fields<'a>,
    pub ops: Ops<'a>,
}

impl<'a> Msg<'a> {
    /// Parses one message (without proto header) that must fill `body` exactly. A batch
    /// message is read as a real node reads one: its fields by [`Fields::parse_batch`], its
    /// operations (which no batch uses) not at all.
    pub fn parse(body: &'a [u8]) -> Result<Msg<'a>, Malformed> {
        let mut r = Reader::new(body);
        let header = Header::parse(&mut r)?;
        if header.info1 & INFO1_BATCH != 0 {
            return Ok(Msg {
                header,
                fields: Fields::parse_batch(&mut r, header.n_fields)?,
                ops: Ops::empty(),
            });
        }
        let fields = Fields::parse(&mut r, header.n_fields)?;
        let ops = Ops::parse(&mut r, header.n_ops)?;
        Ok(Msg {
            header,
            fields,
            ops,
        })
    }
}

/// Appends a proto header placeholder; returns its offset for [`end_frame`].
pub fn begin_frame(out: &mut Vec<u8>) -> usize {
    let at = out.len();
    out.extend_from_slice(&[0u8; 8]);
    at
}

/// Patches the proto header at `at` to cover everything written after it.
pub fn end_frame(out: &mut [u8], at: usize, ptype: u8) {
    let len = (out.len() - at - 8) as u64;
    let word = (u64::from(PROTO_VERSION) << 56) | (u64::from(ptype) << 48) | len;
    if let Some(slot) = out.get_mut(at..at + 8) {
        slot.copy_from_slice(&word.to_be_bytes());
    }
}

/// Bytes of reply messages gathered into one frame before it is sent (a real server sends
/// 128 KiB blocks).
pub const FRAME_CHUNK: usize = 128 * 1024;

/// Runs `body`, which writes reply messages to `out` and calls its `after_message` argument
/// after each: whole proto frames of about [`FRAME_CHUNK`] bytes go to `emit`, which sends and
/// clears them (false: the peer is gone, and `after_message` then returns false).
pub fn in_frames(
    out: &mut Vec<u8>,
    emit: &mut dyn FnMut(&mut Vec<u8>) -> bool,
    body: impl FnOnce(&mut Vec<u8>, &mut dyn FnMut(&mut Vec<u8>) -> bool),
) {
    let mut at = begin_frame(out);
    body(out, &mut |out| {
        if out.len() - at < FRAME_CHUNK {
            return true;
        }
        end_frame(out, at, PROTO_MSG);
        let sent = emit(out);
        at = begin_frame(out);
        sent
    });
    end_frame(out, at, PROTO_MSG);
}

/// Builder of one reply message: header first (patched at the end), then fields, then ops.
pub struct ReplyMsg {
    at: usize,
    n_fields: u16,
    n_ops: u16,
}

impl ReplyMsg {
    pub fn begin(out: &mut Vec<u8>) -> ReplyMsg {
        let at = out.len();
        out.extend_from_slice(&[0u8; MSG_HEADER]);
        ReplyMsg {
            at,
            n_fields: 0,
            n_ops: 0,
        }
    }

    pub fn field(&mut self, out: &mut Vec<u8>, ftype: u8, data: &[u8]) {
        let [a, b, c, d] = (data.len() as u32 + 1).to_be_bytes();
        out.reserve(5 + data.len());
        out.extend_from_slice(&[a, b, c, d, ftype]);
        out.extend_from_slice(data);
        self.n_fields += 1;
    }

    /// A field whose data is a particle type then `data` (a record's user key).
    pub fn typed_field(&mut self, out: &mut Vec<u8>, ftype: u8, ptype: u8, data: &[u8]) {
        let [a, b, c, d] = (data.len() as u32 + 2).to_be_bytes();
        out.reserve(6 + data.len());
        out.extend_from_slice(&[a, b, c, d, ftype, ptype]);
        out.extend_from_slice(data);
        self.n_fields += 1;
    }

    /// Adds a field ahead of the ops already written (fields precede ops on the wire).
    pub fn field_first(&mut self, out: &mut Vec<u8>, ftype: u8, data: &[u8]) {
        let mut bytes = Vec::with_capacity(5 + data.len());
        bytes.extend_from_slice(&(data.len() as u32 + 1).to_be_bytes());
        bytes.push(ftype);
        bytes.extend_from_slice(data);
        let at = self.at + MSG_HEADER;
        out.splice(at..at, bytes);
        self.n_fields += 1;
    }

    pub fn op(&mut self, out: &mut Vec<u8>, name: &[u8], ptype: u8, data: &[u8]) {
        let [a, b, c, d] = ((4 + name.len() + data.len()) as u32).to_be_bytes();
        out.reserve(8 + name.len() + data.len());
        out.extend_from_slice(&[a, b, c, d, op::READ, ptype, 0, name.len() as u8]);
        out.extend_from_slice(name);
        out.extend_from_slice(data);
        self.n_ops += 1;
    }

    /// Drops fields and ops written so far (used when an error aborts the message).
    pub fn discard_body(&mut self, out: &mut Vec<u8>) {
        out.truncate(self.at + MSG_HEADER);
        self.n_fields = 0;
        self.n_ops = 0;
    }

    /// Writes the header: `info3` flags, result code, generation, void time, and the value of
    /// the timeout slot (the batch index in batch replies).
    pub fn finish(
        self,
        out: &mut [u8],
        info3: u8,
        result: u8,
        generation: u32,
        void_time: u32,
        slot: u32,
    ) {
        let mut h = [0u8; MSG_HEADER];
        h[0] = MSG_HEADER as u8;
        h[3] = info3;
        h[5] = result;
        h[6..10].copy_from_slice(&generation.to_be_bytes());
        h[10..14].copy_from_slice(&void_time.to_be_bytes());
        h[14..18].copy_from_slice(&slot.to_be_bytes());
        h[18..20].copy_from_slice(&self.n_fields.to_be_bytes());
        h[20..22].copy_from_slice(&self.n_ops.to_be_bytes());
        if let Some(slot) = out.get_mut(self.at..self.at + MSG_HEADER) {
            slot.copy_from_slice(&h);
        }
    }
}

/// Appends a header-only message (e.g. an error or the LAST marker).
pub fn header_only(out: &mut Vec<u8>, info3: u8, result: u8, slot: u32) {
    ReplyMsg::begin(out).finish(out, info3, result, 0, 0, slot);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg_bytes(fields: &[(u8, &[u8])], ops: &[(u8, u8, &[u8], &[u8])]) -> Vec<u8> {
        let mut v = vec![22u8, 1, 0, 0, 0, 0];
        v.extend_from_slice(&[0; 12]);
        v.extend_from_slice(&(fields.len() as u16).to_be_bytes());
        v.extend_from_slice(&(ops.len() as u16).to_be_bytes());
        for (t, d) in fields {
            v.extend_from_slice(&(d.len() as u32 + 1).to_be_bytes());
            v.push(*t);
            v.extend_from_slice(d);
        }
        for (o, p, n, d) in ops {
            v.extend_from_slice(&((4 + n.len() + d.len()) as u32).to_be_bytes());
            v.extend_from_slice(&[*o, *p, 0, n.len() as u8]);
            v.extend_from_slice(n);
            v.extend_from_slice(d);
        }
        v
    }

    #[test]
    fn parses_fields_and_ops() {
        let b = msg_bytes(
            &[(0, b"test"), (1, b"s")],
            &[(1, 0, b"a", b""), (2, 3, b"bb", b"xy")],
        );
        let m = Msg::parse(&b).expect("valid");
        assert_eq!(m.fields.get(field::NAMESPACE), Some(&b"test"[..]));
        assert_eq!(m.fields.get(field::SET), Some(&b"s"[..]));
        let ops: Vec<_> = m.ops.iter().collect();
        assert_eq!(ops.len(), 2);
        assert_eq!(ops[1].name, b"bb");
        assert_eq!(ops[1].data, b"xy");
        assert_eq!(ops[1].ptype, 3);
    }

    #[test]
    fn rejects_truncated_and_bad_lengths() {
        let b = msg_bytes(&[(0, b"test")], &[(1, 0, b"abc", b"")]);
        for cut in 0..b.len() {
            assert!(Msg::parse(&b[..cut]).is_err(), "cut at {cut}");
        }
        let mut bad = b.clone();
        bad[22..26].copy_from_slice(&0u32.to_be_bytes());
        assert!(Msg::parse(&bad).is_err());
    }

    #[test]
    fn batch_field_overrunning_the_message_holds_what_remains() {
        // As a Rust crate 1.x/2.x client sends it: the batch field's length also counts the
        // filter field before it.
        let mut b = msg_bytes(
            &[(field::FILTER_EXP, b"xyz"), (field::BATCH_INDEX, b"rows")],
            &[],
        );
        b[1] = INFO1_READ | INFO1_BATCH;
        let batch_len_at = MSG_HEADER + 4 + 4;
        b[batch_len_at..batch_len_at + 4].copy_from_slice(&(5u32 + 4 + 8).to_be_bytes());
        let m = Msg::parse(&b).expect("served as a real node serves it");
        assert_eq!(m.fields.get(field::BATCH_INDEX), Some(&b"rows"[..]));
        assert_eq!(m.fields.get(field::FILTER_EXP), Some(&b"xyz"[..]));
        b[1] = INFO1_READ;
        assert!(Msg::parse(&b).is_err(), "other messages keep exact lengths");
    }

    #[test]
    fn reply_round_trips() {
        let mut out = Vec::new();
        let at = begin_frame(&mut out);
        let mut r = ReplyMsg::begin(&mut out);
        r.op(&mut out, b"x", 1, &7i64.to_be_bytes());
        r.finish(&mut out, 0, 0, 3, 9, 0);
        end_frame(&mut out, at, PROTO_MSG);
        let m = Msg::parse(&out[8..]).expect("valid");
        assert_eq!(m.header.generation, 3);
        assert_eq!(m.header.ttl, 9);
        assert_eq!(m.ops.iter().next().map(|o| o.data.len()), Some(8));
        assert_eq!(
            u64::from_be_bytes(out[..8].try_into().unwrap()) & 0xFFFF_FFFF_FFFF,
            (out.len() - 8) as u64
        );
    }
}
