//! The protobuf wire format, as the XPlane writer and the merge of windows write and read it
//! beside prost: varints, field keys, length-delimited entries (with the padded length of an
//! entry written before its length is known), cursors over a message's fields in memory and
//! in a file, the check that bytes copied as they are decode as prost decodes them, and the
//! field numbers of `proto/xplane.proto`'s messages ([`xplane`]). No other module of the crate
//! writes or reads a varint or a key by hand.
//!
//! Why not prost alone: prost encodes a message from its struct and decodes a message into
//! one, whole. The writer needs what that cannot do:
//!
//! * an event is encoded as it is added (`xplane::builder::LineBuilder`), with no `XEvent` or
//!   `XStat` struct, and a line's encoded events are spliced between the line's own fields,
//!   which prost encodes ([`frame::around_repeated`]);
//! * a plane's lines are written to the output (or a file beside it) while the plane is
//!   built, before its length is known: the length is left as a varint padded to
//!   [`PADDED_LEN`] bytes and filled in at the end ([`padded_varint`]);
//! * the merge indexes a file's planes and lines without decoding their events
//!   ([`FileFields`]), and copies an event's bytes into its output as they are, after
//!   checking that prost would decode them ([`check`]).
//!
//! prost's `encoding` module gives the primitives, and they are used wherever they cost
//! nothing: `decode_varint` in the cursor over a message in memory ([`Fields`]),
//! `encode_varint` where the merge writes a field anew, `encoded_len_varint`, `key_len`,
//! `WireType`, `message::encode` for the stats prost encodes from structs. Two loops of our
//! own remain, each where prost's costs more instructions per event: [`WireRun`], the
//! writer's encoder (prost's `encode_varint` appends through `BufMut`, a capacity check and a
//! length update per byte, where a run reserves once and writes an event's keys, varints and
//! stats into the vector's spare room), and [`varint_at`], which the checks of copied bytes and the
//! file reader use (prost's `decode_varint` first checks the slice's last byte, then calls
//! its unrolled decoder: more than the one to three bytes of a typical key, id or time
//! take). Both follow prost's rules, and their tests check them against prost.
//!
//! Other crates offer no more: rust-protobuf's coded streams are a second protobuf runtime
//! beside prost and write a length only once the size is known; varint crates
//! (`integer-encoding`, `leb128`) cover the varints alone, which prost already does; none pads
//! a length to fill in later or splices encoded entries into a message.

pub mod check;
mod cursor;
mod frame;
mod varint;
pub mod xplane;

pub use cursor::{FieldValue, Fields, FileFields, RawField};
pub use frame::{
    around_repeated, entry_len, padded_entry_head, padded_varint, write_entry_head,
    write_padded_entry_head, Field, PADDED_LEN,
};
pub use varint::{invalid, varint_at, varints, WireRun, WIRE_RUN_BYTES};
