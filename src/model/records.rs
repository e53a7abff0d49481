//! Runtime records held in chunks of at most [`CHUNK`], from the stores to the join.
//!
//! The stores fill fixed-size chunks on the delivery thread; keeping those chunks (instead of
//! copying them into one vector at collection) lets the join free each chunk once its records
//! have become events, without a copy: a million kernel records are 112 MB. A record's
//! *position* is `chunk * CHUNK + offset`: positions are unique and in record order, though not
//! dense where a chunk is not full.

pub use crate::store::chunked::CHUNK;

#[derive(Debug, Clone)]
pub struct Records<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for Records<T> {
    fn default() -> Self {
        Records {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Records<T> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, v: T) {
        match self.chunks.last_mut() {
            Some(c) if c.len() < CHUNK => c.push(v),
            _ => {
                let mut c = Vec::with_capacity(CHUNK);
                c.push(v);
                self.chunks.push(c);
            }
        }
        self.len += 1;
    }

    /// Takes a chunk as it is (no copy); one longer than [`CHUNK`] is split.
    pub fn append_chunk(&mut self, mut chunk: Vec<T>) {
        while chunk.len() > CHUNK {
            let rest = chunk.split_off(CHUNK);
            self.len += chunk.len();
            self.chunks.push(chunk);
            chunk = rest;
        }
        if !chunk.is_empty() {
            self.len += chunk.len();
            self.chunks.push(chunk);
        }
    }

    /// Moves every chunk of `other` to the end of this one.
    pub fn append(&mut self, other: Records<T>) {
        self.len += other.len;
        self.chunks
            .extend(other.chunks.into_iter().filter(|c| !c.is_empty()));
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn clear(&mut self) {
        self.chunks.clear();
        self.len = 0;
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.chunks.iter().flatten()
    }

    /// Every record with its position.
    pub fn positions(&self) -> impl Iterator<Item = (usize, &T)> {
        self.chunks.iter().enumerate().flat_map(|(c, chunk)| {
            chunk
                .iter()
                .enumerate()
                .map(move |(o, r)| (c * CHUNK + o, r))
        })
    }

    /// The record at `position`.
    pub fn get(&self, position: usize) -> Option<&T> {
        self.chunks.get(position / CHUNK)?.get(position % CHUNK)
    }

    /// The chunks, chunk `i` holding positions `i * CHUNK ..`.
    pub fn into_chunks(self) -> Vec<Vec<T>> {
        self.chunks
    }
}

impl<T> From<Vec<T>> for Records<T> {
    fn from(v: Vec<T>) -> Self {
        let mut r = Records::new();
        r.extend(v);
        r
    }
}

impl<T> Extend<T> for Records<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for v in iter {
            self.push(v);
        }
    }
}

impl<T> FromIterator<T> for Records<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut r = Records::new();
        r.extend(iter);
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_address_records_across_partial_chunks() {
        let mut r: Records<usize> = (0..CHUNK + 3).collect();
        r.append_chunk(vec![100, 101]);
        r.append_chunk(Vec::new());
        r.append_chunk((0..CHUNK + 1).map(|i| 1000 + i).collect());
        r.push(7);
        assert_eq!(r.len(), CHUNK + 3 + 2 + CHUNK + 1 + 1);
        assert_eq!(r.iter().count(), r.len());
        for (p, v) in r.positions() {
            assert_eq!(r.get(p), Some(v));
        }
        let ps: Vec<usize> = r.positions().map(|(p, _)| p).collect();
        assert!(
            ps.windows(2).all(|w| w[0] < w[1]),
            "positions in record order"
        );
        assert_eq!(r.get(CHUNK + 3), None, "a hole after a partial chunk");
        let chunks = r.clone().into_chunks();
        assert!(chunks.iter().all(|c| !c.is_empty() && c.len() <= CHUNK));
        let mut s = Records::from(vec![1, 2]);
        s.append(r);
        assert_eq!(s.len(), 2 + CHUNK + 3 + 2 + CHUNK + 1 + 1);
        s.clear();
        assert!(s.is_empty() && s.iter().next().is_none());
    }
}
