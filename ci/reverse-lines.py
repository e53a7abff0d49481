"""Writes a copy of an .xplane.pb whose every line has its events in reverse order.

Works on the protobuf wire (XSpace.planes -> XPlane.lines -> XLine.events), leaving every
other field and byte as it was, so the copy holds the same events as the original. Used by
ci/line-order.sh to ask real xprof whether its tools depend on the events' order in a line.
Usage: ci/reverse-lines.py IN.xplane.pb OUT.xplane.pb
"""
import sys

def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1
        v |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            return v, i

def enc_varint(v):
    out = bytearray()
    while True:
        if v < 0x80:
            out.append(v); return bytes(out)
        out.append((v & 0x7f) | 0x80); v >>= 7

def fields(b):
    i = 0
    while i < len(b):
        start = i
        key, i = varint(b, i)
        wt = key & 7
        if wt == 0:
            _, i = varint(b, i)
        elif wt == 1:
            i += 8
        elif wt == 5:
            i += 4
        elif wt == 2:
            n, i = varint(b, i); i += n
        else:
            raise ValueError(wt)
        yield key >> 3, wt, b[start:i]

def payload(entry):
    _, i = varint(entry, 0)
    n, i = varint(entry, i)
    return entry[i:i + n]

def wrap(field, body):
    return enc_varint(field << 3 | 2) + enc_varint(len(body)) + body

def line(b):
    fs = list(fields(b))
    events = [e for f, wt, e in fs if f == 4]
    out, done = bytearray(), False
    for f, wt, e in fs:
        if f == 4:
            if not done:
                out += b"".join(reversed(events)); done = True
        else:
            out += e
    return bytes(out)

def plane(b):
    return b"".join(wrap(3, line(payload(e))) if f == 3 else e for f, wt, e in fields(b))

def space(b):
    return b"".join(wrap(1, plane(payload(e))) if f == 1 else e for f, wt, e in fields(b))

src, dst = sys.argv[1], sys.argv[2]
data = open(src, "rb").read()
open(dst, "wb").write(space(data))
